#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits|inlines` of a relocatable file (.o) whose
section named .zdebug_line_str is no string table but a relocation table
(gcc's .rela.debug_line renamed, a name of the same length; fuzz_dwarf
found it among RISC-V objects, whose DWARF memsz now reads). libdw
fails to inflate it and hands out no bytes for its size: memsz read the
last of them to check the strings ended, and died of SIGSEGV. It now
takes such a section as unterminated: the DWARF is not read, with a
note, and every byte is still labelled.

Ground truth: readelf -SW shows the section (RELA, named
.zdebug_line_str); readelf -wi names the unit of the unmodified file,
which memsz names too; the rows' FILE SIZE sums to the file's size.
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
SOURCE = "int table[100];\nint twice(int x) { return 2 * x + table[x & 63]; }\n"


def size(obj, by):
    r = subprocess.run([MEMSZ, "size", "--by", by, "--format", "csv", "-n",
                        "0", obj], capture_output=True, text=True)
    name = os.path.basename(obj)
    check(r.returncode == 0, f"{name} --by {by}: exit 0 ({r.returncode}: "
          f"{r.stderr.strip()[-300:]})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(obj),
          f"{name} --by {by}: the rows' FILE SIZE sums to the file's size")
    return rows, r.stderr


def main():
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        good = os.path.join(tmp, "good.o")
        subprocess.run(["gcc", "-O1", "-g", "-c", "-o", good, "a.c"],
                       cwd=tmp, check=True)
        rows, _ = size(good, "compileunits")
        check(any(x["compileunits"] == "a.c" for x in rows) and
              "a.c" in lib.readelf(["-wi"], good),
              "good.o: its unit a.c is named, as readelf -wi names it")
        b = bytearray(open(good, "rb").read())
        i = b.find(b".rela.debug_line\0")
        if i < 0:
            lib.skip("gcc's .o has no .rela.debug_line")
        b[i:i + 16] = b".zdebug_line_str"
        bad = os.path.join(tmp, "bad.o")
        open(bad, "wb").write(b)
        check(re.search(r"\.zdebug_line_str\s+RELA\s",
                        lib.readelf(["-SW"], bad)) is not None,
              "bad.o: readelf -SW shows a RELA section named "
              ".zdebug_line_str")
        for by in ("compileunits", "inlines"):
            rows, err = size(bad, by)
            check("cannot read its DWARF" in err and
                  "Sanitizer" not in err,
                  f"bad.o --by {by}: the DWARF not read, with a note "
                  f"({err.strip()[-300:]})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
