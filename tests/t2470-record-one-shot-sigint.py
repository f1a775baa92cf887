#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2470: Ctrl-C (SIGINT) during a one-shot recording (--duration 0)
stops it after the snapshot being taken: what was snapshotted is written,
the processes left out are said and noted with how many the file holds,
and memsz then dies by SIGINT, as perf record does (it writes its file,
then dies by the signal), so that bash stops the script or loop that ran
it (an exit status of 130 would let a `for` loop go on).

A one-shot has no loop to read the signal: it took every snapshot (of
-a: every process of the machine), exited 0 and said nothing, so neither
the user nor a script knew the interrupt had been seen. The signal is
made to come before the first snapshot deterministically: the test
starts memsz with SIGINT blocked and already pending (both survive
execve; memsz keeps it blocked and reads it). Three stopped `sleep`s are
recorded with `-p A,B,C --duration 0`. Ground truth: A's smaps_rollup
(its RSS in the recording), the wait status, `memsz dump` (one snapshot,
of A), the report's footer note. A signal during the last snapshot
(`-p A`) is not swallowed: A is recorded, the line says none was left
out, memsz dies by it. With -a as nobody, the count left out is of the
processes that could have been recorded, not of every pid listed (most
of which nobody cannot read), and the number the file holds is that of
`memsz dump`. Without the signal the same recording has all three and
exits 0; an interval recording ended by SIGINT has its final snapshots,
then memsz dies by SIGINT as well (t2490: a loop that runs it stops).
"""
import os
import re
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


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def record(data, args, pre=None, wrap=()):
    return subprocess.run([*wrap, MEMSZ, "record", "-o", data, *args],
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


def end(procs):
    for p in procs:
        p.kill()
        os.kill(p.pid, signal.SIGCONT)
        p.wait()


def as_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def all_as_nobody(tmp):
    """-a as nobody, SIGINT pending: three stopped sleeps of nobody's
    (readable by it); most pids of the machine are not. The count left
    out is at least the sleeps missing from the file and the number the
    file holds is dump's; neither counts the processes nobody cannot
    read."""
    if subprocess.run(["setpriv", "--reuid=65534", "true"],
                      capture_output=True).returncode:
        lib.skip_part("setpriv cannot run a command as nobody")
        return
    os.chmod(tmp, 0o777)
    # nobody's from exec on (Popen returns once sleep is executed): a
    # setpriv stopped before it dropped root would be unreadable
    sleeps = [subprocess.Popen(["sleep", "1000"], preexec_fn=as_nobody)
              for _ in range(3)]
    try:
        for p in sleeps:
            lib.stopped(p.pid)
        data = os.path.join(tmp, "a.data")
        r = record(data, ["-a", "--duration", "0"], sigint_pending, NOBODY)
        err = r.stderr.strip()
        got = set(snap_pids(data)) if os.path.exists(data) else set()
        check(r.returncode == -signal.SIGINT and got,
              f"-a as nobody, SIGINT: written, dies by SIGINT "
              f"({r.returncode}, {len(got)} recorded, {err!r})")
        m = re.search(r"interrupted by SIGINT: (\d+) process(?:es)? not "
                      r"recorded; '" + re.escape(data) + r"' holds (\d+)",
                      err)
        check(m and int(m.group(2)) == len(got),
              f"-a as nobody: the line says the file holds what dump "
              f"shows ({len(got)}): {err!r}")
        missing = [p.pid for p in sleeps if p.pid not in got]
        # the pattern above has the count straight before "processes not
        # recorded", so a count "of" all pids cannot match it; looking
        # for "of" in the line would also find it in the random
        # directory name (memsz-t2470-62o4ofm3 failed CI so)
        check(m and len(missing) <= int(m.group(1)),
              f"-a as nobody: the processes left out count the sleeps "
              f"missing ({len(missing)}), not of all pids: {err!r}")
    finally:
        end(sleeps)


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
            check(r.returncode == -signal.SIGINT,
                  f"SIGINT: memsz dies by SIGINT, not an exit status "
                  f"({r.returncode}, {err!r})")
            check(f"memsz: interrupted by SIGINT: 2 processes not "
                  f"recorded; '{data}' holds 1" in err,
                  f"SIGINT: the line says what was left out and what "
                  f"the file holds: {err!r}")
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
                check("interrupted by SIGINT: 2 processes not recorded "
                      "(no snapshot), 1 recorded" in rep.stdout,
                      "SIGINT: the report's footer says it")
            os.unlink(data)

            r = record(data, ["--duration", "0", "-p", str(pids[0])],
                       sigint_pending)
            err = r.stderr.strip()
            got = snap_pids(data) if os.path.exists(data) else []
            check(r.returncode == -signal.SIGINT and got == [pids[0]],
                  f"SIGINT during the last snapshot: A recorded, memsz "
                  f"dies by SIGINT ({r.returncode}, {got}, {err!r})")
            check(f"interrupted by SIGINT during the last snapshot: none "
                  f"left out, '{data}' holds 1 process" in err,
                  f"SIGINT during the last snapshot: said ({err!r})")
            os.unlink(data)
            check(all(p.poll() is None for p in procs),
                  "SIGINT: the attached processes live on")

            all_as_nobody(tmp)

            data2 = os.path.join(tmp, "y.data")
            r = record(data2, ["--interval", "100", "-p", plist],
                       sigint_pending)
            check(r.returncode == -signal.SIGINT and
                  sorted(set(snap_pids(data2))) == sorted(pids),
                  f"an interval recording ended by SIGINT: snapshots of "
                  f"each, then death by SIGINT (t2490) ({r.returncode}, "
                  f"{r.stderr.strip()!r})")
    finally:
        end(procs)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
