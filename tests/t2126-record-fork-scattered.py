#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2126: mapcounts read for many chunks at once. A python3 parent touches
512 MiB of anonymous memory in an order that jumps (an odd stride modulo
the page count), so that pages next to each other get frames far apart,
then forks three children; the first writes every 3rd page, the second
every 5th, the third none, so that the parent's pages are mapped 2, 3 or 4
times and each child's are private or shared. All four are stopped.

For each of them `memsz record -p PID --duration 0` must give the big
mapping the numbers of /proc/PID/smaps (read before and after, equal):
Rss, Shared_Dirty, Private_Dirty and USS exactly, PSS within smaps' kB
rounding. And the parent's mapcounts must have been read sorted across
its chunks: the test reads the PFNs from pagemap itself and counts the
preads of /proc/kpagecount a sort chunk by chunk (64 MiB) would take
(blocks of frames at most 3 apart, as memsz reads them) and a sort over
the whole mapping would; memsz's preads of that file, counted with
strace, must be fewer than half the first count, which a chunk-by-chunk
read cannot be."""
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
SIZE = 512 << 20
CHUNK_PAGES = 1 << 14  # record/snap_int.h
KPAGE_GAP = 3  # record/snap_int.h
PROG = r"""
import mmap, os, signal, sys
size, ready = int(sys.argv[1]), sys.argv[2]
n = size // 4096
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.madvise(mmap.MADV_NOHUGEPAGE)
for i in range(n):
    m[(i * 0x9e3779b1 & (n - 1)) * 4096] = 1
kids = []
for step in (3, 5, 0):
    pid = os.fork()
    if pid == 0:
        for i in range(0, n, step) if step else ():
            m[i * 4096] = 2
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


def big_vma(pid):
    """The smaps dict of pid's SIZE-byte anonymous mapping."""
    for v in smaps_vmas(pid):
        if v["end"] - v["start"] == SIZE:
            return v
    lib.fail(f"pid {pid} has no {SIZE >> 20} MiB mapping")


def blocks(pfns):
    """Preads to read the sorted pfns in blocks of frames at most
    KPAGE_GAP apart (record/snap_kpage.c keys_read)."""
    n, last = 0, None
    for p in sorted(pfns):
        if last is None or p - last > KPAGE_GAP:
            n += 1
        last = p
    return n


def pfn_blocks(pid, vma):
    """Preads of the mapcounts of vma's pages not mapped exclusively:
    sorted chunk by chunk, and sorted all at once."""
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(vma["start"] // PAGE * 8)
        raw = f.read((vma["end"] - vma["start"]) // PAGE * 8)
    ents = struct.unpack(f"{len(raw) // 8}Q", raw)
    pfns = [e & ((1 << 55) - 1) if e >> 63 and not (e >> 56) & 1 else 0
            for e in ents]
    chunked = sum(blocks([p for p in pfns[i:i + CHUNK_PAGES] if p])
                  for i in range(0, len(pfns), CHUNK_PAGES))
    return chunked, blocks([p for p in pfns if p])


def record(pid, data, strace=None):
    """memsz record -p pid --duration 0 into data; under strace (its
    output file) when given."""
    cmd = [MEMSZ, "record", "-o", data, "-p", str(pid), "--duration", "0"]
    if strace:
        cmd = ["strace", "-f", "-y", "-e", "trace=pread64", "-o", strace,
               *cmd]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def memsz_row(data, vma):
    """The report row of vma."""
    for r in lib.report(data, "mappings", "-F",
                        "rss,pss,uss,dirty,shdirty"):
        s, e = (int(x, 16) for x in r["mappings"].split()[0].split("-"))
        if (s, e) == (vma["start"], vma["end"]):
            return r
    return None


def compare(pid, data, who):
    """One stable round: smaps, memsz, smaps again, until both smaps
    reads agree; then the checks of the docstring."""
    for _ in range(20):
        before = big_vma(pid)
        record(pid, data)
        after = big_vma(pid)
        if before == after:
            break
    else:
        lib.fail(f"{who}: smaps kept changing while stopped")
    row = memsz_row(data, after)
    check(row is not None, f"{who}: memsz reports the mapping")
    if row is None:
        return
    want_pss = after["Pss"]
    uss = after["Private_Clean"] + after["Private_Dirty"]
    check(int(row["rss"]) == after["Rss"],
          f"{who}: RSS {row['rss']} == smaps Rss {after['Rss']}")
    check(want_pss - 8 <= float(row["pss"]) < want_pss + 1024,
          f"{who}: PSS {row['pss']} in smaps Pss [{want_pss}, +1 KiB)")
    check(int(row["uss"]) == uss, f"{who}: USS {row['uss']} == {uss}")
    check(int(row["dirty"]) == after["Private_Dirty"],
          f"{who}: dirty {row['dirty']} == Private_Dirty "
          f"{after['Private_Dirty']}")
    check(int(row["shared_dirty"]) == after["Shared_Dirty"],
          f"{who}: shdirty {row['shared_dirty']} == Shared_Dirty "
          f"{after['Shared_Dirty']}")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: PSS needs PFNs (CAP_SYS_ADMIN)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2126.") as tmp:
        ready = os.path.join(tmp, "ready")
        p = subprocess.Popen([sys.executable, "-c", PROG, str(SIZE), ready],
                             stdin=subprocess.PIPE)
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
            # the parent's kpagecount preads against the two counts
            chunked, whole = pfn_blocks(p.pid, vma)
            trace = os.path.join(tmp, "strace")
            record(p.pid, data, trace)
            with open(trace) as f:
                reads = sum(1 for line in f
                            if re.search(r"pread64\(\d+</proc/kpagecount>",
                                         line))
            npages = vma["Rss"] // PAGE
            check(chunked * 4 >= npages,
                  f"frames scattered: {chunked} preads chunk by chunk for "
                  f"{npages} pages (sorted at once: {whole})")
            check(reads * 2 < chunked,
                  f"memsz read kpagecount in {reads} preads, fewer than "
                  f"half of {chunked} (chunk by chunk); sorted at once: "
                  f"{whole}")
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
