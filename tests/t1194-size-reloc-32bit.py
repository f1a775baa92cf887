#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits,symbols` of 32-bit relocatable files
(.o): i386 (gcc -m32, clang), x32 (gcc -mx32), 32-bit ARM and ppc32
(clang; ppc32's DWARF was refused, its types not applied).
memsz named their units but placed none (no VM SIZE): it laid their
sections out from 4 GiB, out of reach of their DWARF's 4-byte addresses,
and applied no SHT_REL relocation (i386, ARM: the addend in place, the
offset of a function in .text). It now lays a 32-bit file out from
2 GiB and applies both kinds, and their TLS offsets (a __thread
variable's R_386_TLS_LDO_32, R_ARM_TLS_LDO32), which would otherwise
have the DWARF refused.

Ground truth: readelf -wi (binutils applies the relocations) names each
unit; nm -S gives each of the source's functions' and objects' size,
which the unit's VM SIZE under --by compileunits,symbols must equal;
size -A's loaded sections sum to the VM SIZE. The same source built
for x86-64 (gcc -m64) has the same unit holding the same symbols. A .o
whose .data has a nonzero sh_addr (hostile) has it left out of the
layout, as before: no VM counted twice.
"""
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
SOURCE = """static const char *const names[4] = {"a", "b", "c", "d"};
int table[100];
int init[10] = {1, 2, 3};
__thread int tls = 5;
const char *name(int i) { return names[i & 3]; }
int twice(int x) { return 2 * x + table[x & 63] + init[x & 7] + tls; }
"""
NAMED = ("name", "twice", "init", "table")
BUILDS = (("gcc-m32", ["gcc", "-m32"]), ("gcc-mx32", ["gcc", "-mx32"]),
          ("clang-i686", ["clang", "--target=i686-linux-gnu"]),
          ("clang-armv7", ["clang", "--target=armv7-linux-gnueabihf"]),
          ("clang-ppc32", ["clang", "--target=powerpc-linux-gnu"]),
          ("gcc-m64", ["gcc", "-m64"]))


def alloc_total(obj, placed_only=False):
    """size -A's loaded sections (those with an address column that a
    linker would place: every one but the .debug_*, .comment, ...);
    placed_only: those with sh_addr 0 alone, which memsz lays out."""
    out = subprocess.run(["readelf", "-SW", obj], capture_output=True,
                         text=True, check=True).stdout
    total = 0
    for m in re.finditer(r"\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+"
                         r"([0-9a-f]+)\s+[0-9a-f]+\s+([A-Z]*)", out):
        flags = m.group(5)
        if placed_only and int(m.group(3), 16):
            continue
        if "A" in flags and not ("T" in flags and m.group(2) == "NOBITS"):
            total += int(m.group(4), 16)
    return total


def set_addr(src, dst, name, addr):
    """dst: the 32-bit little-endian src with section name's sh_addr set
    to addr (its header: readelf -h's start, readelf -SW's index)."""
    hdr = lib.readelf(["-h"], src)
    m = re.search(r"Start of section headers:\s+(\d+)", hdr)
    i = re.search(r"\[\s*(\d+)\]\s+" + re.escape(name) + r"\s",
                  lib.readelf(["-SW"], src))
    if not m or not i:
        return False
    b = bytearray(open(src, "rb").read())
    struct.pack_into("<I", b, int(m.group(1)) + 40 * int(i.group(1)) + 12,
                     addr)
    open(dst, "wb").write(b)
    return True


def main():
    for tool in ("gcc", "readelf", "nm"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    placed = {}
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        for tag, cc in BUILDS:
            obj = os.path.join(tmp, tag + ".o")
            if not shutil.which(cc[0]) or subprocess.run(
                    [*cc, "-O1", "-g", "-c", "-o", obj, "a.c"], cwd=tmp,
                    capture_output=True).returncode:
                lib.skip_part(f"{' '.join(cc)} cannot build an object")
                continue
            rows, got = lib.check_unit_symbols(obj, tag, NAMED,
                                               dwarf_read=True)
            vm = sum(int(x["vm_size"]) for x in rows)
            check(vm == alloc_total(obj), f"{tag}: VM SIZE {vm} is the "
                  f"loaded sections' sum ({alloc_total(obj)}, readelf -S)")
            placed[tag] = {s for s, n in got.items() if n and s in NAMED}
        # a hostile .o whose .data has an sh_addr in the 32-bit layout's
        # range (real ones have 0): left out of the layout, as memsz did
        # before laying 32-bit files out from 2 GiB, not counted over
        # .text (no two sections at one address)
        # (at 2 GiB over .text, at 2.25 GiB past the layout's end)
        for addr in (0x80000000, 0x90000000):
            bad = os.path.join(tmp, f"addr{addr:x}.o")
            if "gcc-m32" not in placed or not set_addr(
                    os.path.join(tmp, "gcc-m32.o"), bad, ".data", addr):
                continue
            rows, _ = lib.size_rows(bad, "sections")
            vm = sum(int(x["vm_size"]) for x in rows)
            want = alloc_total(bad, True)
            check(vm == want and want < alloc_total(bad),
                  f"{os.path.basename(bad)}: VM SIZE {vm} is the sum of "
                  f"the loaded sections at 0 ({want}, readelf -S)")
        if "gcc-m64" in placed:
            for tag, syms in placed.items():
                check(syms == placed["gcc-m64"], f"{tag}: the unit holds "
                      f"the symbols it holds on x86-64 ({sorted(syms)})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
