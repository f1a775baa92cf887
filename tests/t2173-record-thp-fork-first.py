#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2173: anonymous THP shared after a fork whose FIRST page one side has
copied away. t2127's workload (tests/workloads/rec_thpfork.c) with
"child-first": the child writes the first 4 KiB page of every huge page
of its four mappings (2, 4, 5, 10 MiB), which splits its PMD mappings and
copies that page; the parent still maps each huge page whole by a PMD.
The head page of such a huge page is then mapped once (the parent's PMD),
and pagemap gives the parent's PMD entries all 512 pages the head page's
exclusive bit, though the child still maps the other 511 by PTEs (smaps:
the head 4 KiB Private_Dirty, the rest Shared_Dirty, Pss 4 + 511 * 2 KiB).
With "parent-first" the parent writes those pages after the fork and the
child keeps the PMD mappings: the same in the other process.

Each side of each run is compared with /proc/PID/smaps per mapping as in
t2127 (Rss, Private_Clean, Private_Dirty, Shared_Clean, Shared_Dirty and
AnonHugePages exactly, Pss within a kB). Skipped without root (PFNs),
without THP in madvise or always mode, or if the 4 MiB mapping of the
side keeping the PMDs got no huge page."""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check  # noqa: E402

t2127 = lib.sibling_test("t2127-record-thp-fork")


def run(exe, mode, tmp):
    """One run of the workload in mode; False if it got no huge page."""
    p = subprocess.Popen([exe, mode], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    kid = None
    try:
        regions, kids = lib.workload_stopped(p, f"{mode}: the workload")
        kid = kids[0] if kids else None
        keeper = p.pid if mode == "child-first" else kid
        v4 = t2127.vmas_of(keeper, regions)["r4"]
        if not v4["AnonHugePages"]:
            lib.skip_part(f"{mode}: no huge page in the 4 MiB mapping "
                          "(memory too fragmented?)")
            return
        # 2 huge pages: their first pages private, the rest shared
        check(v4["Private_Dirty"] == 8 << 10 and
              v4["Shared_Dirty"] == (4 << 20) - (8 << 10),
              f"{mode}: smaps of the PMD side's 4 MiB: Private_Dirty "
              f"{v4['Private_Dirty']} (8 KiB), Shared_Dirty "
              f"{v4['Shared_Dirty']}")
        data = os.path.join(tmp, "t.data")
        t2127.compare(p.pid, regions, data, f"{mode}, parent")
        t2127.compare(kid, regions, data, f"{mode}, child")
    finally:
        lib.stop_kill(p, kid)


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: page sharing needs PFNs (CAP_SYS_ADMIN)")
    mode = t2127.thp_mode()
    if mode not in ("always", "madvise"):
        lib.skip(f"THP off ({t2127.THP_ENABLED}: {mode})")
    with tempfile.TemporaryDirectory(prefix="memsz-t2173.") as tmp:
        exe = os.path.join(tmp, "rec_thpfork")
        subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
            SRCDIR, "tests/workloads/rec_thpfork.c")], check=True)
        for m in ("child-first", "parent-first"):
            run(exe, m, tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
