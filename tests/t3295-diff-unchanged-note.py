#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3295: diff says in every format that it left out the rows that did
not change.

`memsz diff` leaves out rows equal on both sides, so the rows shown add up
to the TOTAL's change but not to its OLD and NEW; json said how many it
left out ("unchanged"), the table, csv and tsv said nothing and their
rows did not add up. Two programs are built here that differ in one
function's size; compared --by symbols:
 - json's "unchanged" is the number of symbols whose FILE SIZE and VM
   SIZE `nm -S --size-sort` gives alike in both files, at least;
 - the table's footer, and csv's and tsv's stderr, say that many rows were
   left out, as does json's notes;
 - csv's rows add up to the TOTAL's change (json's) and, because rows were
   left out, not to its OLD;
 - with one row left out (a filter keeps one function of equal size) the
   note says "1 row ... is left out", not "1 rows ... are".
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = r"""
#include <stdio.h>
static const char table[%d] = {1};
int same_a(int x) { return x * 3 + 1; }
int same_b(int x) { return x * 5 - 2; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%%d %%d\n", same_a(argc) + same_b(argc), table[argc]);
	return 0;
}
"""


def diff(old, new, fmt):
    r = subprocess.run([MEMSZ, "diff", "--by", "symbols", "-n", "0",
                        "--width", "0", "--format", fmt, old, new],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(r.returncode == 0, f"diff --format {fmt} exits 0"
          + ("" if r.returncode == 0 else ": " + r.stderr.strip()[-200:]))
    return r.stdout, r.stderr


def nm_sizes(path):
    out = subprocess.run(["nm", "-S", "--defined-only", path],
                         stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    sizes = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            sizes[f[3]] = int(f[1], 16)
    return sizes


def main():
    for tool in ("gcc", "nm"):
        if not shutil.which(tool):
            lib.skip(f"no {tool}")
    with tempfile.TemporaryDirectory(prefix="memsz-t3295-") as tmp:
        progs = []
        for n, size in (("old", 4096), ("new", 65536)):
            src, exe = (os.path.join(tmp, n + ".c"),
                        os.path.join(tmp, n))
            with open(src, "w") as f:
                f.write(SRC % size)
            subprocess.run(["gcc", "-O1", "-o", exe, src], check=True)
            progs.append(exe)
        a, b = nm_sizes(progs[0]), nm_sizes(progs[1])
        same = [s for s in ("same_a", "same_b") if a.get(s) == b.get(s)]
        if len(same) < 2:
            lib.skip("the compiler gave the same functions other sizes")

        out, _ = diff(*progs, "json")
        d = json.loads(out)
        n = d.get("unchanged", 0)
        check(n >= len(same), f"json: {n} rows unchanged, at least the "
              f"{len(same)} functions nm sizes alike")
        note = f"{n} rows the same in OLD and NEW are left out"
        check(any(x.startswith(note) for x in d["notes"]),
              f"json notes: '{note} ...'")
        out, _ = diff(*progs, "table")
        check(note in out, f"table footer: '{note} ...'")
        for fmt, sep in (("csv", ","), ("tsv", "\t")):
            out, err = diff(*progs, fmt)
            check(note in err, f"{fmt} stderr: '{note} ...'")
        rows = list(csv.DictReader(io.StringIO(diff(*progs, "csv")[0])))
        t = d["total"]
        for col in ("file_size", "vm_size"):
            delta = sum(int(r[col + "_delta"]) for r in rows)
            old = sum(int(r[col + "_old"]) for r in rows)
            check(delta == t[col]["delta"],
                  f"csv {col}: the rows' change {delta} is the TOTAL's "
                  f"{t[col]['delta']}")
            check(old < t[col]["old"],
                  f"csv {col}: the rows' OLD {old} is less than the "
                  f"TOTAL's {t[col]['old']} (rows were left out)")

        # one row left out (the filter keeps one function nm sizes alike
        # in both): the note says so in the singular, not "1 rows"
        r = subprocess.run([MEMSZ, "diff", "--by", "symbols", "--filter",
                            "symbols=^same_a$", "--format", "json",
                            *progs], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        d = json.loads(r.stdout)
        one = "1 row the same in OLD and NEW is left out:"
        check(d.get("unchanged") == 1 and not d["rows"] and
              any(x.startswith(one) for x in d["notes"]),
              f"one unchanged row: '{one} ...' ({d.get('notes')})")
        check(not any("1 rows" in x for x in d["notes"]),
              "no note says '1 rows'")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
