#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2313: a recorded process that changes memory cgroup while recorded
has each snapshot's CGROUP record from the cgroup it is in then.

A recording keeps the process's memory cgroup directory open between
snapshots (fewer system calls each); it must notice a move and a
cgroup removed and made again under the same name (a new directory, a
new inode). As root, on cgroup v1's memory hierarchy (this machine's;
skipped where none is mounted): cgroups A and B are made, a python3
process holding 8 MiB is moved into A and recorded with `record -p
--interval 100`; after a snapshot it is moved to B; after another A is
removed and made again and the process moved back into it; after one
more the recording is stopped (SIGINT). The process's CGROUP records
(`memsz dump -v`) must run A (its first inode), then B, then A's new
inode, each record naming the path and inode the kernel gave the cgroup
(os.stat): A's first records hold the 8 MiB the process touched there,
B's and the new A's last what their usage_in_bytes says at the end (v1
does not move a charge: a process touching nothing new charges them
little).
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

HELD = 8 << 20


def cgroup_records(data, pid):
    """(ino, path, usage) of each CGROUP record of pid, in order."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data], text=True,
                         capture_output=True).stdout
    recs = []
    for line in out.splitlines():
        m = re.search(r"CGROUP pid (\d+) v1 ino (\d+) usage (\d+)"
                      r".*? stats \d+(?: target)?(?: payer)? (.*)$", line)
        if m and int(m[1]) == pid:
            recs.append((int(m[2]), m[4], int(m[3])))
    return recs


def move(pid, cg):
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(pid))


def run(tmp, a, b):
    work = subprocess.Popen(
        [sys.executable, "-c",
         "import sys\n"
         "sys.stdin.readline()\n"
         f"x = bytearray({HELD})\n"
         "x[::4096] = b'x' * len(x[::4096])\n"
         "print('ready', flush=True)\n"
         "sys.stdin.readline()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rec = None
    try:
        # moved before it touches its memory (it waits for a line
        # first): A pays for it
        move(work.pid, a)
        work.stdin.write("go\n")
        work.stdin.flush()
        check(work.stdout.readline().startswith("ready"),
              "the workload holds its 8 MiB")
        data = os.path.join(tmp, "move.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--interval",
                                "100", "-p", str(work.pid)],
                               stderr=subprocess.PIPE, text=True)
        ino_a = os.stat(a).st_ino
        lib.snapshot_after(data, "the workload joined A")
        move(work.pid, b)
        ino_b = os.stat(b).st_ino
        lib.snapshot_after(data, "the move to B")
        lib.wait_until(lambda: lib.dir_removed(a), f"{a} removed")
        os.mkdir(a)
        ino_a2 = os.stat(a).st_ino
        move(work.pid, a)
        lib.snapshot_after(data, "the move back to A, made again")
        # the workload waits on its stdin: the cgroups' usage stays
        usage = {i: lib.read_int(os.path.join(d, "memory.usage_in_bytes"))
                 for i, d in ((ino_b, b), (ino_a2, a))}
        rec.send_signal(signal.SIGINT)
        err = rec.communicate(timeout=120)[1]
        check(rec.returncode == -signal.SIGINT,
              f"record dies by the SIGINT that ended it ({err.strip()})")
        recs = cgroup_records(data, work.pid)
        want = {ino_a: a, ino_b: b, ino_a2: a}
        seen = []
        for ino, path, _ in recs:
            if not seen or seen[-1] != ino:
                seen.append(ino)
        check(ino_a2 != ino_a,
              f"A made again is a new directory (inode {ino_a} -> "
              f"{ino_a2})")
        check(seen == [ino_a, ino_b, ino_a2],
              f"the records follow the process: A, B, A made again "
              f"(inodes {seen}, want {[ino_a, ino_b, ino_a2]})")
        bad = [(i, p) for i, p, _ in recs if want.get(i) != p]
        check(recs and not bad,
              f"each record names its cgroup's path ({len(recs)} records, "
              f"wrong: {bad[:3]})")
        # B and the new A hold what the process touches after its move
        # only (v1 does not move the charge): only A's first records
        # must hold the 8 MiB
        first = [u for i, _, u in recs if i == ino_a]
        check(first and min(first) >= HELD,
              f"A's usage holds the 8 MiB its process touched there "
              f"({first[:3]})")
        last = {i: u for i, _, u in recs}
        for i, name in ((ino_b, "B"), (ino_a2, "A made again")):
            check(i in last and abs(last[i] - usage[i]) <= 16 * 4096,
                  f"{name}'s last record has its usage_in_bytes "
                  f"({last.get(i)} == {usage[i]} within 16 pages)")
    finally:
        if rec and rec.poll() is None:
            rec.kill()
            rec.wait()
        work.kill()
        work.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: makes memory cgroups")
    with lib.memory_cgroups("t2313", "a", "b", v1=True) as (a, b), \
            tempfile.TemporaryDirectory(prefix="memsz-t2313-") as tmp:
        run(tmp, a, b)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
