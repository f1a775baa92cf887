#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols`: [padding] is exactly the gaps
between x86-64 functions that alignment explains and filler bytes fill,
many gaps to a read of the file.

memsz reads the gaps through a window of the file that holds the gaps
ahead too (elf/elfsrc.c's gap_bytes()): most gaps are answered from bytes
read for an earlier one. The program's own section padtext holds 80
functions, each followed by `.p2align 4` filled with the assembler's
nops, int3 (0xcc), zeros, i386 lea/mov fillers (8d 76 00, 89 f6) then
nops, 0xff bytes, or a lea that is no filler (8d 77 00) then nops; one
function of 5000 bytes in the middle makes the window move on.

Ground truth: nm -S (each function's address and size: a gap is the bytes
from a function's end to the next one's start, alignment explains it when
shorter than the largest power of two dividing the next one's address,
at most 64, as man memsz-size says) and the construction (which gaps hold
filler only): the [padding] row of padtext is the sum of those gaps after
the nop, int3, zero and lea functions, in file and VM.
"""
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MAIN_C = "void f0(void);\nint main(void) { f0(); return 0; }\n"
NFUNCS = 80
# what follows function k: KINDS[k % len(KINDS)]
KINDS = ["nop", "int3", "zero", "lea", "ff", "notlea"]
FILLED = {"nop", "int3", "zero", "lea"}
AFTER = {
    "nop": ["\t.p2align 4"],
    "int3": ["\t.p2align 4,0xcc"],
    "zero": ["\t.p2align 4,0"],
    "lea": ["\t.byte 0x8d,0x76,0x00,0x89,0xf6", "\t.p2align 4,0x90"],
    "ff": ["\t.p2align 4,0xff"],
    "notlea": ["\t.byte 0x8d,0x77,0x00", "\t.p2align 4,0x90"],
}


def asm_text():
    """padtext's functions (their bodies ret bytes, 5 to 27 of them, f40
    5000), each followed by its kind's gap."""
    out = ['\t.section .note.GNU-stack,"",@progbits',
           '\t.section padtext,"ax",@progbits', "\t.p2align 6"]
    for k in range(NFUNCS):
        size = 5000 if k == NFUNCS // 2 else 5 + (k * 7) % 23
        out += ["\t.globl f%d" % k, "\t.type f%d,@function" % k,
                "f%d:" % k, "\t.fill %d,1,0xc3" % size,
                "\t.size f%d,.-f%d" % (k, k)]
        out += AFTER[KINDS[k % len(KINDS)]]
    return "\n".join(out) + "\n"


def main():
    if not shutil.which("gcc"):
        lib.skip("gcc is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t2463-") as tmp:
        prog = lib.build_c_asm(tmp, MAIN_C, asm_text())
        names = ["f%d" % k for k in range(NFUNCS)]
        sizes = lib.nm_sizes(prog, set(names))
        out = lib.run_ok(["nm", prog]).stdout
        addr = {f[2]: int(f[0], 16) for f in (x.split() for x in
                                              out.splitlines())
                if len(f) == 3 and f[2] in sizes}
        check(len(addr) == NFUNCS and len(sizes) == NFUNCS,
              "nm names the %d functions with their sizes" % NFUNCS)
        # the gaps the alignment of the next function explains (man
        # memsz-size: fewer bytes than the largest power of two dividing
        # its address, at most 64), by what fills them
        kinds = {}
        for k in range(NFUNCS - 1):
            nxt = addr[names[k + 1]]
            gap = nxt - addr[names[k]] - sizes[names[k]]
            if 0 < gap < min(nxt & -nxt, 64):
                kind = KINDS[k % len(KINDS)]
                kinds.setdefault(kind, []).append(gap)
        check(all(kinds.get(x) for x in KINDS),
              "each kind of gap is there: %s" % sorted(kinds))
        want = sum(sum(v) for x, v in kinds.items() if x in FILLED)
        rows, _ = lib.size_rows(prog, "sections,symbols")
        pad = [x for x in rows if x["sections"] == "padtext" and
               x["symbols"] == "[padding]"]
        vm = sum(int(x["vm_size"]) for x in pad)
        fs = sum(int(x["file_size"]) for x in pad)
        check(vm == want, "padtext's [padding] VM SIZE is the filled gaps' "
              "%d bytes (nm -S; got %d)" % (want, vm))
        check(fs == want, "padtext's [padding] FILE SIZE is the filled "
              "gaps' %d bytes (got %d)" % (want, fs))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
