#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2196: shared memory swapped out is in SWAP, as smaps counts it.

Reclaim unmaps a shmem page (memfd, /dev/shm, SysV, shared anonymous)
before it swaps it out: the page tables then have nothing there, pagemap
shows a hole, and the swap entry is kept in the object's page cache.
smaps counts those pages in Swap; memsz counted 0.

The test turns on a swap file of its own (skipped where swapon fails; it
is turned off and removed at the end, whatever happens). A workload makes,
pages out part of (MADV_PAGEOUT) and keeps mapped:
  - a memfd of 96 MiB mapped shared (more than a task of memsz's, 64 MiB,
    and sparse: PAGEMAP_SCAN cuts it in tasks of what it finds), one
    page in 16 and pages 16000 to 16800 touched, pages of its first 4
    MiB, pages 16200 to 16600 (across the first task's end) and one in
    three touched pages of its second half paged out, then shared with a
    child (fork);
  - a /dev/shm file mapped from page 128 on (offset not 0), pages paged
    out before, across the start of, inside and across the end of the
    part mapped, some of the others touched;
  - a memfd mapped private and writable, every fourth page written (a
    copy-on-write copy), then all paged out through that mapping (the
    copies to swap entries in the page tables, the object's pages to its
    page cache), some pages read and some copies written back in;
  - shared anonymous memory, its second half paged out;
  - a SysV segment, pages 10 to 100 paged out;
then forks the child and both stop. memsz records each (-p PID --duration
0) and both at once; ground truth the kernel's smaps of the stopped
processes: SWAP and RSS of `report --by mappings` equal Swap and Rss of
every mapping (each of the five with some Swap), and in `--by pids` the
process's smaps_rollup Swap and Rss. A user without CAP_SYS_ADMIN cannot
open map_files: recording their own process with a memfd paged out, memsz
writes a note (kind shmem-swap) that such pages are not counted.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, smaps_vmas  # noqa: E402

SWAP_MB = 128

# As nobody: a memfd, half paged out; says its pid in argv[1] once ready.
NOBODY_WORKLOAD = r"""
import mmap, os, signal, sys
fd = os.memfd_create("memsz-t2196-nobody")
os.ftruncate(fd, 64 * mmap.PAGESIZE)
m = mmap.mmap(fd, 64 * mmap.PAGESIZE, flags=mmap.MAP_SHARED)
for i in range(64):
    m[i * mmap.PAGESIZE] = 1
m.madvise(21, 0, 32 * mmap.PAGESIZE)
open(sys.argv[1] + ".tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
os.kill(os.getpid(), signal.SIGSTOP)
"""

WORKLOAD = r"""
import ctypes, mmap, os, signal, sys
PG = mmap.PAGESIZE
PAGEOUT = 21
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
regions = []

def addr(m):
    return ctypes.addressof(ctypes.c_char.from_buffer(m))

def pageout(m, first, n):
    m.madvise(PAGEOUT, first * PG, n * PG)

N = 24576  # a memfd shared with the child: sparse, and a dense part
fd = os.memfd_create("memsz-t2196")
os.ftruncate(fd, N * PG)
a = mmap.mmap(fd, N * PG, flags=mmap.MAP_SHARED)
touched = list(range(0, N, 16)) + list(range(16000, 16800))
for i in touched:
    a[i * PG] = 1
pageout(a, 0, 1024)
pageout(a, 16200, 400)
for i in range(N // 2, N, 48):
    pageout(a, i, 1)
regions.append(("memfd", addr(a)))

F = 512  # a /dev/shm file, pages [128, 384) mapped
sfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
os.ftruncate(sfd, F * PG)
whole = mmap.mmap(sfd, F * PG, flags=mmap.MAP_SHARED)
for i in range(F):
    whole[i * PG] = 2
for first, n in ((0, 64), (100, 60), (200, 1), (250, 20), (370, 40)):
    pageout(whole, first, n)
whole.close()
part = mmap.mmap(sfd, 256 * PG, flags=mmap.MAP_SHARED, offset=128 * PG)
for i in range(300 - 128, 340 - 128):
    part[i * PG]
regions.append(("devshm", addr(part)))

P = 512  # a memfd mapped private and writable
pfd = os.memfd_create("memsz-t2196-private")
os.pwrite(pfd, b"\3" * (P * PG), 0)
pm = mmap.mmap(pfd, P * PG, flags=mmap.MAP_PRIVATE,
               prot=mmap.PROT_READ | mmap.PROT_WRITE)
for i in range(P):
    pm[i * PG]
for i in range(0, P, 4):
    pm[i * PG] = 4
pageout(pm, 0, P)
for i in range(1, 64, 4):
    pm[i * PG]
for i in range(64, 128, 4):
    pm[i * PG] = 5
regions.append(("private", addr(pm)))

S = 512  # shared anonymous memory
sa = mmap.mmap(-1, S * PG, flags=mmap.MAP_SHARED)
for i in range(S):
    sa[i * PG] = 6
pageout(sa, S // 2, S // 2)
regions.append(("shared-anon", addr(sa)))

V = 256  # a SysV segment, removed once detached
shmid = libc.shmget(0, V * PG, 0o1600)
if shmid < 0:
    sys.exit("shmget: errno %d" % ctypes.get_errno())
p = libc.shmat(shmid, None, 0)
libc.shmctl(shmid, 0, None)
ctypes.memset(p, 7, V * PG)
libc.madvise(p + 10 * PG, 90 * PG, PAGEOUT)
regions.append(("sysv", p))

child = os.fork()
if child == 0:
    os.kill(os.getpid(), signal.SIGSTOP)
    os._exit(0)
for name, at in regions:
    print(name, "%x" % at)
print("child", child)
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def mapping_rows(data):
    """{(start, end): row} of `memsz report --by mappings -F rss,swap`."""
    out = {}
    for r in lib.report(data, "mappings", "--fields", "rss,swap"):
        first = r["mappings"].split()[0]
        if "-" in first:
            s, e = (int(x, 16) for x in first.split("-"))
            out[(s, e)] = r
    return out


def compare(who, data, vmas, regions):
    """The mappings of the recording data against the smaps (vmas) of its
    process: RSS and SWAP of each, and each region's Swap above 0."""
    got = mapping_rows(data)
    for v in vmas:
        key = (v["start"], v["end"])
        name = f"{who}: {key[0]:x}-{key[1]:x} {v['last']}"
        r = got.get(key)
        if r is None:
            check(False, f"{name}: in the report")
            continue
        rss, swap = int(r["rss"]), int(r["swap"])
        region = regions.get(v["start"])
        what = check if region else lib.check_quiet
        what(rss == v.get("Rss", 0),
             f"{name}: RSS {rss} == smaps Rss {v.get('Rss', 0)}")
        what(swap == v.get("Swap", 0),
             f"{name}: SWAP {swap} == smaps Swap {v.get('Swap', 0)}")
    for start, region in regions.items():
        v = [v for v in vmas if v["start"] == start]
        check(len(v) == 1 and v[0].get("Swap", 0) > 0,
              f"{who}: smaps shows Swap in the {region} mapping "
              f"({v[0].get('Swap', 0) if v else None})")


def rss_swap(vmas):
    """Each VMA's range, Rss and Swap."""
    return [(v["start"], v["end"], v.get("Rss"), v.get("Swap")) for v in vmas]


def run(tmp):
    shm = f"/dev/shm/memsz-t2196-{os.getpid()}"
    if not os.path.isdir("/dev/shm"):
        lib.skip("no /dev/shm")
    p = subprocess.Popen([sys.executable, "-c", WORKLOAD, shm],
                         stdout=subprocess.PIPE, text=True)
    child = None
    try:
        named, kids = lib.workload_ready(p)
        child = kids[0] if kids else None
        regions = {at[0]: name for name, at in named.items()}
        lib.wait_stopped(p.pid)
        lib.wait_stopped(child)
        pids = (p.pid, child)
        truth = {pid: (smaps_vmas(pid), lib.smaps_rollup(pid))
                 for pid in pids}
        for pid in pids:
            data = os.path.join(tmp, f"{pid}.data")
            subprocess.run([MEMSZ, "record", "-o", data, "-p", str(pid),
                            "--duration", "0"], check=True,
                           stderr=subprocess.DEVNULL)
            who = "parent" if pid == p.pid else "child"
            # the child has the parent's regions at the same addresses
            compare(who, data, smaps_vmas(pid), regions)
            after = rss_swap(smaps_vmas(pid))
            before = rss_swap(truth[pid][0])
            check(after == before,
                  f"{who}: smaps' Rss and Swap the same before and after "
                  "the recording " +
                  str([(a, b) for a, b in zip(before, after) if a != b]))
        data = os.path.join(tmp, "both.data")
        subprocess.run([MEMSZ, "record", "-o", data, "-p",
                        f"{p.pid},{child}", "--duration", "0"], check=True,
                       stderr=subprocess.DEVNULL)
        rows = lib.pid_rows(data, "--fields", "rss,swap")
        for pid in pids:
            roll = truth[pid][1]
            r = rows.get(pid)
            check(r is not None and int(r["swap"]) == roll["Swap"] and
                  int(r["rss"]) == roll["Rss"],
                  f"--by pids, pid {pid}: SWAP, RSS "
                  f"{(r['swap'], r['rss']) if r else None} == smaps_rollup "
                  f"Swap, Rss {roll['Swap']}, {roll['Rss']}")
    finally:
        lib.stop_kill(p, child)
        if os.path.exists(shm):
            os.unlink(shm)


def run_nobody(tmp):
    """The note of a recording by nobody of nobody's memfd paged out."""
    started = lib.start_as_nobody(tmp, NOBODY_WORKLOAD)
    if not started:
        return
    p, text, out = started
    try:
        pid = int(text)
        lib.wait_stopped(pid)
        v = [v for v in smaps_vmas(pid) if "memsz-t2196-nobody" in v["last"]
             or v["last"] == "(deleted)"]
        check(any(x.get("Swap", 0) > 0 for x in v),
              "nobody: smaps shows Swap in the memfd mapping")
        data = os.path.join(out, "r.data")
        subprocess.run(lib.NOBODY + [MEMSZ, "record", "-o", data, "-p",
                                     str(pid), "--duration", "0"],
                       check=True, stderr=subprocess.DEVNULL)
        dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                              capture_output=True, text=True).stdout
        notes = [ln for ln in dump.splitlines() if " NOTE " in ln and
                 "not counted in SWAP" in ln]
        check(len(notes) == 1, f"nobody: one note that shared memory swapped "
              f"out is not counted: {notes}")
    finally:
        p.kill()
        p.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: swapon, and map_files for the shmem objects")
    # the workload is gone at swapoff: its swapped pages with it (the
    # child may still be exiting: swapoff then swaps its pages in)
    with tempfile.TemporaryDirectory(prefix="memsz-t2196.") as tmp, \
            lib.swap_file(tmp, "swap", SWAP_MB):
        run(tmp)
        run_nobody(tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
