#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2199: a leash's K is set for the threads leashed, and is never below 2.

memsz leashes each traced thread with a counter that stops it every K
samples, K chosen so that K samples (at their largest) of every leashed
thread fit in 80% of the smallest ring, and K is 2 at least; when the
rings are too small for two samples per thread, memsz warns ("the sample
rings are too small for a leash of two samples per traced thread") and
the file's leash note says "every K samples at most".

memsz once set K for the thread count rounded up to a power of 2, and
said K was 1 when it was really 2: attached with --faults -m 64 (256 KiB
rings) to tests/workloads/fault_loop.c with 9 faulting threads (16 by
that count), it warned although the rings hold two samples of each of
the 9, and its note said "every 1 samples". The cases, each attached to
NT threads that fault from the start (counted in /proc/PID/task, the
ground truth of how many threads there are to leash), memsz ended with
SIGINT once the workload ticked after memsz's first snapshot:
 - 9 threads: no warning; the note's K is 2 or more;
 - 13 threads, too many for two samples each in 256 KiB rings: the
   warning, and the note's K is 2 (the leash memsz sets), not 1.
"""
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

# hang guard on every wait for an event, not a timing assumption
WAIT_S = 120
RING = ["--faults", "-m", "64"]
SHORT = "the sample rings are too small for a leash"


def record(tmp, exe, nt):
    """Attaches memsz to fault_loop with nt threads and ends it after two
    tick past its first snapshot; (stderr, dump) or None after a failed
    check."""
    name = f"threads{nt}"
    data = os.path.join(tmp, name + ".data")
    got = lib.start_fault_loop(name, data, RING, [exe, "0", str(nt)], False)
    if not got:
        return None
    rec, pid, out, target = got
    try:
        ntask = len(os.listdir(f"/proc/{pid}/task"))
        check(ntask == nt, f"{name}: the workload has {nt} threads "
              f"({ntask} in /proc/{pid}/task)")
        return lib.stop_after_tick(name, rec, data, out, WAIT_S)
    finally:
        lib.end_fault_loop(rec, pid, target)


def leash_k(name, dump):
    """K from the file's leash note, or None (a failed check)."""
    m = re.search(r"at their leash \(every (\d+) samples at most\)", dump)
    check(m is not None, f"{name}: the file notes the leash stops")
    return int(m.group(1)) if m else None


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2199-") as tmp:
        exe = lib.workload(tmp, "fault_loop", "-pthread")
        got = record(tmp, exe, 9)
        if got:
            err, dump = got
            check(SHORT not in err,
                  f"9 threads: no warning that the rings are too small: "
                  f"{err}")
            k = leash_k("9 threads", dump)
            check(k is not None and k >= 2,
                  f"9 threads: the note's K is 2 at least ({k})")
        got = record(tmp, exe, 13)
        if got:
            err, dump = got
            check(SHORT in err,
                  f"13 threads: the warning that the rings are too small: "
                  f"{err}")
            k = leash_k("13 threads", dump)
            check(k == 2, f"13 threads: the note's K is 2 ({k})")


main()
sys.exit(lib.finish())
