#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2475: attached to a process whose threads come and go, --faults samples
each fault once and loses none.

memsz opens its perf events on each thread listed in /proc/PID/task, with
inherit (the threads made after get them from their maker), then looks
again for the threads made meanwhile. It opened the events of those
again even when their maker's were open already: such a thread had them
twice, inherited and its own, and so did every thread it made. Each of
its faults was sampled twice (two SAMPLE records, same thread, time and
address), and its leash, which counts faults, let it fill the rings twice
as fast as their room was set for: 3 attaches in 160 to a process of
three churning threads with -m 64 lost samples at the start of the
recording. memsz now holds the traced threads (ptrace stops) while it
opens the events, so no thread is made meanwhile.

tests/workloads/fault_loop.c with NT threads that churn ("churn spawn":
each thread touches 1 MiB, starts the thread that takes its place and
ends; a line of such threads ends after 16 rounds, and the main thread,
first in /proc/PID/task and so the first whose events memsz opens,
starts a new line after each of its own rounds while fewer than NT - 1
run), attached ATTACHES times with --faults (default rings: a leash of
many samples per thread, so that nothing may be lost), each recording
ended with SIGINT once the workload ticked after memsz's first snapshot
(memsz before the fix sampled faults twice in about 3 attaches of 4):
 - no fault is sampled twice: no two SAMPLE records of one thread with
   the same time and faulting address (the workload writes each page of
   a fresh mapping once: a fault is one event);
 - the summary says 0 lost and `memsz dump` has no LOST record.
"""
import collections
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
RING = ["--faults"]
NT = int(os.environ.get("T2475_NT", "5"))
CHURN = os.environ.get("T2475_CHURN", "churn spawn").split()
ATTACHES = int(os.environ.get("T2475_ATTACHES", "8"))
SAMPLE = re.compile(r" (\d+\.\d+) SAMPLE (\d+)/(\d+): addr (0x[0-9a-f]+) ")


def record(tmp, exe, i):
    """Attaches memsz to the churning workload and ends it after a tick
    past its first snapshot; (stderr, dump) or None after a failed
    check."""
    name = f"attach{i}"
    data = os.path.join(tmp, name + ".data")
    got = lib.start_fault_loop(name, data, RING,
                               [exe, "0", str(NT), *CHURN], False)
    if not got:
        return None
    rec, pid, out, target = got
    try:
        return lib.stop_after_tick(name, rec, data, out, WAIT_S)
    finally:
        lib.end_fault_loop(rec, pid, target)


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2475-") as tmp:
        exe = lib.workload(tmp, "fault_loop", "-pthread")
        for i in range(ATTACHES):
            got = record(tmp, exe, i)
            if not got:
                continue
            err, dump = got
            seen = collections.Counter(
                m.group(1, 3, 4) for m in SAMPLE.finditer(dump))
            twice = sum(1 for n in seen.values() if n > 1)
            check(seen and not twice,
                  f"attach {i}: no fault sampled twice ({twice} of "
                  f"{len(seen)} sampled more than once)")
            check("(0 lost)" in err, f"attach {i}: the summary says 0 "
                  f"lost: {err}")
            check(" LOST " not in dump, f"attach {i}: no LOST record")


main()
sys.exit(lib.finish())
