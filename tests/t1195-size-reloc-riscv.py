#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits,symbols` and `--by inlines` of RISC-V
relocatable files (clang --target=riscv64-linux-gnu -g -c, with linker
relaxation and with -mno-relax). Their DWARF holds the differences of
two code labels (a function's DW_AT_high_pc, each advance of the line
table) as R_RISCV_ADD*/SUB* pairs the linker resolves after relaxing the
code; memsz did not apply them and refused the DWARF (no unit named, no
line). It now applies them.

Ground truth: readelf -wi names the unit; nm -S gives each function's
and object's size, which the unit's VM SIZE under --by
compileunits,symbols must equal; llvm-dwarfdump --debug-line (LLVM
applies the pairs) gives the line table's rows, whose address ranges
summed by source line must be each line's VM SIZE under --by inlines.
"""
import os
import re
import shutil
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
const char *name(int i) { return names[i & 3]; }
int twice(int x) { return 2 * x + table[x & 63] + init[x & 7]; }
static int odd(int x) { return x % 7 ? x * 3 : x / 5; }
int loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += odd(i) + table[i & 63];
	return s;
}
"""
NAMED = ("name", "twice", "loop", "init", "table")


def line_bytes(dump, obj):
    """{line: bytes} of the line table's rows (llvm-dwarfdump), each
    row's range up to the next row of its sequence."""
    out = subprocess.run([dump, "--debug-line", obj], capture_output=True,
                         text=True, check=True).stdout
    rows = re.findall(r"^0x([0-9a-f]+)\s+(\d+)\s+\d+\s+\d+\s+\d+\s+\d+"
                      r"[ \t]*(.*)$", out, re.M)
    got = {}
    for (a, line, flags), (b, _, _) in zip(rows, rows[1:]):
        if "end_sequence" not in flags and int(b, 16) > int(a, 16):
            got[int(line)] = got.get(int(line), 0) + int(b, 16) - int(a, 16)
    return got


def main():
    dump = shutil.which("llvm-dwarfdump-14") or shutil.which("llvm-dwarfdump")
    for tool in ("clang", "readelf", "nm"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    if not dump:
        lib.skip("llvm-dwarfdump is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        built = 0
        for tag, flags in (("relax", []), ("norelax", ["-mno-relax"])):
            obj = os.path.join(tmp, tag + ".o")
            if subprocess.run(["clang", "--target=riscv64-linux-gnu", "-O1",
                               "-g", "-c", *flags, "-o", obj, "a.c"],
                              cwd=tmp, capture_output=True).returncode:
                lib.skip_part(f"clang cannot build for riscv64 ({tag})")
                continue
            built += 1
            relocs = lib.readelf(["-r"], obj)
            check("R_RISCV_ADD32" in relocs and "R_RISCV_SUB32" in relocs,
                  f"{tag}: readelf -r shows ADD32/SUB32 pairs")
            lib.check_unit_symbols(obj, tag, NAMED, dwarf_read=True)
            lines = line_bytes(dump, obj)
            rows, _ = lib.size_rows(obj, "inlines")
            mine = {}
            for x in rows:
                m = re.search(r"a\.c:(\d+)$", x["inlines"])
                if m:
                    mine[int(m.group(1))] = int(x["vm_size"])
            check(lines and mine == lines, f"{tag}: each line's VM SIZE is "
                  f"its rows' ranges (llvm-dwarfdump --debug-line): "
                  f"{mine} vs {lines}")
        if not built:
            lib.skip("clang cannot build for riscv64")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
