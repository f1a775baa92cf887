#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits`: the pass over a unit's DIEs follows
DW_AT_sibling for the children of what it does not walk (a type's
members), as libdw's walk does there.

memsz finds a unit's variables by one forward pass over its DIEs
(elf/dwarfscan.c), in the order they are stored, and passes over the
children of a DIE it does not walk (a structure's members) by that
DIE's DW_AT_sibling (libdw's dwarf_siblingof() follows it on every DIE,
the pass only there). A hand-written .debug_info (h.s) has two units
where a structure's sibling link disagrees with the order the DIEs are
stored in:

- s.c: a structure whose DW_AT_sibling points past the variable stored
  after its children ("skipped") to the next one ("seen");
- b.c: a structure whose DW_AT_sibling points at itself (libdw refuses
  it, and its walk of the unit ends there: "after_bad" is not reached).

The pass once read the DIEs in stored order and gave both "skipped" and
"after_bad" to their units. Ground truth: libdw's own walk (through
ctypes: dwarf_child and dwarf_siblingof, into the tags memsz walks) for
which variables are reached, nm -S for their sizes.

memsz runs under a generous timeout (MEMSZ_TIMEOUT, not a timing
check): a pass that took the self-pointing sibling as a step forward
would loop there for ever, and the test fails instead of hanging.
"""
import csv
import ctypes
import ctypes.util
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
long skipped = 1, seen = 2, after_bad = 3;
int main(void)
{
	return (int)(skipped + seen + after_bad);
}
'''

# DWARF 4; abbrevs: 1 CU (name, language), 2 base type, 3 structure
# (name, size, sibling), 4 member, 5 variable (exprloc location)
ASM = r'''
	.section .debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1, 0x11; .byte 1; .uleb128 0x03, 0x08, 0x13, 0x0b, 0, 0
	.uleb128 2, 0x24; .byte 0
	.uleb128 0x0b, 0x0b, 0x3e, 0x0b, 0x03, 0x08, 0, 0
	.uleb128 3, 0x13; .byte 1
	.uleb128 0x03, 0x08, 0x0b, 0x0b, 0x01, 0x13, 0, 0
	.uleb128 4, 0x0d; .byte 0
	.uleb128 0x03, 0x08, 0x49, 0x13, 0x38, 0x0b, 0, 0
	.uleb128 5, 0x34; .byte 0
	.uleb128 0x03, 0x08, 0x49, 0x13, 0x3f, 0x19, 0x02, 0x18, 0, 0
	.byte 0

	.section .debug_info,"",@progbits
.LA:
	.long .LA_end - .LA_start
.LA_start:
	.short 4; .long .Labbrev; .byte 8
	.uleb128 1; .asciz "s.c"; .byte 0x0c
.LAlong:
	.uleb128 2; .byte 8, 5; .asciz "long int"
	.uleb128 3; .asciz "st"; .byte 8; .long .LAseen - .LA
	.uleb128 4; .asciz "m"; .long .LAlong - .LA; .byte 0
	.byte 0
	.uleb128 5; .asciz "skipped"; .long .LAlong - .LA
	.uleb128 9; .byte 3; .quad skipped
.LAseen:
	.uleb128 5; .asciz "seen"; .long .LAlong - .LA
	.uleb128 9; .byte 3; .quad seen
	.byte 0
.LA_end:
.LB:
	.long .LB_end - .LB_start
.LB_start:
	.short 4; .long .Labbrev; .byte 8
	.uleb128 1; .asciz "b.c"; .byte 0x0c
.LBlong:
	.uleb128 2; .byte 8, 5; .asciz "long int"
.LBbad:
	.uleb128 3; .asciz "bad"; .byte 8; .long .LBbad - .LB
	.uleb128 4; .asciz "m"; .long .LBlong - .LB; .byte 0
	.byte 0
	.uleb128 5; .asciz "after_bad"; .long .LBlong - .LB
	.uleb128 9; .byte 3; .quad after_bad
	.byte 0
.LB_end:
	.section .note.GNU-stack,"",@progbits
'''

NAMES = ("skipped", "seen", "after_bad")
# the tags whose children memsz's walk visits (dwarf.c: walk_vars())
WALKED = (0x2e, 0x0b, 0x1d, 0x39, 0x1e)
DW_TAG_variable = 0x34


# seconds memsz may take on the tiny program before it is taken as hung
# (it takes milliseconds): a hang guard, not a timing assertion
MEMSZ_TIMEOUT = 120


def libdw_walk(path):
    """{unit name: [variable names libdw's walk reaches]}."""
    name = ctypes.util.find_library("dw")
    if not name:
        lib.skip("no libdw.so to walk the DIEs with")
    dw = ctypes.CDLL(name)
    dw.dwarf_begin.restype = ctypes.c_void_p
    dw.dwarf_begin.argtypes = [ctypes.c_int, ctypes.c_int]
    dw.dwarf_nextcu.argtypes = [ctypes.c_void_p, ctypes.c_uint64] + \
        [ctypes.c_void_p] * 5
    dw.dwarf_offdie.restype = ctypes.c_void_p
    dw.dwarf_offdie.argtypes = [ctypes.c_void_p, ctypes.c_uint64,
                                ctypes.c_void_p]
    for f in ("dwarf_child", "dwarf_siblingof", "dwarf_tag"):
        getattr(dw, f).argtypes = [ctypes.c_void_p] * (
            1 if f == "dwarf_tag" else 2)
    dw.dwarf_diename.restype = ctypes.c_char_p
    dw.dwarf_diename.argtypes = [ctypes.c_void_p]

    def die():
        return ctypes.create_string_buffer(64)  # Dwarf_Die is 32 bytes

    def walk(parent, out, depth):
        d = die()
        if depth > 64 or dw.dwarf_child(parent, d) != 0:
            return
        while True:
            tag = dw.dwarf_tag(d)
            if tag == DW_TAG_variable:
                out.append(dw.dwarf_diename(d).decode())
            elif tag in WALKED:
                walk(d, out, depth + 1)
            n = die()
            if dw.dwarf_siblingof(d, n) != 0:
                return
            d = n

    fd = os.open(path, os.O_RDONLY)
    units = {}
    try:
        dbg = dw.dwarf_begin(fd, 0)
        check(dbg is not None, "libdw opens the program's DWARF")
        off = 0
        while True:
            nxt, hsize = ctypes.c_uint64(), ctypes.c_size_t()
            if dw.dwarf_nextcu(dbg, off, ctypes.byref(nxt),
                               ctypes.byref(hsize), None, None, None):
                break
            cu = die()
            if dw.dwarf_offdie(dbg, off + hsize.value, cu):
                name = dw.dwarf_diename(cu)
                units[name.decode() if name else ""] = vs = []
                walk(cu, vs, 0)
            off = nxt.value
        dw.dwarf_end(ctypes.c_void_p(dbg))
    finally:
        os.close(fd)
    return units


def main():
    if os.uname().machine != "x86_64":
        lib.skip("h.s is x86-64 assembly")
    with tempfile.TemporaryDirectory(prefix="memsz-t2462-") as tmp:
        prog = lib.build_c_asm(tmp, MAIN, ASM)
        info = lib.readelf(["-wi"], prog)
        check(all(re.search(r"DW_AT_name\s*: (\(string\) )?%s\s*$" % n, info,
                            re.M)
                  for n in NAMES) and info.count("DW_AT_sibling") == 2,
              "readelf -wi reads h.s's variables and sibling links")
        walked = libdw_walk(prog)
        check(walked.get("s.c") == ["seen"] and walked.get("b.c") == [],
              "libdw's walk reaches seen only (got %s)" % walked)
        unit = {"skipped": "s.c", "seen": "s.c", "after_bad": "b.c"}
        sizes = {}
        for line in lib.run_ok(["nm", "-S", prog]).stdout.splitlines():
            f = line.split()
            if len(f) == 4 and f[3] in NAMES:
                sizes[f[3]] = int(f[1], 16)
        check(len(sizes) == 3, "nm -S sizes the three variables (got %s)"
              % sizes)
        r = lib.run_ok([MEMSZ, "size", "--no-disasm", "--by",
                     "compileunits,symbols", "-n", "0", "--format", "csv",
                     prog], timeout=MEMSZ_TIMEOUT)
        got = {}
        for row in csv.DictReader(io.StringIO(r.stdout)):
            if row["compileunits"] in ("s.c", "b.c"):
                got[(row["compileunits"], row["symbols"])] = \
                    int(row["vm_size"])
        for name in NAMES:
            u = unit[name]
            want = sizes[name] if name in walked.get(u, []) else 0
            check(got.get((u, name), 0) == want,
                  "%s's %s: %d bytes of VM SIZE, as libdw's walk %s it "
                  "(got %d)" % (u, name, want,
                                "reaches" if want else "does not reach",
                                got.get((u, name), 0)))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
