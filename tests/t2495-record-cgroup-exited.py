#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2495: a process of a -G cgroup that exits while the cgroup is
recorded counts no more once it has exited. A scan (-G, -a) has no perf
events, so no EXIT record said when it ended: the report went on adding
its last snapshot at every later --timeline point and in the default
report (the last snapshot of each process), so that the TOTAL of CHARGE
exceeded the cgroup's charge by what it held, with a note that blamed
memory.stat's lag.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) holds two python3 processes: a keeper that
waits on its stdin, and a burst that touches 64 MiB of anonymous memory
and exits when told. `record -G CG --interval 100` runs; after a
snapshot of both, the burst is told to exit and reaped (ground truth:
CG's charge, memory.usage_in_bytes or memory.current, read after the
next snapshot and after the recording); after another snapshot the
recording is stopped (SIGINT). The recording has an EXIT record of the
burst (`memsz dump`: "EXIT PID/PID", no "parent 0/0" it does not
know); the default report has no row of the burst's pid and its TOTAL of
CHARGE is within 4 MiB of CG's charge (not 64 MiB over it), a note names
the burst as left out; the last --timeline point has no CHARGE of the
burst and the same TOTAL.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 64 << 20
SLACK = 4 << 20


def started(data):
    lib.snapshot_after(data, "the burst touched its memory")
    lib.snapshot_after(data, "a snapshot of both")


def run(tmp, cg):
    data = os.path.join(tmp, "g.data")
    pid, low, high = lib.exit_recorded(
        cg, data, 100, SIZE, started,
        lambda d: lib.snapshot_after(d, "the burst exited"))
    lib.check_exit_left_out(data, pid, low, high, SLACK, SIZE)
    out = subprocess.run([MEMSZ, "report", "-i", data, "-F", "charge"],
                         text=True, capture_output=True).stdout
    check("left out" in out and f"pid {pid}" in out,
          "a note says the burst is left out")
    tl = lib.report(data, "pids", "-F", "charge", "--timeline")
    last = max(float(r["time"]) for r in tl)
    at = [r for r in tl if float(r["time"]) == last]
    burst_at = sum(float(r["charge"] or 0) for r in at
                   if r["pids"].split()[0] == str(pid))
    check(burst_at == 0,
          f"the last --timeline point has no CHARGE of the burst "
          f"({burst_at:.0f})")
    total = lib.charge_total(at)
    check(low - SLACK <= total <= high + SLACK,
          f"the last --timeline point's CHARGE sums to {total:.0f}, CG's "
          f"charge {low}..{high} within 4 MiB")


if __name__ == "__main__":
    lib.cgroup_test("t2495", run)
    sys.exit(lib.finish())
