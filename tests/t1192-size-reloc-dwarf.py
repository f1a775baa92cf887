#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` of relocatable files (.o): their DWARF's
string offsets and addresses are in relocations with explicit addends
(SHT_RELA: x86-64, AArch64, POWER, s390x), 0 in the file's bytes, and
libdw does not apply them. memsz named every unit from the first string
of its string table (gcc: the comp_dir, clang: the end of its producer
string, or no name at all) and gave it no VM SIZE. It now applies them,
and refuses (with a note) DWARF whose relocations it does not apply
(RISC-V's ADD/SUB pairs) rather than name units wrong.

Ground truth: readelf -wi, which applies the relocations, names each
unit; nm -S gives each of the source's functions' and objects' size, which the unit's
VM SIZE under --by compileunits,symbols must equal; readelf -r shows the
RISC-V file's R_RISCV_ADD32/SUB32 in .rela.debug_info. gcc builds the
x86-64 file; clang, where it is installed, the foreign ones.
"""
import csv
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
"""
# s390x is big-endian; powerpc64le, not powerpc64, whose ELFv1 function
# symbols are descriptors in .opd, not code
CLANG = ("aarch64-linux-gnu", "powerpc64le-linux-gnu", "s390x-linux-gnu")
# the source's functions and objects (a compiler adds its own: clang's
# .L.str, reltable.* tables no DWARF variable describes)
NAMED = ("name", "twice", "init", "table")


def size(obj, by):
    r = subprocess.run([MEMSZ, "size", "--by", by, "--format", "csv", "-n",
                        "0", obj], capture_output=True, text=True)
    name = os.path.basename(obj)
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
          f"{r.stderr.strip()[-200:]})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(obj),
          f"{name}: the rows' FILE SIZE sums to the file's size")
    return rows, r.stderr


def unit_name(obj):
    """The unit's DW_AT_name as readelf -wi prints it, relocated."""
    out = lib.readelf(["-wi"], obj)
    m = re.search(r"DW_TAG_compile_unit.*?DW_AT_name\s*:\s*(?:\([^)]*\)"
                  r"(?:\s*\([^)]*\))?:?\s*)?(\S+)\n", out, re.S)
    return m.group(1) if m else None


def nm_sizes(obj):
    out = subprocess.run(["nm", "-S", obj], capture_output=True, text=True,
                         check=True).stdout
    return {f[3]: int(f[1], 16) for f in (x.split() for x in
                                          out.splitlines())
            if len(f) == 4 and f[3] in NAMED}


def check_obj(obj):
    base = os.path.basename(obj)
    want = unit_name(obj)
    check(want == "a.c", f"{base}: readelf -wi names the unit a.c ({want})")
    rows, _ = size(obj, "compileunits,symbols")
    got = {x["symbols"]: int(x["vm_size"]) for x in rows
           if x["compileunits"] == want}
    sizes = nm_sizes(obj)
    check(len(sizes) == len(NAMED) and all(got.get(s) == n for s, n in sizes.items()),
          f"{base}: the unit holds each symbol nm -S sizes, at its size "
          f"({sizes} vs {got})")


def main():
    for tool in ("gcc", "readelf", "nm"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        for flags in (["-gdwarf-5"], ["-gdwarf-4"], ["-gdwarf-5", "-gz"]):
            obj = os.path.join(tmp, "gcc%s.o" % "".join(flags))
            subprocess.run(["gcc", "-O1", "-c", *flags, "-o", obj, "a.c"],
                           cwd=tmp, check=True)
            check_obj(obj)
        if not shutil.which("clang"):
            lib.skip_part("clang is not installed: no foreign objects")
            sys.exit(lib.finish())
        for target in CLANG:
            obj = os.path.join(tmp, target + ".o")
            if subprocess.run(["clang", "--target=" + target, "-O1", "-g",
                               "-c", "-o", obj, "a.c"], cwd=tmp).returncode:
                lib.skip_part(f"clang cannot build for {target}")
                continue
            check_obj(obj)
        obj = os.path.join(tmp, "riscv64.o")
        if subprocess.run(["clang", "--target=riscv64-linux-gnu", "-O1",
                           "-g", "-c", "-o", obj, "a.c"],
                          cwd=tmp).returncode == 0:
            relocs = lib.readelf(["-r"], obj)
            if "R_RISCV_SUB32" not in relocs:
                lib.skip_part("clang's RISC-V DWARF has no ADD/SUB pairs")
            else:
                rows, err = size(obj, "compileunits")
                check("is of a type memsz does not apply" in err,
                      f"riscv64.o: the DWARF is refused: {err[-300:]}")
                check(not [x for x in rows if not
                           x["compileunits"].startswith("[")],
                      "riscv64.o: no unit is named")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
