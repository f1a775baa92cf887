#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` on position-dependent code: binary data that a MOV's
immediate names and that starts with two printable bytes and a NUL is no
string literal.

A target that only immediates name is read as text (t1315); at the start
of a string its range ends after the NUL and the NULs that pad it. Data
that starts like a string was cut there too: an array of
struct {char name[16]; int v, w;} whose first name is "ab" ("ab", 14
NULs, two ints), an array of ints whose low bytes are printable (0x6141:
"Aa", two NULs, the next int). gcc -O2 -no-pie copies such a local array
from .rodata with "mov $ARRAY, %esi; mov $0xc0, %ecx; rep movsq", and
main was given 8 of its 1536 bytes, the rest left unlabelled.

Built here: the reproducer in C (gcc -O2 -no-pie -fno-pie), and from
assembly (gcc -no-pie -static -nostdlib, the data symbols stripped but
the markers) .rodata holding end to end, each named by one function's
immediate only:
  - table (the struct array, 64 entries), mark1: f_copy copies it (mov
    $table, %esi; mov $192, %ecx; rep movsq);
  - ints (32 ints, 0x6141 + 0x101 * k), mark2: f_ints;
  - msg (a short string literal, 8-aligned), then structs no code names
    whose first name is text ("cd"), mark3: f_msg;
  - pad ("abcd", 8-aligned, padded to 8), a string no code names, mark4:
    f_pad;
  - odd (a short string at an address no int may start at, as GCC packs
    them in .rodata.str1.1), the NULs to a 32-byte boundary and 16 more,
    binary data, mark5: f_odd;
  - long (40 printable bytes, 8-aligned, as GCC aligns a literal of 31
    bytes or more), NULs to 8 bytes, 16 more NULs and binary data (V8's
    vtables without RTTI start so), mark6: f_long.
Ground truth: objdump -d (the immediates, the copy's length), nm -S
before strip (the arrays and markers), the bytes of .rodata (readelf -x:
the struct and int layouts, the strings' NULs):
  - main owns the whole array it copies; f_copy owns table, f_ints owns
    ints (binary data: their ranges run to the next label);
  - f_msg owns msg and its NUL; f_pad owns "abcd", its NUL and the NULs
    to 8 bytes; f_odd owns odd, its NUL and the NULs to the next multiple
    of 8; f_long owns long, its NUL and the NULs to 8 bytes (string
    literals: their ranges end there).
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

N = 64  # the struct array's entries
NAMES = ["%c%c" % (97 + k % 26, 97 + k // 26) for k in range(N)]
ENTRY = "<16sii"  # struct s {char name[16]; int v, w;}


def entry(k):
    return NAMES[k].encode(), k + 1, 2 * k + 2


REPRO = r"""#include <stdio.h>
struct s {char name[16]; int v, w;};
int main(int argc, char **argv)
{
	struct s local[%d] = {%s};

	(void)argv;
	printf("%%s %%d\n", local[argc].name, local[argc].v + local[argc].w);
	return 0;
}
""" % (N, ", ".join('{"%s", %d, %d}' % (NAMES[k], *entry(k)[1:])
                   for k in range(N)))

NINTS = 32
INTS = [0x6141 + 0x101 * k for k in range(NINTS)]  # "Aa\0\0", "Bb\0\0"...
MSG = "a message"
PAD = "abcd"
ODD = "odd string"
LONG = "a string literal of forty printable byte"
FUNCS_ASM = [
    *lib.asm_function("f_copy", "mov $table, %esi",
                      "mov $%d, %%ecx" % (N * 24 // 8), "rep movsq", "ret"),
    *lib.asm_function("f_ints", "mov $ints, %eax", "ret"),
    *lib.asm_function("f_msg", "mov $msg, %edi", "ret"),
    *lib.asm_function("f_pad", "mov $pad, %edi", "ret"),
    *lib.asm_function("f_odd", "mov $odd, %edi", "ret"),
    *lib.asm_function("f_long", "mov $long, %edi", "ret")]


def structs(label, names, first):
    """Assembly of struct s entries for names, values from first on."""
    out = ["\t.p2align 3", "%s:" % label] if label else []
    for k, n in enumerate(names):
        out += ['\t.ascii "%s"' % n, "\t.fill %d, 1, 0" % (16 - len(n)),
                "\t.long %d, %d" % (first + k, 2 * (first + k))]
    return out


def mark(name):
    return ["\t.p2align 4", "\t.type %s, @object" % name, "%s:" % name,
            "\t.fill 16, 1, 3", "\t.size %s, 16" % name]


def obj(name, lines):
    return ["\t.type %s, @object" % name, *lines,
            "\t.size %s, .-%s" % (name, name)]


RODATA = [
    "\t.section .rodata", "\t.p2align 6",
    *obj("table", structs("table", NAMES, 1)), *mark("mark1"),
    "\t.p2align 3",
    *obj("ints", ["ints:", "\t.long " + ", ".join("%#x" % v for v in INTS)]),
    *mark("mark2"),
    "\t.p2align 3", 'msg:\t.asciz "%s"' % MSG,
    *structs(None, ["cd", "ef", "gh"], 7), *mark("mark3"),
    "\t.p2align 3", 'pad:\t.asciz "%s"' % PAD, "\t.p2align 3",
    '\t.asciz "a string that no code names"', *mark("mark4"),
    "\t.byte 7", 'odd:\t.asciz "%s"' % ODD, "\t.p2align 5",
    "\t.fill 16, 1, 0", "\t.fill 16, 1, 5", *mark("mark5"),
    "\t.p2align 3", 'long:\t.asciz "%s"' % LONG, "\t.p2align 3",
    "\t.fill 16, 1, 0", "\t.fill 16, 1, 5", *mark("mark6"),
    '\t.section .note.GNU-stack,"",@progbits']
STRIPPED = ["table", "ints", "msg", "pad", "odd", "long"]
FUNCS = ["f_copy", "f_ints", "f_msg", "f_pad", "f_odd", "f_long"]


def rodata_dump(prog):
    """(address, bytes) of prog's .rodata from readelf -x .rodata."""
    addr, data = None, bytearray()
    for line in lib.readelf(["-x", ".rodata"], prog).splitlines():
        # "  0x00402000 01000200 25732025 640a0000 00000000 ....%s %d...."
        m = re.match(r"  0x([0-9a-f]+) ", line)
        if m:
            if addr is None:
                addr = int(m.group(1), 16)
            data += bytes.fromhex(line[13:48].replace(" ", ""))
    return addr, bytes(data)


def imm(lines, reg):
    """The immediate the first "mov $IMM, %reg" of lines loads, or None."""
    for line in lines:
        m = re.search(r"\bmov\s+\$0x([0-9a-f]+),%" + reg + r"\b", line)
        if m:
            return int(m.group(1), 16)
    return None


def check_repro(tmp):
    """main of the C reproducer owns the whole array its code copies."""
    src = os.path.join(tmp, "tb.c")
    with open(src, "w") as f:
        f.write(REPRO)
    prog = os.path.join(tmp, "tb")
    r = subprocess.run(["gcc", "-O2", "-no-pie", "-fno-pie", "-o", prog,
                        src], capture_output=True, text=True)
    if r.returncode:
        lib.skip_part("gcc -no-pie cannot build the reproducer: %s"
                      % r.stderr.strip()[-200:])
        return
    main = lib.function_lines(prog).get("main", [])
    src_a = imm(main, "esi")
    qwords = imm(main, "ecx")
    if src_a is None or qwords is None or \
            not any("rep movsq" in x for x in main):
        lib.skip_part("gcc copies the array otherwise than mov $ARRAY, "
                      "%esi; mov $N, %ecx; rep movsq")
        return
    base, ro = rodata_dump(prog)
    size = struct.calcsize(ENTRY)
    want = b"".join(struct.pack(ENTRY, *entry(k)) for k in range(N))
    got = ro[src_a - base:src_a - base + qwords * 8]
    check(qwords * 8 == N * size and got == want and
          ro[src_a - base + 2:src_a - base + 16] == bytes(14),
          "objdump -d, readelf -x: main copies %d bytes from %#x, the "
          "struct array (\"%s\", 14 NULs, two ints, ...)"
          % (qwords * 8, src_a, NAMES[0]))
    others = sum(s for n, (a, s) in lib.nm_defined(prog).items()
                 if base <= a < base + len(ro))
    dis = lib.section_symbol_sizes(prog, ".rodata")
    vm = dis.get("main", (0, 0))[1]
    check(N * size <= vm <= len(ro) - others,
          "main owns the %d bytes of the array it copies, at most the "
          "%d bytes of .rodata no symbol holds: %d"
          % (N * size, len(ro) - others, vm))


def check_asm(tmp):
    """The cases built from assembly (see the docstring)."""
    src = os.path.join(tmp, "cases.s")
    with open(src, "w") as f:
        f.write("\n".join(["\t.text", *FUNCS_ASM, *RODATA]) + "\n")
    full = os.path.join(tmp, "cases-full")
    lib.build_asm(src, full, ["-no-pie", "-static", "-Wl,-e,f_copy"])
    prog = os.path.join(tmp, "cases")
    lib.run_ok(["strip", *[a for n in STRIPPED for a in ("-N", n)],
                "-o", prog, full])
    check("EXEC" in lib.readelf(["-h"], prog),
          "the program is position-dependent (ET_EXEC)")
    left = lib.run_ok(["nm", "-a", prog]).stdout.split()
    check(not any(n in left for n in STRIPPED) and "mark1" in left,
          "the program names the markers, no other data")
    syms = lib.nm_defined(full)
    addrs = {f[2]: int(f[0], 16) for f in
             (x.split() for x in lib.run_ok(
                 ["nm", full]).stdout.splitlines()) if len(f) == 3}
    base, ro = rodata_dump(full)
    code = lib.function_lines(full)
    regs = {"f_copy": "esi", "f_ints": "eax"}
    for fn, name in zip(FUNCS, STRIPPED):
        a = imm(code.get(fn, []), regs.get(fn, "edi"))
        check(a is not None and a == addrs.get(name),
              "objdump -d: %s loads the address of %s, %s: %s"
              % (fn, name, hex(addrs.get(name, 0)), a and hex(a)))

    def at(name, n):
        i = addrs[name] - base
        return ro[i:i + n]

    def strend(name, align=1):
        """The end of the string at name: after its NUL, and the NULs
        after it up to a multiple of align."""
        e = ro.index(b"\0", addrs[name] - base) + 1
        while e % align and not ro[e]:
            e += 1
        return base + e

    tb = syms["table"]
    check(imm(code["f_copy"], "ecx") * 8 == tb[1] == N * 24 and
          at("table", 16) == NAMES[0].encode() + bytes(14),
          "objdump -d, nm -S, readelf -x: f_copy copies the %d bytes of "
          "table, which starts \"%s\" and 14 NULs" % (tb[1], NAMES[0]))
    check(at("ints", 8) == b"Aa\0\0Bb\0\0" and syms["ints"][1] == NINTS * 4,
          "readelf -x: ints starts \"Aa\", two NULs, \"Bb\", two NULs")
    check(at("msg", len(MSG) + 3) == MSG.encode() + b"\0cd" and
          addrs["msg"] % 8 == 0,
          "readelf -x: msg is 8-aligned and a struct whose name is text "
          "follows its NUL")
    check(addrs["odd"] % 4 and ro[strend("odd", 8) - base] == 0,
          "readelf -x: odd lies at no multiple of 4 and its NULs run past "
          "the next multiple of 8")
    check(addrs["long"] % 8 == 0 and len(LONG) >= 31 and
          ro[strend("long", 8) - base] == 0,
          "readelf -x: long is 8-aligned, %d printable bytes, and its "
          "NULs run past the next multiple of 8" % len(LONG))
    want = {"f_copy": syms["mark1"][0] - tb[0],
            "f_ints": syms["mark2"][0] - syms["ints"][0],
            "f_msg": strend("msg") - addrs["msg"],
            "f_pad": strend("pad", 8) - addrs["pad"],
            "f_odd": strend("odd", 8) - addrs["odd"],
            "f_long": strend("long", 8) - addrs["long"]}
    check(want["f_msg"] == len(MSG) + 1 and want["f_pad"] == 8,
          "msg ends with its NUL, pad with the NULs to 8 bytes")
    dis = lib.section_symbol_sizes(prog, ".rodata")
    for fn, w in want.items():
        check(dis.get(fn) == (w, w), "%s owns %d bytes of .rodata (file, "
              "VM): %s" % (fn, w, dis.get(fn)))


def main():
    lib.need_x86_tools("gcc", "as", "strip", "nm", "objdump", "readelf")
    tmp = tempfile.mkdtemp(prefix="memsz-t1318-")
    try:
        check_asm(tmp)
        check_repro(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
