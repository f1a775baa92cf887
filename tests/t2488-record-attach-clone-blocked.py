#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2488: attached while one of the process's threads is inside clone(),
--faults traces the thread that clone() makes.

clone() decides whether the new thread is traced before it makes it: a
thread memsz seizes while inside clone() makes a thread the kernel does
not trace, and that thread may show in /proc/PID/task only after memsz
read it for the last time. It and every thread it made then ran neither
held nor leashed (t2107 failed so in CI: one line of such threads, each
starting the next, lost 100 000 samples in half a second while memsz was
stopped). memsz now reads the thread list again while it holds the
threads it seized (a thread that reached a ptrace stop has finished its
clone()) and seizes what it finds.

tests/workloads/clone_blocked.c makes that happen every time: its thread
"maker" blocks inside clone() (the new thread's pidfd is written to a
userfaultfd page), and the helper process that owns the userfaultfd lets
the clone complete only once memsz holds the main thread in a ptrace
stop, after memsz's last reading of the thread list while attaching.
Checked with `record --faults -p PID`, at memsz's first snapshot:
 - the workload has its three threads (main, maker, and the one made);
 - each of them has memsz as its TracerPid (/proc/PID/task/TID/status,
   the kernel's own word): before the fix, the one made had 0;
 - the recording ends with status 0 and 0 lost.
Skipped with its reason where userfaultfd may not serve kernel faults or
clone() refuses CLONE_PIDFD with CLONE_THREAD (before Linux 6.9).
"""
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# hang guard on every wait for an event, not a timing assumption
WAIT_S = 120


def line(out, rec=None):
    """The workload's next line: '' once it closed stdout, or once the
    recording rec (if given) ended; waiting at most WAIT_S (a hang
    guard). Looks at rec every 0.1 s while it waits."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        if select.select([out], [], [], 0.1)[0]:
            return out.readline().strip()
        if rec and rec.poll() is not None:
            return ""
    return ""


def threads(pid):
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2488-") as tmp:
        exe = lib.workload(tmp, "clone_blocked", "-pthread")
        data = os.path.join(tmp, "blocked.data")
        w = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
        rec = None
        try:
            first = line(w.stdout)
            if first.startswith("skip: "):
                lib.skip(first[len("skip: "):])
            check(first == "blocked", f"the workload's maker blocks "
                  f"inside clone() ({first!r})")
            if first != "blocked":
                return
            rec = subprocess.Popen(
                [MEMSZ, "record", "-o", data, "--faults", "-m", "64",
                 "-p", str(w.pid)], stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True)
            got = line(w.stdout, rec)
            if rec.poll() is not None:
                err = rec.communicate()[1].strip()
                if rec.returncode and ("perf" in err or
                                       "permission" in err.lower()):
                    lib.skip("cannot sample page faults: " + err)
                check(False, f"memsz records the workload "
                      f"({rec.returncode}: {' | '.join(err.splitlines())})")
                return
            check(got == "resolved", "the helper let the clone complete "
                  f"once memsz held the main thread ({got!r})")
            lib.wait_until(lambda: (len(threads(w.pid)) >= 3 and
                                    lib.snap_ends(data) >= 1) or
                           rec.poll() is not None,
                           "the thread made and memsz's first snapshot",
                           WAIT_S)
            tids = threads(w.pid)
            check(len(tids) == 3 and rec.poll() is None,
                  f"the workload has its 3 threads ({len(tids)}), memsz "
                  "records")
            free = lib.untraced_threads(w.pid, rec.pid)
            check(not free, f"each thread has memsz ({rec.pid}) as its "
                  f"TracerPid; not {free}")
            rec.send_signal(signal.SIGINT)
            err = rec.communicate(timeout=WAIT_S)[1].strip()
            check(rec.returncode == -signal.SIGINT and "(0 lost)" in err,
                  f"the recording ends, 0 lost, memsz dead by SIGINT "
                  f"({rec.returncode}: {' | '.join(err.splitlines())})")
        finally:
            if rec and rec.poll() is None:
                rec.kill()
                rec.wait()
            w.kill()
            w.wait()


main()
sys.exit(lib.finish())
