#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2315: the memory cgroup of each file page is looked up right however
large the snapshot's charge queue grows: read in one part, in parallel
parts, and flushed mid-snapshot.

A snapshot queues the pages whose cgroup it looks up (file pages; with -G
anonymous ones too), sorts them by frame and reads /proc/kpagecgroup in
blocks (record/snap_charge.c kpage_charges_flush); a queue of 64 Ki pages
(256 MiB) or more is cut into parts read on threads of their own; one that
would pass 1 Mi pages (4 GiB) is flushed mid-snapshot. As root, on cgroup
v1's memory hierarchy (skipped elsewhere), memory cgroups A and B are made
and a tmpfs file (a fresh directory under /dev/shm: its pages are file
pages to pagemap and stay charged to the cgroup that wrote them) of an odd
number of 2 MiB stripes is written: a process in A writes the odd stripes
and exits, the recorded process, in B, writes the even ones, maps the
whole file (MAP_SHARED, read-only) and reads every page. Three sizes:
under 256 MiB (one part), just over (parallel parts) and over 4 GiB
(flushed mid-snapshot, every flush 64 Ki pages or more).

Ground truth: smaps (the mapping's Rss), A's and B's memory.stat (shmem
and mapped_file: what each paid for), fincore (the file is all resident)
and the stripes each wrote. `record -G B --duration 0`: `report --by
files,kinds -F rss,charge` has under [charged elsewhere] the row
'A: FILE' with exactly A's stripes (A's shmem within two pages), CHARGE
0, and the file's own row B's stripes, RSS and CHARGE (B's shmem); the
two make smaps' Rss. The SNAP_CHARGE runs of the mapping (`dump -v`)
are exactly A's stripes, named by A's inode (an entry read at the wrong
index or a part left unread shows there). `record -p`: the file's row
has smaps' Rss and B's stripes as CHARGE. smaps is read again after the
two recordings: should the kernel have unmapped pages meanwhile, every
page is read again and both are made again (three tries at most).
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

MIB = 1 << 20
GIB = 1 << 30
STRIPE = 2 * MIB
# record/snap_int.h CGQ_MAX and record/snap_keys.c KEYS_PARALLEL_MIN, in
# pages
CGQ_MAX = 1 << 20
CGQ_PARALLEL_MIN = 1 << 16
# (what the size exercises, stripes): odd counts, so that A (odd
# stripes) and B (even) pay for different amounts
SIZES = [("one part", 97),  # 194 MiB: 49 664 pages
         ("parallel parts", 133),  # 266 MiB: 68 096 pages
         ("a mid-snapshot flush", 2305)]  # 4610 MiB: 1 180 160 pages
NEED = 6 * GIB

# The writer in A: waits for a line (it is moved into A first), writes
# the odd stripes, says "done" and exits.
WRITER = """import os, sys
path, stripe, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.stdin.readline()
fd = os.open(path, os.O_WRONLY)
buf = b"a" * stripe
for i in range(1, n, 2):
    os.pwrite(fd, buf, i * stripe)
os.close(fd)
print("done", flush=True)
"""
# The recorded process, in B: waits for a line, writes the even stripes,
# maps the whole file and reads every page, says "ready" and waits; at
# each "touch" line it reads every page again and says "ready" again.
MAPPER = """import mmap, os, sys
path, stripe, n, page = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                         int(sys.argv[4]))
sys.stdin.readline()
fd = os.open(path, os.O_RDWR)
buf = b"b" * stripe
for i in range(0, n, 2):
    os.pwrite(fd, buf, i * stripe)
m = mmap.mmap(fd, n * stripe, mmap.MAP_SHARED, mmap.PROT_READ)
os.close(fd)
for off in range(0, n * stripe, page):
    m[off]
print("ready", flush=True)
while sys.stdin.readline() == "touch\\n":  # read every page again
    for off in range(0, n * stripe, page):
        m[off]
    print("ready", flush=True)
"""


def merged_stripes(start, n, first):
    """[start + i * STRIPE, ...) for i = first, first + 2, ... < n."""
    return [(start + i * STRIPE, start + (i + 1) * STRIPE)
            for i in range(first, n, 2)]


def shmem_settled(cg, base, want):
    """cg's memory.stat shmem less base, read again until it is within two
    pages of want (memcg_stat_until); the last difference read."""
    return lib.memcg_stat_until(
        cg, "shmem", lambda v: abs(v - base - want) <= 2 * PAGE) - base


def record_both(pid, b, n, tmp):
    """record -G B and record -p PID, one-shot: their (data, run)."""
    out = []
    for tag, target in (("g", ["-G", b]), ("p", ["-p", str(pid)])):
        data = os.path.join(tmp, f"{tag}{n}.data")
        r = subprocess.run([MEMSZ, "record", *target, "--duration", "0",
                            "-o", data], capture_output=True, text=True)
        out.append((data, r))
    return out


def check_g(what, rec, path, a_paid, b_paid, rss, span):
    """record -G B's recording rec: A's stripes under [charged
    elsewhere], B's in the file's own row, the SNAP_CHARGE runs."""
    data, r = rec
    a, a_bytes, paid_a = a_paid
    b_bytes, paid_b = b_paid
    va, vend, n = span
    check(r.returncode == 0, f"{what}: record -G B exits 0 "
          f"({r.stderr.strip()})")
    rows = lib.report(data, "files,kinds", "-F", "rss,charge")
    el = [x for x in rows if x["files"] == "[charged elsewhere]" and
          x["kinds"].endswith(": " + path)]
    want = f"{a}: {path}"
    got = [(x["kinds"], int(x["rss"]), float(x["charge"])) for x in el]
    check(got == [(want, a_bytes, 0.0)],
          f"{what}: [charged elsewhere] > '{want}' holds exactly A's "
          f"stripes ({a_bytes}), CHARGE 0: {got}")
    check(el and abs(int(el[0]["rss"]) - paid_a) <= 2 * PAGE,
          f"{what}: ... within two pages of A's memory.stat ({paid_a})")
    own = [(int(x["rss"]), float(x["charge"])) for x in rows
           if x["files"] == path]
    check(own == [(b_bytes, float(b_bytes))] and
          abs(b_bytes - paid_b) <= 2 * PAGE,
          f"{what}: the file's own row: B's stripes {b_bytes} RSS and "
          f"CHARGE (B's shmem {paid_b}): {own}")
    check(sum(g[1] for g in got) + sum(o[0] for o in own) == rss,
          f"{what}: the two rows make smaps Rss {rss}")
    ino_a = os.stat(a).st_ino
    lib.check_charge_runs(
        data, va, vend,
        [(s, e, ino_a) for s, e in merged_stripes(va, n, 1)],
        f"{what}: A's stripes, cgroup {ino_a}")


def check_p(what, rec, path, rss, b_bytes):
    """record -p's recording rec: the file's row has smaps' Rss and B's
    stripes as CHARGE."""
    data, r = rec
    rows = lib.report(data, "files", "-F", "rss,charge")
    own = [(int(x["rss"]), float(x["charge"])) for x in rows
           if x["files"] == path]
    check(r.returncode == 0 and own == [(rss, float(b_bytes))],
          f"{what}: record -p: the file's row has smaps Rss {rss}, "
          f"CHARGE B's stripes {b_bytes}: {own} ({r.stderr.strip()})")


def run_size(what, n, shm, a, b, tmp):
    size = n * STRIPE
    a_bytes = (n // 2) * STRIPE
    b_bytes = size - a_bytes
    path = os.path.join(shm, f"f{n}")
    with open(path, "wb") as f:
        f.truncate(size)
    procs = []
    try:
        shmem_a = lib.memcg_stat(a, "shmem")
        shmem_b = lib.memcg_stat(b, "shmem")
        w = lib.start_in_cgroup(WRITER, a, path, STRIPE, n)
        procs.append(w)
        check(w.stdout.readline().startswith("done") and w.wait() == 0,
              f"{what}: the writer in A wrote the odd stripes")
        m = lib.start_in_cgroup(MAPPER, b, path, STRIPE, n, PAGE)
        procs.append(m)
        if not m.stdout.readline().startswith("ready"):
            check(False, f"{what}: the recorded process maps the file")
            return
        paid_a = shmem_settled(a, shmem_a, a_bytes)
        paid_b = shmem_settled(b, shmem_b, b_bytes)
        check(abs(paid_a - a_bytes) <= 2 * PAGE and
              abs(paid_b - b_bytes) <= 2 * PAGE,
              f"{what} ({size >> 20} MiB): A's memory.stat shmem grew by "
              f"{paid_a} ({a_bytes} written), B's by {paid_b} ({b_bytes})")
        # B may pay for a page of python's too, read back after an
        # eviction; A pays for the file only
        check(lib.memcg_stat(a, "mapped_file") == paid_a and
              lib.memcg_stat(b, "mapped_file") >= paid_b,
              f"{what}: memory.stat mapped_file: A's and B's pages all "
              f"mapped")
        sm = lib.smaps_mapping(m.pid, path)
        if not sm:
            check(False, f"{what}: the mapping in /proc/{m.pid}/smaps")
            return
        va, vend, st = sm
        rss = st.get("Rss", 0)
        res = lib.fincore_bytes(path)
        check(rss == size and (res is None or res == size),
              f"{what}: smaps Rss {rss} == file size {size} (fincore "
              f"{res})")
        if st.get("ShmemPmdMapped", 0) or st.get("FilePmdMapped", 0):
            lib.skip_part(f"{what}: tmpfs gave huge pages here, the queue "
                          f"holds fewer entries than pages")
        pages = rss // PAGE
        if n == SIZES[-1][1]:
            check(pages > CGQ_MAX and pages - CGQ_MAX >= CGQ_PARALLEL_MIN,
                  f"{what}: {pages} pages: a flush mid-snapshot, each of "
                  f"{CGQ_PARALLEL_MIN} pages or more")

        # the recordings are checked against smaps read before them,
        # which holds only if the kernel did not unmap pages of the file
        # meanwhile (a CI run once found 162 of A's pages missing from
        # both recordings, smaps not read after): smaps is read again
        # after the two, and they are made again, every page read again
        # first, until smaps is the same before and after
        for attempt in range(3):
            rec_g, rec_p = record_both(m.pid, b, n, tmp)
            after = lib.smaps_mapping(m.pid, path)
            rss_after = after[2].get("Rss", 0) if after else 0
            if rss_after == rss:
                break
            print(f"# {what}: smaps Rss went from {rss} to {rss_after} "
                  f"while memsz recorded: recording again")
            m.stdin.write("touch\n")
            m.stdin.flush()
            if not m.stdout.readline().startswith("ready"):
                break
            sm = lib.smaps_mapping(m.pid, path)
            rss = sm[2].get("Rss", 0) if sm else 0
        check(rss_after == rss == size,
              f"{what}: smaps Rss {rss_after} after the recordings, "
              f"{rss} before ({attempt + 1} tries)")
        check_g(what, rec_g, path, (a, a_bytes, paid_a), (b_bytes, paid_b),
                rss, (va, vend, n))
        check_p(what, rec_p, path, rss, b_bytes)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        os.remove(path)
        # the next size's baseline must not count this file's pages, freed
        # just now, which memory.stat may show a while longer (a case
        # failed so: its shmem grew by the last file's size less)
        if procs:
            shmem_settled(a, shmem_a, 0)
            shmem_settled(b, shmem_b, 0)


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    vfs = os.statvfs("/dev/shm")
    free = vfs.f_bavail * vfs.f_frsize
    if free < NEED:
        lib.skip(f"/dev/shm has {free >> 20} MiB free, the test needs "
                 f"{NEED >> 20}")
    with open("/proc/meminfo") as f:
        avail = next(int(x.split()[1]) * 1024 for x in f
                     if x.startswith("MemAvailable:"))
    if avail < NEED:
        lib.skip(f"MemAvailable {avail >> 20} MiB, the test needs "
                 f"{NEED >> 20}")
    with tempfile.TemporaryDirectory(prefix="memsz-t2315-") as tmp, \
            tempfile.TemporaryDirectory(prefix="memsz-t2315-",
                                        dir="/dev/shm") as shm, \
            lib.memory_cgroups("t2315", "a", "b", v1=True) as (a, b):
        for what, n in SIZES:
            run_size(what, n, shm, a, b, tmp)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
