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
import signal
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 64 << 20
SLACK = 4 << 20


def charge_total(rows):
    return sum(float(r["charge"] or 0) for r in rows
               if r.get("pids") != "TOTAL")


def run(tmp, cg):
    keeper = lib.start_in_cgroup(lib.ANON_HOLDER, cg, 0)
    burst = lib.start_in_cgroup(lib.ANON_HOLDER, cg, SIZE)
    rec = None
    data = os.path.join(tmp, "g.data")
    try:
        lib.workload_ready(keeper, "the keeper")
        lib.workload_ready(burst, "the burst (64 MiB touched)")
        rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--interval",
                                "100", "-o", data], stderr=subprocess.PIPE,
                               text=True)
        lib.snapshot_after(data, "the burst touched its memory")
        lib.snapshot_after(data, "a snapshot of both")
        burst.stdin.write("exit\n")
        burst.stdin.flush()
        burst.wait()
        lib.snapshot_after(data, "the burst exited")
        use0 = lib.memcg_usage(cg)
        rec.send_signal(signal.SIGINT)
        err = rec.communicate()[1]
        use1 = lib.memcg_usage(cg)
    finally:
        if rec and rec.returncode is None:
            rec.kill()
            rec.wait()
        for p in (keeper, burst):
            p.kill()
            p.wait()
    check(rec.returncode == -signal.SIGINT,
          f"record dies by the SIGINT that ended it ({err.strip()})")
    dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                          capture_output=True).stdout
    exits = [ln for ln in dump.splitlines()
             if ln.endswith(f" EXIT {burst.pid}/{burst.pid}")]
    check(len(exits) == 1, f"an EXIT record of the burst, pid {burst.pid}, "
          f"dumped without a parent it does not know ({exits})")
    low, high = min(use0, use1), max(use0, use1)
    rows = lib.report(data, "pids", "-F", "charge")
    gone = [r for r in rows if r["pids"].split()[0] == str(burst.pid)]
    check(not gone, f"the default report has no row of the burst ({gone})")
    total = charge_total(rows)
    check(low - SLACK <= total <= high + SLACK,
          f"the report's CHARGE sums to {total:.0f}, CG's charge "
          f"{low}..{high} within 4 MiB (the burst's {SIZE} not in it)")
    out = subprocess.run([MEMSZ, "report", "-i", data, "-F", "charge"],
                         text=True, capture_output=True).stdout
    check("left out" in out and f"pid {burst.pid}" in out,
          "a note says the burst is left out")
    tl = lib.report(data, "pids", "-F", "charge", "--timeline")
    last = max(float(r["time"]) for r in tl)
    at = [r for r in tl if float(r["time"]) == last]
    burst_at = sum(float(r["charge"] or 0) for r in at
                   if r["pids"].split()[0] == str(burst.pid))
    check(burst_at == 0,
          f"the last --timeline point has no CHARGE of the burst "
          f"({burst_at:.0f})")
    total = charge_total(at)
    check(low - SLACK <= total <= high + SLACK,
          f"the last --timeline point's CHARGE sums to {total:.0f}, CG's "
          f"charge {low}..{high} within 4 MiB")


if __name__ == "__main__":
    lib.cgroup_test("t2495", run)
    sys.exit(lib.finish())
