#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3290: VM SIZE of files several processes map, with the fault keys.

A shell that runs /bin/true twice and ls is recorded with --faults: four
processes map the C library. Its VM SIZE, the ground truth, is what its
PT_LOAD segments occupy when mapped, page-rounded, as `readelf -lW` lists
them. memsz counts a file several processes map once in the TOTAL and in
the rows above a key whose rows are per process; the fault keys (callers,
faultsite) label each process's pages by its own stacks, so they are such
a key. Checked:
 - the C library's row has its readelf VM SIZE under --by files and under
   --by files,callers (it had four processes' worth below a fault key);
 - the TOTAL VM SIZE under callers, faultsite, files,callers and
   callers,files is that of --by files, RSS too;
 - the rows of the callers key add up to at least the TOTAL, and the footer
   says the TOTAL counts the files once, naming the callers key.
"""
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


def rep(data, by):
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n",
                          "0", "--format", "json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    check(out.returncode == 0, f"report --by {by} exits 0: "
          + out.stderr.strip()[:200])
    return json.loads(out.stdout) if out.returncode == 0 else None


def load_vm(path):
    """Bytes the PT_LOAD segments of path occupy mapped (page-rounded),
    from readelf."""
    out = subprocess.run(["readelf", "-lW", path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    page = lib.PAGE
    total = 0
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            va, memsz = int(f[2], 16), int(f[5], 16)
            total += ((va + memsz + page - 1) & ~(page - 1)) - (va & ~(page - 1))
    return total


def main():
    if not shutil.which("readelf"):
        lib.skip("no readelf (binutils)")
    with tempfile.TemporaryDirectory(prefix="memsz-t3290-") as tmp:
        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.run(
            [MEMSZ, "record", "-o", data, "--faults", "--", "sh", "-c",
             "/bin/true; /bin/true; ls / >/dev/null"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if rec.returncode != 0:
            if "perf" in rec.stderr or "ermission" in rec.stderr:
                lib.skip("cannot sample page faults: " + rec.stderr.strip())
            lib.fail("record exits 0: " + rec.stderr.strip())
        files = rep(data, "files")
        libc = [r for r in files["rows"] if "/libc.so" in r["name"]]
        if len(libc) != 1:
            lib.fail("one C library row: %s"
                     % [r["name"] for r in files["rows"]])
        name = libc[0]["name"]
        truth = load_vm(os.path.realpath(name))
        procs = files["total"].get("processes", 1)
        check(procs >= 3, f"several processes recorded ({procs})")
        check(libc[0]["vm_size"] == truth,
              f"--by files: {name} VM SIZE {libc[0]['vm_size']} is "
              f"readelf's {truth}")

        fc = rep(data, "files,callers")
        row = [r for r in fc["rows"] if r["name"] == name]
        check(len(row) == 1 and row[0]["vm_size"] == truth,
              f"--by files,callers: {name} VM SIZE "
              f"{row[0]['vm_size'] if row else None} is readelf's {truth}")
        for by in ("callers", "faultsite", "files,callers",
                   "callers,files"):
            d = rep(data, by)
            for col in ("vm_size", "rss", "file_size"):
                check(d["total"][col] == files["total"][col],
                      f"--by {by}: TOTAL {col} {d['total'][col]} is "
                      f"--by files' {files['total'][col]}")
        cl = rep(data, "callers")
        rows_vm = sum(r["vm_size"] for r in cl["rows"])
        check(rows_vm >= cl["total"]["vm_size"],
              f"--by callers: rows' VM SIZE {rows_vm} at least the "
              f"TOTAL's {cl['total']['vm_size']} (each process's own)")
        check(any("once" in n and "above the callers key" in n
                  for n in cl["notes"]),
              "--by callers: the footer says files count once above the "
              "callers key")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
