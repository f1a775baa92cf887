#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2457: a few dirty pages among many clean ones in file mappings, page
by page as smaps counts them.

A snapshot reads a file page's kpageflags (PG_dirty: smaps' Private_Dirty
and Shared_Dirty for a file page) only where cachestat(2) finds a dirty
page in the part of the file its chunk's pages span; where it finds a
few, the span is asked again in pieces and the pages of the clean pieces
are not looked up (record/snap_clean.c span_split). A piece taken clean
that holds a dirty page, or a page marked clean outside its piece, makes
memsz count that page clean where smaps counts it dirty.

The workload, in a fresh directory on a file system with a block device
(cachestat is asked only there), maps six sparse files whose pages it
reads (clean; MADV_RANDOM: one page a folio) and dirties every Nth page
of (N a prime: at every offset from the edges of the pieces somewhere)
and the last:
  ro    96 MiB from file offset 40 MiB, MAP_SHARED read-only, every 257th
        page dirtied with pwrite(2) (PG_dirty, the PTE clean): a chunk of
        64 MiB cut into pieces of 64 look-ups
  rw    64 MiB from file offset 40 MiB, MAP_SHARED read-write, every
        4099th page written through it: 4 dirty pages a chunk, pieces cut
        again and again (1024, 256, 64 look-ups)
  priv  64 MiB, MAP_PRIVATE read-write: of every 263rd page, one in two
        written through it (a copy: anonymous), the others with pwrite(2)
        (file pages, dirty)
  big   64 MiB as ro but every 4099th page, read with read-ahead (large
        folios, where the file system makes them, dirty whole: cachestat
        counts each of their pages, so few spans are cut)
  solo  64 MiB as rw but read-only, dirtied with pwrite(2), and never
        read by the child: its pages mapped once (exclusive), only those
        of its few dirty pieces are looked up, too few for the chunk to
        be held (snap_hold.c hold_pays), so they are classified as
        classify_single does, from the flags read (the pages of the other
        mappings, mapped twice, are all looked up for their mapcount, in
        chunks held or of large folios)
  half  768 MiB laid out as bench_snapshot's "file, dirty": a fresh
        file, its cache dropped, every other page read (MADV_RANDOM),
        then one read page in 512 dirtied with pwrite(2), never read by
        the child: chunks of mostly clean pages with a dirty one here and
        there, which record/snap_kpage.c classify_mostly keeps as a
        bitmap of the clean pages with the dirty ones as runs between its
        pieces (record/snap_pool.c slot_add_bits); a run left out of the
        data file loses its dirty page. 12 chunks of the snapshot: a
        thread that gave up on a chunk of many classes passes over the
        next few (MOSTLY_SKIP), not all of them
then forks a child, which reads every page again but solo's and half's
(mapped once; the others twice), and both stop. For both processes
each mapping's memsz numbers must be smaps' (read before and after,
equal): Rss, Private_Clean, Private_Dirty, Shared_Clean and Shared_Dirty
exactly, Pss within a kB.
ro and rw start at a file offset: a piece asked where the mapping's
pages are not (the mapping's start taken as the file's) may find no
dirty page where they have one. Skipped without root (PFNs), on a file
system without a block device, or when smaps shows no dirty page in
`ro`, `solo` or `half` (written back already)."""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import PAGE  # noqa: E402

MIB = 1 << 20
FIELDS = ("Rss", "Pss", "Private_Clean", "Private_Dirty", "Shared_Clean",
          "Shared_Dirty")

# The workload: argv dir, page size. Prints "NAME START END" per mapping,
# "child PID" and "ready", then stops itself.
WORKLOAD = r"""import mmap, os, signal, sys
d, page = sys.argv[1], int(sys.argv[2])
MIB = 1 << 20
def pages(size, step):
    # every step-th page (a prime: at every offset from the edges of the
    # snapshot's pieces somewhere) and the last
    n = size // page
    return sorted(set(range(step // 2, n, step)) | {n - 1})
def mapped(name, size, flags, prot, rand=True, off=0):
    # size bytes of the file from offset off (its start a hole)
    path = os.path.join(d, name)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, off + size)
    m = mmap.mmap(fd, size, flags, prot, offset=off)
    # no read-ahead: a fault caches its own page only, a folio of one
    # page, dirtied alone
    if rand:
        m.madvise(mmap.MADV_RANDOM)
    for off in range(0, size, page):
        m[off]
    return fd, m
OFF = 40 * MIB
ro_fd, ro = mapped("ro", 96 * MIB, mmap.MAP_SHARED, mmap.PROT_READ,
                   off=OFF)
for p in pages(96 * MIB, 257):
    os.pwrite(ro_fd, b"d", OFF + p * page)
rw_fd, rw = mapped("rw", 64 * MIB, mmap.MAP_SHARED,
                   mmap.PROT_READ | mmap.PROT_WRITE, off=OFF)
for p in pages(64 * MIB, 4099):
    rw[p * page] = 1
pv_fd, pv = mapped("priv", 64 * MIB, mmap.MAP_PRIVATE,
                   mmap.PROT_READ | mmap.PROT_WRITE)
for i, p in enumerate(pages(64 * MIB, 263)):
    if i % 2:
        pv[p * page + 1] = 1
    else:
        os.pwrite(pv_fd, b"d", p * page)
big_fd, big = mapped("big", 64 * MIB, mmap.MAP_SHARED, mmap.PROT_READ,
                     rand=False)
for p in pages(64 * MIB, 4099):
    os.pwrite(big_fd, b"d", p * page)
solo_fd, solo = mapped("solo", 64 * MIB, mmap.MAP_SHARED, mmap.PROT_READ)
for p in pages(64 * MIB, 4099):
    os.pwrite(solo_fd, b"d", p * page)
# bench_snapshot's "file, dirty": a fresh file, its cache dropped, every
# other page read, then one read page in 512 dirtied with pwrite(2); 12
# chunks of the snapshot (64 MiB each), not all passed over by a thread
# that just gave up on a chunk of many classes (MOSTLY_SKIP)
HALF = 768 * MIB
half_fd = os.open(os.path.join(d, "half"), os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(half_fd, HALF)
os.posix_fadvise(half_fd, 0, HALF, os.POSIX_FADV_DONTNEED)
half = mmap.mmap(half_fd, HALF, mmap.MAP_SHARED, mmap.PROT_READ)
half.madvise(mmap.MADV_RANDOM)
for off in range(0, HALF, 2 * page):
    half[off]
for off in range(0, HALF, 1024 * page):
    os.pwrite(half_fd, b"d", off)
for name in ("ro", "rw", "priv", "big", "solo", "half"):
    path = os.path.join(d, name)
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip("\n").endswith(" " + path):
                s, e = line.split()[0].split("-")
                print(name, s, e)
r, w = os.pipe()
kid = os.fork()
if kid == 0:
    # a shared file mapping's pages are not copied at fork: read again
    # (not solo's or half's: mapped once)
    for m, size in ((ro, 96 * MIB), (rw, 64 * MIB), (pv, 64 * MIB),
                    (big, 64 * MIB)):
        for off in range(0, size, page):
            m[off]
    os.write(w, b"r")
    os.kill(os.getpid(), signal.SIGSTOP)
    os._exit(0)
os.read(r, 1)
print("child", kid)
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def compare(pid, regions, data, who):
    """Records pid between two equal smaps reads and compares (retried as
    lib.checks_retried says: a page caught mid-migration)."""
    lib.compare_regions(pid, regions, data, who, FIELDS,
                        "rss,pss,uss,dirty,shclean,shdirty")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: page sharing needs PFNs (CAP_SYS_ADMIN)")
    base = lib.block_device_dir("/var/tmp")
    if base is None:
        lib.skip("/var/tmp has no block device: no cachestat(2) is asked")
    with tempfile.TemporaryDirectory(prefix="memsz-t2457.", dir=base) as d:
        p = subprocess.Popen([sys.executable, "-c", WORKLOAD, d, str(PAGE)],
                             stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
        kid = None
        try:
            regions, kids = lib.workload_stopped(p)
            kid = kids[0] if kids else None
            if (set(regions) != {"ro", "rw", "priv", "big", "solo",
                                 "half"} or
                    kid is None):
                lib.fail(f"the workload's mappings: {sorted(regions)}")
            lib.wait_stopped(kid)
            sm = lib.smaps_regions(p.pid, regions)
            ro, solo, half = sm["ro"], sm["solo"], sm["half"]
            dirty = ro["Shared_Dirty"] + ro["Private_Dirty"]
            clean = ro["Shared_Clean"] + ro["Private_Clean"]
            if (not dirty or not solo["Private_Dirty"] or
                    not half["Private_Dirty"]):
                lib.skip("ro's, solo's or half's dirty pages were written "
                         "back already")
            lib.check(dirty < 2 * MIB and clean > 90 * MIB and
                      ro["Shared_Dirty"] + ro["Shared_Clean"] == ro["Rss"],
                      f"ro: a few dirty pages ({dirty} B) among clean ones "
                      f"({clean} B), all shared with the child")
            lib.check(solo["Private_Dirty"] < MIB and
                      solo["Private_Clean"] > 60 * MIB and
                      solo["Private_Clean"] + solo["Private_Dirty"] ==
                      solo["Rss"],
                      f"solo: a few dirty pages ({solo['Private_Dirty']} B) "
                      f"among clean ones, all private")
            lib.check(half["Private_Dirty"] < 4 * MIB and
                      half["Private_Clean"] > 300 * MIB and
                      half["Private_Clean"] + half["Private_Dirty"] ==
                      half["Rss"],
                      f"half: a few dirty pages ({half['Private_Dirty']} B) "
                      f"among clean ones, all private")
            data = os.path.join(d, "t.data")
            compare(p.pid, regions, data, "parent")
            compare(kid, regions, data, "child")
        finally:
            lib.stop_kill(p, kid)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
