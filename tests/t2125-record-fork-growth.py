#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2125: children forked while snapshots are taken are all followed.

tests/workloads/fork_grow.c forks 40 children, four at a time, each
touching 24 MiB page by page, and prints their pids. Growth snapshots
(which stop the target and drain the perf rings) come while other
children are forked and reported: memsz must add them without losing
track of the target it is snapshotting. Under `memsz record --faults`
(and without it):
 - memsz ends, with the workload (a target left stopped would hang it:
   the guard of the run is a failure, not a timing check);
 - every pid the workload printed has an at-exit snapshot in the
   recording (`memsz dump`), and no other process has one.
(Whether --faults loses samples is t2105's: this workload's growth
snapshots come hundreds at a time, and on a machine loaded far beyond its
cpus memsz can be kept from draining while it takes them.)
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, SRCDIR, check  # noqa: E402

N = 40
MIB = 24
GUARD = 120  # seconds: only a hung memsz or a stopped target takes this


def run(exe, data, opts):
    """(children pids, at-exit snapshot pids, memsz stderr) or None."""
    try:
        p = subprocess.run([MEMSZ, "record", "-o", data, *opts, "--",
                            exe, str(N), str(MIB)],
                           capture_output=True, text=True, timeout=GUARD)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        lib.fail(f"memsz record {' '.join(opts)} failed: "
                 f"{p.stderr.strip()[-300:]}")
    kids = {int(x) for x in p.stdout.split()}
    dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                          capture_output=True, text=True).stdout
    exits = {int(m.group(1)) for m in re.finditer(
        r"SNAP_BEGIN pid (\d+) .*flags [^\n]*at-exit", dump)}
    return kids, exits, p.stderr


def main():
    if subprocess.run(["sh", "-c", "command -v gcc"],
                      stdout=subprocess.DEVNULL).returncode != 0:
        lib.skip("gcc (gcc) is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t2125.") as tmp:
        exe = os.path.join(tmp, "fork_grow")
        subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(
            SRCDIR, "tests", "workloads", "fork_grow.c")], check=True)
        for opts in ([], ["--faults"]):
            name = " ".join(["record", *opts])
            got = run(exe, os.path.join(tmp, "f.data"), opts)
            check(got is not None,
                  f"{name}: memsz ended with the workload (no target "
                  f"left stopped)")
            if got is None:
                continue
            kids, exits, _ = got
            check(len(kids) == N, f"{name}: the workload forked {N} "
                  f"children ({len(kids)})")
            check(kids <= exits, f"{name}: every child has an at-exit "
                  f"snapshot (missing: {sorted(kids - exits)[:5]})")
            others = exits - kids
            check(len(others) <= 1, f"{name}: no other process has one "
                  f"but the workload itself ({sorted(others)[:5]})")
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
