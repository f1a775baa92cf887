#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2471: `report --pid A,B` (and diff's) where the recording has A and
not B shows A and says, in a note, that B is not in the recording.

B was dropped without a word: a typo in a pid list looked like a
process that uses no memory. With no pid of the list recorded, report
fails with its error line as before (not this note). Ground truth: the
pids `memsz dump` shows SNAP_BEGIN records of (B is one of none), the
pids the report's rows have.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def run(*args):
    return subprocess.run([MEMSZ, *args], capture_output=True, text=True,
                          timeout=300)


def snap_pids(data):
    pids = set()
    for line in run("dump", "-i", data).stdout.splitlines():
        w = line.split()
        if "SNAP_BEGIN" in w and w[w.index("SNAP_BEGIN") + 1] == "pid":
            pids.add(int(w[w.index("SNAP_BEGIN") + 2]))
    return pids


def notes_of(r):
    return json.loads(r.stdout)["notes"] if r.returncode == 0 else []


def main():
    p = subprocess.Popen(["sleep", "1000"])
    try:
        lib.stopped(p.pid)
        with tempfile.TemporaryDirectory(prefix="memsz-t2471-") as tmp:
            data = os.path.join(tmp, "r.data")
            r = run("record", "-o", data, "--duration", "0", "-p",
                    str(p.pid))
            if r.returncode:
                lib.fail(f"record: {r.returncode} {r.stderr}")
            rec = snap_pids(data)
            check(rec == {p.pid}, f"dump: a snapshot of A alone ({rec})")
            # two pids the recording has no snapshot of
            b, c = [x for x in (999999, 999998, 999997) if x not in rec][:2]
            check_report(data, p.pid, b, c)
            check_diff(data, p.pid, b)
    finally:
        p.kill()
        os.kill(p.pid, signal.SIGCONT)
        p.wait()
    return lib.finish()


def check_report(data, a, b, c):
    def report(pids):
        return run("report", "-i", data, "--by", "pids", "--pid", pids,
                   "--format", "json")

    r = report(f"{a},{b}")
    rows = [x["name"].split()[0] for x in json.loads(r.stdout)["rows"]] \
        if r.returncode == 0 else []
    check(rows == [str(a)], f"--pid A,B: A's row alone ({rows}, "
          f"{r.returncode} {r.stderr!r})")
    want = f"--pid: pid {b} is not in '{data}': not shown"
    check(want in notes_of(r),
          f"--pid A,B: a note names B: {notes_of(r)}")
    check(not any(str(a) in n for n in notes_of(r) if "--pid" in n),
          f"--pid A,B: the note does not name A: {notes_of(r)}")
    r = report(f"{b},{a},{c}")
    want = f"--pid: pids {b} and {c} are not in '{data}': not shown"
    check(want in notes_of(r),
          f"--pid B,A,C: a note names B and C: {notes_of(r)}")
    r = report(str(a))
    check(r.returncode == 0 and
          not any(n.startswith("--pid") for n in notes_of(r)),
          f"--pid A: no such note: {notes_of(r)}")
    r = run("report", "-i", data, "--pid", f"{b},{c}")
    check(r.returncode == 1 and "has no complete snapshot of pid" in
          r.stderr, f"--pid B,C: the error line, as before "
          f"({r.returncode}, {r.stderr!r})")


def check_diff(data, a, b):
    r = run("diff", data, data, "--pid", f"{a},{b}", "--format", "json")
    want = f"--pid: pid {b} is not in '{data}': not shown"
    check(want in notes_of(r),
          f"diff --pid A,B: a note names B ({r.returncode}, "
          f"{r.stderr!r}): {notes_of(r)}")


if __name__ == "__main__":
    sys.exit(main())
