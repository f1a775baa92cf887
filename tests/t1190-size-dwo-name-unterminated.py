#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits|inlines` on split DWARF (gcc
-gsplit-dwarf) whose skeleton unit's DW_AT_comp_dir or DW_AT_dwo_name,
the last string of .debug_str, runs off the end of its section (its
final NUL made 'X').

memsz works out the .dwo files libdw would open (their names and
directories, from the skeleton units) to bound what it inflates: it read
those strings before it checked that .debug_str ends with a NUL, and
strnlen() ran past libelf's copy of the section (the sanitizer build
reports a heap-buffer-overflow; found by mutating such a file). Now the
check comes first.

Ground truth: readelf -p shows the patched string as the section's
last and readelf -wi as the skeleton's comp_dir or dwo_name; the file is
sized (exit 0, the rows' FILE SIZE sums to its size), its DWARF refused
("cannot read its DWARF"), and the unpatched file's units are named
from the .dwo (a.c). The sanitizer build of this test fails without the
fix.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
SOURCE = "int v = 3;\nint main(void) { return v; }\n"


def size(by, path, cwd):
    r = subprocess.run([MEMSZ, "size", "--by", by, "--format", "csv", path],
                       capture_output=True, text=True, cwd=cwd)
    name = f"{os.path.basename(path)} --by {by}"
    check("Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
          f"{name}: no sanitizer report: {r.stderr.strip()[-300:]}")
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(path),
          f"{name}: the rows' FILE SIZE sums to the file's size")
    return rows, r.stderr


def main():
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        r = subprocess.run(["gcc", "-O1", "-gdwarf-5", "-gsplit-dwarf", "-o",
                            "good", "a.c"], cwd=tmp)
        if r.returncode or not os.path.exists(os.path.join(tmp, "good-a.dwo")):
            lib.skip("gcc -gsplit-dwarf made no .dwo file")
        good = os.path.join(tmp, "good")
        bad = os.path.join(tmp, "bad")
        _, off, sz, _ = lib.sections(good)[".debug_str"]
        strs = lib.section_strings(good, ".debug_str", 0)
        info = lib.readelf(["-wi"], good)
        last = strs[-1][1] if strs else None
        check(any(("DW_AT_comp_dir" in x or "DW_AT_dwo_name" in x) and
                  x.endswith(f": {last}") for x in info.splitlines()),
              f"readelf: .debug_str's last string ({last}) is the "
              "skeleton's comp_dir or dwo_name")
        b = bytearray(open(good, "rb").read())
        check(b[off + sz - 1] == 0, ".debug_str ends with a NUL")
        b[off + sz - 1] = ord("X")
        open(bad, "wb").write(b)
        rows, _ = size("compileunits", good, tmp)
        check(any(x["compileunits"] == "a.c" for x in rows),
              "the unpatched file's unit is a.c")
        for by in ("compileunits", "inlines"):
            rows, err = size(by, bad, tmp)
            check("cannot read its DWARF" in err,
                  f"bad --by {by}: the DWARF is refused: {err.strip()[-200:]}")
            check(not any(x[by] == "a.c" for x in rows),
                  f"bad --by {by}: no unit named from refused DWARF")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
