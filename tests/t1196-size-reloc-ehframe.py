#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of relocatable files (.o): each FDE
of .eh_frame is charged to the function it describes, as in a linked
file, its CIEs (and the FDEs of functions of size 0, which no label
holds) staying "[section .eh_frame]". An FDE's pc_begin is a
PC-relative relocation (R_X86_64_PC32, R_386_PC32, R_AARCH64_PREL32...),
0 in the file's bytes (or, SHT_REL, the offset of the function in its
section): memsz charged the whole section to "[section .eh_frame]".

Ground truth: readelf -wf lists each CIE and FDE (its offset, length and
pc range, relocated as if each section were at 0); readelf -r of
.rel[a].eh_frame the symbol each FDE's pc_begin (8 bytes into it) is
relocated against; readelf -sW that symbol's section and the function
at pc_begin in it. Builds: gcc (x86-64, also with -ffunction-sections,
-m32, -mx32), g++ (a personality and LSDA: augmentation zPLR), clang
for i686, aarch64 and ppc32 (big-endian). A relocation of a type memsz does not apply,
or one past the section's end, leaves the section whole under "[section .eh_frame]", with a note.
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
C_SOURCE = """int table[100];
int twice(int x) { return 2 * x + table[x & 63]; }
int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i); return s; }
int third(int x) { return sum(x) / 3 + twice(x); }
"""
CXX_SOURCE = """#include <stdexcept>
int checked(int x) { if (x < 0) throw std::runtime_error("neg"); return x; }
int caught(int x) { try { return checked(x); } catch (...) { return -1; } }
"""
BUILDS = (("gcc", ["gcc"], "a.c"),
          ("gcc-fsections", ["gcc", "-ffunction-sections"], "a.c"),
          ("gcc-m32", ["gcc", "-m32"], "a.c"),
          ("gcc-mx32", ["gcc", "-mx32"], "a.c"),
          ("g++", ["g++"], "b.cc"),
          ("clang-i686", ["clang", "--target=i686-linux-gnu"], "a.c"),
          ("clang-aarch64", ["clang", "--target=aarch64-linux-gnu"], "a.c"),
          ("clang-ppc32", ["clang", "--target=powerpc-linux-gnu"], "a.c"))


def truth(obj):
    """{function: bytes of its FDEs}, bytes of the CIEs (and of the FDEs
    of functions of no size), from readelf."""
    frames = lib.readelf(["-wf"], obj)
    relocs = lib.readelf(["-rW"], obj)
    syms = lib.readelf(["-sW"], obj)
    m = re.search(r"Relocation section '\.rela?\.eh_frame'.*?\n\n|"
                  r"Relocation section '\.rela?\.eh_frame'.*", relocs, re.S)
    at = {}
    for line in (m.group(0).splitlines() if m else []):
        f = line.split()
        if len(f) >= 5 and re.fullmatch(r"[0-9a-f]+", f[0]):
            at[int(f[0], 16)] = f[4]
    ndx = {}
    funcs = {}
    for line in syms.splitlines():
        f = line.split()
        if len(f) == 8 and f[0].endswith(":") and f[6].isdigit():
            ndx.setdefault(f[7], f[6])
            if f[3] == "FUNC":
                funcs[(f[6], int(f[1], 16))] = (f[7], int(f[2]))
    fdes, cies = {}, 0
    for m in re.finditer(r"^([0-9a-f]+) ([0-9a-f]+) [0-9a-f]+ (CIE|FDE)"
                         r"(?: cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.)?", frames,
                         re.M):
        off, size = int(m.group(1), 16), int(m.group(2), 16) + 4
        if m.group(3) == "CIE":
            cies += size
            continue
        sym = at.get(off + 8)
        fn, n = funcs.get((ndx.get(sym), int(m.group(4), 16)), (None, 0))
        check(fn is not None, f"{os.path.basename(obj)}: the FDE at {off:#x}"
              f" is relocated against {sym}, a function at {m.group(4)}")
        # a function of no size (gcc -m32's __x86.get_pc_thunk.*) holds
        # no byte, no label: its FDE stays with the CIEs, as linked
        if not n:
            cies += size
            continue
        fdes[fn] = fdes.get(fn, 0) + size
    return fdes, cies


def eh_rows(obj):
    r = subprocess.run([MEMSZ, "size", "--by", "sections,symbols",
                        "--format", "csv", "-n", "0", "--demangle", "none",
                        obj], capture_output=True, text=True)
    check(r.returncode == 0, f"{os.path.basename(obj)}: exit 0 "
          f"({r.stderr[-200:]})")
    return {x["symbols"]: int(x["vm_size"]) for x in
            csv.DictReader(r.stdout.splitlines())
            if x["sections"] == ".eh_frame"}, r.stderr


def patched(src, dst, at, fmt, value):
    """dst: src (gcc x86-64) whose first .rela.eh_frame entry has value
    packed as fmt at byte at of it (8: r_info's type, 0: r_offset;
    readelf -SW gives the section's offset)."""
    m = re.search(r"\.rela\.eh_frame\s+RELA\s+[0-9a-f]+\s+([0-9a-f]+)",
                  lib.readelf(["-SW"], src))
    if not m:
        return False
    b = bytearray(open(src, "rb").read())
    struct.pack_into(fmt, b, int(m.group(1), 16) + at, value)
    open(dst, "wb").write(b)
    return True


def main():
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(C_SOURCE)
        open(os.path.join(tmp, "b.cc"), "w").write(CXX_SOURCE)
        for tag, cc, src in BUILDS:
            obj = os.path.join(tmp, tag + ".o")
            if not shutil.which(cc[0]) or subprocess.run(
                    [*cc, "-O1", "-c", "-o", obj, src], cwd=tmp,
                    capture_output=True).returncode:
                lib.skip_part(f"{' '.join(cc)} cannot build an object")
                continue
            fdes, cies = truth(obj)
            check(len(fdes) >= 2, f"{tag}: readelf -wf lists FDEs of "
                  f"{sorted(fdes)}")
            got, _ = eh_rows(obj)
            want = dict(fdes)
            if cies:
                want["[section .eh_frame]"] = cies
            check(got == want, f"{tag}: .eh_frame's FDEs under their "
                  f"functions, its CIEs under the section: {got} vs {want}")
        # a relocation of a type no machine defines, or one whose
        # r_offset is past the section's end: no FDE attributed
        for tag, at, fmt, value in (("unknown", 8, "<I", 250),
                                    ("outside", 0, "<Q", 0x100000)):
            bad = os.path.join(tmp, tag + ".o")
            if not patched(os.path.join(tmp, "gcc.o"), bad, at, fmt, value):
                continue
            got, err = eh_rows(bad)
            check(list(got) == ["[section .eh_frame]"], f"{tag}.o: "
                  f".eh_frame left to the section ({got})")
            n = got.get("[section .eh_frame]")
            check(f"{n} bytes of .eh_frame left to [section .eh_frame]: "
                  f"a relocation of it is of a type memsz does not apply, "
                  f"or out of its section" in err,
                  f"{tag}.o: a note says so ({err[-300:]})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
