#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2470: Ctrl-C (SIGINT) during a one-shot recording (--duration 0)
stops it after the snapshot being taken: what was snapshotted is written,
the processes left out are said and noted, and memsz exits 130 (128 +
SIGINT), as a shell sees perf record end (it writes its file, then dies
by the signal).

A one-shot has no loop to read the signal: it took every snapshot (of
-a: every process of the machine), exited 0 and said nothing, so neither
the user nor a script knew the interrupt had been seen. The signal is
made to come before the first snapshot deterministically: the test
starts memsz with SIGINT blocked and already pending (both survive
execve; memsz keeps it blocked and reads it). Three stopped `sleep`s are
recorded with `-p A,B,C --duration 0`. Ground truth: A's smaps_rollup
(its RSS in the recording), the exit status, `memsz dump` (one snapshot,
of A), the report's footer note. Without the signal the same recording
has all three and exits 0; an interval recording ended by SIGINT still
exits 0 with its final snapshots (SIGINT is how it is meant to end).
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


def sigint_pending():
    """A preexec_fn: SIGINT blocked and pending in the child, as a Ctrl-C
    that came before memsz could read it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
    os.kill(os.getpid(), signal.SIGINT)


def record(data, args, pre=None):
    return subprocess.run([MEMSZ, "record", "-o", data, *args],
                          preexec_fn=pre, capture_output=True, text=True,
                          timeout=300)


def snap_pids(data):
    out = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                         text=True, timeout=300).stdout
    pids = []
    for line in out.splitlines():
        w = line.split()
        if "SNAP_BEGIN" in w and w[w.index("SNAP_BEGIN") + 1] == "pid":
            pids.append(int(w[w.index("SNAP_BEGIN") + 2]))
    return pids


def main():
    if os.geteuid() != 0:
        lib.skip("not root: RSS of another process's pages needs the "
                 "page frames")
    procs = [subprocess.Popen(["sleep", "1000"]) for _ in range(3)]
    try:
        pids = [p.pid for p in procs]
        for pid in pids:
            lib.stopped(pid)
        rss_a = lib.smaps_rollup(pids[0])["Rss"]
        plist = ",".join(str(p) for p in pids)
        with tempfile.TemporaryDirectory(prefix="memsz-t2470-") as tmp:
            data = os.path.join(tmp, "x.data")
            r = record(data, ["--duration", "0", "-p", plist])
            check(r.returncode == 0 and sorted(snap_pids(data)) ==
                  sorted(pids),
                  f"no signal: exit 0, a snapshot of each "
                  f"({r.returncode}, {snap_pids(data)})")
            os.unlink(data)

            r = record(data, ["--duration", "0", "-p", plist],
                       sigint_pending)
            err = r.stderr.strip()
            check(r.returncode == 128 + signal.SIGINT,
                  f"SIGINT: exit 130 ({r.returncode}, {err!r})")
            check(f"memsz: interrupted by SIGINT: 2 of 3 processes not "
                  f"recorded; '{data}' holds the others" in err,
                  f"SIGINT: the line says what was left out and where "
                  f"the rest is: {err!r}")
            got = snap_pids(data) if os.path.exists(data) else []
            check(got == [pids[0]],
                  f"SIGINT: the recording is written, with A's snapshot "
                  f"alone ({got}, A {pids[0]})")
            if got:
                rows = lib.pid_rows(data)
                check(sorted(rows) == [pids[0]] and
                      int(rows[pids[0]]["rss"]) == rss_a,
                      f"SIGINT: report has A alone, its RSS "
                      f"{rows.get(pids[0], {}).get('rss')} as smaps' "
                      f"{rss_a}")
                rep = subprocess.run([MEMSZ, "report", "-i", data],
                                     capture_output=True, text=True,
                                     timeout=300)
                check("interrupted by SIGINT: 2 of 3 processes not "
                      "recorded (no snapshot)" in rep.stdout,
                      "SIGINT: the report's footer says it")
            check(all(p.poll() is None for p in procs),
                  "SIGINT: the attached processes live on")

            data2 = os.path.join(tmp, "y.data")
            r = record(data2, ["--interval", "100", "-p", plist],
                       sigint_pending)
            check(r.returncode == 0 and
                  sorted(set(snap_pids(data2))) == sorted(pids),
                  f"an interval recording ended by SIGINT: exit 0, "
                  f"snapshots of each ({r.returncode}, "
                  f"{r.stderr.strip()!r})")
    finally:
        for p in procs:
            p.kill()
            os.kill(p.pid, signal.SIGCONT)
            p.wait()
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
