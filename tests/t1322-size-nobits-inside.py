#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1322: a NOBITS section that loaded sections follow in its segment has
VM size only.

The manual: "NOBITS sections (.bss) have VM size only". A linker script
that puts a NOBITS section before a PROGBITS one in one segment makes ld
write zeros for it, inside the segment's p_filesz; readelf -S still
shows it NOBITS, with no file bytes (Bloaty charges those bytes to the
segment). Ground truth: readelf -S and -l of the file built here.
 - under sections, the NOBITS section's FILE SIZE is 0 and its VM SIZE
   its sh_size (it had the segment's zeros as FILE SIZE);
 - those bytes are its segment's: LOAD #n [RW] has them under sections;
 - under sections,symbols its object has no FILE SIZE there either;
 - FILE SIZE sums to the file's size and VM SIZE to the PT_LOAD p_memsz
   (I1), under sections, symbols and segments.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402
from memsz_testlib.elf import need_x86_tools, readelf, sections  # noqa: E402

ASM = """
.section .text,"ax"
.globl _start
_start: ret
.section .data,"aw"
.globl d1
.type d1,@object
.size d1,16
d1: .quad 1,2
.section .mybss,"aw",@nobits
.globl nbv
.type nbv,@object
.size nbv,256
nbv: .zero 256
.section .data2,"aw"
.globl d2
.type d2,@object
.size d2,8
d2: .quad 3
"""

SCRIPT = """SECTIONS {
  . = 0x400000 + SIZEOF_HEADERS;
  .text : { *(.text) }
  . = ALIGN(0x1000);
  .data : { *(.data) }
  .mybss : { *(.mybss) }
  .data2 : { *(.data2) }
}
"""


def loads(path):
    """[(index in the program header table, offset, filesz, vaddr,
    memsz)] of the PT_LOAD segments, from readelf -lW."""
    out, i, seen = [], 0, False
    for line in readelf(["-l"], path).splitlines():
        f = line.split()
        if f and f[0] == "Type":
            seen = True
            continue
        if not seen or not f or not f[0].isupper() or f[0] == "Section":
            continue
        if f[0] == "LOAD":
            out.append((i, int(f[1], 16), int(f[4], 16), int(f[2], 16),
                        int(f[5], 16)))
        if f[0] != "[Requesting":
            i += 1
    return out


def rows(path, by):
    r = subprocess.run([MEMSZ, "size", "--by", by, "-n", "0", "--format",
                        "csv", path], capture_output=True, text=True)
    check(r.returncode == 0, f"size --by {by} exits 0"
          + ("" if r.returncode == 0 else f": {r.stderr[-200:]}"))
    keys = by.split(",")
    return {tuple(x[k] for k in keys): (int(x["file_size"]),
                                        int(x["vm_size"]))
            for x in csv.DictReader(r.stdout.splitlines())}


def main():
    need_x86_tools("as", "ld", "readelf")
    tmp = tempfile.mkdtemp(prefix="memsz-t1322-")
    try:
        src, obj = os.path.join(tmp, "n.s"), os.path.join(tmp, "n.o")
        script, exe = os.path.join(tmp, "n.ld"), os.path.join(tmp, "n")
        with open(src, "w") as f:
            f.write(ASM)
        with open(script, "w") as f:
            f.write(SCRIPT)
        subprocess.run(["as", "-o", obj, src], check=True)
        subprocess.run(["ld", "-T", script, "-o", exe, obj], check=True)
        addr, _off, size, _flags = sections(exe).get(".mybss", (0,) * 4)
        nobits = any(".mybss" in line and "NOBITS" in line
                     for line in readelf(["-S"], exe).splitlines())
        nb = {"addr": addr, "size": size} if size and nobits else None
        segs = loads(exe)
        # the layout asked for: .mybss NOBITS inside the segment's file
        inside = [s for s in segs if nb and s[3] <= nb["addr"] and
                  nb["addr"] + nb["size"] <= s[3] + s[2]]
        if not inside:
            lib.skip(f"ld did not put .mybss inside a segment's file "
                     f"bytes: {nb} {segs}")
        seg = inside[0]
        vm_total = sum(s[4] for s in segs)
        for by in ("sections", "symbols", "segments"):
            got = rows(exe, by)
            fs = sum(v[0] for v in got.values())
            vm = sum(v[1] for v in got.values())
            check(fs == os.path.getsize(exe) and vm == vm_total,
                  f"{by}: FILE SIZE {fs}, VM SIZE {vm} are the file's "
                  f"size and the p_memsz sum ({os.path.getsize(exe)}, "
                  f"{vm_total})")
        got = rows(exe, "sections")
        check(got.get((".mybss",)) == (0, nb["size"]),
              f".mybss has VM size only (0, {nb['size']}): "
              f"{got.get(('.mybss',))}")
        load = [k for k in got if k[0].startswith(f"LOAD #{seg[0]} ")]
        check(len(load) == 1 and got[load[0]][0] == nb["size"],
              f"its {nb['size']} file bytes are LOAD #{seg[0]}'s: "
              f"{[(k, got[k]) for k in load]}")
        got = rows(exe, "sections,symbols")
        check(got.get((".mybss", "nbv")) == (0, nb["size"]),
              f"nbv: VM only in .mybss: {got.get(('.mybss', 'nbv'))}")
    finally:
        shutil.rmtree(tmp)
    lib.finish()


if __name__ == "__main__":
    main()
