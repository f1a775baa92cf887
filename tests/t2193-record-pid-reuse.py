#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2193: a process of a `memsz record -G CG --interval` recording that
ends, and whose pid the kernel gives to a new process outside CG before
the next snapshot, is not recorded as that new process. memsz found a
target's end only when reading its pid failed: the next interval's
snapshot read whatever held the pid then, and counted it in the cgroup
under the old process's name. With pid_max at 32768 (the kernel's
default), a busy machine hands a pid out again within seconds.

Without timing, in a pid namespace of its own (so that no other process
takes the pid): processes A (stopped: its Rss stays as read) and C in a
new cgroup are recorded; once a snapshot is written, A is killed and
reaped, the namespace's ns_last_pid set so that the next process B gets
A's pid, and B (outside the cgroup) dirties 64 MiB. Two snapshots (of
C) later the recording is stopped: the pid must have no snapshot of B's
memory (the ground truth: B's smaps Rss, and A's), and C must still be
recorded.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

MIB = 1 << 20
GUARD = 120  # seconds: a guard against hanging, not a timing assumption

# B: dirties 64 MiB, says so, waits.
BIG = r"""
import sys
b = bytearray(64 << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
open(sys.argv[1] + ".tmp", "w").write("x")
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
sys.stdin.read()
"""


def spawn_at(pid, argv):
    """argv started as pid (the next pid of this namespace set first),
    or None if another pid came."""
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(pid - 1))
    p = subprocess.Popen(argv, stdin=subprocess.PIPE)
    if p.pid != pid:
        p.kill()
        p.wait()
        return None
    return p


def inner(tmp):
    """The test, as pid 1 of a new pid namespace with its own /proc."""
    cg = lib.make_cgroup("t2193")
    a = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
    c = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
    b = rec = None
    try:
        for p in (a, c):
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(p.pid))
        # A stopped before its Rss is read: Popen returns at cat's exec,
        # before the loader has mapped and touched libc (its Rss is then
        # a page or two, 1.7 MiB once started), and the recording's A
        # would be more than a MiB above a_rss; stopped, it stays as read
        lib.stopped(a.pid)
        a_rss = lib.smaps_rollup(a.pid)["Rss"]
        data = os.path.join(tmp, "r.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "-G", cg,
                                "--interval", "50"],
                               stderr=subprocess.PIPE, text=True)
        check(lib.wait_snaps(data, 2) >= 2, "A is recorded")
        pid = a.pid
        a.kill()
        a.wait()
        ready = os.path.join(tmp, "ready")
        for _ in range(100):
            b = spawn_at(pid, [sys.executable, "-c", BIG, ready])
            if b:
                break
        if not b:
            lib.skip("the next pid could not be set (ns_last_pid)")
        lib.wait_until(lambda: os.path.exists(ready), "B to dirty its memory")
        b_rss = lib.smaps_rollup(pid)["Rss"]
        check(b_rss > a_rss + 32 * MIB, "B (pid %d, A's) has %d bytes "
              "resident, A had %d" % (pid, b_rss, a_rss))
        lib.snapshot_after(data, "B took A's pid")
        rec.send_signal(signal.SIGINT)
        err = rec.communicate(timeout=GUARD)[1]
        check(rec.returncode == -signal.SIGINT,
              "record dies by the SIGINT that ended it (%d): %s" %
              (rec.returncode, err.strip()))
        rows = lib.pid_rows(data)
        check(c.pid in rows, "C (pid %d) is recorded" % c.pid)
        got = {p: int(r["rss"]) for p, r in rows.items()}
        check(got.get(pid, 0) <= a_rss + MIB,
              "pid %d's RSS in the recording is A's (%d), not B's (%d): "
              "%s" % (pid, a_rss, b_rss, got))
    finally:
        for p in (a, b, c, rec):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        lib.wait_until(lambda: lib.dir_removed(cg), "cgroup %s removed" % cg)
    return lib.finish()


def main():
    if len(sys.argv) > 1:
        sys.exit(inner(sys.argv[1]))
    if os.geteuid() != 0:
        lib.skip("needs root for a pid namespace, ns_last_pid and a cgroup")
    if not shutil.which("unshare"):
        lib.skip("unshare (util-linux) not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t2193-")
    try:
        r = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc",
                            sys.executable, os.path.abspath(__file__), tmp])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
