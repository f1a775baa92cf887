#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2498: a process of a -G cgroup that exits after the last round of
snapshots and before the final one (the recording stopped, here by
SIGINT) has an EXIT record too, as one found gone at an --interval round
has (t2495). The final round marked it gone without one, so the default
report went on counting its last snapshot: the TOTAL of CHARGE exceeded
the cgroup's charge by what it held.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) holds two python3 processes: a keeper that
waits on its stdin, and a burst that touches 64 MiB of anonymous memory
and exits when told. `record -G CG --interval 600000` runs (no interval
round comes); once the start snapshots of both are written, the burst is
told to exit and reaped (gone: ground truth, waitpid), then the recording
is stopped (SIGINT): its final round finds the burst gone. CG's charge
(memory.usage_in_bytes or memory.current) is read before and after the
stop. The recording has an EXIT record of the burst (`memsz dump`), the
default report has no row of its pid and a TOTAL of CHARGE within 4 MiB
of CG's charge (not 64 MiB over it).
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


def run(tmp, cg):
    keeper = lib.start_in_cgroup(lib.ANON_HOLDER, cg, 0)
    burst = lib.start_in_cgroup(lib.ANON_HOLDER, cg, SIZE)
    rec = None
    data = os.path.join(tmp, "g.data")
    try:
        lib.workload_ready(keeper, "the keeper")
        lib.workload_ready(burst, "the burst (64 MiB touched)")
        rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--interval",
                                "600000", "-o", data],
                               stderr=subprocess.PIPE, text=True)
        # the start round: a snapshot of each of the two
        check(lib.wait_snaps(data, 2) >= 2, "the start snapshots of both")
        burst.stdin.write("exit\n")
        burst.stdin.flush()
        burst.wait()
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
    check(len(exits) == 1, f"an EXIT record of the burst, pid {burst.pid} "
          f"({exits})")
    rows = lib.report(data, "pids", "-F", "charge")
    gone = [r for r in rows if r["pids"].split()[0] == str(burst.pid)]
    check(not gone, f"the default report has no row of the burst ({gone})")
    total = sum(float(r["charge"] or 0) for r in rows
                if r.get("pids") != "TOTAL")
    low, high = min(use0, use1), max(use0, use1)
    check(low - SLACK <= total <= high + SLACK,
          f"the report's CHARGE sums to {total:.0f}, CG's charge "
          f"{low}..{high} within 4 MiB (the burst's {SIZE} not in it)")


if __name__ == "__main__":
    lib.cgroup_test("t2498", run)
    sys.exit(lib.finish())
