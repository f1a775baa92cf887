#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3330: `memsz diff --fields COLS` leaves out the rows whose compared
columns are the same on both sides, as it leaves out rows the same in
every column without --fields.

Rows were kept when any column changed, shown or not: `memsz diff
--by sections -F vm old new` of two builds listed every .debug_*
section as "0 0 0" (its FILE SIZE had changed, not its VM SIZE), and
the footer's count of rows left out was short by as many; `diff -F
file` of two runs of one program listed every file of the program
with the same size on both sides (its RSS had changed).

Ground truth: readelf -SW's section sizes of two builds made here (a
section's VM SIZE is its size when it is allocated: flag A), and
os.stat() of the files two recordings of `sleep` (made here, as root)
map: the same files, so no FILE SIZE changes.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

OLD_C = r"""
char table[4000] = {1};
int f1(int x) { return x * 3; }
int main(void) { return f1(table[0]); }
"""

NEW_C = r"""
char table[12000] = {1};
int f1(int x) { return x * 3; }
int added(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * table[i % 99]; return s; }
int main(void) { return f1(table[0]) + added(3); }
"""


def out(*args):
    return subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          check=True).stdout


def csv_rows(*args):
    return list(csv.DictReader(io.StringIO(out(*args, "--format", "csv"))))


def elf_builds(tmp):
    """The two builds' sections from readelf: (old, new, paths)."""
    paths = []
    for name, src in (("old", OLD_C), ("new", NEW_C)):
        c = os.path.join(tmp, name + ".c")
        with open(c, "w") as f:
            f.write(src)
        paths.append(os.path.join(tmp, name))
        subprocess.run(["cc", "-g", "-O1", "-o", paths[-1], c], check=True)
    return lib.sections(paths[0]), lib.sections(paths[1]), paths


def vm(secs, name):
    s = secs.get(name)
    return s[2] if s and "A" in s[3] else 0


def check_elf(tmp):
    old, new, paths = elf_builds(tmp)
    alloc = {n for n in set(old) | set(new) if vm(old, n) != vm(new, n)}
    file_only = sorted(n for n in set(old) & set(new)
                       if n.startswith(".debug_") and
                       old[n][2] != new[n][2])
    if not alloc or not file_only:
        lib.skip("the two builds differ in no allocated section or no "
                 "debug section (%r, %r)" % (alloc, file_only))
    rows = csv_rows("diff", "--by", "sections", "-F", "vm", "-n", "0",
                    *paths)
    same = [r["sections"] for r in rows
            if r["vm_size_old"] == r["vm_size_new"] and
            r["change"] == "changed"]
    check(not same, "diff -F vm: no row with the same VM SIZE on both "
          "sides (%r)" % same)
    shown = {r["sections"]: int(r["vm_size_delta"]) for r in rows}
    want = {n: vm(new, n) - vm(old, n) for n in alloc}
    check(all(shown.get(n) == d for n, d in want.items()),
          "diff -F vm: each allocated section that changed size, by "
          "readelf's change (%r; memsz %r)" % (want, shown))
    check(not set(file_only) & set(shown),
          "diff -F vm: debug sections (FILE SIZE changed only) left out "
          "(%r)" % sorted(set(file_only) & set(shown)))
    by_file = {r["sections"] for r in csv_rows(
        "diff", "--by", "sections", "-F", "file", "-n", "0", *paths)}
    check(set(file_only) <= by_file,
          "diff -F file: the debug sections that changed are shown "
          "(%r)" % file_only)
    doc = json.loads(out("diff", "--by", "sections", "-F", "vm",
                         "--format", "json", *paths))
    rows_all = json.loads(out("diff", "--by", "sections", "--format",
                              "json", *paths))
    everything = len(rows_all["rows"]) + rows_all.get("unchanged", 0)
    check(len(doc["rows"]) + doc.get("unchanged", 0) == everything,
          "diff -F vm: rows shown and left out are every row (%d + %d, "
          "of %d)" % (len(doc["rows"]), doc.get("unchanged", 0),
                      everything))


def check_recordings(tmp):
    if os.geteuid() != 0:
        lib.skip_part("recordings: run as root")
        return
    data = []
    for n in ("a", "b"):
        data.append(os.path.join(tmp, n + ".data"))
        subprocess.run([MEMSZ, "record", "-o", data[-1], "--", "sleep",
                        "0.01"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=True)
    files = [r["files"] for r in csv_rows("report", "-i", data[0])
             if r["files"].startswith("/")]
    sizes = {f: os.stat(f).st_size for f in files if os.path.exists(f)}
    if not sizes:
        lib.skip_part("recordings: no file of sleep found on disk")
        return
    rows = csv_rows("diff", "-F", "file", "-n", "0", *data)
    changed = [r["files"] for r in rows if r["files"] in sizes]
    check(not changed, "diff -F file of two runs of sleep: no file of "
          "the same size on disk shown (%d of %d: %r)"
          % (len(changed), len(sizes), changed[:3]))


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t3330-") as tmp:
        check_elf(tmp)
        check_recordings(tmp)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
