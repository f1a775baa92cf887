#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2481: guard regions (madvise MADV_GUARD_INSTALL, Linux 6.13+) are
neither resident nor swapped, as smaps counts them. pagemap reports a
guard page as swapped (bit 62, a PTE marker is a non-present swap-type
entry) and PAGEMAP_SCAN as PAGE_IS_SWAPPED; smaps ignores PTE markers.

The workload (tests/workloads/rec_guard.c) installs guard regions over
written and untouched pages of a 64 MiB anonymous mapping (read with
PAGEMAP_SCAN), of a 1 MiB one (read whole), of shared and private
mappings of a file, of shared anonymous memory (shmem), and has a thread
whose stack glibc 2.42+ guards with one; it stops itself. Each mapping's
memsz numbers must be those of /proc/PID/smaps (read before and after,
equal): Rss, Swap, Private_Clean, Private_Dirty, Shared_Clean and
Shared_Dirty exactly, Pss within a kB (smaps rounds it down), recorded
again up to three times while they differ (a page caught mid-migration
by compaction); recorded
with PAGEMAP_SCAN (6.7+, which leaves guard regions out from 6.15 on)
and without it (MEMSZ_NO_PAGEMAP_SCAN: pagemap read whole). Skipped
where the kernel refuses guard regions in anonymous memory (before
6.13); file-backed and shmem mappings are left out where refused
(before 6.15), saying so."""
import errno
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check, smaps_vmas  # noqa: E402

FIELDS = ("Rss", "Pss", "Swap", "Private_Clean", "Private_Dirty",
          "Shared_Clean", "Shared_Dirty")
# pages guarded in each mapping (rec_guard.c): none of them resident
GUARDED = {"anon64": 32 << 20, "anon1": 64 * 4096, "file": 4 << 20,
           "filecow": 2 << 20, "shmem": 4 << 20}


def vmas_of(pid, regions):
    """smaps dicts of pid's mappings named in regions (name: (s, e)): the
    one that holds s (the thread stack's line gives an address in it)."""
    vmas = smaps_vmas(pid)
    out = {}
    for name, (s, _e) in regions.items():
        v = [v for v in vmas if v["start"] <= s < v["end"]]
        if not v:
            lib.fail(f"pid {pid} has no mapping at {s:x}")
        out[name] = v[0]
    return out


def compare(pid, regions, data, how, env):
    """Records pid (environment env) between two equal smaps reads and
    compares. Equal smaps reads do not prove the pages stood still in
    between: compaction (other processes' huge page allocations) migrates
    a stopped process's pages, and a page caught mid-migration is not
    looked up (its sharing and dirtiness are unknown to memsz). A
    recording that differs is taken again, up to three times, each
    difference printed; a wrong number memsz always gives fails every
    time."""
    def attempt():
        after = lib.record_between(pid, data,
                                   lambda: vmas_of(pid, regions), FIELDS,
                                   how, env)
        rows = lib.mapping_rows(data,
                                "rss,pss,uss,dirty,shclean,shdirty,swap")
        return [c for name, v in after.items()
                for c in lib.mapping_row_checks(
                    f"{how}, {name}", rows.get((v["start"], v["end"])), v)]
    lib.checks_retried(attempt, how)


def start_workload(tmp):
    """Builds rec_guard in tmp and starts it (its file in tmp too), in a
    session of its own."""
    exe = os.path.join(tmp, "rec_guard")
    subprocess.run(["gcc", "-O1", "-pthread", "-o", exe, os.path.join(
        SRCDIR, "tests/workloads/rec_guard.c")], check=True)
    return subprocess.Popen([exe, os.path.join(tmp, "file")],
                            stdout=subprocess.PIPE, text=True,
                            start_new_session=True)


def skip_unguarded(err):
    """Skips the test if err, the anonymous mapping's madvise errno, says
    the kernel refused the guard region."""
    if err:
        lib.skip(f"MADV_GUARD_INSTALL refused: {os.strerror(err)} "
                 "(Linux < 6.13)")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: page sharing needs PFNs (CAP_SYS_ADMIN)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2481.",
                                     dir="/var/tmp") as tmp:
        p = start_workload(tmp)
        try:
            got, _ = lib.workload_stopped(p)
            refused = {n: r[2] for n, r in got.items() if r[2]}
            skip_unguarded(refused.get("anon64"))
            for n, e in refused.items():
                lib.skip_part(f"{n}: MADV_GUARD_INSTALL refused "
                              f"({errno.errorcode.get(e, e)}; Linux < 6.15 "
                              "for file-backed and shmem mappings)")
            regions = {n: r[:2] for n, r in got.items() if n not in refused}
            # ground truth of the workload: what smaps says of the guard
            # regions, where memsz was wrong (bit 62 is no swap)
            v = vmas_of(p.pid, regions)
            for n in GUARDED:
                if n in regions:
                    size = v[n]["end"] - v[n]["start"]
                    check(v[n]["Swap"] == 0 and
                          v[n]["Rss"] <= size - GUARDED[n],
                          f"{n}: smaps counts no guard page "
                          f"(Rss {v[n]['Rss']}, Swap {v[n]['Swap']})")
            data = os.path.join(tmp, "t.data")
            compare(p.pid, regions, data, "scan", os.environ)
            # every mapping read whole, as before Linux 6.7
            compare(p.pid, regions, data, "pread",
                    dict(os.environ, MEMSZ_NO_PAGEMAP_SCAN="1"))
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
