#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2458: the cgroup that pays for each clean file page of a chunk handed
to the encoder as a bitmap, page by page.

A chunk of clean file pages all of one key goes to the encoder as a
bitmap (record/snap_kpage.c classify_bits, plain false); the cgroup
look-up of each of its pages is queued in a second pass over the chunk's
listed pages. A look-up queued for the wrong page's frame (the first
page's, say) or a page left out (the last of the chunk) charges file
pages to the wrong cgroup. On a machine whose page cache frames lie
spread out (as where this was written: the queue's frames span more than
64 frames a page queued), record/snap_charge.c kpage_charges_flush reads
the queue sorted, and these charge checks take that path; its bitmap of
the queued frames (charges_by_bitmap) is covered by t2315.

As root, on cgroup v1's memory hierarchy (skipped elsewhere, where a page
cached by one cgroup and mapped by another is charged as here), memory
cgroups A and B are made. A file of 2 * 16384 + 100 pages (two chunks
of 64 MiB and a bit) is written on a disk file system (not tmpfs:
pagemap shows its pages clean), synced and dropped from the page cache
(fincore: none cached). A process in A (POSIX_FADV_RANDOM: no read-ahead)
reads one byte of each page of an irregular set P_A: not page 0 (the
first of the first chunk), but 16383, 32767 and the file's last (the
last of each chunk); a process in B maps the file (MAP_SHARED, read-only,
MADV_RANDOM) and reads every page: cgroup v1 charges a page cache page to
the cgroup that read it in, so B pays for the others.

Ground truth: fincore (the file all cached), smaps (the mapping's Rss
the file's size) and A's memory.stat cache (P_A's pages). `record -G B
--duration 0`: `report --by files,kinds -F rss,charge` has under
[charged elsewhere] the row 'A: FILE' with P_A's pages, CHARGE 0, and
the file's own row the others, RSS and CHARGE; the mapping's SNAP_CHARGE
runs (`dump -v`) are exactly P_A, named by A's inode. `record -p`: the
file's row has smaps' Rss and the pages not in P_A as CHARGE. A page
of P_A reclaimed before it is recorded (read once, it is first to go
under memory pressure from other processes) is read again by B and
charged to B: A's memory.stat cache, read after A's reads, after B's and
after the recordings, shows it, and the round is run again (three in
all, then a skip).
"""
import os
import random
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

# record/snap_int.h CHUNK_PAGES: the pages of a chunk (a mapping's
# chunks begin at its start)
CHUNK = 1 << 14
NPAGES = 2 * CHUNK + 100

# The reader in A: waits for a line (it is moved into A first), reads
# one byte of each page listed in argv (no read-ahead), says "done" and
# exits.
READER = """import os, sys
path, page = sys.argv[1], int(sys.argv[2])
sys.stdin.readline()
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
for p in map(int, sys.argv[3:]):
    os.pread(fd, 1, p * page)
os.close(fd)
print("done", flush=True)
"""
# The recorded process, in B: waits for a line, maps the whole file and
# reads every page (a fault a page), says "ready" and waits.
MAPPER = """import mmap, os, sys
path, page = sys.argv[1], int(sys.argv[2])
sys.stdin.readline()
fd = os.open(path, os.O_RDONLY)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
os.close(fd)
m.madvise(mmap.MADV_RANDOM)
for off in range(0, size, page):
    m[off]
print("ready", flush=True)
sys.stdin.readline()
"""


def page_runs(va, pages, ino):
    """The pages (sorted file page numbers) mapped from va as merged
    (vaddr, end, ino) ranges."""
    runs = []
    for p in pages:
        s = va + p * PAGE
        if runs and runs[-1][1] == s:
            runs[-1] = (runs[-1][0], s + PAGE, ino)
        else:
            runs.append((s, s + PAGE, ino))
    return runs


def pages_of_a():
    """P_A: an irregular third of the pages (runs and gaps of every
    length up to a few), not page 0, with the last page of each chunk."""
    rng = random.Random(2458)
    pa = {p for p in range(1, NPAGES) if rng.random() < 0.35}
    pa |= {CHUNK - 1, 2 * CHUNK - 1, NPAGES - 1}
    return sorted(pa)


def write_uncached(path):
    """Writes the file, syncs it and drops it from the page cache; true
    once fincore finds none of it cached."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        buf = b"f" * (PAGE * 256)
        for off in range(0, NPAGES * PAGE, len(buf)):
            os.pwrite(fd, buf[:NPAGES * PAGE - off], off)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return lib.fincore_bytes(path) == 0


class Disturbed(Exception):
    """A round whose pages of A were not all in A when recorded."""


def a_holds(a, base, pa, when):
    """Raises Disturbed unless A's memory.stat cache less base settles at
    P_A's pages: a page of P_A reclaimed (memory pressure from other
    processes: it is read once, on the inactive list) is read again by B
    and charged to B, and P_A is not the ground truth any more."""
    want = len(pa) * PAGE
    paid = lib.memcg_stat_until(a, "cache", lambda v: v - base == want)
    if paid - base != want:
        raise Disturbed(f"{when}: A's memory.stat cache grew by "
                        f"{paid - base}, not P_A's {want}")


def records(path, pa, a, b, tmp, m):
    """(ok, message) of each check of the recordings of m (in B)."""
    size = NPAGES * PAGE
    a_bytes = len(pa) * PAGE
    b_bytes = size - a_bytes
    sm = lib.smaps_mapping(m.pid, path)
    if not sm:
        return [(False, f"the mapping in /proc/{m.pid}/smaps")]
    va, vend, st = sm
    rss = st.get("Rss", 0)
    res = [(rss == size and lib.fincore_bytes(path) == size,
            f"smaps Rss {rss} and fincore {lib.fincore_bytes(path)} == file size "
            f"{size}")]
    if st.get("FilePmdMapped", 0):
        lib.skip("the file is mapped by huge pages here")

    data = os.path.join(tmp, "g.data")
    r = subprocess.run([MEMSZ, "record", "-G", b, "--duration", "0",
                        "-o", data], capture_output=True, text=True)
    res.append((r.returncode == 0,
                f"record -G B exits 0 ({r.stderr.strip()})"))
    rows = lib.report(data, "files,kinds", "-F", "rss,charge")
    want = f"{a}: {path}"
    got = [(x["kinds"], int(x["rss"]), float(x["charge"])) for x in rows
           if x["files"] == "[charged elsewhere]" and
           x["kinds"].endswith(": " + path)]
    res.append((got == [(want, a_bytes, 0.0)],
                f"[charged elsewhere] > '{want}' holds exactly P_A "
                f"({a_bytes}), CHARGE 0: {got}"))
    own = [(int(x["rss"]), float(x["charge"])) for x in rows
           if x["files"] == path]
    res.append((own == [(b_bytes, float(b_bytes))],
                f"the file's own row: the pages not in P_A, {b_bytes} RSS "
                f"and CHARGE: {own}"))
    ino_a = os.stat(a).st_ino
    runs = lib.charge_runs(data, va, vend)
    want_runs = page_runs(va, pa, ino_a)
    bad = [x for x in runs if x not in want_runs] + \
        [x for x in want_runs if x not in runs]
    res.append((runs == want_runs,
                f"the mapping's SNAP_CHARGE runs are exactly P_A's "
                f"{len(want_runs)} runs, cgroup {ino_a} ({len(runs)} runs; "
                f"differing {[(hex(s), hex(e), c) for s, e, c in bad[:3]]})"))

    data = os.path.join(tmp, "p.data")
    r = subprocess.run([MEMSZ, "record", "-p", str(m.pid), "--duration",
                        "0", "-o", data], capture_output=True, text=True)
    rows = lib.report(data, "files", "-F", "rss,charge")
    own = [(int(x["rss"]), float(x["charge"])) for x in rows
           if x["files"] == path]
    res.append((r.returncode == 0 and own == [(rss, float(b_bytes))],
                f"record -p: the file's row has smaps Rss {rss}, CHARGE "
                f"the pages not in P_A {b_bytes}: {own} "
                f"({r.stderr.strip()})"))
    return res


def run(d, a, b, tmp):
    """One round: (ok, message) of each check; Disturbed where a page of
    P_A left A."""
    path = os.path.join(d, "f")
    pa = pages_of_a()
    if not write_uncached(path):
        lib.skip(f"{path} stays cached after POSIX_FADV_DONTNEED "
                 f"(fincore {lib.fincore_bytes(path)})")
    procs = []
    try:
        cache_a = lib.memcg_stat(a, "cache")
        w = lib.start_in_cgroup(READER, a, path, PAGE, *pa)
        procs.append(w)
        if not (w.stdout.readline().startswith("done") and w.wait() == 0):
            return [(False, "the reader in A read P_A")]
        a_holds(a, cache_a, pa, "read by A")
        m = lib.start_in_cgroup(MAPPER, b, path, PAGE)
        procs.append(m)
        if not m.stdout.readline().startswith("ready"):
            return [(False, "the recorded process maps the file")]
        a_holds(a, cache_a, pa, "mapped by B")
        res = records(path, pa, a, b, tmp, m)
        a_holds(a, cache_a, pa, "recorded")
        return [(True, f"ground truth: A's memory.stat cache grew by "
                 f"P_A's {len(pa)} pages, read by A, mapped by B and "
                 f"recorded")] + res
    finally:
        for p in procs:
            p.kill()
            p.wait()
        os.remove(path)


def rounds(d, a, b, tmp):
    """Checks a round, run again (three rounds in all) while a page of
    P_A leaves A; a skip if all three are disturbed."""
    for n in range(1, 4):
        try:
            res = run(d, a, b, tmp)
        except Disturbed as e:
            print(f"# round {n} disturbed: {e}")
            continue
        for ok, msg in res:
            check(ok, msg)
        return
    lib.skip_part("three rounds disturbed: pages of P_A reclaimed (memory "
                  "pressure from elsewhere)")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and reading PFNs need root")
    base = lib.block_device_dir("/var/tmp")
    if base is None:
        lib.skip("/var/tmp has no block device (tmpfs pages are not clean)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2458-") as tmp, \
            tempfile.TemporaryDirectory(prefix="memsz-t2458.",
                                        dir=base) as d, \
            lib.memory_cgroups("t2458", "a", "b", v1=True) as (a, b):
        rounds(d, a, b, tmp)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
