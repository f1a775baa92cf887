#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2460: `record -G` reads the page cache of the files a process holds
open without ever opening what the process swaps in for one: a device
node it holds only as an O_PATH descriptor (which opens nothing) stays
unopened.

With -G each snapshot also records the page cache of the files in
/proc/PID/fd (FILE_CACHE records), as root. A process may make a
descriptor name a regular file when memsz looks at it and something else
when memsz opens it: here tests/workloads/fd_flip.c makes each of its
descriptors 100-163 name, in turn and without end, its own regular file
(one cached byte) and a character device node (1, 3: /dev/null's
numbers; a FIFO where the temporary directory is on a nodev mount, where
a device node opens for nobody) of mode 0600 that it holds as an O_PATH
descriptor. memsz
records the process's cgroup every 20 ms for 60 snapshots. An inotify
watch on the node (IN_OPEN: an O_PATH open, as a look at its type, is
none) must see no open, and the recording must hold the page cache of
the regular files (the scan ran through those descriptors). Looking with
fstatat() and then opening the path again (before the fix), memsz opened
the node now and then (3 runs of 30 snapshots: an open in each).
"""
import ctypes
import os
import signal
import stat
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NFD = 64
SNAPS = 60
IN_OPEN = 0x20


def opens(fd):
    """The IN_OPEN events the inotify descriptor fd holds (opens in a row
    not read in between are one event)."""
    n = 0
    try:
        while True:
            b = os.read(fd, 4096)
            i = 0
            while i < len(b):
                _, mask, _, ln = memoryview(b)[i:i + 16].cast("I")
                n += bool(mask & IN_OPEN)
                i += 16 + ln
    except BlockingIOError:
        return n


def run(tmp, cg):
    node = os.path.join(tmp, "node")
    if os.statvfs(tmp).f_flag & os.ST_NODEV:
        # a device node there opens for nobody (EACCES, before any
        # inotify event): a FIFO, whose open is no more harmless
        print(f"# {tmp} is on a nodev mount: a FIFO stands for the node")
        os.mkfifo(node, 0o600)
    else:
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    files = os.path.join(tmp, "files")
    os.mkdir(files)
    exe = lib.workload(tmp, "fd_flip")
    libc = ctypes.CDLL(None, use_errno=True)
    ino = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if ino < 0 or libc.inotify_add_watch(ino, node.encode(), IN_OPEN) < 0:
        lib.fail("inotify: %s" % os.strerror(ctypes.get_errno()))
    w = subprocess.Popen([exe, node, files, str(NFD)],
                         stdout=subprocess.PIPE, text=True)
    rec = None
    try:
        check(w.stdout.readline().strip() == "ready",
              "the workload holds its files and flips its descriptors")
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(w.pid))
        check(opens(ino) == 0, "the workload never opened the node")
        data = os.path.join(tmp, "c.data")
        rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--interval",
                                "20", "-o", data],
                               stderr=subprocess.PIPE, text=True)
        got = lib.wait_snaps(data, SNAPS)
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=300)
        check(rec.returncode == -signal.SIGINT and got >= SNAPS,
              f"record -G dies by SIGINT after {got} snapshots "
              f"({rec.returncode}: {err.strip()[:300]})")
        n = opens(ino)
        check(n == 0, f"memsz never opened the device node the workload "
              f"swaps in ({n} opens)")
        dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                              capture_output=True, check=True).stdout
        named = {line.rsplit(" ", 1)[-1] for line in dump.splitlines()
                 if " FILE_CACHE " in line}
        mine = sorted(n for n in named if n.startswith(files + "/"))
        check(len(mine) == NFD, f"the page cache of the workload's "
              f"{NFD} files is recorded ({len(mine)}: {mine[:3]}...)")
    finally:
        for p in (rec, w):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        os.close(ino)


def main():
    if os.geteuid() != 0:
        lib.skip("a cgroup, a device node and the cache scan need root")
    with tempfile.TemporaryDirectory(prefix="memsz-t2460-") as tmp:
        cg = lib.make_cgroup("t2460")
        try:
            run(tmp, cg)
        finally:
            lib.remove_cgroup(cg)
        check(not os.path.exists(cg), f"cgroup {cg} removed")


main()
sys.exit(lib.finish())
