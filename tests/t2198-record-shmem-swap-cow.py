#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2198: a copy-on-write copy over a shmem page swapped out counts twice.

smaps counts the Swap of a shmem mapping that cannot write (shared, or
private and read-only) as the swapped pages of the part of the object it
maps (shmem_swap_usage), whatever the page tables hold; a private
writable one only where its page tables have a hole. So in a private
mapping of a memfd written (copy-on-write copies) and made read-only since,
a page whose copy is resident while the object's page is swapped out is
in Rss (the copy) and in Swap (the object's page). memsz counted it once
(RSS): SWAP fell short by the copies over swapped pages.

The test turns on a swap file of its own in a fresh temporary directory
(skipped where swapon fails; turned off, by its path, and removed at the
end whatever happens: other swap areas are left alone). A workload fills
a memfd of 512 pages, maps it private and writable, reads pages 0-255 and
writes every fourth page (copies), makes the mapping read-only, then
touches every page through a second, shared mapping and pages that one out
(MADV_PAGEOUT: the pages mapped only there, i.e. all but the 192 the
private mapping maps unwritten), unmaps it, and stops. A second workload
does the same without reading first: its private mapping maps only the
128 copies, anonymous pages all with the same pagemap flags, which the
snapshot keeps as a bitmap and, the mapping being shmem, turns back into
runs to count the object's swapped pages in the gaps between them
(slot_bits_runs); the first one's mixes copies and object pages, kept as
runs. memsz records each (-p PID --duration 0); ground truth the kernel's
smaps of the stopped process: RSS and SWAP of `report --by mappings` equal
Rss and Swap of every mapping, the private one having some Swap under its
copies (Rss + Swap above its size), and `--by pids` smaps_rollup's Rss and
Swap. smaps SwapPss of the mapping is 0 (shmem swap is not in it); memsz has
no SwapPss column.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check, smaps_vmas  # noqa: E402

SWAP_MB = 64
P = 512

WORKLOAD = r"""
import ctypes, mmap, os, signal, sys
PG = mmap.PAGESIZE
P = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
fd = os.memfd_create("memsz-t2198")
os.pwrite(fd, b"\3" * (P * PG), 0)
pm = mmap.mmap(fd, P * PG, flags=mmap.MAP_PRIVATE,
               prot=mmap.PROT_READ | mmap.PROT_WRITE)
at = ctypes.addressof(ctypes.c_char.from_buffer(pm))
for i in range(P // 2 if sys.argv[2] == "read" else 0):
    pm[i * PG]
for i in range(0, P, 4):
    pm[i * PG] = 4
if libc.mprotect(at, P * PG, mmap.PROT_READ):
    sys.exit("mprotect: errno %d" % ctypes.get_errno())
sm = mmap.mmap(fd, P * PG, flags=mmap.MAP_SHARED)
for i in range(P):
    sm[i * PG]
sm.madvise(21, 0, P * PG)  # MADV_PAGEOUT
sm.close()
print("%x" % at, flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def run(tmp, read):
    """The checks on the workload that reads pages 0-255 of its private
    mapping before it writes (read "read") or reads none ("noread")."""
    p = subprocess.Popen([sys.executable, "-c", WORKLOAD, str(P), read],
                         stdout=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline().strip()
        if not line:
            lib.fail("the workload ended before it was ready")
        at = int(line, 16)
        lib.wait_stopped(p.pid)
        vmas = smaps_vmas(p.pid)
        roll = lib.smaps_rollup(p.pid)
        v = [x for x in vmas if x["start"] == at]
        if len(v) != 1:
            lib.fail(f"no mapping at {at:x} in smaps")
        v = v[0]
        size = v["end"] - v["start"]
        if v.get("Rss", 0) + v.get("Swap", 0) <= size:
            lib.skip_part(f"{read}: smaps counts no page twice here: Rss "
                          f"{v.get('Rss')} Swap {v.get('Swap')} of {size} "
                          "(nothing paged out under a copy)")
            return
        check(v.get("SwapPss", 0) == 0,
              f"{read}: smaps SwapPss of the mapping {v.get('SwapPss')} is 0")
        data = os.path.join(tmp, f"{read}.data")
        subprocess.run([MEMSZ, "record", "-o", data, "-p", str(p.pid),
                        "--duration", "0"], check=True,
                       stderr=subprocess.DEVNULL)
        got = {}
        for r in lib.report(data, "mappings", "--fields", "rss,swap"):
            first = r["mappings"].split()[0]
            if "-" in first:
                s, e = (int(x, 16) for x in first.split("-"))
                got[(s, e)] = r
        for x in vmas:
            key = (x["start"], x["end"])
            name = f"{read}: {key[0]:x}-{key[1]:x} {x['last']}"
            r = got.get(key)
            what = check if x is v else lib.check_quiet
            if r is None:
                what(False, f"{name}: in the report")
                continue
            what(int(r["rss"]) == x.get("Rss", 0),
                 f"{name}: RSS {r['rss']} == smaps Rss {x.get('Rss', 0)}")
            what(int(r["swap"]) == x.get("Swap", 0),
                 f"{name}: SWAP {r['swap']} == smaps Swap "
                 f"{x.get('Swap', 0)}")
        rows = lib.pid_rows(data, "--fields", "rss,swap")
        r = rows.get(p.pid)
        check(r is not None and int(r["swap"]) == roll["Swap"] and
              int(r["rss"]) == roll["Rss"],
              f"{read}: --by pids: SWAP, RSS "
              f"{(r['swap'], r['rss']) if r else None} == smaps_rollup "
              f"Swap, Rss {roll['Swap']}, {roll['Rss']}")
        after = [(x["start"], x.get("Rss"), x.get("Swap"))
                 for x in smaps_vmas(p.pid)]
        before = [(x["start"], x.get("Rss"), x.get("Swap")) for x in vmas]
        check(after == before,
              f"{read}: smaps' Rss and Swap the same before and after the "
              "recording")
    finally:
        try:
            os.kill(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: swapon, and map_files for the shmem objects")
    if PAGE != os.sysconf("SC_PAGE_SIZE"):
        lib.skip("page size")
    with tempfile.TemporaryDirectory(prefix="memsz-t2198.") as tmp, \
            lib.swap_file(tmp, "memsz-t2198-swap", SWAP_MB):
        for read in ("read", "noread"):
            run(tmp, read)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
