#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --disasm` on position-dependent code: a MOV's immediate is
weighed before it is taken for an address.

In node (non-PIE) V8's Map::TryGetMapRootIdxFor() returns root indexes as
73 "mov $0x2XX0001, %eax", and OpenSSL's ossl_err_load_DH_strings() tests
an error code, 0x280007f: numbers that land in .rodata, inside strings
and node's JavaScript sources. Each started a range that ran to the next
address some code names, and memsz gave the 473-byte function 2.97 MiB
and the 49-byte one 576 KiB. And a real "mov $STRING, %edi" whose string
is followed by data no code names (V8's snapshot, reached through
pointers in .data) took that data too (576 KiB).

Built here from assembly (x86-64, gcc -no-pie -static, the data symbols
stripped but two markers; 4 KB of code after the functions, so that the
sweep decodes them in its chunks, or before them, in its checked tail),
.rodata holding end to end: str_a, str_b (no code names it), blob
(binary), mark1, str_c, tail, str_d, mark2.
  - f_str: mov $str_a, %edi; f_const: mov $(str_c + 9), %eax, a number
    inside str_c; f_blob: movq $blob, (%rdi); f_both: mov $(str_d + 5),
    %esi and lea str_d+5(%rip), %rax.
Ground truth: nm -S before strip (the objects' addresses and sizes),
objdump -d (the immediates and RIP-relative operands each function
names), the bytes of .rodata (the strings' ends, the text around
str_c + 9):
  - f_str owns str_a and its NUL, no more (not str_b, not blob);
  - f_const owns no byte of .rodata (its number lands inside a string);
  - f_blob owns blob, up to mark1 (binary data an immediate names stands);
  - f_both owns str_d + 5 to mark2 (a RIP-relative operand names it too);
  - with --no-disasm none of them owns a byte of .rodata.
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

STR_A = "the string f_str loads by mov $str_a, %edi"
STR_B = "a string that no code names at all"
STR_C = "a message that a constant lands inside"
STR_D = "a message named by a number and by lea"
INSIDE = 9   # f_const's number: str_c + INSIDE
BOTH = 5     # f_both's: str_d + BOTH

FILLER = lib.asm_function("filler", ".fill 4096, 1, 0x90", "ret")
FUNCS_ASM = [
    *lib.asm_function("f_str", "mov $str_a, %edi", "ret"),
    *lib.asm_function("f_const", "mov $(str_c + %d), %%eax" % INSIDE, "ret"),
    *lib.asm_function("f_blob", "movq $blob, (%rdi)", "ret"),
    *lib.asm_function("f_both", "mov $(str_d + %d), %%esi" % BOTH,
                      "lea (str_d + %d)(%%rip), %%rax" % BOTH, "ret")]
RODATA = r"""	.section .rodata
	.p2align 6
str_a:	.asciz "%s"
str_b:	.asciz "%s"
	.p2align 4
	.type blob, @object
blob:	.fill 512, 1, 1
	.size blob, 512
	.type mark1, @object
mark1:	.fill 16, 1, 3
	.size mark1, 16
str_c:	.asciz "%s"
	.type tail, @object
tail:	.fill 256, 1, 2
	.size tail, 256
str_d:	.asciz "%s"
	.p2align 4
	.type mark2, @object
mark2:	.fill 16, 1, 3
	.size mark2, 16
	.section .note.GNU-stack,"",@progbits
""" % (STR_A, STR_B, STR_C, STR_D)
# the code: the functions before 4 KB of code (the sweep decodes them in
# its chunks, lanes_run()) or after it (in its checked tail, one
# stream_step() at a time)
LAYOUTS = {"chunks": FUNCS_ASM + FILLER, "tail": FILLER + FUNCS_ASM}
# the symbols stripped: all of .rodata's but the two markers
STRIPPED = ["str_a", "str_b", "blob", "str_c", "tail", "str_d"]
FUNCS = ["f_str", "f_const", "f_blob", "f_both"]


def named(prog):
    """{function: [(kind, address)]} of the addresses objdump -d finds the
    functions naming: "imm" for a $0x... immediate, "rip" for a
    RIP-relative operand (its "# ADDR" comment)."""
    out = {}
    for fn, lines in lib.function_lines(prog).items():
        for line in lines if fn in FUNCS else ():
            m = re.search(r"\(%rip\).*# ([0-9a-f]+)", line)
            if m:
                out.setdefault(fn, []).append(("rip", int(m.group(1), 16)))
            m = re.search(r"\$0x([0-9a-f]+),", line)
            if m:
                out.setdefault(fn, []).append(("imm", int(m.group(1), 16)))
    return out


def rodata_bytes(prog):
    """(address, bytes) of prog's .rodata, read from the file."""
    addr, off, size, _ = lib.sections(prog)[".rodata"]
    with open(prog, "rb") as f:
        f.seek(off)
        return addr, f.read(size)


def text_byte(c):
    return 0x20 <= c < 0x7f or c in (9, 10, 13)


def check_layout(tmp, layout, asm):
    """Build the program of asm and check it (messages led by layout)."""
    def ck(ok, what):
        check(ok, layout + ": " + what)

    full, prog = lib.build_exec_stripped(tmp, layout, asm, STRIPPED, ck)
    syms = lib.nm_defined(full)
    # str_a..str_d have no size: their addresses from nm
    addrs = {f[2]: int(f[0], 16) for f in
             (x.split() for x in lib.run_ok(
                 ["nm", full]).stdout.splitlines()) if len(f) == 3}
    left = lib.run_ok(["nm", "-a", prog]).stdout.split()
    ck(not any(n in left for n in STRIPPED) and "mark1" in left,
       "the program names mark1 and mark2, no other data")
    base, ro = rodata_bytes(full)

    def at(a):
        return ro[a - base]

    def strend(a):
        """The address after the NUL that ends the string at a."""
        return base + ro.index(b"\0", a - base) + 1

    got = named(full)
    a, c, d = addrs.get("str_a"), addrs.get("str_c"), addrs.get("str_d")
    ck(got.get("f_str") == [("imm", a)],
       "objdump -d: f_str loads str_a's address %s: %s"
       % (a and hex(a), got.get("f_str")))
    ck(got.get("f_const") == [("imm", c + INSIDE)] and
       text_byte(at(c + INSIDE - 1)) and
       all(text_byte(at(x)) for x in
           range(c + INSIDE, strend(c) - 1)),
       "objdump -d: f_const's number %s lands inside str_c (text "
       "before it, text up to its NUL): %s"
       % (hex(c + INSIDE), got.get("f_const")))
    ck(got.get("f_blob") == [("imm", syms["blob"][0])],
       "objdump -d: f_blob stores blob's address: %s"
       % got.get("f_blob"))
    ck(sorted(got.get("f_both", [])) ==
       [("imm", d + BOTH), ("rip", d + BOTH)],
       "objdump -d: f_both names str_d + %d by a mov and a lea: %s"
       % (BOTH, got.get("f_both")))
    want = {"f_str": strend(a) - a,
            "f_blob": syms["mark1"][0] - syms["blob"][0],
            "f_both": syms["mark2"][0] - (d + BOTH)}
    ck(strend(a) - a == len(STR_A) + 1 and
       syms["blob"][1] == want["f_blob"],
       "str_a ends with its NUL %d bytes on; blob ends where mark1 "
       "starts" % (len(STR_A) + 1))
    dis = lib.section_symbol_sizes(prog, ".rodata", [])
    for fn, w in want.items():
        ck(dis.get(fn) == (w, w),
           "%s owns %d bytes of .rodata (file, VM): %s"
           % (fn, w, dis.get(fn)))
    ck("f_const" not in dis,
       "f_const owns no byte of .rodata: %s" % (dis.get("f_const"),))
    lib.check_no_disasm_rodata(ck, prog, FUNCS)


def main():
    lib.asm_layouts("t1315", LAYOUTS, RODATA, check_layout)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
