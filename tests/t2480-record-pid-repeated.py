#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2480: `record -p A -p B,C` records A, B and C, as `-p A,B,C` does.

A repeated -p replaced the list before it: `-p A -p B` recorded B alone,
with nothing said, and a report of it was silently short of A's memory.
The lists now add up, as -e's and --cache-paths' do.

Three copies of cat, each reading a pipe held here (so each runs until
the test closes it), are stopped and recorded with one one-shot
`record -p A -p B,C --duration 0`; `report --by pids` has a row for
each, whose RSS and USS are its smaps_rollup's, read while it is
stopped. A pid named twice (`-p A -p A`) is still recorded once.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def record(data, *pidargs):
    r = subprocess.run([MEMSZ, "record", "-o", data, "--duration", "0",
                        *pidargs], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0, "record %s: exit 0 (%d, %s)"
          % (" ".join(pidargs), r.returncode, r.stderr.strip()))
    return lib.pid_rows(data)


def uss(rollup):
    """Private_Clean + Private_Dirty: unlike PSS, it does not move when
    other processes of the machine map or unmap the libraries cat maps."""
    return rollup["Private_Clean"] + rollup["Private_Dirty"]


def main():
    if os.geteuid() != 0:
        lib.skip("not root: USS needs the page frames")
    procs = [subprocess.Popen(["cat"], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL) for _ in range(3)]
    try:
        pids = [p.pid for p in procs]
        for pid in pids:
            lib.stopped(pid)
        truth = {pid: lib.smaps_rollup(pid) for pid in pids}
        with tempfile.TemporaryDirectory(prefix="memsz-t2480-") as tmp:
            data = os.path.join(tmp, "p.data")
            rows = record(data, "-p", str(pids[0]),
                          "-p", "%d,%d" % (pids[1], pids[2]))
            check(sorted(rows) == sorted(pids),
                  "-p A -p B,C: a row for each of A, B and C (%r of %r)"
                  % (sorted(rows), sorted(pids)))
            for pid in pids:
                r = rows.get(pid)
                check(r is not None and int(r["rss"]) == truth[pid]["Rss"]
                      and int(r["uss"]) == uss(truth[pid]),
                      "pid %d: RSS %s and USS %s as smaps_rollup's %d, %d"
                      % (pid, r and r["rss"], r and r["uss"],
                         truth[pid]["Rss"], uss(truth[pid])))
            rows = record(data, "-p", str(pids[0]), "-p", str(pids[0]))
            check(sorted(rows) == [pids[0]],
                  "-p A -p A: A recorded once (%r)" % sorted(rows))
    finally:
        for p in procs:
            os.kill(p.pid, signal.SIGCONT)
            p.stdin.close()
            p.wait()
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
