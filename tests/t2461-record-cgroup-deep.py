#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2461: `record -G CGROUP` records the processes of every descendant
cgroup, however deep.

The kernel sets no depth to a cgroup tree by default (cgroup.max.depth
"max"), and whoever was delegated a subtree may nest it as deep as they
like. memsz walked 64 levels and stopped there without a word: a process
nested deeper was not recorded, and nothing said so.

As root, a cgroup (cgroup2 first, else cgroup v1's memory controller)
gets DEPTH nested children, one in the other, the first LONG of them
named with 200 characters: the deepest one's path is longer than
PATH_MAX (4096), which no single open(2) takes (made here, as memsz must
read it, a directory at a time relative to the last); a `cat` reading a
pipe waits in the cgroup itself and one in the deepest child. `record -G
CGROUP --duration 0` must record both (`report --by pids`), each with
the RSS its smaps_rollup gives (it is stopped first: read at one
moment).
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

DEPTH = 100
LONG = 24


def join(fd, pid):
    """Puts pid in the cgroup open as fd (a directory descriptor: a deep
    one's path is too long to open)."""
    procs = os.open("cgroup.procs", os.O_WRONLY, dir_fd=fd)
    try:
        os.write(procs, str(pid).encode())
    finally:
        os.close(procs)


def run(tmp, top, fds):
    cats = [subprocess.Popen(["cat"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL) for _ in (0, 1)]
    try:
        for cat, fd in zip(cats, (fds[0], fds[-1])):
            lib.reading_pipe(cat.pid)
            join(fd, cat.pid)
            lib.stopped(cat.pid)
        rss = {c.pid: lib.smaps_rollup(c.pid)["Rss"] for c in cats}
        data = os.path.join(tmp, "d.data")
        r = subprocess.run([MEMSZ, "record", "-G", top, "--duration",
                            "0", "-o", data], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"record -G exits 0 ({r.stderr.strip()})")
        got = {}
        for row in lib.report(data, "pids", "-F", "rss"):
            w = row["pids"].split()
            if w and w[0].isdigit():
                got[int(w[0])] = int(row["rss"])
        for cat, where in zip(cats, ("the cgroup itself",
                                     f"its child {DEPTH} levels down")):
            check(got.get(cat.pid) == rss[cat.pid],
                  f"the cat in {where} (pid {cat.pid}) is recorded with "
                  f"smaps_rollup's RSS {rss[cat.pid]} "
                  f"({got.get(cat.pid)}; recorded pids {sorted(got)})")
    finally:
        for c in cats:
            c.kill()
            c.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("making cgroups needs root")
    top = lib.make_cgroup("t2461")
    # (the directory's descriptor, its parent's, its name) from the top
    fds = [(os.open(top, os.O_RDONLY | os.O_DIRECTORY), None, None)]
    try:
        for i in range(DEPTH):
            name = ("l" * 200 + str(i)) if i < LONG else "d"
            os.mkdir(name, dir_fd=fds[-1][0])
            fds.append((os.open(name, os.O_RDONLY | os.O_DIRECTORY,
                                dir_fd=fds[-1][0]), fds[-1][0], name))
        deep = len(top) + sum(len(n) + 1 for _, _, n in fds[1:])
        check(deep > 4096, f"the deepest cgroup's path is {deep} "
              f"characters long, longer than PATH_MAX")
        with tempfile.TemporaryDirectory(prefix="memsz-t2461-") as tmp:
            run(tmp, top, [f for f, _, _ in fds])
    finally:
        for fd, parent, name in reversed(fds[1:]):
            os.close(fd)

            def gone(parent=parent, name=name):
                try:
                    os.rmdir(name, dir_fd=parent)
                except FileNotFoundError:
                    pass
                except OSError:
                    return False
                return True
            lib.wait_until(gone, f"cgroup .../{name[:8]} to be removed")
        os.close(fds[0][0])
        lib.remove_cgroup(top)
    check(not os.path.exists(top), f"cgroup {top} and its {DEPTH} levels "
          f"removed")


main()
sys.exit(lib.finish())
