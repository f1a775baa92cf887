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
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

SIZE = 64 << 20
SLACK = 4 << 20


def run(tmp, cg):
    data = os.path.join(tmp, "g.data")
    # the start round, a snapshot of each of the two; no interval round
    pid, low, high = lib.exit_recorded(
        cg, data, 600000, SIZE,
        lambda d: check(lib.wait_snaps(d, 2) >= 2,
                        "the start snapshots of both"),
        lambda d: None)
    lib.check_exit_left_out(data, pid, low, high, SLACK, SIZE)


if __name__ == "__main__":
    lib.cgroup_test("t2498", run)
    sys.exit(lib.finish())
