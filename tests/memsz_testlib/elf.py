# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.elf: `memsz size` and the tools that are its ground
truth: readelf, nm, objdump, Bloaty, LLVM's tools; programs built here
with type units, DWARF by hand, or Fedora's MiniDebugInfo.
"""
import csv
import os
import platform
import re
import shutil
import subprocess
import tempfile

from .core import MEMSZ, check, run_ok, skip


def bloaty_path():
    """Bloaty, to compare with where it is built: $BLOATY, the build of
    bench/bench_size.py's recipe (/tmp/bloaty/build/bloaty) or PATH; None
    without one."""
    for p in (os.environ.get("BLOATY"), "/tmp/bloaty/build/bloaty",
              shutil.which("bloaty")):
        if p and os.access(p, os.X_OK):
            return p
    return None


def need_x86_tools(*tools):
    """Skips the test unless this machine is x86-64 (--disasm decodes
    x86-64 code only) and each of tools is on PATH."""
    if platform.machine() != "x86_64":
        skip("--disasm reads x86-64 code; this is %s" % platform.machine())
    for tool in tools:
        if not shutil.which(tool):
            skip("%s is not installed" % tool)


def asm_function(name, *insns):
    """The assembly lines of a global function name (with its .type and
    .size) made of the instructions insns."""
    return ["\t.globl %s" % name, "\t.type %s, @function" % name,
            "%s:" % name, *("\t" + i for i in insns),
            "\t.size %s, .-%s" % (name, name)]


def build_asm(src, out, flags):
    """out built by gcc -nostdlib flags from the assembly file src; skips
    the test if gcc cannot build it."""
    r = subprocess.run(["gcc", "-nostdlib", *flags, "-o", out, src],
                       capture_output=True, text=True)
    if r.returncode:
        skip("gcc cannot build the assembly: %s" % r.stderr.strip()[-200:])


def asm_layouts(name, layouts, data, check_layout):
    """For each (layout, code lines) of layouts: check_layout(tmp, layout,
    asm), asm the code in .text followed by data, in a temporary
    directory removed after; skips the test off x86-64 or without the
    tools that build and read the programs."""
    need_x86_tools("gcc", "as", "strip", "nm", "objdump", "readelf")
    tmp = tempfile.mkdtemp(prefix="memsz-%s-" % name)
    try:
        for layout, code in layouts.items():
            check_layout(tmp, layout,
                         "\t.text\n" + "\n".join(code) + "\n" + data)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_exec_stripped(tmp, layout, asm, stripped, ck):
    """(full, prog): the position-dependent static program of the
    assembly asm (entry point filler) built in tmp, and a copy of it
    without the symbols stripped; checks (ck: the test's check) that it
    is ET_EXEC."""
    src = os.path.join(tmp, layout + ".s")
    with open(src, "w") as f:
        f.write(asm)
    full = os.path.join(tmp, layout + "-full")
    build_asm(src, full, ["-no-pie", "-static", "-Wl,-e,filler"])
    prog = os.path.join(tmp, layout)
    run_ok(["strip", *[a for n in stripped for a in ("-N", n)],
            "-o", prog, full])
    ck(readelf(["-h"], prog).find("EXEC") >= 0,
       "the program is position-dependent (ET_EXEC)")
    return full, prog


def check_no_disasm_rodata(ck, prog, funcs):
    """Checks that with --no-disasm none of funcs owns a byte of prog's
    .rodata (ck: the test's check)."""
    plain = section_symbol_sizes(prog, ".rodata", ["--no-disasm"])
    ck(not any(fn in plain for fn in funcs),
       "--no-disasm: no function owns a byte of .rodata (%s)"
       % {fn: plain[fn] for fn in funcs if fn in plain})


def function_lines(prog):
    """{function: the lines of its body} of `objdump -d --no-show-raw-insn
    prog` (ground truth for what each function's instructions name)."""
    out, fn = {}, None
    for line in run_ok(["objdump", "-d", "--no-show-raw-insn",
                        prog]).stdout.splitlines():
        m = re.match(r"[0-9a-f]+ <(\S+)>:", line)
        if m:
            fn = m.group(1)
        elif fn and line.strip():
            out.setdefault(fn, []).append(line)
    return out


def lea_targets(prog, funcs):
    """{function of funcs: the address its first RIP-relative operand
    names, or in a position-dependent program the immediate its first mov
    loads or its first absolute memory operand} (objdump -d: ground truth
    for the code-to-data references)."""
    out, fn = {}, None
    for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", prog],
                               capture_output=True, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"[0-9a-f]+ <(\w+)>:", line)
        if m:
            fn = m.group(1)
            continue
        m = re.search(r"\(%rip\).*# ([0-9a-f]+)", line) or \
            re.search(r"\bmov\s+\$0x([0-9a-f]+),", line) or \
            re.search(r"\t\w+\s+0x([0-9a-f]+),", line)
        if fn in funcs and m and fn not in out:
            out[fn] = int(m.group(1), 16)
    return out


def llvm_tool(name):
    """name (an LLVM tool: llvm-dwp, llvm-dwarfdump) on PATH, else its
    versioned name (16, 15, 14), or None."""
    for n in (name, f"{name}-16", f"{name}-15", f"{name}-14"):
        if shutil.which(n):
            return n
    return None


# C++ whose types go to type units (-fdebug-types-section): Big2 the
# type of a variable, Outer of an array of them, Inner of Outer's member
TU_SOURCES = {
    "h.h": "struct Big2 { char c[300]; };\nstruct Inner { long v[7]; };\n"
           "struct Outer { Inner in[2]; int k; };\nint g2();\n",
    "t.cc": "#include \"h.h\"\nBig2 big_b[3];\n"
            "int main() { return big_b[1].c[2] + g2(); }\n",
    "u.cc": "#include \"h.h\"\nBig2 single_u;\nOuter arr_u[4];\n"
            "int g2() { return single_u.c[1] + arr_u[1].k; }\n",
}


def type_unit_prog(d, cxx, flags):
    """prog, t.dwo and u.dwo from TU_SOURCES, built by cxx -gsplit-dwarf
    -fdebug-types-section with flags in the new directory d, which
    becomes the current one."""
    os.mkdir(d)
    os.chdir(d)
    for src, text in TU_SOURCES.items():
        with open(src, "w") as f:
            f.write(text)
    subprocess.run([cxx, "-O1", "-g"] + flags + [
        "-fdebug-types-section", "-gsplit-dwarf", "-c", "t.cc", "u.cc"],
        check=True)
    subprocess.run([cxx, "-o", "prog", "t.o", "u.o"], check=True)


def readelf(args, path):
    """Stdout of `readelf -W args path`; raises if readelf fails."""
    return subprocess.run(["readelf", "-W"] + args + [path],
                          capture_output=True, text=True, check=True).stdout


def size_rows(obj, by):
    """The rows of `memsz size --by BY --format csv -n 0 OBJ` as dicts,
    and its stderr; checks it exits 0 and that the rows' FILE SIZE sums
    to the file's size (I1)."""
    r = subprocess.run([MEMSZ, "size", "--by", by, "--format", "csv", "-n",
                        "0", obj], capture_output=True, text=True)
    name = os.path.basename(obj)
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
          f"{r.stderr.strip()[-200:]})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(obj),
          f"{name}: the rows' FILE SIZE sums to the file's size")
    return rows, r.stderr


def section_symbol_sizes(obj, section, extra=()):
    """{symbol: (FILE SIZE, VM SIZE)} of section's rows of `memsz size
    EXTRA --by sections,symbols -n 0 --format csv OBJ`; checks it exits
    0."""
    r = subprocess.run([MEMSZ, "size", *extra, "--by", "sections,symbols",
                        "-n", "0", "--format", "csv", obj],
                       capture_output=True, text=True)
    check(r.returncode == 0, "memsz size %s exits 0 (%s)"
          % (" ".join(extra) or "(no option)",
             r.stderr.strip()[-200:] if r.returncode else "its notes"))
    return {x["symbols"]: (int(x["file_size"]), int(x["vm_size"]))
            for x in csv.DictReader(r.stdout.splitlines())
            if x["sections"] == section}


def unit_code_vm(rows, unit):
    """{symbol: VM SIZE} of unit's rows (of --by compileunits,sections,
    symbols) but the unwind tables': a function's row also holds its FDE
    of .eh_frame, as in a linked file (t1196 checks those), or its
    .ARM.exidx entry and .ARM.extab words (t1310)."""
    got = {}
    for x in rows:
        if (x["compileunits"] == unit and x["sections"] != ".eh_frame" and
                not x["sections"].startswith((".ARM.exidx", ".ARM.extab"))):
            got[x["symbols"]] = got.get(x["symbols"], 0) + int(x["vm_size"])
    return got


def dwarf_unit_name(obj):
    """The first unit's DW_AT_name as readelf -wi prints it (relocated,
    in a .o)."""
    out = readelf(["-wi"], obj)
    m = re.search(r"DW_TAG_compile_unit.*?DW_AT_name\s*:\s*(?:\([^)]*\)"
                  r"(?:\s*\([^)]*\))?:?\s*)?(\S+)\n", out, re.S)
    return m.group(1) if m else None


def nm_sizes(obj, names=None):
    """{symbol: st_size} of nm -S obj, for the symbols named in names
    (None: every symbol with a size)."""
    out = subprocess.run(["nm", "-S", obj], capture_output=True, text=True,
                         check=True).stdout
    return {f[3]: int(f[1], 16) for f in (x.split() for x in
                                          out.splitlines())
            if len(f) == 4 and (names is None or f[3] in names)}


def check_unit_symbols(obj, tag, named, dwarf_read=False):
    """The checks of a relocatable object's one unit a.c (t1192, t1194,
    t1195, t1197), tag naming it: readelf -wi names the unit a.c; its
    size_rows(--by compileunits,sections,symbols) (with dwarf_read: and
    memsz says nothing of DWARF not read) hold each symbol of named at
    the size nm -S gives it. Returns those rows and {symbol: VM SIZE} of
    the unit (unit_code_vm)."""
    want = dwarf_unit_name(obj)
    check(want == "a.c", f"{tag}: readelf -wi names the unit a.c ({want})")
    rows, err = size_rows(obj, "compileunits,sections,symbols")
    if dwarf_read:
        check("DWARF not read" not in err,
              f"{tag}: DWARF read ({err.strip()[-200:]})")
    got = unit_code_vm(rows, want)
    sizes = nm_sizes(obj, named)
    check(len(sizes) == len(named) and
          all(got.get(s) == n for s, n in sizes.items()),
          f"{tag}: the unit holds each symbol nm -S sizes, at its size "
          f"({sizes} vs {got})")
    return rows, got


def section_strings(path, name, addr):
    """[(address, string)] of the strings readelf -p finds in section name
    of path (loaded at addr), in address order."""
    out = []
    for line in readelf(["-p", name], path).splitlines():
        m = re.match(r"\s*\[\s*([0-9a-f]+)\]\s+(.*)$", line)
        if m:
            out.append((addr + int(m.group(1), 16), m.group(2)))
    return sorted(out)


def sections(path):
    """{name: (address, file offset, size, flags)} of path's section
    headers, from readelf -SW (the flags letters as readelf prints them:
    "C" for SHF_COMPRESSED, "A" for SHF_ALLOC...)."""
    out = {}
    for line in readelf(["-S"], path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)",
                     line)
        if m:
            out[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16),
                               int(m.group(4), 16), m.group(5))
    return out


def build_id(path):
    """The GNU build-id of ELF file path as readelf -n prints it, or
    None."""
    for line in readelf(["-n"], path).splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


# Fedora's find-debuginfo.sh (add_minidebug), step by step: the names of
# the defined dynamic symbols, the function symbols of the debug file,
# those not dynamic kept; the debug file with only those symbols, its
# .gdb_index and .comment removed, xz-compressed into .gnu_debugdata.
FEDORA_MINIDEBUG = r'''
set -e
nm -D "$BIN" --format=posix --defined-only | awk '{ print $1 }' | sort > "$T.dynsyms"
nm "$DBG" --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t") print $1 }' | sort > "$T.funcsyms"
if [ -n "$KEEP_ALL" ]; then cp "$T.funcsyms" "$T.keep"; else comm -13 "$T.dynsyms" "$T.funcsyms" > "$T.keep"; fi
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$T.keep" "$DBG" "$T.mini"
xz -f "$T.mini"
objcopy --add-section .gnu_debugdata="$T.mini.xz" "$BIN"
'''


def fedora_minidebug(orig, out, keep_all=False):
    """Make out from the unstripped binary orig as Fedora ships it:
    objcopy --only-keep-debug, strip --strip-all, then FEDORA_MINIDEBUG
    (keep_all: every function symbol kept, those .dynsym has too). The
    compressed payload stays in out + ".mini.xz". Returns the names kept
    (a list)."""
    dbg = out + ".debug"
    subprocess.run(["objcopy", "--only-keep-debug", orig, dbg], check=True)
    subprocess.run(["strip", "--strip-all", "-o", out, orig], check=True)
    env = dict(os.environ, BIN=out, DBG=dbg, T=out,
               KEEP_ALL="1" if keep_all else "")
    subprocess.run(["sh", "-c", FEDORA_MINIDEBUG], env=env, check=True)
    with open(out + ".keep") as f:
        return f.read().split()


def nm_defined(path):
    """{name: (address, size)} of `nm -S --defined-only path`: the
    symbols with a size."""
    out = subprocess.run(["nm", "-S", "--defined-only", path],
                         capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
    return syms


def eh_frame_fdes(path):
    """{pc_begin: FDE bytes (its length field and what it counts)} of
    `readelf -wf path`."""
    fdes = {}
    for line in readelf(["--debug-dump=frames"], path).splitlines():
        m = re.match(r"[0-9a-f]+ ([0-9a-f]+) [0-9a-f]+ FDE cie=[0-9a-f]+ "
                     r"pc=([0-9a-f]+)\.\.", line)
        if m:
            fdes[int(m.group(2), 16)] = int(m.group(1), 16) + 4
    return fdes


def build_c_asm(tmp, c_text, asm_text):
    """tmp/prog built by gcc -O1 from tmp/main.c (c_text) and tmp/h.s
    (asm_text); its path."""
    for name, text in (("main.c", c_text), ("h.s", asm_text)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    prog = os.path.join(tmp, "prog")
    run_ok(["gcc", "-O1", "-o", prog, "main.c", "h.s"], cwd=tmp)
    return prog
