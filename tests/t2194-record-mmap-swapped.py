#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2194: the perf MMAP2 record of a library a target loads names the file
it mapped, even when the target has put another file at its path by the
time memsz reads the record. The kernel gives a build-id in place of the
file's device and inode; memsz looked them up through the mapping's
/proc/PID/map_files entry, and, when ld.so had split the mapping already
(it maps a library whole, then its segments over it), through the path:
a FIFO put there made the library's MMAP2 and IMAGE records name the FIFO
(an IMAGE of size 0), a new version of the library would lend it its
inode.

Without timing: a target copies libz into a directory of the test and
waits; memsz records it (-p, with perf events); once memsz has written a
snapshot it is stopped (SIGSTOP), the target loads the copy, unlinks it
and makes a FIFO of its name, memsz is let go (SIGCONT) and stopped after
its next snapshot. Every MMAP2 and IMAGE record of the path must give the
library's device and inode (the ground truth: stat(2) of the copy), none
the FIFO's. And two programs the target maps and unmaps while memsz is
stopped (copies of true and ls: gone when their records are read, no
map_files, no mapping) must each get their own device and inode, taken
from the file at their path whose build-id is the record's: they were
left 0, both sharing one IMAGE of inode 0 (the second had none).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

GUARD = 120  # seconds: a guard against hanging, not a timing assumption

# The target: loads the copy at argv[1] once the test says go (a line on
# its stdin), then
# swaps its path for a FIFO, maps and unmaps each file of argv[3:]
# (executable); says its pid, then "done".
TARGET = r"""
import ctypes, os, sys
lib, flag = sys.argv[1], sys.argv[2]
open(flag + ".tmp", "w").write("%d" % os.getpid())
os.rename(flag + ".tmp", flag)
sys.stdin.readline()  # the test's go
h = ctypes.CDLL(lib)
os.unlink(lib)
os.mkfifo(lib)
import mmap
for other in sys.argv[3:]:
    with open(other, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, mmap.MAP_PRIVATE,
                      mmap.PROT_READ | mmap.PROT_EXEC)
        m.close()
open(flag + ".done", "w").close()
sys.stdin.read()
"""


def libz():
    """A shared library to load: libz, found as ctypes finds it."""
    import ctypes.util
    name = ctypes.util.find_library("z")
    for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
              "/usr/lib64", "/usr/lib", "/lib64", "/lib"):
        if name and os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    lib.skip("no libz to load")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: perf mmap events with build-ids")
    src = libz()
    tmp = tempfile.mkdtemp(prefix="memsz-t2194-")
    path = os.path.join(tmp, "libcopy.so")
    shutil.copy(src, path)
    st = os.stat(path)
    real = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    flag = os.path.join(tmp, "flag")
    # two programs mapped and unmapped while memsz is stopped: their
    # mappings are gone when it reads their records
    gone = {}
    for name in ("true", "ls"):
        exe = shutil.which(name)
        if exe:
            copy = os.path.join(tmp, name + ".bin")
            shutil.copy(exe, copy)
            s = os.stat(copy)
            gone[copy] = (os.major(s.st_dev), os.minor(s.st_dev), s.st_ino)
    target = subprocess.Popen([sys.executable, "-c", TARGET, path, flag,
                               *gone], stdin=subprocess.PIPE)
    rec = None
    try:
        lib.wait_until(lambda: os.path.exists(flag), "the target to start")
        data = os.path.join(tmp, "r.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "-p",
                                str(target.pid), "--interval", "500"],
                               stderr=subprocess.PIPE, text=True)
        check(lib.wait_snaps(data, 1) >= 1, "memsz wrote a snapshot")
        rec.send_signal(signal.SIGSTOP)
        target.stdin.write(b"go\n")
        target.stdin.flush()
        lib.wait_until(lambda: os.path.exists(flag + ".done"),
                       "the target to load the library and swap its path")
        fifo = os.stat(path)
        rec.send_signal(signal.SIGCONT)
        lib.snapshot_after(data, "the swap")
        rec.send_signal(signal.SIGINT)
        err = rec.communicate(timeout=GUARD)[1]
        check(rec.returncode == -signal.SIGINT,
              "record dies by the SIGINT that ended it (%d): %s" %
              (rec.returncode, err.strip()))
        dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                              capture_output=True, check=True).stdout
        ids = []
        for line in dump.splitlines():
            if not line.endswith(path):
                continue
            m = re.search(r" (MMAP2|IMAGE) .*? ([0-9a-f]+):([0-9a-f]+) (\d+)",
                          line)
            if m:
                ids.append((m.group(1), int(m.group(2), 16),
                            int(m.group(3), 16), int(m.group(4))))
        if not [i for i in ids if i[0] == "MMAP2"]:
            lib.skip("no MMAP2 record of the library (no perf events?)")
        wrong = [i for i in ids if i[1:] != real]
        check(not wrong, "every MMAP2 and IMAGE record of the library names "
              "it (%d:%d %d; the FIFO is inode %d): %s" %
              (*real, fifo.st_ino, wrong))
        # a mapping gone before its record was read: the file at its path
        # has the record's build-id, so its identity is taken from it
        # (each its own IMAGE, none of inode 0 shared by both)
        for copy, want in gone.items():
            got = {(m.group(1), int(m.group(2), 16), int(m.group(3), 16),
                    int(m.group(4))) for m in
                   (re.search(r" (MMAP2|IMAGE) .*? ([0-9a-f]+):([0-9a-f]+) "
                              r"(\d+)", line) for line in dump.splitlines()
                    if line.endswith(copy)) if m}
            check(got == {("MMAP2", *want), ("IMAGE", *want)},
                  f"{os.path.basename(copy)}, mapped and unmapped before "
                  f"memsz read its record: MMAP2 and IMAGE name it "
                  f"({want}): {sorted(got)}")
    finally:
        if rec and rec.poll() is None:
            rec.send_signal(signal.SIGCONT)
            rec.kill()
            rec.wait()
        target.kill()
        target.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
