#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2319: `record -G CGROUP` of a cgroup with no process (a finished job
whose page cache the cgroup still pays for) says so in one line and
exits 1: its charge is recorded after its processes' snapshots, so there
is nothing to record. It said "no snapshot of any target could be
taken", as if processes had been there and could not be read.

As root, a memory cgroup (v1's memory hierarchy first, else cgroup2) is
made; a process in it writes an 8 MiB file and exits, leaving the page
cache charged to the cgroup (ground truth: memory.stat cache / file) and
cgroup.procs empty. `record -G CG --duration 0` and `record -G CG
--duration 0 --cache-paths DIR` each exit 1 with one line on stderr that
names the cgroup and says it has no process; no file is written.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 8 << 20
WRITER = """import os, sys
open(os.path.join(sys.argv[1], "cgroup.procs"), "w").write(str(os.getpid()))
with open(sys.argv[2], "wb") as f:
    f.write(os.urandom(%d))
""" % SIZE


def run(tmp, cg):
    path = os.path.join(tmp, "written.bin")
    subprocess.run([sys.executable, "-c", WRITER, cg, path], check=True)
    key = "file" if os.path.exists(os.path.join(cg, "memory.current")) \
        else "total_cache"
    paid = lib.memcg_stat_until(cg, key, lambda v: v >= SIZE)
    check(paid >= SIZE, f"ground truth: memory.stat {key} {paid} >= {SIZE}")
    with open(os.path.join(cg, "cgroup.procs")) as f:
        check(f.read().strip() == "", "the cgroup has no process")
    data = os.path.join(tmp, "g.data")
    for extra in ([], ["--cache-paths", tmp]):
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "-o", data, *extra], capture_output=True,
                           text=True)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1 and
              f"cgroup '{cg}' has no process" in lines[0],
              f"record -G {' '.join(extra)}: exit 1, one line naming the "
              f"cgroup and saying it has no process ({r.returncode}: "
              f"{r.stderr.strip()})")
        check(not os.path.exists(data), "no recording written")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    cg = lib.make_cgroup("t2319", v1_first=True)
    try:
        if not os.path.exists(os.path.join(cg, "memory.stat")):
            lib.skip(f"{cg} has no memory controller")
        with tempfile.TemporaryDirectory(prefix="memsz-t2319-") as tmp:
            run(tmp, cg)
    finally:
        lib.remove_cgroup(cg)
    check(not os.path.exists(cg), f"cgroup {cg} removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
