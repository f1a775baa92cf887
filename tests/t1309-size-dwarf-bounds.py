#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` of arrays whose DWARF libdw cannot size.

A hand-written .debug_info (h.s) holds two units, as a dwz file does: A,
with no DW_AT_language, holds the types; B ("h.c", DW_LANG_C99) holds
variables whose DW_AT_type is a DW_FORM_ref_addr into A. libdw's
dwarf_aggregate_size() takes the default lower bound from A's language,
none, so memsz sizes these arrays itself (elf/dwtype.c):

- hostile: a subrange with lower bound -1 and upper bound INT64_MAX
  (DW_FORM_sdata, a signed long index). memsz once subtracted them in
  signed arithmetic: undefined behaviour, which the sanitizer build
  (-fno-sanitize-recover=undefined) aborts on ("signed integer
  overflow").
- enumidx: int[enum {A, B, C}][10], an enumeration_type child then a
  subrange: memsz once skipped the enumeration and gave it 40 bytes,
  not nm -S's 120.
- memberidx: an array whose only child is no subrange: memsz once gave
  it its element's size, 4 of nm -S's 100 bytes (libdw: unknown).

Ground truth: nm -S. Each variable's bytes under h.c are nm -S's or
none (left to a fallback label, counted), never another number.
"""
import csv
import io
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

MAIN = r'''
char hostile[16];
int enumidx[3][10] = {{1}};
int memberidx[25] = {1};
int main(int c, char **v)
{
	return hostile[c] + enumidx[1][c] + memberidx[c] + v[0][0];
}
'''

# DWARF 4; abbrevs: 1 partial-less CU (name), 2 base type, 3 array,
# 4 subrange with sdata bounds, 5 subrange with an upper bound only,
# 6 variable (ref_addr type, exprloc location), 7 enumeration type,
# 8 enumerator, 9 member, 10 CU with a language
ASM = r'''
	.section .debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1, 0x11; .byte 1; .uleb128 0x03, 0x08, 0, 0
	.uleb128 2, 0x24; .byte 0
	.uleb128 0x0b, 0x0b, 0x3e, 0x0b, 0x03, 0x08, 0, 0
	.uleb128 3, 0x01; .byte 1; .uleb128 0x49, 0x13, 0, 0
	.uleb128 4, 0x21; .byte 0
	.uleb128 0x49, 0x13, 0x22, 0x0d, 0x2f, 0x0d, 0, 0
	.uleb128 5, 0x21; .byte 0; .uleb128 0x49, 0x13, 0x2f, 0x0b, 0, 0
	.uleb128 6, 0x34; .byte 0
	.uleb128 0x03, 0x08, 0x49, 0x10, 0x3f, 0x19, 0x02, 0x18, 0, 0
	.uleb128 7, 0x04; .byte 1; .uleb128 0x0b, 0x0b, 0x03, 0x08, 0, 0
	.uleb128 8, 0x28; .byte 0; .uleb128 0x03, 0x08, 0x1c, 0x0d, 0, 0
	.uleb128 9, 0x0d; .byte 0; .uleb128 0x03, 0x08, 0, 0
	.uleb128 10, 0x11; .byte 1; .uleb128 0x03, 0x08, 0x13, 0x0b, 0, 0
	.byte 0

	.section .debug_info,"",@progbits
.Linfo:
	.long .LA_end - .LA_start
.LA_start:
	.short 4; .long .Labbrev; .byte 8
	.uleb128 1; .asciz "types"
.Lint:	.uleb128 2; .byte 4, 5; .asciz "int"
.Lchar:	.uleb128 2; .byte 1, 6; .asciz "char"
.Llong:	.uleb128 2; .byte 8, 5; .asciz "long int"
.Lhostile:
	.uleb128 3; .long .Lchar - .Linfo
	.uleb128 4; .long .Llong - .Linfo
	.sleb128 -1, 0x7fffffffffffffff
	.uleb128 5; .long .Llong - .Linfo; .byte 0
	.byte 0
.Lenumidx:
	.uleb128 3; .long .Lint - .Linfo
	.uleb128 7; .byte 4; .asciz "e"
	.uleb128 8; .asciz "A"; .sleb128 0
	.uleb128 8; .asciz "B"; .sleb128 1
	.uleb128 8; .asciz "C"; .sleb128 2
	.byte 0
	.uleb128 5; .long .Llong - .Linfo; .byte 9
	.byte 0
.Lmember:
	.uleb128 3; .long .Lint - .Linfo
	.uleb128 9; .asciz "m"
	.byte 0
	.byte 0
.LA_end:
	.long .LB_end - .LB_start
.LB_start:
	.short 4; .long .Labbrev; .byte 8
	.uleb128 10; .asciz "h.c"; .byte 0x0c
	.uleb128 6; .asciz "hostile"; .long .Lhostile - .Linfo
	.uleb128 9; .byte 3; .quad hostile
	.uleb128 6; .asciz "enumidx"; .long .Lenumidx - .Linfo
	.uleb128 9; .byte 3; .quad enumidx
	.uleb128 6; .asciz "memberidx"; .long .Lmember - .Linfo
	.uleb128 9; .byte 3; .quad memberidx
	.byte 0
.LB_end:
	.section .note.GNU-stack,"",@progbits
'''

WRONG = {"enumidx": 40, "memberidx": 4}


def main():
    if os.uname().machine != "x86_64":
        lib.skip("h.s is x86-64 assembly")
    with tempfile.TemporaryDirectory(prefix="memsz-t1309-") as tmp:
        prog = lib.build_c_asm(tmp, MAIN, ASM)
        info = lib.readelf(["-wi"], prog)
        check(re.search(r"DW_AT_lower_bound\s*: \(sdata\) -1\n.*"
                        r"DW_AT_upper_bound\s*: \(sdata\) "
                        r"9223372036854775807\n", info) and
              "DW_TAG_enumerator" in info,
              "readelf -wi reads h.s's units (upper bound INT64_MAX, "
              "enumerators)")
        sizes = {}
        for line in lib.run_ok(["nm", "-S", prog]).stdout.splitlines():
            f = line.split()
            if len(f) == 4 and f[3] in ("hostile", "enumidx", "memberidx"):
                sizes[f[3]] = int(f[1], 16)
        check(len(sizes) == 3, "nm -S sizes the three variables (got %s)"
              % sizes)
        r = lib.run_ok([MEMSZ, "size", "--no-disasm", "--by",
                     "compileunits,symbols", "-n", "0", "--format", "csv",
                     prog])
        check("runtime error" not in r.stderr,
              "no undefined behaviour (got %s)" % r.stderr[-300:])
        got = {}
        for row in csv.DictReader(io.StringIO(r.stdout)):
            if row["compileunits"] == "h.c":
                got[row["symbols"]] = int(row["vm_size"])
        for name, size in sorted(sizes.items()):
            have = got.get(name, 0)
            check(have in (0, size),
                  "h.c's %s is nm -S's %d bytes of VM SIZE or none, not "
                  "%d (got %d)" % (name, size, WRONG.get(name, -1), have))
        vm = sum(int(f[5], 16) for f in (
            line.split() for line in lib.readelf(["-l"], prog).splitlines())
            if f and f[0] == "LOAD")
        total = sum(int(row["vm_size"]) for row in
                    csv.DictReader(io.StringIO(r.stdout)))
        check(total == vm, "VM SIZE sums to the PT_LOAD memsz (I1) "
              "(got %d of %d)" % (total, vm))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
