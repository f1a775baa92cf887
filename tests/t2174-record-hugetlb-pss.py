#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2174: PSS of hugetlb pages several processes map through a shared PMD
page table sums to the memory they hold.

The workload (tests/workloads/rec_hugetlb_pss.c) maps a hugetlb memfd
MAP_SHARED over a 1 GiB aligned range, writes its first two 2 MiB pages,
maps the first again through a 2 MiB window of its own, and forks N = 2
children that read all three places and stop. The kernel shares the big
range's PMD page table between the three processes: kpagecount says 1
for the second page (N + 2 for the first), smaps Shared_Hugetlb. smaps
has no PSS for hugetlb pages; memsz's is bytes / mappers.

Ground truth: /proc/meminfo's HugePages_Free before and after the
workload (the pages it holds), smaps' Shared_Hugetlb and Private_Hugetlb.
Checks: a recording of all three processes (-p x3): the PSS of the
hugetlb mappings summed over the processes is the memory the workload
holds (meminfo, to a kB), in `report` and at the one point of
`report --timeline`, each process's RSS of each hugetlb mapping is
its smaps Shared_Hugetlb + Private_Hugetlb, its USS there its
Private_Hugetlb (0); each process's PSS is the same with --pid, with
--filter pids=^PID and with --pid --timeline (the other processes still
map the page though their rows are not shown), and on the NEW side of
`diff --pid`; a recording of one child alone (-p): USS 0 too, and
its PSS at most what a process can hold knowing only that the page is
shared (half of each page), no less than its true share. The test raises
the 2 MiB pool by 2 pages under the tests' hugetlb lock and restores it.
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check, smaps_vmas  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
POOL = "/sys/kernel/mm/hugepages/hugepages-2048kB"
NKIDS = 2
HUGE = 2 << 20


def pool(field):
    return lib.read_int(os.path.join(POOL, field))


def rows(data, *extra):
    """{(pid, start, end): row} of `report --by pids,mappings`."""
    out = {}
    for r in lib.report(data, "pids,mappings", "--fields", "rss,pss,uss",
                        *extra):
        first = r["mappings"].split()[0]
        if "-" in first:
            s, e = (int(x, 16) for x in first.split("-"))
            out[(int(r["pids"].split()[0]), s, e)] = r
    return out


def pid_pss(got, pid):
    """The PSS of pid's hugetlb mappings in rows got."""
    return sum(float(r["pss"]) for (q, _, _), r in got.items()
               if q == pid and "/memfd:memsz-t2174" in r["mappings"])


def shown(data, got, pids):
    """The PSS of a process does not depend on which others are shown:
    --pid, --filter pids=, --pid with --timeline give each process's PSS
    of the report of all three (got)."""
    for q in pids:
        want = pid_pss(got, q)
        alone = pid_pss(rows(data, "--pid", str(q)), q)
        check(abs(alone - want) < 1024,
              f"--pid {q}: PSS {alone:.0f} == its PSS among all {want:.0f}")
        filt = pid_pss(rows(data, "--filter", f"pids=^{q} "), q)
        check(abs(filt - want) < 1024,
              f"--filter pids=^{q}: PSS {filt:.0f} == {want:.0f}")
        tl = sum(float(r["pss"]) for r in lib.report(
            data, "mappings", "--timeline=pss", "--pid", str(q))
            if "/memfd:memsz-t2174" in r["mappings"])
        check(abs(tl - want) < 1024,
              f"--pid {q} --timeline: PSS {tl:.0f} == {want:.0f}")


def diff_pss(old, new, pid):
    """The NEW PSS of pid's hugetlb mappings in `memsz diff --by mappings
    --pid pid old new` (the rows differ: old holds pid alone)."""
    out = subprocess.run([MEMSZ, "diff", "--by", "mappings", "-F", "pss",
                          "--pid", str(pid), "--format", "csv", "-n", "0",
                          old, new], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True)
    return sum(float(r["pss_new"]) for r in
               csv.DictReader(io.StringIO(out.stdout))
               if "/memfd:memsz-t2174" in r["mappings"])


def compare(who, got, pid, regions):
    """Per hugetlb mapping of pid: RSS and USS against its smaps; returns
    the PSS summed over them."""
    by = {(v["start"], v["end"]): v for v in smaps_vmas(pid)}
    pss = 0.0
    for name, (s, e) in regions.items():
        v, r = by.get((s, e)), got.get((pid, s, e))
        what = f"{who}: pid {pid} {name}"
        if v is None or r is None:
            check(False, f"{what}: in smaps and in the report")
            continue
        res = v.get("Shared_Hugetlb", 0) + v.get("Private_Hugetlb", 0)
        check(int(r["rss"]) == res,
              f"{what}: RSS {r['rss']} == smaps Shared_Hugetlb + "
              f"Private_Hugetlb {res}")
        check(int(r["uss"]) == v.get("Private_Hugetlb", 0),
              f"{what}: USS {r['uss']} == smaps Private_Hugetlb "
              f"{v.get('Private_Hugetlb', 0)}")
        pss += float(r["pss"])
    return pss


def run(tmp, held):
    exe = os.path.join(tmp, "rec_hugetlb_pss")
    subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
        SRCDIR, "tests/workloads/rec_hugetlb_pss.c")], check=True)
    free0 = pool("free_hugepages")
    p = subprocess.Popen([exe, str(NKIDS)], stdout=subprocess.PIPE,
                         text=True, start_new_session=True)
    kids = []
    try:
        regions, got_kids = lib.workload_stopped(p)
        kids += got_kids
        used = (free0 - pool("free_hugepages")) * HUGE
        check(used == held * HUGE,
              f"meminfo: the workload holds {used} bytes of hugetlb pages "
              f"({held} pages)")
        big = [v for v in smaps_vmas(kids[0])
               if (v["start"], v["end"]) == regions["big"]]
        check(len(big) == 1 and big[0].get("Shared_Hugetlb") == 2 * HUGE,
              "smaps: a child's big mapping has Shared_Hugetlb 4 MiB")
        pids = [p.pid] + kids
        data = os.path.join(tmp, "all.data")
        subprocess.run([MEMSZ, "record", "-o", data, "--duration", "0", "-p",
                        ",".join(map(str, pids))], check=True,
                       stderr=subprocess.DEVNULL)
        got = rows(data)
        total = sum(compare("-p x3", got, q, regions) for q in pids)
        check(abs(total - used) < 1024,
              f"-p x3: hugetlb PSS summed over the processes {total:.0f} "
              f"== meminfo's pages held {used}")
        # the timeline's one point: the same sum
        tl = sum(float(r["pss"]) for r in lib.report(
            data, "mappings", "--timeline=pss") if "/memfd:memsz-t2174" in
            r["mappings"])
        check(abs(tl - used) < 1024,
              f"-p x3 --timeline: hugetlb PSS {tl:.0f} == meminfo's {used}")
        shown(data, got, pids)
        # one child alone: it knows each page shared, not by how many
        data = os.path.join(tmp, "one.data")
        subprocess.run([MEMSZ, "record", "-o", data, "--duration", "0",
                        "-p", str(kids[0])], check=True,
                       stderr=subprocess.DEVNULL)
        one = compare("-p child", rows(data), kids[0], regions)
        # its share: 2 of the first page's 2 (N + 1) mappings, 1 of the
        # second's N + 1
        true = 2 * HUGE / len(pids)
        check(true - 1024 < one <= HUGE / 2 + HUGE / 2 + 1024,
              f"-p child: PSS {one:.0f} in [its share {true:.0f}, half of "
              f"each page {HUGE}]")
        # diff --pid: the NEW side's PSS is the child's among all three
        new = diff_pss(data, os.path.join(tmp, "all.data"), kids[0])
        want = pid_pss(got, kids[0])
        check(abs(new - want) < 1024,
              f"diff --pid {kids[0]}: NEW PSS {new:.0f} == its PSS among "
              f"all three {want:.0f}")
    finally:
        for q in kids + [p.pid]:
            try:
                os.kill(q, 9)
            except ProcessLookupError:
                pass
        p.wait()
        for q in kids:
            lib.wait_until(lambda q=q: gone(q), f"pid {q} to exit")


def gone(pid):
    """True once pid has exited (a zombie, or no more)."""
    try:
        return lib.proc_state(pid) == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: reserves hugetlb pages, reads PFNs")
    if pool("nr_hugepages") is None:
        lib.skip(f"no {POOL}: the kernel has no 2 MiB hugetlb pages")
    with lib.hugetlb_pool_lock():  # the pool is read and restored
        nr = pool("nr_hugepages")
        try:
            with open(os.path.join(POOL, "nr_hugepages"), "w") as f:
                f.write(str(nr + 2))
            if (pool("free_hugepages") or 0) < 2:
                lib.skip("no two free 2 MiB hugetlb pages could be reserved")
            with tempfile.TemporaryDirectory(prefix="memsz-t2174.") as tmp:
                run(tmp, 2)
        finally:
            with open(os.path.join(POOL, "nr_hugepages"), "w") as f:
                f.write(str(nr))
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
