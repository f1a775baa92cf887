#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2321: `record -a` counts a hugetlb page once: in the row of the
mapping that maps it, or, when no process maps it, in "[hugetlb]"
(meminfo's Hugetlb less the hugetlb pages the processes' rows hold). The
"[hugetlb]" row was the whole of Hugetlb, so every mapped hugetlb page
was counted twice (and "[unexplained]" was that much smaller).

As root, the hugetlb pool is raised by 6 pages of the default huge page
size (restored at the end, under the lock the hugetlb tests share); a
python3 process maps 2 of them private (MAP_HUGETLB) and 2 shared, and a
child it forks touches the shared ones too. Ground truth: their smaps
(Private_Hugetlb, Shared_Hugetlb) and /proc/meminfo's Hugetlb read
before and after the recording. `record -a --duration 0`, `report --by
pids,files`: each hugetlb mapping's CHARGE sums over the two processes
to its pages once (private 2 pages, shared 2 pages: a share per
mapper), "[hugetlb]" is Hugetlb less those 4 pages, and no hugetlb page
is in the page cache rows ("[page cache, file unknown]" is meminfo's
Buffers + Cached less the other file pages: not checked here). The
recording is made twice: with PAGEMAP_SCAN where the kernel has it, and
without (MEMSZ_NO_PAGEMAP_SCAN, as before Linux 6.7: the hugetlb
mappings were not told then, their private pages counted twice). Where
the snapshot has no kpageflags the test is skipped.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

POOL = "/proc/sys/vm/nr_hugepages"
HOLDER = r"""import mmap, os, sys
HUGE = int(sys.argv[1])
MAP_HUGETLB = 0x40000
priv = mmap.mmap(-1, 2 * HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
                 | MAP_HUGETLB)
shared = mmap.mmap(-1, 2 * HUGE, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS
                   | MAP_HUGETLB)
for off in range(0, 2 * HUGE, 4096):
    priv[off] = 1
    shared[off] = 1
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    for off in range(0, 2 * HUGE, 4096):
        shared[off] = 2
    os.write(w, b"x")
    sys.stdin.readline()
    os._exit(0)
os.read(r, 1)
print(pid, flush=True)
sys.stdin.readline()
os.kill(pid, 9)
"""


def meminfo(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


def smaps_hugetlb(pid):
    """{mapping start: Private_Hugetlb + Shared_Hugetlb} of pid's hugetlb
    mappings."""
    out, start = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start = int(head.split("-")[0], 16)
            elif head in ("Private_Hugetlb:", "Shared_Hugetlb:"):
                v = int(line.split()[1]) * 1024
                if v:
                    out[start] = out.get(start, 0) + v
    return out


def run(tmp, huge):
    work = subprocess.Popen([sys.executable, "-c", HOLDER, str(huge)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        child = int(work.stdout.readline())
        parent_maps = smaps_hugetlb(work.pid)
        child_maps = smaps_hugetlb(child)
        check(sum(parent_maps.values()) == 4 * huge and
              sum(child_maps.values()) == 4 * huge,
              f"ground truth: smaps hugetlb of parent {parent_maps}, child "
              f"{child_maps}: 4 huge pages each")
        got = [record(tmp, work.pid, scan) for scan in (True, False)]
    finally:
        work.stdin.write("\n")
        work.stdin.flush()
        work.kill()
        work.wait()
    if got == [None, None]:
        lib.skip("the snapshot tells no hugetlb mapping (it needs "
                 "kpageflags)")
    for scan, res in zip(("with", "without"), got):
        if res is None:
            lib.skip_part(f"{scan} PAGEMAP_SCAN: no kpageflags, or no "
                          f"PAGEMAP_SCAN on this kernel")
            continue
        h0, rows = res
        check_rows(f"{scan} PAGEMAP_SCAN: ", rows, work.pid, child, huge,
                   h0)


def record(tmp, pid, scan):
    """record -a, with PAGEMAP_SCAN or without (MEMSZ_NO_PAGEMAP_SCAN:
    as before Linux 6.7); (meminfo Hugetlb, report rows), or None where
    the snapshot cannot tell (no kpageflags, or no PAGEMAP_SCAN to use)."""
    h0 = meminfo("Hugetlb")
    data = os.path.join(tmp, "a.data")
    env = dict(os.environ)
    if not scan:
        env["MEMSZ_NO_PAGEMAP_SCAN"] = "1"
    r = subprocess.run([MEMSZ, "record", "-a", "--duration", "0", "-o",
                        data], capture_output=True, text=True, env=env)
    h1 = meminfo("Hugetlb")
    check(r.returncode == 0, f"record -a exits 0 ({r.stderr[-200:]})")
    check(h0 == h1, f"meminfo Hugetlb {h0} did not move ({h1})")
    dump = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                          capture_output=True, text=True).stdout
    begin = [ln for ln in dump.splitlines()
             if f"SNAP_BEGIN pid {pid} " in ln]
    if not begin or "kpageflags" not in begin[0] or \
            ("pagemap-scan" in begin[0]) != scan:
        return None
    return h0, lib.report(data, "pids,files", "-F", "rss,charge")


def check_rows(what, rows, pid, child, huge, h0):
    mapped = sum(float(x["charge"]) for x in rows
                 if x["pids"].split()[0] in (str(pid), str(child)) and
                 "huge" in x["files"])
    rss = sum(int(x["rss"]) for x in rows
              if x["pids"].split()[0] in (str(pid), str(child)) and
              "huge" in x["files"])
    check(rss == 8 * huge and abs(mapped - 4 * huge) < 1,
          f"{what}the hugetlb mappings: RSS {rss} (both processes' smaps, "
          f"{8 * huge}), CHARGE {mapped:.0f}: each page once ({4 * huge})")
    pool = [float(x["charge"]) for x in rows if x["pids"] == "[hugetlb]"]
    check(pool == [float(h0 - 4 * huge)],
          f"{what}[hugetlb] {pool}: meminfo Hugetlb {h0} less the 4 pages "
          f"mapped "
          f"({h0 - 4 * huge})")


def main():
    if os.geteuid() != 0:
        lib.skip("the hugetlb pool and a frame walk need root")
    huge = meminfo("Hugepagesize")
    if not huge or not os.path.exists(POOL):
        lib.skip("no hugetlb pages on this kernel")
    with lib.hugetlb_pool_lock():
        with open(POOL) as f:
            old = int(f.read())
        try:
            with open(POOL, "w") as f:
                f.write(str(old + 6))
            with open(POOL) as f:
                if int(f.read()) < old + 6:
                    lib.skip("cannot raise the hugetlb pool by 6 pages")
            with tempfile.TemporaryDirectory(prefix="memsz-t2321-") as tmp:
                run(tmp, huge)
        finally:
            with open(POOL, "w") as f:
                f.write(str(old))
    with open(POOL) as f:
        check(int(f.read()) == old, f"the hugetlb pool is back at {old}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
