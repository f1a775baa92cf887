#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2476: attached with --faults, memsz loses no mapping record while it
is stopped: the leash bounds the side-band records (MMAP, COMM, FORK,
EXIT) that come with the threads' samples as well as the samples. (A
mapping made without a fault, an mmap or munmap of pages not touched,
comes with no sample: only the hold at 1/8 full bounds those, and only
while memsz runs.)

The leash signals a thread every K samples, K set so that every
thread's samples fit the sample rings; nothing bounded the side-band
records that come with them, and the side-band ring (512 KiB per cpu)
was not looked at by backpressure either. tests/workloads/fault_loop.c
with NT threads whose rounds touch 1 page ("short": an anonymous mmap,
so a MMAP record, for every fault) is attached with --call-graph fp
(small samples: a long leash); once memsz took its first snapshot it is
stopped (SIGSTOP) until every thread of the workload is in a ptrace
stop (the leashes stopped them all: an event, no timing), then let go
and ended with SIGINT after the workload ticks again:
 - every thread came to a stop while memsz was stopped;
 - the summary says 0 lost and no lost mapping records, and `memsz dump`
   has no LOST record.
memsz before the fix lost 2,800 to 21,000 mapping records in each of 4
runs (3 checks failed in each). The same again ("big") with 8-byte stack
copies, no growth trigger and -m 65536: 256 MiB sample rings whose
leash lets in more samples than the side-band ring's 16 MiB cap has room
for, unless the side-band ring bounds K too; memsz before that lost
285,812 to 377,230 mapping records in each of 4 runs (3 checks failed).
Skipped where 256 MiB per cpu is over a quarter of MemAvailable.
"""
import os
import signal
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

# hang guard on every wait for an event, not a timing assumption
WAIT_S = 120
NT = 4
# (name, memsz record's options, bytes of sample rings per cpu it locks)
CASES = (("fp", ["--faults", "--call-graph", "fp"], 64 << 20),
         ("big", ["--faults", "--stack-size", "8", "--no-growth", "-m",
                  "65536"], 256 << 20))


def states(pid):
    """The state letter of each thread of pid (/proc/PID/task/*/stat)."""
    got = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return got
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                got.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            pass
    return got


def all_stopped(pid):
    """Is every thread of pid in a stop (ptrace or job control)?"""
    s = states(pid)
    return bool(s) and all(c == "t" for c in s)


def mem_available():
    """MemAvailable of /proc/meminfo in bytes (0 if not said)."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) << 10
    return 0


def stopped_case(tmp, exe, name, ring):
    """Attaches memsz (options ring) to fault_loop, stops it until the
    leashes stopped every thread, then checks that nothing was lost."""
    data = os.path.join(tmp, name + ".data")
    got = lib.start_fault_loop(name, data, ring,
                               [exe, "0", str(NT), "short"], False)
    if not got:
        return
    rec, pid, out, target = got
    try:
        lib.wait_until(lambda: lib.snap_ends(data) >= 1 or
                       rec.poll() is not None,
                       f"{name}: memsz's first snapshot", WAIT_S)
        if rec.poll() is not None:
            check(False, f"{name}: memsz attached: {rec.stderr.read()}")
            return
        rec.send_signal(signal.SIGSTOP)
        try:
            lib.wait_until(lambda: all_stopped(pid),
                           f"{name}: every thread in a leash stop", WAIT_S)
            stopped = True
        except TimeoutError:
            stopped = False
        check(stopped, f"{name}: every thread stopped while memsz was: "
              f"{states(pid)}")
        rec.send_signal(signal.SIGCONT)
        got = lib.stop_after_tick(name, rec, data, out, WAIT_S)
        if not got:
            return
        err, dump = got
        check("(0 lost)" in err, f"{name}: the summary says 0 lost: {err}")
        check("mapping records" not in err,
              f"{name}: no mapping record lost: {err}")
        check(" LOST " not in dump, f"{name}: no LOST record in the dump")
    finally:
        lib.end_fault_loop(rec, pid, target)


def main():
    ncpus = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="memsz-t2476-") as tmp:
        exe = lib.workload(tmp, "fault_loop", "-pthread")
        for name, ring, locked in CASES:
            if locked * ncpus * 4 > mem_available():
                lib.skip_part(f"{name}: {locked >> 20} MiB of sample ring "
                              f"per cpu, {ncpus} cpus: not a quarter of "
                              "the memory available")
                continue
            stopped_case(tmp, exe, name, ring)


main()
sys.exit(lib.finish())
