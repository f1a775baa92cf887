#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2190: `memsz record -G CG` names the page cache of the files a
process of CG holds open, and of those under --cache-paths. A user can
make a tmpfs file of exabytes with a few pages written (ftruncate of a
memfd, or of a file in /dev/shm: holes cost nothing). memsz asked
mincore(2) about every 128 MiB of such a file in turn: a file of 16 TiB
held by a process in the cgroup kept a one-shot recording busy for
minutes, one of 2^62 bytes for ever. It must now cost the pages cached.

A process run as nobody in a new cgroup holds a memfd of 2^62 bytes open,
and a file of 2^62 bytes nobody made lies under --cache-paths; each has
pages written at offsets near 0, 1 TiB, 2^61 and its end.
`record -G CG --cache-paths DIR --duration 0` must end (a guard of
GUARD seconds against a hang, not a timing assumption) with exit 0, and
the FILE_CACHE runs of each file (`dump -v`) must be the pages written,
which the kernel's cachestat(2) counts as the file's whole page cache.
"""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

GUARD = 120  # seconds: a guard against hanging, not a timing assumption
SIZE = 1 << 62
# Offsets written, 5000 bytes each: two pages apiece.
OFFSETS = (0, 1 << 40, (1 << 61) + 7 * PAGE, SIZE - 2 * PAGE)
NR_CACHESTAT = 451

# The target: makes the memfd, writes its pages, says its pid, waits.
TARGET = r"""
import os, sys
fd = os.memfd_create("sparse")
os.ftruncate(fd, %d)
for off in %r:
    os.pwrite(fd, b"x" * 5000, off)
open(sys.argv[1] + ".tmp", "w").write("%%d %%d" %% (os.getpid(), fd))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
sys.stdin.read()
""" % (SIZE, OFFSETS)


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def nobody_python():
    """A Python interpreter nobody may run (this one may live under a
    home directory nobody cannot enter), or a skip."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if subprocess.run(NOBODY + [exe, "-c", "pass"],
                          stderr=subprocess.DEVNULL).returncode == 0:
            return exe
    lib.skip("no Python interpreter nobody may run")


def written_pages():
    """The pages the writes at OFFSETS cover."""
    pages = set()
    for off in OFFSETS:
        pages.update(range(off // PAGE, (off + 5000 - 1) // PAGE + 1))
    return pages


def cachestat(path):
    """nr_cache of cachestat(2) over the whole file at path, or None where
    the kernel has no cachestat (before 6.5)."""
    libc = ctypes.CDLL(None, use_errno=True)
    rng = (ctypes.c_uint64 * 2)(0, 0)
    cs = (ctypes.c_uint64 * 5)()
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.syscall(NR_CACHESTAT, fd, rng, cs, 0) < 0:
            return None
    finally:
        os.close(fd)
    return cs[0]


def file_runs(dump, name):
    """{page: npages} of the FILE_CACHE records of the file whose path
    ends with name in `dump -v` output."""
    runs, cur = {}, False
    for line in dump.splitlines():
        if " FILE_CACHE " in line:
            cur = line.endswith(name)
        elif cur:
            m = re.match(r"\s+page (\d+) (\d+) cgroup", line)
            if m:
                runs[int(m.group(1))] = int(m.group(2))
    return runs


def pages_of(runs):
    return {p + i for p, n in runs.items() for i in range(n)}


def main():
    if os.geteuid() != 0:
        lib.skip("needs root to make a cgroup and run a target as nobody")
    if not shutil.which("setpriv"):
        lib.skip("setpriv (util-linux) not installed")
    if not os.path.isdir("/dev/shm"):
        lib.skip("no /dev/shm")
    python = nobody_python()
    cg = lib.make_cgroup("t2190", v1_first=True)
    tmp = tempfile.mkdtemp(prefix="memsz-t2190-")
    shm = tempfile.mkdtemp(prefix="memsz-t2190-", dir="/dev/shm")
    os.chmod(tmp, 0o755)
    os.chmod(shm, 0o777)
    target = None
    try:
        planted = os.path.join(shm, "planted")
        target = subprocess.Popen(
            NOBODY + [python, "-c", TARGET, os.path.join(shm, "ready")],
            stdin=subprocess.PIPE)
        lib.wait_until(lambda: os.path.exists(os.path.join(shm, "ready")),
                       "the target to write its memfd")
        with open(os.path.join(shm, "ready")) as f:
            pid, mfd = (int(x) for x in f.read().split())
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(pid))
        # the planted file, made by nobody as the memfd was
        subprocess.run(
            NOBODY + [python, "-c",
             "import os, sys\n"
             "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)\n"
             "os.ftruncate(fd, %d)\n"
             "for off in %r:\n"
             "    os.pwrite(fd, b'x' * 5000, off)\n" % (SIZE, OFFSETS),
             planted], check=True)
        want = written_pages()
        memfd = "/proc/%d/fd/%d" % (pid, mfd)
        for what, path in (("the memfd", memfd), ("the planted file",
                                                  planted)):
            n = cachestat(path)
            if n is None:
                lib.skip("no cachestat(2) (Linux 6.5+): memsz still walks "
                         "a sparse file's length without it")
            check(n == len(want), "cachestat counts the %d pages written "
                  "to %s as its page cache (%d)" % (len(want), what, n))
        data = os.path.join(tmp, "c.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "-G", cg,
                                "--cache-paths", shm, "--duration", "0"],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        try:
            _, err = rec.communicate(timeout=GUARD)
        except subprocess.TimeoutExpired:
            rec.kill()
            _, err = rec.communicate()
            lib.fail("record -G with a 2^62-byte file held open did not end "
                     "within %d s" % GUARD)
        check(rec.returncode == 0,
              "record exits 0 (%d): %s" % (rec.returncode, err.strip()))
        dump = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout
        for what, name in (("the memfd", "/memfd:sparse (deleted)"),
                           ("the planted file", "/planted")):
            got = pages_of(file_runs(dump, name))
            check(got == want,
                  "FILE_CACHE of %s: the pages written (%s), got %s" %
                  (what, sorted(want), sorted(got)))
    finally:
        if target:
            target.kill()
            target.wait()
        lib.wait_until(lambda: lib.dir_removed(cg), "cgroup %s removed" % cg)
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
