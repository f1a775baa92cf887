#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz size --by compileunits,symbols: split DWARF whose type units gcc
puts each in a DWARF section of its own (-gsplit-dwarf
-fdebug-types-section: COMDAT groups), of which libdw 0.188 reads only the
first section of a name.

  - g++ DWARF 4 (each type unit in a .debug_types.dwo of its own), g++ and
    gcc DWARF 5 (each in a .debug_info.dwo of its own, the compile unit in
    the last one, which libdw then does not find at all), g++ DWARF 5
    -g3 (.debug_macro.dwo in pieces too: its first kept): each variable
    the .dwo has (llvm-dwarfdump or readelf --debug-dump=info:
    DW_TAG_variable with a DW_AT_location) is under its unit (the .dwo's DW_AT_name) with nm -S's
    size, no "not sized" note, and a note says the .dwo files were read
    joined; readelf -S must show a section in pieces, else SKIP;
  - the same from a package by binutils' dwp, the .dwo files moved away
    (2.40 drops gcc's DWARF 5 units, or packs them under DWO id 0: then a
    note must say the package has no .debug_info.dwo, or lacks the units
    of those ids; llvm-dwarfdump tells which); not llvm-dwp, which 14
    loops forever on gcc's DWARF 5 .dwo;
  - g++ DWARF 5 with a relative DW_AT_comp_dir ("sub", built in
    top/sub, prog in top), memsz run elsewhere on ../top/prog, whose sub/
    holds .dwo files of another build: the 5 variables sized from
    top/sub's .dwo files, where libdw looks (its debugdir: the real
    directory of prog);
  - g++ DWARF 5 whose two skeletons name the same .dwo: the note counts
    the .dwo once;
  - hostile .dwo files (g++ DWARF 4): a type unit's length past its
    section, a signature in two sections, a type_offset outside its unit,
    a piece of a terabyte, two pieces over the same bytes, a piece over
    the hole of a 1 GiB sparse .dwo (refused: more than 256 MiB joined;
    the base took 2 GB and 3 s for it): exit 0, no sanitizer report, each
    variable under its unit with nm -S's size or under [section .bss]
    with that size, and a note that counts those under [section .bss] (or,
    pieces sharing bytes, says the .dwo was not read joined, why, and
    which section is in pieces; the
    piece past the file has memsz's check of the .dwo files libdw would
    open leave the DWARF unread, with a note).

Not tested here (no deterministic way without a FUSE file system or a
sleep): a .dwo truncated while its pieces are read. Manual repro: a
piece moved over the hole of a 250 MiB sparse t.dwo (as "sparse" below,
smaller), `memsz size --by compileunits prog` started and `truncate -s
4096 t.dwo` 0.05-0.3 s later: the base (ELF_C_READ_MMAP, or libdw's
mapping for DWARF 4) dies of SIGBUS (rc 135); memsz reads with pread,
exits 0 and notes "not read joined: it changed (truncated or rewritten)
while it was read".
"""
import csv
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
if os.sep in MEMSZ:  # the test changes directory
    MEMSZ = os.path.abspath(MEMSZ)

# valid C and C++: five variables of five types, three in t, two in u
SOURCES = {
    "t": "struct A { int a[7]; };\nstruct B { long b[9]; char c; };\n"
         "#ifdef __cplusplus\nclass C { public: double d[5]; int e; };\n"
         "#else\nstruct C { double d[5]; int e; };\n#endif\n"
         "struct A va;\nstruct B vb;\n"
         "#ifdef __cplusplus\nC vc;\n#else\nstruct C vc;\n#endif\n"
         "int ft(int x) { return va.a[x % 7] + (int)vb.b[x % 9] +\n"
         "  (int)vc.d[x % 5]; }\n",
    "u": "struct D { int d[33]; };\nstruct E { char e[101]; };\n"
         "struct D vd;\nstruct E ve;\nint ft(int);\n"
         "int main(int c, char **v) { (void)v; vd.d[c & 3]++;\n"
         "  ve.e[c & 7]++; return ft(c) + vd.d[1] + ve.e[2]; }\n",
}
VARS = ("va", "vb", "vc", "vd", "ve")


def one(err):
    """stderr's lines about split DWARF on one line."""
    lines = [x for x in err.splitlines()
             if ".dwo" in x or "DWARF package" in x or "type unit" in x
             or "Sanitizer" in x or "runtime error" in x]
    return " | ".join(lines)[-700:] if lines else \
        err.strip()[-300:].replace("\n", " | ")


def size(name, prog="prog"):
    """{symbol: [(unit, VM size)]} of `memsz size --by
    compileunits,symbols` of prog, and its stderr; checks exit 0 and no
    sanitizer report."""
    r = subprocess.run([MEMSZ, "size", "--no-disasm", "--by",
                        "compileunits,symbols", "--format", "csv", "-n", "0",
                        prog], capture_output=True, text=True, timeout=300)
    check("Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
          f"{name}: no sanitizer report: {one(r.stderr)}")
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
          f"{one(r.stderr)})")
    rows = {}
    for x in csv.DictReader(r.stdout.splitlines()):
        if int(x["vm_size"]):
            rows.setdefault(x["symbols"], []).append(
                (x["compileunits"], int(x["vm_size"])))
    return rows, r.stderr


DUMP = lib.llvm_tool("llvm-dwarfdump")


def dwo_vars(dwo, src):
    """(whether the split compile unit of dwo names src, [its variables
    with a DW_AT_location]), from llvm-dwarfdump, else readelf
    --debug-dump=info (binutils 2.40's misreads the strings of g++'s
    DWARF 5 .dwo: it names the unit by its producer)."""
    if DUMP:
        out = subprocess.run([DUMP, "--debug-info", dwo],
                             capture_output=True, text=True,
                             check=True).stdout
    else:
        out = lib.readelf(["--debug-dump=info"], dwo)
    named, names, tag, name = False, [], None, None
    for line in out.splitlines():
        m = re.search(r"\bDW_TAG_(\w+)", line)
        if m:
            tag, name = m.group(1), None
            continue
        m = re.search(r'DW_AT_name\s+\("([^"]*)"\)', line) or \
            re.search(r"DW_AT_name\s*:\s*(?:\(\w+\)\s*)?"
                      r"(?:\(offset: 0x[0-9a-f]+\):\s*)?(.+?)\s*$", line)
        if m and tag == "compile_unit":
            named |= m.group(1) == src
        elif m and tag == "variable":
            name = m.group(1)
        if tag == "variable" and name and "DW_AT_location" in line:
            names.append(name)
            tag = None
    return named, names


def pieces(dwo):
    """[(name, file offset, size, section header offset)] of dwo's
    DWARF sections (an ELF64 little-endian file), in section order."""
    b = open(dwo, "rb").read()
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", b, 0x3c)
    hdr = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i)
           for i in range(shnum)]
    stroff = hdr[shstrndx][4]
    out = []
    for i, h in enumerate(hdr):
        name = b[stroff + h[0]:b.index(b"\0", stroff + h[0])].decode()
        if name.startswith(".debug_") and name.endswith(".dwo"):
            out.append((name, h[4], h[5], shoff + 64 * i))
    return out


def in_pieces(dwo, sec):
    return sum(p[0] == sec for p in pieces(dwo)) > 1


def build(d, cc, flags, lang, prog="prog"):
    os.makedirs(d)
    os.chdir(d)
    srcs = []
    for stem, text in SOURCES.items():
        open(f"{stem}.{lang}", "w").write(text)
        srcs.append(f"{stem}.{lang}")
    subprocess.run([cc, "-O1", "-g"] + flags + [
        "-fdebug-types-section", "-gsplit-dwarf", "-c"] + srcs, check=True)
    subprocess.run([cc, "-o", prog, "t.o", "u.o"], check=True)


def expected(lang, prog="prog"):
    """{variable: (unit, nm -S size)} of the variables of t.dwo and u.dwo,
    their unit the source file each was compiled from (t.LANG, u.LANG),
    which readelf must show as its DW_AT_name."""
    syms = lib.nm_sizes(prog)
    want = {}
    for stem in SOURCES:
        unit = f"{stem}.{lang}"
        named, names = dwo_vars(f"{stem}.dwo", unit)
        check(named, f"{stem}.dwo: readelf shows its unit named {unit}")
        for v in names:
            if v in syms:
                want[v] = (unit, syms[v])
    return want


def check_sized(name, want, rows, err, joined):
    check(sorted(want) == list(VARS),
          f"{name}: readelf shows the 5 variables in the .dwo files "
          f"({sorted(want)})")
    for v, (unit, n) in sorted(want.items()):
        check(rows.get(v) == [(unit, n)],
              f"{name}: {v} under {unit} with nm -S's {n} bytes "
              f"({rows.get(v)})")
    check("not sized" not in err and "not found" not in err,
          f"{name}: no note of variables or units not found: {one(err)}")
    if joined:
        check(re.search(r"2 \.dwo files read with their DWARF sections "
                        r"joined", err) is not None,
              f"{name}: a note says the 2 .dwo files were read joined: "
              f"{one(err)}")


def check_hostile(name, want, rows, err):
    """Each variable under its unit or [section .bss], with nm -S's size;
    the note counts those under [section .bss]."""
    unsized = 0
    for v, (unit, n) in sorted(want.items()):
        got = rows.get(v)
        unsized += got == [("[section .bss]", n)]
        check(got in ([(unit, n)], [("[section .bss]", n)]),
              f"{name}: {v} under {unit} or [section .bss] with nm -S's "
              f"{n} bytes ({got})")
    m = re.search(r"(\d+) variables of \.dwo files not sized", err)
    check((int(m.group(1)) if m else 0) == unsized and unsized,
          f"{name}: the note counts the {unsized} variables left unsized: "
          f"{one(err)}")


def dwo_ids(path):
    """The DWO ids of the units llvm-dwarfdump shows in path."""
    out = subprocess.run([DUMP, "--debug-info", path], capture_output=True,
                         text=True).stdout
    return {int(x, 16) for x in
            re.findall(r"(?:DWO_id =|DW_AT_GNU_dwo_id\s*\()\s*"
                       r"(0x[0-9a-f]+)", out)}


def index_ids(dwp):
    """The ids of dwp's unit index (llvm-dwarfdump --debug-cu-index)."""
    out = subprocess.run([DUMP, "--debug-cu-index", dwp],
                         capture_output=True, text=True).stdout
    return {int(x, 16) for x in
            re.findall(r"^\s*\d+\s+(0x[0-9a-f]+)\s", out, re.M)}


def from_dwp(name, want):
    """The variables from binutils' dwp's package of t.dwo and u.dwo, or,
    if it has not packed them under their ids (2.40 drops DWARF 5 units or
    writes id 0 for them), a note that says the package was not read or
    lacks them, and why."""
    if not shutil.which("dwp") or not DUMP:
        lib.skip_part(f"{name}: binutils' dwp or llvm-dwarfdump is not "
                      "installed")
        return
    # a CI run (ASan build, load ~4) once saw dwp exit non-zero without a
    # word, which 300 runs here did not repeat: it is run again then,
    # and only a failure three times in a row skips this part
    for _ in range(3):
        r = subprocess.run(["dwp", "-o", "prog.dwp", "t.dwo", "u.dwo"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            break
        print(f"# {name}: binutils' dwp exited {r.returncode}: "
              f"{r.stderr.strip()[-200:]}")
    if r.returncode != 0:
        lib.skip_part(f"{name}: binutils' dwp failed (exit "
                      f"{r.returncode}): {r.stderr.strip()[-200:]}")
        return
    missing = dwo_ids("prog") - index_ids("prog.dwp")
    os.mkdir("away")
    for dwo in ("t.dwo", "u.dwo"):
        os.rename(dwo, os.path.join("away", dwo))
    rows, err = size(name + " (dwp)")
    if ".debug_info.dwo" not in lib.sections("prog.dwp"):
        print(f"# {name}: binutils' dwp packed no compile unit")
        check("DWARF package 'prog.dwp' not read: it has no "
              ".debug_info.dwo" in err,
              f"{name} (dwp): a note says the package has no "
              f".debug_info.dwo: {one(err)}")
    elif missing:
        print(f"# {name}: binutils' dwp indexed {len(missing)} units "
              "under other ids (llvm-dwarfdump)")
        check(f"DWARF package 'prog.dwp': {len(missing)} skeleton units "
              "have no unit of their DWO id in it: " in err,
              f"{name} (dwp): a note says the package lacks "
              f"{len(missing)} units: {one(err)}")
    else:
        check("2 split DWARF units from DWARF package 'prog.dwp'" in err,
              f"{name}: both units from the package: {one(err)}")
        check_sized(name + " (dwp)", want, rows, err, False)
    for dwo in ("t.dwo", "u.dwo"):
        os.rename(os.path.join("away", dwo), dwo)
    os.rmdir("away")
    os.unlink("prog.dwp")


def patched(dwo, how):
    """Patch dwo (g++ DWARF 4) as how says; returns what was changed."""
    b = bytearray(open(dwo, "rb").read())
    types = [p for p in pieces(dwo) if p[0] == ".debug_types.dwo"]
    # DWARF 4 type unit header: unit_length 4, version 2, abbrev_offset
    # 4, address_size 1, type_signature 8, type_offset 4
    if how == "length":
        struct.pack_into("<I", b, types[1][1], 0xfffffff0)
    elif how == "signature":
        b[types[1][1] + 11:types[1][1] + 19] = \
            b[types[0][1] + 11:types[0][1] + 19]
    elif how == "type_offset":
        struct.pack_into("<I", b, types[1][1] + 19, 0x7ffffff0)
    elif how == "size":
        # the second piece's size past the file (a terabyte)
        struct.pack_into("<Q", b, types[1][3] + 32, 1 << 40)
    elif how == "overlap":
        # the second piece's header names the first's bytes
        struct.pack_into("<QQ", b, types[1][3] + 24, types[0][1],
                         types[0][2])
    elif how == "sparse":
        # the last piece moved over a hole of a 1 GiB sparse file: more
        # than memsz's 256 MiB bound joined, a few KiB on disk
        struct.pack_into("<QQ", b, types[-1][3] + 24, 8192,
                         (1 << 30) - 8192)
    open(dwo, "wb").write(b)
    if how == "sparse":
        os.truncate(dwo, 1 << 30)


def hostile(tmp):
    d = os.path.join(tmp, "hostile")
    build(d, "g++", ["-gdwarf-4"], "cc")
    want = expected("cc")
    if not in_pieces("t.dwo", ".debug_types.dwo"):
        lib.skip_part("hostile: g++ put its type units in one section")
        return
    orig = open("t.dwo", "rb").read()
    why = {"overlap": "two of its DWARF sections share bytes",
           "size": "its section headers are unsound",
           "sparse": "they are more than 256 MiB joined"}
    for how in ("length", "signature", "type_offset", "size", "overlap",
                "sparse"):
        patched("t.dwo", how)
        if how == "sparse" and os.stat("t.dwo").st_blocks > 64 << 11:
            lib.skip_part("hostile sparse: the file system wrote the "
                          "hole")
            open("t.dwo", "wb").write(orig)
            continue
        rows, err = size(f"hostile {how}")
        # memsz checks the .dwo files before libdw opens them: one with a
        # section past its end leaves the DWARF unread, with a note
        unread = how == "size" and re.search(
            r"DWARF not read: it names '[^']*/t\.dwo'.* file is truncated",
            err)
        if how in why and not unread:
            check(re.search(r"1 \.dwo files have their \.debug_types\.dwo "
                            r"in pieces .*not read joined: " + why[how],
                            err)
                  is not None,
                  f"hostile {how}: a note says t.dwo was not read joined "
                  f"and why: {one(err)}")
        if unread:
            for v, (unit, n) in sorted(want.items()):
                check(rows.get(v) == [("[section .bss]", n)],
                      f"hostile {how}: DWARF not read: {v} under [section "
                      f".bss] with nm -S's {n} bytes ({rows.get(v)})")
        else:
            check_hostile(f"hostile {how}", want, rows, err)
        open("t.dwo", "wb").write(orig)
    os.chdir("/")


def comp_dir(tmp):
    """g++ DWARF 5 built in top/sub with DW_AT_comp_dir "sub" (a relative
    one, -fdebug-prefix-map), prog in top, memsz run from elsewhere on
    ../top/prog: the .dwo files are where libdw looks, under the real
    directory of prog (top/sub), not under the working directory (where
    elsewhere/sub holds .dwo files of another build, with no unit of
    those ids)."""
    top = os.path.join(tmp, "compdir", "top")
    build(os.path.join(top, "sub"), "g++", [
        "-gdwarf-5", f"-fdebug-prefix-map={top}/sub=sub"], "cc",
        prog="../prog")
    if not in_pieces("t.dwo", ".debug_info.dwo"):
        lib.skip_part("comp_dir: g++ put no .debug_info.dwo in pieces")
        os.chdir("/")
        return
    want = expected("cc", "../prog")
    out = lib.readelf(["--debug-dump=info"], "../prog")
    check(re.search(r"DW_AT_comp_dir\s*:.*\bsub\s*$", out, re.M)
          is not None, "comp_dir: readelf shows DW_AT_comp_dir \"sub\"")
    build(os.path.join(tmp, "compdir", "elsewhere", "sub"), "g++",
          ["-gdwarf-5"], "cc")
    os.chdir("..")
    rows, err = size("comp_dir", "../top/prog")
    check_sized("comp_dir", want, rows, err, True)
    os.chdir("/")


def same_dwo(tmp):
    """g++ DWARF 5 whose two skeletons both name t.dwo (u.dwo's name
    patched in prog's strings): t.cc's variables sized, u.cc's under
    [section .bss] (t.dwo has no unit of u's DWO id), and the note counts
    1 .dwo file read joined, not one per skeleton."""
    build(os.path.join(tmp, "same"), "g++", ["-gdwarf-5"], "cc")
    if not in_pieces("t.dwo", ".debug_info.dwo"):
        lib.skip_part("same .dwo: g++ put no .debug_info.dwo in pieces")
        os.chdir("/")
        return
    want = expected("cc")
    b = open("prog", "rb").read()
    if b.count(b"u.dwo\0") != 1:
        lib.skip_part("same .dwo: prog does not name u.dwo once")
        os.chdir("/")
        return
    open("prog", "wb").write(b.replace(b"u.dwo\0", b"t.dwo\0"))
    rows, err = size("same .dwo")
    for v, (unit, n) in sorted(want.items()):
        exp = unit if unit == "t.cc" else "[section .bss]"
        check(rows.get(v) == [(exp, n)],
              f"same .dwo: {v} under {exp} with nm -S's {n} bytes "
              f"({rows.get(v)})")
    check(re.search(r": 1 \.dwo files read with their DWARF sections "
                    r"joined", err) is not None,
          f"same .dwo: the note counts 1 .dwo file joined: {one(err)}")
    check("1 split DWARF units (.dwo) not found" in err,
          f"same .dwo: a note says u's unit was not found: {one(err)}")
    os.chdir("/")


def main():
    if not shutil.which("readelf") or not shutil.which("nm"):
        lib.skip("readelf or nm is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        for name, cc, flags, lang, sec in (
                ("g++-dwarf4", "g++", ["-gdwarf-4"], "cc",
                 ".debug_types.dwo"),
                ("g++-dwarf5", "g++", ["-gdwarf-5"], "cc",
                 ".debug_info.dwo"),
                ("gcc-dwarf5", "gcc", ["-gdwarf-5"], "c",
                 ".debug_info.dwo"),
                # -g3: .debug_macro.dwo in pieces too
                ("g++-dwarf5-g3", "g++", ["-gdwarf-5", "-g3"], "cc",
                 ".debug_info.dwo")):
            if not shutil.which(cc):
                lib.skip_part(f"{name}: {cc} is not installed")
                continue
            build(os.path.join(tmp, name), cc, flags, lang)
            if not in_pieces("t.dwo", sec):
                lib.skip_part(f"{name}: {cc} put no {sec} in pieces")
                os.chdir("/")
                continue
            if "-g3" in flags:
                check(in_pieces("t.dwo", ".debug_macro.dwo"),
                      f"{name}: readelf shows .debug_macro.dwo in pieces")
            want = expected(lang)
            rows, err = size(name)
            check_sized(name, want, rows, err, True)
            from_dwp(name, want)
            os.chdir("/")
        if shutil.which("g++"):
            hostile(tmp)
            comp_dir(tmp)
            same_dwo(tmp)
        os.chdir("/")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
