#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2127: anonymous THP shared after a fork, page by page as smaps counts
it. The workload (tests/workloads/rec_thpfork.c) maps 2, 4, 5 and 10 MiB
of anonymous memory with MADV_HUGEPAGE (the 5 MiB one 4 KiB past a 2 MiB
boundary), writes every page and forks; the child writes every 37th page
from page 6 (copies: the parent's original of such a page is then mapped
once, inside a huge page both still map whole) and stops; the parent
stops. Such a page has kpagecount 1, but pagemap gives every page of a
PMD-mapped huge page the exclusive bit of its head page, so it lacks it;
smaps counts it Private (its page's mapcount is 1).

For the parent and the child, each mapping's memsz numbers must be those
of /proc/PID/smaps (read before and after, equal): Rss, Private_Clean,
Private_Dirty, Shared_Clean, Shared_Dirty and AnonHugePages exactly, Pss
within a kB (smaps rounds it down). Mappings of 4 MiB or less are read
whole by the snapshot, larger ones with PAGEMAP_SCAN
(record/snap_pagemap.c): both ways are covered. Skipped without THP in
madvise or always mode, or if the parent's 4 MiB mapping got no huge
page."""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check  # noqa: E402

THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
FIELDS = ("Rss", "Pss", "Private_Clean", "Private_Dirty", "Shared_Clean",
          "Shared_Dirty", "AnonHugePages")


def thp_mode():
    """The selected mode of THP_ENABLED, or None without THP."""
    try:
        with open(THP_ENABLED) as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except (OSError, AttributeError):
        return None


# the smaps dicts of the mappings named in regions (t2173, t2175 too)
vmas_of = lib.smaps_regions


def compare(pid, regions, data, who):
    """Records pid between two equal smaps reads and compares. Equal smaps
    reads do not prove the pages stood still in between: compaction (other
    processes' huge page allocations) migrates a stopped process's pages,
    and a page caught mid-migration (a few microseconds) is not looked up:
    its sharing, dirtiness and THP are unknown to memsz, which counts it
    private and resident. A recording that differs is taken again, up to
    three times, each difference printed; a wrong number memsz always
    gives fails every time."""
    lib.compare_regions(pid, regions, data, who, FIELDS,
                        "rss,pss,uss,dirty,shclean,shdirty,thp")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: page sharing needs PFNs (CAP_SYS_ADMIN)")
    mode = thp_mode()
    if mode not in ("always", "madvise"):
        lib.skip(f"THP off ({THP_ENABLED}: {mode})")
    with tempfile.TemporaryDirectory(prefix="memsz-t2127.") as tmp:
        exe = os.path.join(tmp, "rec_thpfork")
        subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
            SRCDIR, "tests/workloads/rec_thpfork.c")], check=True)
        p = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
        kid = None
        try:
            # the parent stops itself: an event of its own child
            regions, kids = lib.workload_stopped(p)
            kid = kids[0] if kids else None
            v4 = vmas_of(p.pid, regions)["r4"]
            if not v4["AnonHugePages"]:
                lib.skip("no huge page in the parent's 4 MiB mapping "
                         "(memory too fragmented?)")
            check(v4["Private_Dirty"] > 0 and v4["Shared_Dirty"] > 0,
                  f"parent's 4 MiB: private ({v4['Private_Dirty']}) and "
                  f"shared ({v4['Shared_Dirty']}) pages in its huge pages")
            data = os.path.join(tmp, "t.data")
            compare(p.pid, regions, data, "parent")
            compare(kid, regions, data, "child")
        finally:
            lib.stop_kill(p, kid)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
