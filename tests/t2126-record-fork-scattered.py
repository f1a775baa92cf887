#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2126: page frames looked up for many chunks at once. A python3 parent
touches 256 MiB of anonymous memory, and writes 512 MiB of shared memory
(a memfd mapped shared), each in an order that jumps (an odd stride
modulo the page count), so that pages next to each other get frames far
apart, then forks three children; the first writes every 3rd anonymous
page, the second every 5th, the third none, so that the parent's
anonymous pages are mapped 2, 3 or 4 times and each child's are private
or shared; the children map every, every 2nd and every 3rd page of the
shared memory (read, after the fork: a shared mapping's page tables are
not copied), so that its pages are mapped 1 to 4 times. All four are
stopped.

For each of them `memsz record -p PID --duration 0` must give both
mappings the numbers of /proc/PID/smaps (read before and after, equal
in those fields):
Rss, Shared_Clean, Shared_Dirty, Private_Dirty and USS exactly, PSS
within a page (smaps rounds it down to a kB). And the parent's look-ups must have been read
sorted across its chunks: the test reads the PFNs from pagemap itself
and counts the preads a sort chunk by chunk (64 MiB) would take (blocks
of frames at most 3 apart, as memsz reads them) and a sort over the
whole process would: of /proc/kpagecount for both mappings' pages, of
/proc/kpageflags for the shared memory's (whose dirtiness is its pages'
flags). memsz's preads of each file, counted with strace, must be at
most a quarter more than the second count, plus OTHER_READS for the
process's other mappings (its libraries: ~1 400 here); and for one file
at least that bound must be under the first count (the frames scattered
enough to tell a sort at once from one chunk by chunk; else the test is
skipped, as it could not fail without the feature)."""
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import PAGE, check, smaps_vmas  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
SIZE = 256 << 20
SHM_SIZE = 512 << 20
CHUNK_PAGES = 1 << 14  # record/snap_int.h
KPAGE_GAP = 3  # record/snap_int.h
OTHER_READS = 4096
# the smaps fields compared, which must not move while memsz reads
COMPARED = ("Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean",
            "Private_Dirty")
PROG = r"""
import mmap, os, signal, sys
size, shm_size, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
n = size // 4096
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.madvise(mmap.MADV_NOHUGEPAGE)
for i in range(n):
    m[(i * 0x9e3779b1 & (n - 1)) * 4096] = 1
fd = os.memfd_create("t2126")
os.ftruncate(fd, shm_size)
shm = mmap.mmap(fd, shm_size, flags=mmap.MAP_SHARED)
ns = shm_size // 4096
for i in range(ns):
    shm[(i * 0x9e3779b1 & (ns - 1)) * 4096] = 1
kids = []
for step, reads in ((3, 1), (5, 2), (0, 3)):
    pid = os.fork()
    if pid == 0:
        for i in range(0, n, step) if step else ():
            m[i * 4096] = 2
        # a shared mapping's page tables are not copied: map its pages
        for i in range(0, ns, reads):
            shm[i * 4096]
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, os.WUNTRACED)
with open(ready + ".tmp", "w") as f:
    f.write(" ".join(map(str, kids)))
os.rename(ready + ".tmp", ready)
sys.stdin.read()
"""


def big_vma(pid, size=SIZE):
    """The smaps dict of pid's mapping of size bytes."""
    for v in smaps_vmas(pid):
        if v["end"] - v["start"] == size:
            return v
    lib.fail(f"pid {pid} has no {size >> 20} MiB mapping")


def blocks(pfns):
    """Preads to read the sorted pfns in blocks of frames at most
    KPAGE_GAP apart (record/snap_kpage.c keys_read)."""
    n, last = 0, None
    for p in sorted(pfns):
        if last is None or p - last > KPAGE_GAP:
            n += 1
        last = p
    return n


def pfns(pid, vma):
    """The PFNs of vma's pages not mapped exclusively (all of the shared
    memory's), in address order (0 for the others)."""
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(vma["start"] // PAGE * 8)
        raw = f.read((vma["end"] - vma["start"]) // PAGE * 8)
    ents = struct.unpack(f"{len(raw) // 8}Q", raw)
    return [e & ((1 << 55) - 1) if e >> 63 and not (e >> 56) & 1 else 0
            for e in ents]


def chunked_blocks(pfn):
    """Preads of the look-ups of pfn sorted chunk by chunk."""
    return sum(blocks([p for p in pfn[i:i + CHUNK_PAGES] if p])
               for i in range(0, len(pfn), CHUNK_PAGES))


def record(pid, data, strace=None):
    """memsz record -p pid --duration 0 into data; under strace (its
    output file) when given."""
    cmd = [MEMSZ, "record", "-o", data, "-p", str(pid), "--duration", "0"]
    env = None
    if strace:
        cmd = ["strace", "-f", "-y", "-e", "trace=pread64", "-o", strace,
               *cmd]
        # LeakSanitizer cannot run under ptrace (the sanitizer build)
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get(
            "ASAN_OPTIONS", "") + ":detect_leaks=0")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env)


def memsz_row(data, vma):
    """The report row of vma."""
    for r in lib.report(data, "mappings", "-F",
                        "rss,pss,uss,dirty,shclean,shdirty"):
        s, e = (int(x, 16) for x in r["mappings"].split()[0].split("-"))
        if (s, e) == (vma["start"], vma["end"]):
            return r
    return None


def record_stable(pid, data, who):
    """smaps, memsz, smaps again, until both smaps reads agree; returns the
    second read of both mappings."""
    for _ in range(20):
        before = [big_vma(pid, size) for size in (SIZE, SHM_SIZE)]
        record(pid, data)
        after = [big_vma(pid, size) for size in (SIZE, SHM_SIZE)]
        # only the compared fields: Referenced moves with no access by
        # the stopped processes (seen at load 10, child 2's grew 112 kB)
        if all(b[k] == a[k] for b, a in zip(before, after)
               for k in COMPARED):
            return after
    lib.fail(f"{who}: smaps kept changing while stopped")


def compare(pid, data, who):
    """One stable round, then the checks of the docstring, for both
    mappings; recorded again while one differs (lib.checks_retried)."""
    def attempt():
        after = record_stable(pid, data, who)
        return [c for vma, what in zip(after, ("anonymous",
                                               "shared memory"))
                for c in vma_checks(data, vma, f"{who}, {what}")]
    lib.checks_retried(attempt, who)


def vma_checks(data, vma, who):
    """(ok, message) of the checks of the docstring for one mapping."""
    row = memsz_row(data, vma)
    if row is None:
        return [(False, f"{who}: memsz reports the mapping")]
    want_pss = vma["Pss"]
    uss = vma["Private_Clean"] + vma["Private_Dirty"]
    out = [(True, f"{who}: memsz reports the mapping"),
           (int(row["rss"]) == vma["Rss"],
            f"{who}: RSS {row['rss']} == smaps Rss {vma['Rss']}"),
           # smaps prints Pss in whole kB, rounded down; within a page per
           # mapping is the contract (t2130: with large file folios, as
           # shared memory's may be, memsz has been seen a few sharers off
           # on a page)
           (want_pss - 8 <= float(row["pss"]) < want_pss + PAGE,
            f"{who}: PSS {row['pss']} in smaps Pss [{want_pss}, + a page)"),
           (int(row["uss"]) == uss, f"{who}: USS {row['uss']} == {uss}")]
    for col, field in (("dirty", "Private_Dirty"),
                       ("shared_clean", "Shared_Clean"),
                       ("shared_dirty", "Shared_Dirty")):
        out.append((int(row[col]) == vma[field],
                    f"{who}: {col} {row[col]} == {field} {vma[field]}"))
    return out


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: PSS needs PFNs (CAP_SYS_ADMIN)")
    # free memory in large blocks, so that what the workload touches in
    # order of frames lies close when sorted at once (a machine that has
    # run many tests has it scattered: then the two sorts read alike)
    with open("/proc/sys/vm/compact_memory", "w") as f:
        f.write("1")
    with tempfile.TemporaryDirectory(prefix="memsz-t2126.") as tmp:
        ready = os.path.join(tmp, "ready")
        p = subprocess.Popen([sys.executable, "-c", PROG, str(SIZE),
                              str(SHM_SIZE), ready], stdin=subprocess.PIPE)
        kids = []
        try:
            lib.wait_until(lambda: os.path.exists(ready) or
                           p.poll() is not None, "the forked workload")
            if p.poll() is not None:
                lib.fail("the workload died before it was ready")
            with open(ready) as f:
                kids = [int(x) for x in f.read().split()]
            lib.stopped(p.pid)
            data = os.path.join(tmp, "o.data")
            vma = big_vma(p.pid)
            check(vma["Pss"] < vma["Rss"] // 2,
                  f"parent's pages shared (Pss {vma['Pss']}, "
                  f"Rss {vma['Rss']})")
            for who, pid in [("parent", p.pid)] + [
                    (f"child {i + 1}", k) for i, k in enumerate(kids)]:
                compare(pid, data, who)
            # the parent's preads of each kpage file against the counts
            shm = big_vma(p.pid, SHM_SIZE)
            check(shm["Rss"] == SHM_SIZE and shm["Pss"] < SHM_SIZE // 2,
                  f"shared memory resident and shared: Rss {shm['Rss']}, "
                  f"Pss {shm['Pss']}")
            anon_pfns, shm_pfns = pfns(p.pid, vma), pfns(p.pid, shm)
            trace = os.path.join(tmp, "strace")
            record(p.pid, data, trace)
            with open(trace) as f:
                lines = f.read().splitlines()
            told = []
            for name, chunked, whole in (
                    ("kpagecount",
                     chunked_blocks(anon_pfns) + chunked_blocks(shm_pfns),
                     blocks([x for x in anon_pfns + shm_pfns if x])),
                    ("kpageflags", chunked_blocks(shm_pfns),
                     blocks([x for x in shm_pfns if x]))):
                reads = sum(1 for line in lines if re.search(
                    rf"pread64\(\d+</proc/{name}>", line))
                bound = whole + whole // 4 + OTHER_READS
                print(f"# {name}: {chunked} preads sorted chunk by chunk, "
                      f"{whole} sorted at once")
                if bound < chunked:
                    told.append(name)
                check(reads <= bound,
                      f"memsz read {name} in {reads} preads, at most "
                      f"{bound} ({whole} and a quarter, and {OTHER_READS})")
            # a read chunk by chunk would pass where free memory is so
            # scattered that sorting the whole process gains little
            if told:
                check(True, f"a read chunk by chunk would fail: {told}")
            else:
                lib.skip_part("free memory too scattered here for a sort "
                              "at once to beat one chunk by chunk")
        finally:
            for pid in kids + [p.pid]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            p.stdin.close()
            p.wait()
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
