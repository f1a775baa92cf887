#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2317: the charge of a -G cgroup's descendants that no process maps is
explained by the kernel's counters of the whole subtree: cgroup v1's
memory.usage_in_bytes counts the cgroup and its descendants, and so do
memory.stat's total_* lines; its cache and rss lines count the cgroup
alone. Read from those, the page cache of a child cgroup with no
process left was "[unexplained]", not page cache.

As root, a memory cgroup NAME (v1's memory hierarchy first, else cgroup2
with the memory controller, whose memory.stat is the subtree's) with a
child NAME/idle is made. A process in idle writes a 32 MiB file and
exits: its page cache stays charged to idle (ground truth: idle's
memory.stat cache / file), which has no process now. A python3 process
in a second child NAME/busy waits on its stdin (a snapshot to take).
`record -G NAME --duration 0` (no --cache-paths: the file is no
process's) and `report --by files`: the row "[page cache, file unknown]"
holds idle's page cache (within NAME's page cache read before and
after, at least 32 MiB), and "[unexplained]" is less than 4 MiB (the
kernel's per-CPU charge batches and memory.stat's lazy flush); the CHARGE
column sums to NAME's charge read around the recording.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 32 << 20
WRITER = """import os, sys
open(os.path.join(sys.argv[1], "cgroup.procs"), "w").write(str(os.getpid()))
with open(sys.argv[2], "wb") as f:
    for i in range(%d):
        f.write(os.urandom(1 << 20))
""" % (SIZE >> 20)
WAITER = """import os, sys
open(os.path.join(sys.argv[1], "cgroup.procs"), "w").write(str(os.getpid()))
print("ready", flush=True)
sys.stdin.readline()
"""


def cache_key(cg):
    """The memory.stat line of cg's page cache, its subtree's."""
    if os.path.exists(os.path.join(cg, "memory.current")):
        return "file"
    return "total_cache"


def usage(cg):
    """cg's charge: memory.current (v2) or memory.usage_in_bytes (v1)."""
    for f in ("memory.current", "memory.usage_in_bytes"):
        v = lib.read_int(os.path.join(cg, f))
        if v is not None:
            return v
    return 0


def run(tmp, cg, idle):
    path = os.path.join(tmp, "written.bin")
    subprocess.run([sys.executable, "-c", WRITER, idle, path], check=True)
    key = cache_key(idle)
    paid = lib.memcg_stat_until(idle, key, lambda v: v >= SIZE)
    check(paid >= SIZE, f"ground truth: idle's memory.stat {key} {paid} "
          f">= {SIZE} (the file it wrote)")
    with open(os.path.join(idle, "cgroup.procs")) as f:
        check(f.read().strip() == "", "idle has no process")
    # in a child: cgroup2 lets no process live in a cgroup that hands
    # the memory controller down
    work = subprocess.Popen([sys.executable, "-c", WAITER,
                             os.path.join(cg, "busy")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        check(work.stdout.readline().startswith("ready"),
              "the waiter is in NAME/busy")
        before = lib.memcg_stat(cg, cache_key(cg))
        use0 = usage(cg)
        data = os.path.join(tmp, "g.data")
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "-o", data], capture_output=True, text=True)
        after = lib.memcg_stat(cg, cache_key(cg))
        use1 = usage(cg)
        check(r.returncode == 0, f"record -G exits 0 ({r.stderr.strip()})")
        rows = {x["files"]: float(x["charge"])
                for x in lib.report(data, "files", "-F", "rss,charge")}
        total = sum(rows.values())
    finally:
        work.kill()
        work.wait()
    unknown = rows.get("[page cache, file unknown]", 0)
    low, high = min(before, after), max(before, after)
    check(SIZE <= unknown and low - 4 * lib.PAGE <= unknown <= high,
          f"[page cache, file unknown] {unknown:.0f}: idle's {SIZE} and "
          f"more, within NAME's {key} {low}..{high} (what the report names "
          f"by file is a few pages)")
    unexplained = rows.get("[unexplained]", 0)
    check(unexplained < 4 << 20,
          f"[unexplained] {unexplained:.0f} < 4 MiB")
    check(min(use0, use1) <= total <= max(use0, use1),
          f"the CHARGE column sums to {total:.0f}, NAME's charge read "
          f"around the recording ({use0}, {use1})")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    cg = lib.make_cgroup("t2317", v1_first=True)
    idle = os.path.join(cg, "idle")
    try:
        if os.path.dirname(cg) != lib.V1_MEMORY:
            try:
                with open(os.path.join(cg, "cgroup.subtree_control"),
                          "w") as f:
                    f.write("+memory")
            except OSError:
                pass
        os.mkdir(idle)
        os.mkdir(os.path.join(cg, "busy"))
        if not os.path.exists(os.path.join(idle, "memory.stat")):
            lib.skip(f"{idle} has no memory controller")
        with tempfile.TemporaryDirectory(prefix="memsz-t2317-") as tmp:
            run(tmp, cg, idle)
    finally:
        for d in (idle, os.path.join(cg, "busy"), cg):
            lib.remove_cgroup(d)
    check(not os.path.exists(cg), f"cgroup {cg} removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
