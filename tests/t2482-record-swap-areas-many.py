#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2482: with 22 swap areas or more on, memsz reads no pagemap swap type
as "no swap" and says so. A swapped entry's type from MAX_SWAPFILES up is
a page under migration or a PTE marker (include/linux/swap.h); memsz
takes 22 (the least MAX_SWAPFILES, 5.19-6.1) as that bound, but on other
kernels a real swap area may have type 22 or more (MAX_SWAPFILES is 23
on 6.2-6.14, 24 since 6.15, 27 without CONFIG_DEVICE_PRIVATE) when that
many areas are on (per-CPU zram).

In a mount namespace of its own, the test puts a file over /proc/swaps
listing 21, then 22 swap areas (`cat /proc/swaps` must show them) and
records the workload of t2481 (tests/workloads/rec_guard.c, guard
regions in a 64 MiB anonymous mapping): with 21 no note, with 22 one
note naming 22 areas. With 21 the guard pages are neither resident nor
swapped, as smaps counts them, and with 22 too on Linux 6.15+, told by
pagemap's bit 58 and not by their type: the mapping's numbers as smaps
says (Rss, Swap, Private_*, Shared_* exactly, Pss within a kB), recorded again up to three times while they
differ (a page caught mid-migration by compaction). Needs root (PFNs,
mounts) and unshare (util-linux); skipped where the kernel refuses guard
regions (before 6.13)."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, smaps_vmas  # noqa: E402

t2481 = lib.sibling_test("t2481-record-guard-regions")

FIELDS = ("Rss", "Pss", "Swap", "Private_Clean", "Private_Dirty",
          "Shared_Clean", "Shared_Dirty")
HEADER = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"


def fake_swaps(tmp, n):
    """Mounts over /proc/swaps a file listing n swap areas; returns the
    areas `cat /proc/swaps` lists then."""
    path = os.path.join(tmp, f"swaps{n}")
    with open(path, "w") as f:
        f.write(HEADER)
        for i in range(n):
            f.write(f"/dev/zram{i}\tpartition\t1048572\t0\t100\n")
    subprocess.run(["mount", "--bind", path, "/proc/swaps"], check=True)
    out = subprocess.run(["cat", "/proc/swaps"], check=True,
                         capture_output=True, text=True).stdout
    return len(out.splitlines()) - 1


def anon64(pid, region):
    """{"anon64": smaps dict} of pid's mapping that starts region."""
    v = [v for v in smaps_vmas(pid) if v["start"] <= region[0] < v["end"]]
    if not v:
        lib.fail(f"pid {pid} has no mapping at {region[0]:x}")
    return {"anon64": v[0]}


def record(pid, region, data, how):
    """Records pid between two equal smaps reads; returns the checks of
    the mapping's numbers against smaps."""
    after = lib.record_between(pid, data, lambda: anon64(pid, region),
                               FIELDS, how)
    rows = lib.mapping_rows(data, "rss,pss,uss,dirty,shclean,shdirty,swap")
    v = after["anon64"]
    return lib.mapping_row_checks(f"{how}, anon64",
                                  rows.get((v["start"], v["end"])), v)


def notes(data):
    """The NOTE lines of data's dump that say swap areas are on."""
    dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                          capture_output=True, text=True).stdout
    return [ln for ln in dump.splitlines()
            if " NOTE " in ln and "swap areas are on" in ln]


def inner(tmp):
    """In the mount namespace: the workload, then each count of areas."""
    p = t2481.start_workload(tmp)
    try:
        got, _ = lib.workload_stopped(p)
        t2481.skip_unguarded(got["anon64"][2])
        rel = tuple(int(x) for x in os.uname().release.split(".")[:2])
        for n in (21, 22):
            listed = fake_swaps(tmp, n)
            check(listed == n, f"cat /proc/swaps lists {listed} areas")
            data = os.path.join(tmp, f"t{n}.data")
            how = f"{n} areas"
            if rel >= (6, 15) or n < 22:
                lib.checks_retried(
                    lambda: record(p.pid, got["anon64"][:2], data, how), how)
            else:
                record(p.pid, got["anon64"][:2], data, how)
                if n >= 22:
                    lib.skip_part("guard pages with 22 areas: no pagemap bit "
                                  "58 before Linux 6.15 (counted swapped)")
            found = notes(data)
            if n < 22:
                check(not found, f"{n} areas: no note: {found}")
            else:
                check(len(found) == 1 and f"{n} swap areas" in found[0],
                      f"{n} areas: one note naming them: {found}")
            subprocess.run(["umount", "/proc/swaps"], check=True)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    return lib.finish()


def main():
    if len(sys.argv) == 2:
        sys.exit(inner(sys.argv[1]))
    if os.geteuid() != 0:
        lib.skip("needs root: PFNs (CAP_SYS_ADMIN) and a mount namespace")
    if not shutil.which("unshare"):
        lib.skip("unshare (util-linux) not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t2482.",
                                     dir="/var/tmp") as tmp:
        r = subprocess.run(["unshare", "--mount", "--propagation", "private",
                            sys.executable, os.path.abspath(__file__), tmp])
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
