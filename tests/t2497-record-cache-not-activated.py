#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2497: the page cache scan of `record -G` (the files the processes
hold open or map, and --cache-paths) leaves the pages it looks at where
reclaim had them. It mapped them with MADV_POPULATE_READ, which marks
each page accessed (get_user_pages' FOLL_TOUCH), and unmapped them with
young PTEs, a second mark: a file read once, on the inactive list, moved
to the active list at one look, and reclaim kept it over colder cache.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller): the test writes a 32 MiB file and drops it
from the page cache (POSIX_FADV_DONTNEED; fincore says none is cached,
else a skip); a python3 process in CG reads it once with read() and
waits on its stdin (ground truth: fincore says the whole file is cached,
CG's memory.stat inactive_file holds at least 31 MiB: what per-CPU
batches hold is not counted yet). `record -G CG
--cache-paths FILE --duration 0` names the file's 32 MiB (its row), and
CG's memory.stat active_file grows by less than 4 MiB across the
recording (by 32 MiB before). If the file's pages were evicted meanwhile
(another process dropping caches), the check cannot be made: a skip.
Before Linux 6.3 the unmapping of a young PTE marks its page accessed
in a MADV_RANDOM mapping too (only VM_SEQ_READ was exempt; 6.3's
vma_has_recency() added VM_RAND_READ): a skip there, not a failure.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 32 << 20
# memory.stat lags the LRU lists by the folios still in per-CPU batches
# and the per-CPU counter deltas not yet flushed: a few hundred KiB
STAT_SLACK = 1 << 20
READER = """import sys
sys.stdin.readline()
with open(sys.argv[1], "rb") as f:
    while f.read(1 << 20):
        pass
print("ready", flush=True)
sys.stdin.readline()
"""


def lru(cg, which):
    """cg's memory.stat WHICH_file, its subtree's."""
    return lib.memcg_stat(cg, lib.memcg_stat_key(cg, which + "_file"))


def run(tmp, cg):
    path = os.path.join(tmp, "read-once.bin")
    lib.uncached_file(path, SIZE)
    r = lib.start_in_cgroup(READER, cg, path)
    try:
        lib.workload_ready(r, "the reader")
        check(lib.fincore_bytes(path) == SIZE, "ground truth: fincore "
              "says the file read is cached whole")
        # less by what is still in per-CPU LRU batches and per-CPU stat
        # deltas not yet folded in (CI saw 96 KiB short)
        inactive = lru(cg, "inactive")
        check(inactive >= SIZE - STAT_SLACK, f"ground truth: CG's "
              f"inactive_file {inactive} >= {SIZE - STAT_SLACK} (a file "
              f"read once, less {STAT_SLACK} not yet counted)")
        active0 = lru(cg, "active")
        data = os.path.join(tmp, "g.data")
        rec = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                              "--cache-paths", path, "-o", data],
                             capture_output=True, text=True)
        active1 = lru(cg, "active")
        still = lib.fincore_bytes(path)
    finally:
        r.kill()
        r.wait()
    check(rec.returncode == 0, f"record exits 0 ({rec.stderr.strip()})")
    rows = {x["files"]: float(x["charge"])
            for x in lib.report(data, "files", "-F", "charge")}
    check(rows.get(path, 0) == SIZE,
          f"the row of the file holds its {SIZE} ({rows.get(path)})")
    if still != SIZE:
        lib.skip(f"the file's page cache was evicted meanwhile ({still} "
                 "bytes left): whether the scan activated it is unknown")
    check(active1 - active0 < 4 << 20,
          f"CG's active_file grew by {active1 - active0} across the "
          f"recording, less than 4 MiB (the scan activated none of the "
          f"{SIZE} it looked at)")


def kernel_before(major, minor):
    """True if the running kernel is older than MAJOR.MINOR."""
    rel = os.uname().release.split("-")[0].split(".")
    try:
        return (int(rel[0]), int(rel[1])) < (major, minor)
    except (IndexError, ValueError):
        return False


if __name__ == "__main__":
    if kernel_before(6, 3):
        lib.skip(f"Linux {os.uname().release}: unmapping marks a page "
                 "accessed in a MADV_RANDOM mapping too (6.3+ not)")
    if not shutil.which("fincore"):
        lib.skip("no fincore(1) to say what is cached")
    lib.cgroup_test("t2497", run, tmpdir="/var/tmp")
    sys.exit(lib.finish())
