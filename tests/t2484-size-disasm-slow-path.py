#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --disasm`: the code-to-data references of the instructions
the sweep's table (x86_decode_tab()) gives no answer for, decoded out of
line by elf/xrefs.c's lane_slow(): by x86_decode_ref_slow() (VEX, EVEX,
an F2 SSE opcode: x86_decode_fast() decodes them, no page of the table
holds them) or by Zydis (a legacy three-byte-map opcode, a LOCK prefix,
x87: x86_decode_fast() leaves them to it). Without a test of its own a
lane_slow() that kept no reference failed only t1301, which needs node.

Built here from assembly (x86-64): each function reads one data object of
.rodata ONLY through one such instruction, and is followed by 4 KB of code
(so that every one of them is decoded in the sweep's chunks, not by its
checked tail); the data objects lie end to end and fill .rodata. As a
stripped shared library (RIP-relative operands), and as a position-
dependent static program whose data symbols alone are stripped, with two
more functions whose operand is an absolute disp32 (one VEX, one
three-byte-map: the same two branches). Ground truth: nm -S before strip
(each object's address and size), objdump -d (the address each function's
operand names, in its "# ADDR" comment or as its absolute operand):
  - by default each function owns, in file and VM, the bytes of .rodata of
    the object its operand names: that object's nm -S size;
  - with --no-disasm none owns a byte of .rodata.
"""
import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

# function: (its one instruction, with %s for the data object's name; the
# object; its size; lane_slow()'s branch, for the messages)
RIP = {
    "f_vex": ("vmovdqu %s(%%rip), %%ymm0", "d_vex", 64, "VEX"),
    "f_vex3": ("vpbroadcastd %s(%%rip), %%ymm1", "d_vex3", 128,
               "VEX 0F38"),
    "f_evex": ("vmovdqu64 %s(%%rip), %%zmm2", "d_evex", 192, "EVEX"),
    "f_f2": ("movsd %s(%%rip), %%xmm0", "d_f2", 256, "F2 0F"),
    "f_pshufb": ("pshufb %s(%%rip), %%xmm0", "d_pshufb", 320,
                 "Zydis: 0F38"),
    "f_lock": ("lock addl $1, %s(%%rip)", "d_lock", 384, "Zydis: LOCK"),
    "f_x87": ("fldl %s(%%rip)", "d_x87", 448, "Zydis: x87"),
}
ABSOLUTE = {
    "f_abs": ("vmovdqu %s, %%ymm3", "d_abs", 32, "VEX, absolute"),
    "f_absz": ("pshufb %s, %%xmm1", "d_absz", 96, "Zydis: 0F38, absolute"),
}


def assembly(funcs):
    """The functions of funcs, 4 KB of NOPs after them (the table answers
    those), then their data objects end to end in .rodata."""
    out = ["\t.text"]
    for fn, (insn, obj, _, _) in funcs.items():
        out += ["\t.globl %s" % fn, "\t.type %s, @function" % fn,
                "%s:" % fn, "\t" + insn % obj, "\tret",
                "\t.size %s, .-%s" % (fn, fn)]
    out += ["\t.globl filler", "\t.type filler, @function", "filler:",
            "\t.fill 4096, 1, 0x90", "\tret", "\t.size filler, .-filler",
            "\t.section .rodata", "\t.p2align 6"]
    for k, (_, obj, size, _) in enumerate(funcs.values()):
        out += ["\t.type %s, @object" % obj, "%s:" % obj,
                "\t.fill %d, 1, %d" % (size, k + 1),
                "\t.size %s, %d" % (obj, size)]
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


def check_build(variant, full, stripped, funcs):
    def ck(ok, what):
        check(ok, variant + ": " + what)

    nm = lib.run_ok(["nm", "-S", full]).stdout
    syms = {f[3]: (int(f[0], 16), int(f[1], 16))
            for f in (x.split() for x in nm.splitlines()) if len(f) == 4}
    left = lib.run_ok(["nm", "-D" if variant == "library" else "-a",
                       stripped]).stdout.split()
    ck(not any(obj in left for _, obj, _, _ in funcs.values()),
       "no symbol of the stripped file names a data object")
    targets = lib.lea_targets(full, funcs)
    want = {}
    for fn, (_, obj, size, kind) in funcs.items():
        a, s = syms.get(obj, (None, None))
        ck(s == size and targets.get(fn) == a,
           "objdump: %s (%s) names %s at %s, nm -S: %s bytes there (%s)"
           % (fn, kind, obj, hex(targets.get(fn, 0)),
              size, (a and hex(a), s)))
        want[fn] = (size, size)
    plain = lib.section_symbol_sizes(stripped, ".rodata", ["--no-disasm"])
    for fn in funcs:
        ck(fn not in plain, "--no-disasm: %s owns no .rodata byte (%s)"
           % (fn, plain.get(fn)))
    dis = lib.section_symbol_sizes(stripped, ".rodata", [])
    for fn, w in want.items():
        ck(dis.get(fn) == w, "%s (%s) owns its object's bytes of .rodata: "
           "%s (file, VM), want %s" % (fn, funcs[fn][3], dis.get(fn), w))


def main():
    if platform.machine() != "x86_64":
        lib.skip("--disasm reads x86-64 code; this is %s"
                 % platform.machine())
    for tool in ("gcc", "as", "strip", "nm", "objdump"):
        if not shutil.which(tool):
            lib.skip("%s is not installed" % tool)
    tmp = tempfile.mkdtemp(prefix="memsz-t2484-")
    try:
        for variant, funcs, flags in (
                ("library", RIP, ["-shared"]),
                ("static", {**RIP, **ABSOLUTE},
                 ["-no-pie", "-static", "-Wl,-e,filler"])):
            src = os.path.join(tmp, variant + ".s")
            with open(src, "w") as f:
                f.write(assembly(funcs))
            full = os.path.join(tmp, variant + "-full")
            r = subprocess.run(["gcc", "-nostdlib", *flags, "-o", full, src],
                               capture_output=True, text=True)
            if r.returncode:
                lib.skip("gcc cannot build the AVX-512 assembly: %s"
                         % r.stderr.strip()[-200:])
            stripped = os.path.join(tmp, variant)
            # the library loses every symbol but .dynsym's; the program
            # its data objects' only (it has no .dynsym)
            names = [] if variant == "library" else \
                [a for _, obj, _, _ in funcs.values() for a in ("-N", obj)]
            lib.run_ok(["strip", *names, "-o", stripped, full])
            check_build(variant, full, stripped, funcs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
