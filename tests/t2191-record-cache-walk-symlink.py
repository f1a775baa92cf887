#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2191: the walk of `memsz record -G CG --cache-paths DIR` never goes
through a symbolic link, even one swapped in for a directory it has
listed already. DIR is often writable by others (a database's data
directory, a shared spool): memsz, as root, listed a directory, then
opened each subdirectory by its path, which followed a link put there in
between, and walked (and recorded the page cache of) whatever it pointed
to: a symlink to / had it walk the whole file system.

Without timing: DIR/a holds a file f and a directory sub (made in the
order a tmpfs lists f first). A fanotify FAN_OPEN_PERM mark
holds memsz in its open of DIR/a/f, after it has listed DIR/a; the test
then moves sub away and puts a symlink to a directory outside DIR in its
place, and lets the open go on. The recording must name the page cache of
DIR/a/f (the walk went on) and of nothing under the link (the ground
truth: the fanotify open events of the outside directory's file, and the
FILE_CACHE records).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

GUARD = 120  # seconds: a guard against hanging, not a timing assumption


def write(path):
    with open(path, "wb") as f:
        f.write(b"x" * 8192)


def walk(shm, cg, out):
    tree, outside = os.path.join(shm, "tree"), os.path.join(shm, "outside")
    a = os.path.join(tree, "a")
    os.makedirs(a)
    os.mkdir(outside)
    write(os.path.join(outside, "secret"))
    # f must be listed before sub: tmpfs lists in creation order, or in
    # its reverse (newest first)
    for first, second in (("f", "sub"), ("sub", "f")):
        for e in (first, second):
            if e == "f":
                write(os.path.join(a, "f"))
            else:
                os.mkdir(os.path.join(a, "sub"))
                write(os.path.join(a, "sub", "inside"))
        if os.listdir(a) == ["f", "sub"]:
            break
        os.unlink(os.path.join(a, "f"))
        shutil.rmtree(os.path.join(a, "sub"))
    else:
        lib.skip("this tmpfs lists a directory in no order of creation")
    data = os.path.join(out, "c.data")
    fan = lib.fanotify(a, os.path.join(a, "sub"), outside)
    rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--cache-paths",
                            tree, "-o", data, "--duration", "0"],
                           stderr=subprocess.PIPE, text=True)
    opened = []

    def on_open(efd):
        name = os.readlink("/proc/self/fd/%d" % efd)
        opened.append(os.path.relpath(name, shm))
        if name == os.path.join(a, "f"):
            # a is listed: swap sub for a link out of DIR
            os.rename(os.path.join(a, "sub"),
                      os.path.join(shm, "sub.moved"))
            os.symlink(outside, os.path.join(a, "sub"))
    err = lib.fan_serve(fan, rec, on_open, GUARD)
    check(rec.returncode == 0, "record exits 0 (%s): %s" %
          (rec.returncode, err.strip()))
    check(opened[:1] == ["tree/a/f"],
          "memsz opened tree/a/f first (opened %s)" % opened)
    check("outside/secret" not in opened,
          "memsz never opened the file behind the link (opened %s)" % opened)
    dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                          capture_output=True, check=True).stdout
    named = [line.rsplit(" ", 1)[-1] for line in dump.splitlines()
             if " FILE_CACHE " in line and line.rsplit(" ", 1)[-1]
             .startswith(tree)]
    check(os.path.join(a, "f") in named,
          "the page cache of tree/a/f is recorded (%s)" % named)
    check(not [n for n in named if "/sub/" in n],
          "no page cache is recorded under the link (%s)" % named)


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and fanotify marks need root")
    if not os.path.isdir("/dev/shm"):
        lib.skip("no /dev/shm (tmpfs)")
    with lib.cat_in_cgroup("t2191") as cg:
        shm = tempfile.mkdtemp(prefix="memsz-t2191-", dir="/dev/shm")
        out = tempfile.mkdtemp(prefix="memsz-t2191-")
        try:
            walk(shm, cg, out)
        finally:
            shutil.rmtree(shm, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)


main()
sys.exit(lib.finish())
