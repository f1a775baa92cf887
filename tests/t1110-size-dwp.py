#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits[,symbols]` of a split-DWARF program whose
.dwo files were packed into FILE.dwp (binutils' dwp, llvm-dwp) and
deleted, as Chromium, LLVM and other large C++ projects ship them.

What a .dwo gives memsz is its split unit: the unit's name (without it
the skeleton's DW_AT_dwo_name, "a.dwo") and its variables with a static
address, whose data then go to the unit (without --disasm: the .dwo is
their only source). libdw 0.188 cannot read a .dwp; memsz reads its
.debug_cu_index (DWARF 5's version 5, GNU's version 2 for DWARF 4) and
hands libdw each unit's contributions.

Fixtures: two C files and a C++ one, built with clang -gsplit-dwarf
(DWARF 5) packed by llvm-dwp, and with clang and gcc -gdwarf-4
-gsplit-dwarf packed by dwp and by llvm-dwp; C++ type units
(-fdebug-types-section, .debug_tu_index) from g++ DWARF 4 + dwp and
clang++ DWARF 5 + llvm-dwp. (gcc's DWARF 5 .dwo files cannot be packed
here: binutils 2.40's dwp does not do it the same way twice (it dropped
.debug_info.dwo, kept it, or died of SIGSEGV, from run to run), and
llvm-dwp 14 does not end; the note for a package without
.debug_info.dwo is checked on one made so with objcopy.) Ground truth:
  - the rows (csv, --no-disasm) with the .dwo files deleted and FILE.dwp
    there are those with the .dwo files there;
  - the units' labels are the DW_AT_name of the compile units
    `llvm-dwarfdump --debug-info FILE.dwp` shows, and each global
    variable there has, under its unit, the VM size `nm -S` gives it;
  - a hostile .dwp (its .debug_cu_index patched: a row out of its section,
    a size past it, an id in two slots, a slot past the units, huge slot
    or unit counts, an unknown column) is sized (exit 0, FILE SIZE sums to
    the file, the VM total unchanged) with a note, the units it names not
    read (their .dwo names as labels), the others still read;
  - stripped, its skeletons in a debug file found by .gnu_debuglink: the
    .dwp is found beside the file and beside the debug file.
  - --by inlines does not read the .dwp (its footer does not name it)
    and no split unit is noted as not found (none is read for it);
  - a variable whose type is in a type unit is under its unit with nm
    -S's size; with .debug_tu_index removed, or its slots' rows rotated
    (each signature naming another type unit), a note counts it and it
    is not sized from the wrong type. (From the .dwo files: t1111);
  - a package compressed (objcopy), without .debug_info.dwo, whose
    .debug_str.dwo covers the whole file, or a FIFO at FILE.dwp: a note
    saying which, its units unread.
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

SOURCES = {
    "a.c": "int table_a[100] = { 1 };\nstatic int counter_a;\n"
           "int fa1(int x) { static int calls; calls++; counter_a += x;\n"
           "  return table_a[x % 100] + calls + counter_a; }\n",
    "b.c": "const char msg_b[64] = \"hello\";\ndouble vals_b[33];\n"
           "int fc(int);\nint fa1(int);\n"
           "int main(int c, char **v) { vals_b[c & 31] += 1.5;\n"
           "  return fa1(c) + fc(c) + msg_b[c & 7]; }\n",
    "c.cc": "namespace ns { int arr_c[50] = {1}; struct S { long v[5]; };\n"
            "S s_c; }\nstatic int cnt_c;\n"
            "extern \"C\" int fc(int x) { ns::s_c.v[x & 3]++; cnt_c++;\n"
            "  return ns::arr_c[x % 50] + (int)ns::s_c.v[1]; }\n",
}


LLVM_DWP = lib.llvm_tool("llvm-dwp")
DUMP = lib.llvm_tool("llvm-dwarfdump")
VARIANTS = [  # name, C compiler, C++ compiler, flags, packer
    ("clang-dwarf5-llvm-dwp", "clang", "clang++", [], LLVM_DWP),
    ("clang-dwarf4-dwp", "clang", "clang++", ["-gdwarf-4"], "dwp"),
    ("gcc-dwarf4-dwp", "gcc", "g++", ["-gdwarf-4"], "dwp"),
    ("gcc-dwarf4-llvm-dwp", "gcc", "g++", ["-gdwarf-4"], LLVM_DWP),
]
BYS = ("compileunits", "compileunits,symbols")


def one(err):
    """stderr's last 300 characters on one line."""
    return err.strip()[-300:].replace("\n", " | ")


def size(by, path):
    """The rows of `memsz size --no-disasm --by BY` as tuples, its stderr
    and its VM total; checks exit 0, no sanitizer report, FILE SIZE sums
    to the file's size."""
    r = subprocess.run([MEMSZ, "size", "--no-disasm", "--by", by,
                        "--format", "csv", "-n", "0", path],
                       capture_output=True, text=True)
    name = f"{path} --by {by}"
    check("Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
          f"{name}: no sanitizer report: {one(r.stderr)}")
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
          f"{one(r.stderr)})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(path),
          f"{name}: the rows' FILE SIZE sums to the file's size")
    tuples = sorted(tuple(x.values()) for x in rows)
    return rows, tuples, r.stderr, sum(int(x["vm_size"]) for x in rows)


def unit_labels(rows):
    return {x["compileunits"] for x in rows
            if not x["compileunits"].startswith(("[", "LOAD #"))}


def dwarf_units(dwp):
    """{unit name: [global variable names]} from llvm-dwarfdump
    --debug-info of the .dwp (variables with a DW_AT_location)."""
    out = subprocess.run([DUMP, "--debug-info", dwp], capture_output=True,
                         text=True, check=True).stdout
    units, cur, var = {}, None, None
    for line in out.splitlines():
        if "DW_TAG_compile_unit" in line:
            cur, var = "", None
            continue
        if "DW_TAG_" in line:
            var = {"loc": False} if "DW_TAG_variable" in line else None
            continue
        m = re.search(r'DW_AT_name\s+\("([^"]*)"\)', line)
        if m and cur == "":
            cur = m.group(1)
            units[cur] = []
        elif m and var is not None:
            var["name"] = m.group(1)
        if var is not None and "DW_AT_location" in line and "name" in var:
            units[cur].append(var["name"])
            var = None
    return units


def nm_objects():
    """{demangled name: size} of the data symbols nm -S -C gives prog."""
    out = subprocess.run(["nm", "-S", "-C", "prog"], capture_output=True,
                         text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split(None, 3)
        if len(f) == 4 and f[2] in "DdBbRr":
            got[f[3]] = int(f[1], 16)
    return got


def ground_truth(name, rows):
    """The units and their variables' sizes against llvm-dwarfdump and nm."""
    units = dwarf_units("prog.dwp")
    check(len(units) == 3, f"{name}: llvm-dwarfdump shows 3 units in the "
          f".dwp ({sorted(units)})")
    check(unit_labels(rows) == set(units),
          f"{name}: the units' labels are the .dwp's DW_AT_names "
          f"({sorted(unit_labels(rows))} vs {sorted(units)})")
    syms, vm = nm_objects(), {}
    for x in rows:
        key = (x["compileunits"], x["symbols"])
        vm[key] = vm.get(key, 0) + int(x["vm_size"])
    seen = 0
    for unit, names in units.items():
        for v in names:
            hits = [s for s in syms if s == v or s.endswith("::" + v)]
            if len(hits) != 1:
                continue
            seen += 1
            check(vm.get((unit, hits[0])) == syms[hits[0]],
                  f"{name}: {hits[0]} under {unit}: VM "
                  f"{vm.get((unit, hits[0]))}, nm -S {syms[hits[0]]}")
    check(seen >= 5, f"{name}: at least 5 variables checked ({seen})")


def index_of(dwp, name=".debug_cu_index"):
    """(file offset, bytes) of the .dwp's index name."""
    _, off, sz, _ = lib.sections(dwp)[name]
    return off, bytearray(open(dwp, "rb").read())


def patch(data, off, what):
    """A copy of the .dwp bytes data with its index (at off) patched: what
    names the defect; returns (bytes, units expected unread, note)."""
    b = bytearray(data)
    ncols, nunits, nslots = struct.unpack_from("<III", b, off + 4)
    par = off + 16 + 8 * nslots
    cols = par + 4 * nslots
    offs = cols + 4 * ncols
    sizes = offs + 4 * ncols * nunits
    used = [s for s in range(nslots)
            if struct.unpack_from("<I", b, par + 4 * s)[0]]
    bad = "units of its index not read"
    corrupt = "not read: its unit index"
    if what == "row out of its section":
        struct.pack_into("<I", b, offs, 0xffffff00)
        return b, 1, bad
    if what == "size past its section":
        struct.pack_into("<I", b, sizes, 0xfffffff0)
        return b, 1, bad
    if what == "an id in two slots":
        sig = b[off + 16 + 8 * used[0]:off + 24 + 8 * used[0]]
        b[off + 16 + 8 * used[1]:off + 24 + 8 * used[1]] = sig
        return b, 2, bad
    if what == "a slot past the units":
        struct.pack_into("<I", b, par + 4 * used[0], 0x7fffffff)
        return b, 1, bad
    if what == "2^32-1 slots":
        struct.pack_into("<I", b, off + 12, 0xffffffff)
        return b, 3, corrupt
    if what == "more units than slots":
        struct.pack_into("<I", b, off + 8, nslots + 1)
        return b, 3, corrupt
    if what == "an unknown column":
        struct.pack_into("<I", b, cols, 9)
        return b, 3, corrupt
    raise ValueError(what)


HOSTILE = ("row out of its section", "size past its section",
           "an id in two slots", "a slot past the units", "2^32-1 slots",
           "more units than slots", "an unknown column")


def section_header(data, name):
    """The file offset of section name's ELF64 little-endian header in
    data (bytes of an ELF file)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shentsize * shstrndx
                                 + 24)
    for i in range(shnum):
        h = shoff + shentsize * i
        at = stroff + struct.unpack_from("<I", data, h)[0]
        if data[at:data.index(b"\0", at)] == name.encode():
            return h
    raise ValueError(name)


def repack(what, good):
    """Write prog.dwp from the good one (path good) as what names: its
    .debug_str.dwo claiming the whole file, its sections compressed, its
    .debug_info.dwo dropped, a FIFO; returns (units unread, note)."""
    os.unlink("prog.dwp")
    if what == "a section over the whole file":
        b = bytearray(open(good, "rb").read())
        h = section_header(b, ".debug_str.dwo")
        struct.pack_into("<QQ", b, h + 24, 0, len(b))
        open("prog.dwp", "wb").write(b)
        return 3, "not read: two of its DWARF sections share bytes"
    if what == "compressed":
        subprocess.run(["objcopy", "--compress-debug-sections=zlib", good,
                        "prog.dwp"], check=True)
        if "C" not in lib.sections("prog.dwp")[".debug_info.dwo"][3]:
            lib.skip_part("objcopy does not compress .debug_*.dwo")
            return None, None
        return 3, "sections are compressed, which memsz does not read"
    if what == "no .debug_info.dwo":
        subprocess.run(["objcopy", "--remove-section", ".debug_info.dwo",
                        good, "prog.dwp"], check=True)
        return 3, "has no .debug_info.dwo (its index has no info column"
    if what == "a FIFO":
        os.mkfifo("prog.dwp")
        return 3, "not read: not a regular file"
    raise ValueError(what)


REPACKED = ("a section over the whole file", "compressed",
            "no .debug_info.dwo", "a FIFO")


def hostile(name, vm_total):
    off, data = index_of("prog.dwp")
    shutil.copy("prog.dwp", "good.dwp")
    for what in HOSTILE + REPACKED:
        if what in REPACKED:
            unread, note = repack(what, "good.dwp")
            if note is None:
                continue
        else:
            b, unread, note = patch(data, off, what)
            open("prog.dwp", "wb").write(b)
        rows, _, err, vm = size("compileunits", "prog")
        check(note in err, f"{name}, {what}: the note says '{note}': "
              f"{one(err)}")
        check(vm == vm_total, f"{name}, {what}: VM total {vm} as with the "
              f"good .dwp ({vm_total})")
        dwo = {x for x in unit_labels(rows) if x.endswith(".dwo")}
        check(len(dwo) == unread and len(unit_labels(rows)) == 3,
              f"{name}, {what}: {unread} units unread, under their .dwo "
              f"names ({sorted(unit_labels(rows))})")
    os.unlink("prog.dwp")
    shutil.copy("good.dwp", "prog.dwp")


def build(cc, cxx, flags):
    for src, text in SOURCES.items():
        open(src, "w").write(text)
        comp = cxx if src.endswith(".cc") else cc
        subprocess.run([comp, "-O1", "-g"] + flags + ["-gsplit-dwarf", "-c",
                       src], check=True)
    subprocess.run([cxx, "-o", "prog", "a.o", "b.o", "c.o"], check=True)


def variant(tmp, name, cc, cxx, flags, packer, first):
    """One build: rows with the .dwo files, then with FILE.dwp only; the
    hostile and debug file checks on the first that packed. False if the
    packer failed."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    os.chdir(d)
    build(cc, cxx, flags)
    dwos = sorted(f for f in os.listdir(".") if f.endswith(".dwo"))
    check(len(dwos) == 3, f"{name}: 3 .dwo files made ({dwos})")
    with_dwo = {by: size(by, "prog") for by in BYS}
    check("not found" not in with_dwo[BYS[0]][2],
          f"{name}: the .dwo files are found")
    try:
        subprocess.run([packer, "-o", "prog.dwp"] + dwos, check=True,
                       timeout=120)
    except (subprocess.SubprocessError, OSError) as e:
        lib.skip_part(f"{name}: {packer} failed: {e}")
        return False
    for f in dwos:
        os.unlink(f)
    for by in BYS:
        _, tuples, err, vm = size(by, "prog")
        want = with_dwo[by][1]
        diff = set(tuples) ^ set(want)
        check(tuples == want, f"{name} --by {by}: the rows from prog.dwp "
              f"are those from the .dwo files ({len(diff)} differ: "
              f"{sorted(diff)[:4]})")
        check("3 split DWARF units from DWARF package 'prog.dwp'" in err
              and "not found" not in err,
              f"{name} --by {by}: the note names the .dwp: "
              f"{one(err)}")
    # --by inlines reads no split unit: the .dwp is not opened for it
    _, _, err, _ = size("inlines", "prog")
    check("from DWARF package" not in err and "prog.dwp" not in err,
          f"{name} --by inlines: the .dwp is not read for it: {one(err)}")
    check("not found" not in err,
          f"{name} --by inlines: no split unit is missing (none is read, "
          f"as with the .dwo files there): {one(err)}")
    rows = size(BYS[1], "prog")[0]
    ground_truth(name, rows)
    if first:
        hostile(name, with_dwo[BYS[0]][3])
        debug_file(name)
    return True


def debug_file(name):
    """The skeletons in a debug file (.gnu_debuglink beside the stripped
    file): FILE.dwp beside the file, then beside the debug file."""
    subprocess.run(["objcopy", "--only-keep-debug", "prog", "progs.debug"],
                   check=True)
    subprocess.run(["objcopy", "--strip-debug",
                    "--add-gnu-debuglink=progs.debug", "prog", "progs"],
                   check=True)
    units = set(dwarf_units("prog.dwp"))
    for dwp in ("progs.dwp", "progs.debug.dwp"):
        shutil.copy("prog.dwp", dwp)
        rows, _, err, _ = size("compileunits", "progs")
        found = re.search(r"3 split DWARF units from DWARF package "
                          r"'([^']*/)?" + re.escape(dwp) + "'", err)
        check(unit_labels(rows) == units and found,
              f"{name}: stripped, skeletons in its debug file, {dwp}: the "
              f"units are named from it ({sorted(unit_labels(rows))}): "
              f"{one(err)}")
        os.unlink(dwp)


TU_VARS = {"big_b": "t.cc", "single_u": "u.cc", "arr_u": "u.cc"}
TU_VARIANTS = [  # name, C++ compiler, flags, packer
    ("g++-dwarf4-types-dwp", "g++", ["-gdwarf-4"], "dwp"),
    ("clang++-dwarf5-types-llvm-dwp", "clang++", ["-gdwarf-5"], LLVM_DWP),
]


def rotate_tu_rows(dwp):
    """Rotate the rows the used slots of dwp's .debug_tu_index name, so
    that each type signature names the next type unit's row (the units
    then are not those looked up: refused, never sized as the wrong
    type)."""
    off, b = index_of(dwp, ".debug_tu_index")
    nslots, = struct.unpack_from("<I", b, off + 12)
    par = off + 16 + 8 * nslots
    used = [s for s in range(nslots)
            if struct.unpack_from("<I", b, par + 4 * s)[0]]
    rows = [struct.unpack_from("<I", b, par + 4 * s)[0] for s in used]
    for s, r in zip(used, rows[1:] + rows[:1]):
        struct.pack_into("<I", b, par + 4 * s, r)
    open(dwp, "wb").write(b)


def type_units(tmp):
    """Variables whose type is in a type unit (DW_FORM_ref_sig8, the
    package's .debug_tu_index): under their unit with nm -S's size; with
    the type units' index removed, a note counts them."""
    for name, cxx, flags, packer in TU_VARIANTS:
        if not packer or not shutil.which(cxx) or not shutil.which(packer):
            lib.skip_part(f"{name}: {cxx} or {packer} is not installed")
            continue
        lib.type_unit_prog(os.path.join(tmp, name), cxx, flags)
        try:
            subprocess.run([packer, "-o", "prog.dwp", "t.dwo", "u.dwo"],
                           check=True, timeout=120)
        except (subprocess.SubprocessError, OSError) as e:
            lib.skip_part(f"{name}: {packer} failed: {e}")
            continue
        if ".debug_tu_index" not in lib.sections("prog.dwp"):
            lib.skip_part(f"{name}: {packer} made no .debug_tu_index")
            continue
        os.unlink("t.dwo")
        os.unlink("u.dwo")
        syms = nm_objects()
        for dwp in ("with", "rotated", "without"):
            if dwp == "rotated":
                rotate_tu_rows("prog.dwp")
            if dwp == "without":
                subprocess.run(["objcopy", "--remove-section",
                                ".debug_tu_index", "prog.dwp"], check=True)
            rows, _, err, _ = size("compileunits,symbols", "prog")
            vm = {}
            for x in rows:
                key = (x["compileunits"], x["symbols"])
                vm[key] = vm.get(key, 0) + int(x["vm_size"])
            for var, unit in TU_VARS.items():
                got = vm.get((unit, var)) if dwp == "with" else \
                    vm.get(("[section .bss]", var))
                check(got == syms.get(var),
                      f"{name}, {dwp} .debug_tu_index: {var} "
                      f"{'under ' + unit if dwp == 'with' else 'unsized'}: "
                      f"VM {got}, nm -S {syms.get(var)}")
            note = "3 variables not sized, their type in a type unit"
            check((note in err) == (dwp != "with"),
                  f"{name}, {dwp} .debug_tu_index: the note counts the "
                  f"variables whose type unit is not there: {one(err)}")
        os.chdir("/")


def main():
    if not DUMP or not shutil.which("nm") or not shutil.which("readelf"):
        lib.skip("llvm-dwarfdump, nm or readelf is not installed")
    ran = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, cc, cxx, flags, packer in VARIANTS:
            if not packer or not shutil.which(cc) or not shutil.which(cxx) \
                    or not shutil.which(packer):
                lib.skip_part(f"{name}: {cc}, {cxx} or the packer is "
                              "not installed")
                continue
            # counted only if it packed: the hostile checks run on the
            # first variant that did, never skipped silently
            ran += variant(tmp, name, cc, cxx, flags, packer, not ran)
        type_units(tmp)
        os.chdir("/")
    if not ran:
        lib.skip_part("no variant packed: the hostile .dwp not checked")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
