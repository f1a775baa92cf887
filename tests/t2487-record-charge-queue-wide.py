#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2487: the charge queue's 64-bit keys, which hold frames past 32 bits,
look each page's cgroup up right: from the first page queued, and after
a queue of 32-bit keys is made 64-bit midway.

The queue of pages whose memory cgroup a snapshot looks up keeps their
frame numbers in 32 bits while they fit (record/snap_charge.c
kpage_charges_add), and makes the keys queued so far 64-bit (their frame
above their index) when a frame does not (charge_widen). No frame here
passes 2^32 pages (16 TiB), so the testing aid MEMSZ_CGQ_NARROW_MAX=N
takes frames above N as not fitting: N = 0 makes every key 64-bit; N
the largest frame of the first k pages of the mapped file and of the
file pages mapped below it (read from /proc/PID/pagemap as root), k the
largest for which a later page of the file has a frame above, widens
the queue after at least k of the file's pages were queued narrow.
t2315, t2457 and t2458 cover the 32-bit keys (the default), the sort of
narrow keys (widened first) and the bitmap read of them: this test alone
does not reach those two paths.

As root, on cgroup v1's memory hierarchy (skipped elsewhere), memory
cgroups A and B are made and a tmpfs file of 97 stripes of 2 MiB is
written: A writes the odd stripes and exits, the recorded process, in
B, writes the even ones, maps the file and reads every page (as t2315).
Ground truth: smaps (Rss the file's size), A's memory.stat shmem and the
stripes each wrote. For each N, `record -G B --duration 0` under
MEMSZ_CGQ_NARROW_MAX=N: the mapping's SNAP_CHARGE runs (`dump -v`) are
exactly A's stripes, named by A's inode, and `report --by files,kinds`
has 'A: FILE' under [charged elsewhere] with A's stripes. A key widened
without its index, or the keys queued after the widening written as 32
bits, charges pages to the wrong cgroup or none.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

MIB = 1 << 20
STRIPE = 2 * MIB
N = 97  # stripes: 194 MiB, 49 664 pages, one flush of the queue
NEED = 1 << 30

# The writer in A and the recorded process in B: t2315's.
T2315 = lib.sibling_test("t2315-record-charge-queue")
WRITER = T2315.WRITER
MAPPER = T2315.MAPPER


def file_frames(pid, lo, hi):
    """The frame numbers of the present file pages of [lo, hi) of pid
    (pagemap's bits 63 and 61 set, bits 0-54 non-zero: root only), in
    address order; none where pagemap cannot be read ([vsyscall])."""
    out = []
    try:
        with open(f"/proc/{pid}/pagemap", "rb") as f:
            f.seek(lo // PAGE * 8)
            raw = f.read((hi - lo) // PAGE * 8)
    except OSError:
        return out
    for (e,) in struct.iter_unpack("<Q", raw):
        pfn = e & ((1 << 55) - 1)
        if e >> 63 & 1 and e >> 61 & 1 and pfn:
            out.append(pfn)
    return out


def widening_limit(pid, va, vend):
    """A frame number L such that the charge queue of a snapshot of pid
    (its file pages in address order) holds the first k > 0 pages of the
    mapping [va, vend), and every page queued before them, at or below L
    and a later page of the mapping above: the largest such k, and L.
    None if there is none."""
    before, file = [], []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if hi <= va:
                before += file_frames(pid, lo, hi)
            elif lo == va:
                file = file_frames(pid, lo, hi)
    suffix = [0] * (len(file) + 1)
    for i in range(len(file) - 1, -1, -1):
        suffix[i] = max(suffix[i + 1], file[i])
    best, pre = None, max(before, default=0)
    for k in range(1, len(file)):
        pre = max(pre, file[k - 1])
        if pre < suffix[k]:
            best = (k, pre)
    return best


def record_case(what, limit, path, va, vend, a, b, a_bytes, tmp):
    data = os.path.join(tmp, f"{what}.data")
    env = dict(os.environ, MEMSZ_CGQ_NARROW_MAX=str(limit))
    r = subprocess.run([MEMSZ, "record", "-G", b, "--duration", "0",
                        "-o", data], capture_output=True, text=True, env=env)
    check(r.returncode == 0, f"{what}: record -G B exits 0 "
          f"({r.stderr.strip()})")
    rows = lib.report(data, "files,kinds", "-F", "rss,charge")
    want = f"{a}: {path}"
    got = [(x["kinds"], int(x["rss"]), float(x["charge"])) for x in rows
           if x["files"] == "[charged elsewhere]" and
           x["kinds"].endswith(": " + path)]
    check(got == [(want, a_bytes, 0.0)],
          f"{what}: [charged elsewhere] > '{want}' holds exactly A's "
          f"stripes ({a_bytes}), CHARGE 0: {got}")
    ino_a = os.stat(a).st_ino
    lib.check_charge_runs(
        data, va, vend, [(va + i * STRIPE, va + (i + 1) * STRIPE, ino_a)
                         for i in range(1, N, 2)],
        f"{what}: A's stripes, cgroup {ino_a}")


def run(shm, a, b, tmp):
    size = N * STRIPE
    a_bytes = (N // 2) * STRIPE
    path = os.path.join(shm, "f")
    with open(path, "wb") as f:
        f.truncate(size)
    procs = []
    try:
        shmem_a = lib.memcg_stat(a, "shmem")
        w = lib.start_in_cgroup(WRITER, a, path, STRIPE, N)
        procs.append(w)
        check(w.stdout.readline().startswith("done") and w.wait() == 0,
              "the writer in A wrote the odd stripes")
        m = lib.start_in_cgroup(MAPPER, b, path, STRIPE, N, PAGE)
        procs.append(m)
        if not m.stdout.readline().startswith("ready"):
            check(False, "the recorded process maps the file")
            return
        paid_a = lib.memcg_stat_until(
            a, "shmem",
            lambda v: abs(v - shmem_a - a_bytes) <= 2 * PAGE) - shmem_a
        check(abs(paid_a - a_bytes) <= 2 * PAGE,
              f"A's memory.stat shmem grew by {paid_a} ({a_bytes} written)")
        sm = lib.smaps_mapping(m.pid, path)
        if not sm:
            check(False, f"the mapping in /proc/{m.pid}/smaps")
            return
        va, vend, st = sm
        check(st.get("Rss", 0) == size,
              f"smaps Rss {st.get('Rss', 0)} == file size {size}")
        if st.get("ShmemPmdMapped", 0) or st.get("FilePmdMapped", 0):
            lib.skip_part("tmpfs gave huge pages here, the queue holds "
                          "fewer entries than pages")
        record_case("every key 64-bit", 0, path, va, vend, a, b,
                    a_bytes, tmp)
        w = widening_limit(m.pid, va, vend)
        if not w:
            lib.skip_part("no frame of the file above all those before "
                          "it: the queue cannot be widened midway")
            return
        k, limit = w
        record_case(f"{k} keys widened at a frame above {limit}", limit,
                    path, va, vend, a, b, a_bytes, tmp)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        os.remove(path)


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and reading frame numbers need root")
    vfs = os.statvfs("/dev/shm")
    if vfs.f_bavail * vfs.f_frsize < NEED:
        lib.skip(f"/dev/shm has less than {NEED >> 20} MiB free")
    with tempfile.TemporaryDirectory(prefix="memsz-t2487-") as tmp, \
            tempfile.TemporaryDirectory(prefix="memsz-t2487-",
                                        dir="/dev/shm") as shm, \
            lib.memory_cgroups("t2487", "a", "b", v1=True) as (a, b):
        run(shm, a, b, tmp)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
