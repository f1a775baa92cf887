#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2461: `record -G CGROUP` records the processes of every descendant
cgroup, however deep.

The kernel sets no depth to a cgroup tree by default (cgroup.max.depth
"max"), and whoever was delegated a subtree may nest it as deep as they
like. memsz walked 64 levels and stopped there without a word: a process
nested deeper was not recorded, and nothing said so.

As root, a cgroup (cgroup2 first, else cgroup v1's memory controller)
gets DEPTH nested children, one in the other; a `cat` reading a pipe
waits in the cgroup itself and one in the deepest child. `record -G
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


def run(tmp, cgs):
    cats = [subprocess.Popen(["cat"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL) for _ in (0, 1)]
    try:
        for cat, cg in zip(cats, (cgs[0], cgs[-1])):
            lib.reading_pipe(cat.pid)
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(cat.pid))
            lib.stopped(cat.pid)
        rss = {c.pid: lib.smaps_rollup(c.pid)["Rss"] for c in cats}
        data = os.path.join(tmp, "d.data")
        r = subprocess.run([MEMSZ, "record", "-G", cgs[0], "--duration",
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
    cgs = [top]
    try:
        for _ in range(DEPTH):
            cgs.append(os.path.join(cgs[-1], "d"))
            os.mkdir(cgs[-1])
        with tempfile.TemporaryDirectory(prefix="memsz-t2461-") as tmp:
            run(tmp, cgs)
    finally:
        for cg in reversed(cgs):
            if os.path.isdir(cg):
                lib.remove_cgroup(cg)
    check(not os.path.exists(top), f"cgroup {top} and its {DEPTH} levels "
          f"removed")


main()
sys.exit(lib.finish())
