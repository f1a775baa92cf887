#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2494: the report of `memsz record -G CG --cache-paths DIR` gives the
row of a cached file no process maps its size on disk as FILE SIZE, as
`fincore` gives it SIZE. The FILE_CACHE record of each file has held its
size (fstat of the file memsz opened) since it was added, but the report
left it out: such rows said FILE SIZE 0, while a mapped file's row said
its size.

A process in a new memory cgroup writes files (so that the cgroup pays
for their page cache) in a directory on disk, on a tmpfs the test mounts
and in /dev/shm, then maps the first page of one more file on disk and
touches it, and waits. After `record -G CG --cache-paths` of the three
directories (`--duration 0`), in `report --by files` (csv):
- each file on disk or on the tmpfs that no process maps has FILE SIZE
  equal to `stat -c %s` and to fincore's SIZE, and CHARGE equal to
  fincore's RES (where RES is the same before and after the recording:
  else that part is skipped);
- the mapped file's row, which also has page cache no mapping counted,
  has FILE SIZE its size once, as before (not once more for its cache);
- a file of /dev/shm (shared memory: a mapping of it has no FILE SIZE)
  has no FILE SIZE either, and a note of the report says why.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

# name: size in bytes (not whole pages: FILE SIZE is the size, CHARGE
# whole pages)
DISK = {"a": 300000, "b": 12345, "c": 1}
TMPFS = {"t": 70001}
SHM = {"s": 20000}
MAPPED = ("m", 5 * PAGE + 100)  # on disk; its first page mapped

# The process in the cgroup: writes every file given as PATH=SIZE, maps
# and touches the first page of the last one, says "ready", waits.
TARGET = r"""
import mmap, os, sys
sys.stdin.readline()
files = [a.rsplit("=", 1) for a in sys.argv[1:]]
for path, size in files:
    with open(path, "wb") as f:
        f.write(os.urandom(int(size)))
with open(files[-1][0], "rb") as f:
    m = mmap.mmap(f.fileno(), mmap.PAGESIZE, prot=mmap.PROT_READ)
m[0]
print("ready", flush=True)
sys.stdin.readline()
"""


def stat_size(path):
    """The size `stat -c %s` gives path."""
    return int(subprocess.run(["stat", "-c", "%s", path],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout)


def fincore(path):
    """(RES, SIZE) of `fincore --bytes --raw --output RES,SIZE,FILE`."""
    out = subprocess.run(["fincore", "--bytes", "--raw", "--noheadings",
                          "--output", "RES,SIZE,FILE", path],
                         stdout=subprocess.PIPE, text=True,
                         check=True).stdout.split()
    return int(out[0]), int(out[1])


def run(cg, disk, tmpfs, shm):
    paths = {}
    for d, files in ((disk, DISK), (tmpfs, TMPFS), (shm, SHM)):
        for name, size in files.items():
            paths[name] = (os.path.join(d, name), size)
    paths[MAPPED[0]] = (os.path.join(disk, MAPPED[0]), MAPPED[1])
    args = ["%s=%d" % v for v in paths.values()]  # the mapped one last
    target = lib.start_in_cgroup(TARGET, cg, *args)
    try:
        if target.stdout.readline().strip() != "ready":
            lib.fail("the target did not write its files and map one")
        before = {n: fincore(p) for n, (p, _) in paths.items()}
        data = os.path.join(disk, "c.data")
        rec = subprocess.run([MEMSZ, "record", "-o", data, "-G", cg,
                              "--cache-paths", disk, "--cache-paths", tmpfs,
                              "--cache-paths", shm, "--duration", "0"],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        after = {n: fincore(p) for n, (p, _) in paths.items()}
        check(rec.returncode == 0, "record exits 0 (%d): %s" %
              (rec.returncode, rec.stderr.strip()))
        rows = {r["files"]: r for r in lib.report(data, "files")}
        rep = subprocess.run([MEMSZ, "report", "-i", data, "-n", "0"],
                             stdout=subprocess.PIPE, text=True, check=True)
    finally:
        target.stdin.close()
        target.wait()
    for name, (path, size) in paths.items():
        res, fsize = after[name]
        st = stat_size(path)
        print("# %s: stat %d, fincore SIZE %d RES %d" % (path, st, fsize,
                                                         res))
        check(st == size == fsize, "%s: stat -c %%s (%d) and fincore's "
              "SIZE (%d) are the size written (%d)" % (name, st, fsize, size))
        r = rows.get(path)
        check(r is not None, "%s has a row in the report" % path)
        if r is None:
            continue
        want = 0 if name in SHM else st
        check(int(r["file_size"]) == want,
              "%s: FILE SIZE %s is %d (%s)" % (
                  path, r["file_size"], want,
                  "shared memory" if name in SHM else
                  "mapped: its size once" if name == MAPPED[0] else
                  "as stat and fincore's SIZE"))
        if name == MAPPED[0]:
            check(float(r["charge"]) >= size - PAGE,
                  "%s: the mapped file's row also has the page cache "
                  "no mapping counted (CHARGE %s)" % (path, r["charge"]))
        elif before[name][0] != res:
            lib.skip_part("%s: fincore RES changed during the recording "
                          "(%d, then %d)" % (path, before[name][0], res))
        else:
            check(float(r["charge"]) == res,
                  "%s: CHARGE %s is fincore's RES %d" % (
                      path, r["charge"], res))
    check("FILE SIZE: the page cache rows of shared memory" in rep.stdout,
          "a note says why a row of /dev/shm has no FILE SIZE")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root to make a cgroup and mount a tmpfs")
    for tool in ("fincore", "stat", "mount", "umount"):
        if not shutil.which(tool):
            lib.skip("%s not installed" % tool)
    if not os.path.isdir("/dev/shm"):
        lib.skip("no /dev/shm")
    disk = lib.block_device_dir("/var/tmp", tempfile.gettempdir(),
                                os.getcwd())
    if disk is None:
        lib.skip("no directory on a block device for files on disk")
    disk = tempfile.mkdtemp(prefix="memsz-t2494-", dir=disk)
    tmpfs = os.path.join(disk, "tmpfs")
    shm = tempfile.mkdtemp(prefix="memsz-t2494-", dir="/dev/shm")
    mounted = False
    try:
        os.mkdir(tmpfs)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m",
                                  "memsz-t2494", tmpfs]).returncode == 0
        if not mounted:
            lib.skip("cannot mount a tmpfs")
        with lib.memory_cgroups("t2494") as (cg,):
            run(cg, disk, tmpfs, shm)
    finally:
        if mounted:
            subprocess.run(["umount", tmpfs])
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(disk, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
