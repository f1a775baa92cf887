#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2451: `record -p` given a thread's id records the thread's process,
once, under the process's id.

/proc/TID exists for every thread (hidden from a listing of /proc), so
a thread's id passed every check of -p and was recorded as a process of
its own: `-p PID,TID` recorded the same address space twice, and `report`
summed both, every figure doubled (Rss 27.7 MiB for a process whose
smaps_rollup said 14.2). memsz now names the thread's process (as
`perf record -p` does), with one warning line.

Ground truth: the workload's Tgid and thread ids from /proc, its
smaps_rollup Rss (read while it is stopped, as memsz reads it), and
`report --by pids` of the recording. Cases: -p TID alone, -p PID,TID,
and -p TID1,TID2 (two threads of one process).
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# two threads that wait forever; the process stops itself once both run
WORKLOAD = r"""
import os, signal, threading
ev = threading.Event()
tids = []
started = threading.Barrier(3)
def run():
    tids.append(threading.get_native_id())
    started.wait()
    ev.wait()
for _ in range(2):
    threading.Thread(target=run, daemon=True).start()
started.wait()
buf = bytearray(8 << 20)  # 8 MiB of dirty anon: a figure to double
for i in range(0, len(buf), 4096):
    buf[i] = 1
print(" ".join(map(str, tids)), flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
ev.set()
"""


def tgid_of(tid):
    with open(f"/proc/{tid}/status") as f:
        for line in f:
            if line.startswith("Tgid:"):
                return int(line.split()[1])
    return None


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2451-")
    w = subprocess.Popen([sys.executable, "-c", WORKLOAD],
                         stdout=subprocess.PIPE, text=True)
    try:
        tids = [int(t) for t in w.stdout.readline().split()]
        if len(tids) != 2:
            lib.fail("the workload did not start its threads")
        lib.wait_stopped(w.pid)
        check(all(tgid_of(t) == w.pid and t != w.pid for t in tids),
              f"ground truth: threads {tids} belong to process {w.pid}")
        rss = lib.smaps_rollup(w.pid)["Rss"]
        for name, plist in (("tid", [tids[0]]),
                            ("pid,tid", [w.pid, tids[0]]),
                            ("tid,tid", tids)):
            data = os.path.join(tmp, f"{name.replace(',', '-')}.data")
            r = subprocess.run([MEMSZ, "record", "-o", data, "--duration",
                                "0", "-p", ",".join(map(str, plist))],
                               capture_output=True, text=True, timeout=300)
            check(r.returncode == 0, f"-p {name}: memsz records "
                  f"(exit {r.returncode}: {r.stderr.strip()!r})")
            warns = [ln for ln in r.stderr.splitlines()
                     if ln.startswith("memsz: warning:")]
            thr = [t for t in plist if t != w.pid]
            want = [f"memsz: warning: pid {t} is a thread of process "
                    f"{w.pid}: recording process {w.pid}" for t in thr]
            check(warns == want, f"-p {name}: one warning per thread id "
                  f"naming its process: {warns}")
            if r.returncode:
                continue
            rows = lib.pid_rows(data)
            pids = sorted(rows)
            check(pids == [w.pid],
                  f"-p {name}: one process, {w.pid}, recorded: {pids}")
            total = sum(int(v["rss"]) for v in rows.values())
            check(total == rss,
                  f"-p {name}: RSS {total} is smaps_rollup's {rss}")
    finally:
        w.kill()
        w.wait()
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


sys.exit(main())
