#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` on position-dependent code: a MOV that stores a 32-bit
immediate into memory names no address.

In node (non-PIE) V8's CallDescriptors::InitializeOncePerProcess() builds
machine-type words with 13 "movl $0x4050908, -0x50(%rbp)": numbers that
land in .rodata. memsz took each for an address and gave the function
65 KB of data no code names. A pointer of LP64 code is 8 bytes: code
that stores one stores it whole (REX.W C7, "movq $sym, mem", its imm32
sign-extended) or through a register; 4 bytes stored (C7 with a memory
operand and no REX.W) are a number. A "movl $sym, %reg" (C7 with a
register operand, or B8+r) zero-extends into the whole register and is
an address as before.

Built here from assembly (x86-64, gcc -no-pie -static, the data symbols
stripped but the markers; 4 KB of code before or after the functions, so
that the sweep's table decoder and its checked tail each see them),
.rodata holding end to end: b_st32, mark1, b_st64, mark2, b_reg, mark3,
b_fs, mark4, each a 512-byte binary blob.
  - f_st32: movl $b_st32, -8(%rsp) (C7 44 24 F8, no REX.W);
  - f_st64: movq $b_st64, (%rdi) (48 C7 07);
  - f_reg: movl $b_reg, %eax encoded C7 C0 (a register operand);
  - f_fs: movl $b_fs, %fs:8 (64 C7 04 25, a 4-byte store behind FS).
Ground truth: nm -S before strip (the blobs' addresses and sizes) and
objdump -d (each function's immediate and its encoding):
  - f_st64 owns b_st64 and f_reg owns b_reg, up to the next marker;
  - f_st32 and f_fs own no byte of .rodata;
  - with --no-disasm none of them owns a byte of .rodata.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

FILLER = lib.asm_function("filler", ".fill 4096, 1, 0x90", "ret")
FUNCS_ASM = [
    *lib.asm_function("f_st32", "movl $b_st32, -8(%rsp)", "ret"),
    *lib.asm_function("f_st64", "movq $b_st64, (%rdi)", "ret"),
    # movl $b_reg, %eax by C7 /0 with a register ModRM (gas picks B8)
    *lib.asm_function("f_reg", ".byte 0xc7, 0xc0", ".long b_reg", "ret"),
    *lib.asm_function("f_fs", "movl $b_fs, %fs:8", "ret")]
BLOBS = ["b_st32", "b_st64", "b_reg", "b_fs"]
RODATA = "\t.section .rodata\n\t.p2align 6\n" + "".join(
    "\t.type %s, @object\n%s:\t.fill 512, 1, %d\n\t.size %s, 512\n"
    "\t.type mark%d, @object\nmark%d:\t.fill 16, 1, 3\n"
    "\t.size mark%d, 16\n" % (b, b, i + 1, b, i + 1, i + 1, i + 1)
    for i, b in enumerate(BLOBS)) + \
    '\t.section .note.GNU-stack,"",@progbits\n'
LAYOUTS = {"chunks": FUNCS_ASM + FILLER, "tail": FILLER + FUNCS_ASM}
FUNCS = ["f_st32", "f_st64", "f_reg", "f_fs"]
# what objdump -d must show of each: the encoding's first bytes (after
# the function's address) and the immediate's blob
ENCODING = {"f_st32": ("c7 44 24 f8", "b_st32"),
            "f_st64": ("48 c7 07", "b_st64"),
            "f_reg": ("c7 c0", "b_reg"),
            "f_fs": ("64 c7 04 25", "b_fs")}


def encodings(prog):
    """{function: (raw bytes, immediate)} of the first instruction of each
    of FUNCS in `objdump -d prog`."""
    out, fn = {}, None
    for line in lib.run_ok(["objdump", "-d", prog]).stdout.splitlines():
        m = re.match(r"[0-9a-f]+ <(\S+)>:", line)
        if m:
            fn = m.group(1)
            continue
        m = re.match(r"\s*[0-9a-f]+:\t([0-9a-f ]+)\t.*\$0x([0-9a-f]+)",
                     line)
        if m and fn in FUNCS and fn not in out:
            out[fn] = (m.group(1).strip(), int(m.group(2), 16))
    return out


def check_layout(tmp, layout, asm):
    """Build the program of asm and check it (messages led by layout)."""
    def ck(ok, what):
        check(ok, layout + ": " + what)

    full, prog = lib.build_exec_stripped(tmp, layout, asm, BLOBS, ck)
    syms = lib.nm_defined(full)
    left = lib.run_ok(["nm", "-a", prog]).stdout.split()
    ck(not any(n in left for n in BLOBS) and "mark1" in left,
       "the program names the markers, no blob")
    got = encodings(full)
    for fn, (raw, blob) in ENCODING.items():
        ck(got.get(fn, ("", 0))[0].startswith(raw) and
           got[fn][1] == syms[blob][0],
           "objdump -d: %s's immediate is %s's address, encoded %s...: %s"
           % (fn, blob, raw, got.get(fn)))
    dis = lib.section_symbol_sizes(prog, ".rodata", [])
    for fn, blob in (("f_st64", "b_st64"), ("f_reg", "b_reg")):
        # a blob named by code runs to the next name: its marker
        w = syms["mark%d" % (BLOBS.index(blob) + 1)][0] - syms[blob][0]
        ck(dis.get(fn) == (w, w),
           "%s owns %s, %d bytes of .rodata (file, VM): %s"
           % (fn, blob, w, dis.get(fn)))
    for fn in ("f_st32", "f_fs"):
        ck(fn not in dis, "%s (a 4-byte store) owns no byte of .rodata: %s"
           % (fn, dis.get(fn)))
    lib.check_no_disasm_rodata(ck, prog, FUNCS)


def main():
    lib.asm_layouts("t1319", LAYOUTS, RODATA, check_layout)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
