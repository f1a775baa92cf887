#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2466: anonymous pages read back from swap, or freed with MADV_FREE,
are clean as smaps counts them: DIRTY, SHR DIRTY and SHR CLEAN equal
smaps' Private_Dirty, Shared_Dirty and Shared_Clean.

smaps counts a page dirty when its page-table entry is dirty or the page
PG_dirty. A page read back from swap by a read fault is mapped clean, and
MADV_FREE cleans the entries of the pages it frees; writing the page again
sets the entry's dirty bit with no fault. No page interface shows that
bit (pagemap, PAGEMAP_SCAN, kpageflags: a page read back and one written
after are alike), and memsz counted every anonymous page dirty. It now
takes a mapping's dirty totals from smaps where such pages may be (swap
or MADV_FREE used since boot), and says in a note how many bytes it
counted clean so.

The test turns on a swap file of its own (skipped where swapon fails; it
is turned off and removed at the end, whatever happens). A workload pages
out (MADV_PAGEOUT) and maps:
  - "readback": 512 pages written, paged out, all read back (clean), one
    in four written again after (dirty, no fault), the last 64 paged out
    again (swapped);
  - "lazyfree": 256 pages written, freed with MADV_FREE, the first 64
    written again;
  - "forked": 256 pages written, paged out, pages 0-127 read back and
    0-31 written again, then shared with a child (fork), which reads
    pages 128-191 back;
then both stop. A second workload, in a memory cgroup (v1 or v2) whose
limit pushes half of its 40 MiB out to swap as it writes them, reads them
all back once the limit is raised, writes one in eight again and stops.
memsz records each (-p PID --duration 0); ground truth the kernel's smaps
of the stopped processes: for every mapping, RSS, DIRTY, SHR CLEAN and SHR
DIRTY of `report --by mappings` equal smaps' Rss, Private_Dirty,
Shared_Clean and Shared_Dirty, and in `--by pids` the smaps_rollup
fields; smaps is checked to count clean anonymous pages in each region
(else the test would prove nothing), and each recording to hold the note
that says memsz counted them clean by smaps' totals, none different. A
process none of whose pages was swapped gets no such note. Recorded by
nobody (no page frames, no kpageflags), a nobody's process with pages
read back from swap has its region's DIRTY equal to smaps' too.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, smaps_vmas  # noqa: E402

SWAP_MB = 64

WORKLOAD = r"""
import ctypes, mmap, os, signal
PG = mmap.PAGESIZE
PAGEOUT, FREE, DONTFORK = 21, 8, 10
# readback and lazyfree not in the child (private in the parent), the
# lazyfree region executable too: three mappings the kernel does not merge

def addr(m):
    return ctypes.addressof(ctypes.c_char.from_buffer(m))

s = 0
N = 512
a = mmap.mmap(-1, N * PG, flags=mmap.MAP_PRIVATE)
a.madvise(DONTFORK)
for i in range(N):
    a[i * PG] = 1
a.madvise(PAGEOUT)
for i in range(N):
    s += a[i * PG]
for i in range(0, N, 4):
    a[i * PG] = 2
a.madvise(PAGEOUT, (N - 64) * PG, 64 * PG)

L = 256
b = mmap.mmap(-1, L * PG, flags=mmap.MAP_PRIVATE,
              prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
b.madvise(DONTFORK)
for i in range(L):
    b[i * PG] = 3
b.madvise(FREE)
for i in range(64):
    b[i * PG] = 4

F = 256
c = mmap.mmap(-1, F * PG, flags=mmap.MAP_PRIVATE)
for i in range(F):
    c[i * PG] = 5
c.madvise(PAGEOUT)
for i in range(128):
    s += c[i * PG]
for i in range(32):
    c[i * PG] = 6
print("readback %x" % addr(a))
print("lazyfree %x" % addr(b))
print("forked %x" % addr(c), flush=True)
r, w = os.pipe()
child = os.fork()
if child == 0:
    for i in range(128, 192):
        s += c[i * PG]
    os.write(w, b"x")
    os.kill(os.getpid(), signal.SIGSTOP)
    os._exit(0)
os.read(r, 1)
print("child", child)
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""

# In a memory cgroup whose limit (set once it says "filled") pushes part
# of its 40 MiB out to swap as it writes them: once told "back" (the limit
# raised), reads every page back and writes one in eight again.
CG_WORKLOAD = r"""
import ctypes, mmap, os, signal, sys
PG = mmap.PAGESIZE
sys.stdin.readline()
N = (40 << 20) // PG
a = mmap.mmap(-1, N * PG, flags=mmap.MAP_PRIVATE)
print("filled", flush=True)
sys.stdin.readline()
for i in range(N):
    a[i * PG] = 1 + i % 200
print("pushed", flush=True)
sys.stdin.readline()
print("back", flush=True)
s = 0
for i in range(N):
    s += a[i * PG]
for i in range(0, N, 8):
    a[i * PG] = 0
print("pushed %x" % ctypes.addressof(ctypes.c_char.from_buffer(a)))
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""

# the columns report --by mappings gives lib.mapping_row_checks, and the
# smaps fields that must not move while a recording is compared
COLS = "rss,pss,uss,dirty,shclean,shdirty,swap"
STILL = ("Rss", "Private_Clean", "Private_Dirty", "Shared_Clean",
         "Shared_Dirty", "Swap")
# --by pids columns and the smaps_rollup field each equals
TOTALS = (("rss", "Rss"), ("dirty", "Private_Dirty"),
          ("shared_clean", "Shared_Clean"), ("shared_dirty", "Shared_Dirty"))


def clean_in(vmas, at, fields):
    """The sum of fields of the VMA of vmas holding address at."""
    v = [v for v in vmas if v["start"] <= at < v["end"]]
    return sum(v[0].get(f, 0) for f in fields) if v else 0


def read_smaps(pid):
    """{(start, end): smaps_vmas dict} of pid, and "rollup": its
    smaps_rollup."""
    out = {(v["start"], v["end"]): v for v in smaps_vmas(pid)}
    out["rollup"] = lib.smaps_rollup(pid)
    return out


def record_checks(tmp, pid, who, regions, note):
    """Record pid between two equal smaps reads (lib.record_between: the
    target is stopped, but another process may map a file page of its
    meanwhile) and list the checks, (ok, message): every mapping's
    columns against its smaps (lib.mapping_row_checks; those of the
    regions' mappings told, the others' only when they fail, but PSS), the
    process's against smaps_rollup (--by pids), and with note that the
    recording holds the note that anonymous pages were counted clean by
    smaps' totals, with no difference left, else that it holds none."""
    data = os.path.join(tmp, f"{pid}.data")
    truth = lib.record_between(pid, data, lambda: read_smaps(pid), STILL,
                               who)
    rows = lib.mapping_rows(data, COLS)
    out = []
    for key, v in truth.items():
        if key == "rollup":
            continue
        region = [n for n, at in regions.items() if key[0] <= at < key[1]]
        name = f"{who}: {key[0]:x}-{key[1]:x} {region or v['last']}"
        for ok, m in lib.mapping_row_checks(name, rows.get(key), v):
            # a library's PSS moves under the stopped target as other
            # processes map and unmap it: told only of the regions
            if region or (not ok and f"{name}: Pss " not in m):
                out.append((ok, m))
    roll = truth["rollup"]
    r = lib.pid_rows(data, "--fields", COLS).get(pid)
    for col, field in TOTALS:
        out.append((r is not None and int(r[col]) == roll.get(field, 0),
                    f"{who}: --by pids {col} {r[col] if r else None} == "
                    f"smaps_rollup {field} {roll.get(field, 0)}"))
    dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                          capture_output=True, text=True).stdout
    notes = [ln for ln in dump.splitlines() if " NOTE " in ln and
             "counted clean by the dirty totals smaps" in ln]
    if note:
        out.append((len(notes) == 1 and " 0 bytes in 0 mapping(s), and 0 "
                    "mapping(s) changed" in notes[0],
                    f"{who}: one note that anonymous pages were counted "
                    f"clean by smaps' totals, none different: {notes}"))
    else:
        out.append((not notes, f"{who}: no note of pages counted clean by "
                    f"smaps' totals: {notes}"))
    return out


def record_compare(tmp, pid, who, regions, note=True):
    """record_checks, checked (lib.checks_retried: a page of the stopped
    target caught mid-migration)."""
    lib.checks_retried(lambda: record_checks(tmp, pid, who, regions, note),
                       who)


def step(p, limit, value, word, answer):
    """Set the cgroup's memory limit (file limit) to value, tell workload
    p word and check that it answers answer."""
    with open(limit, "w") as f:
        f.write(str(value))
    p.stdin.write(word + "\n")
    p.stdin.flush()
    check(p.stdout.readline().split() == [answer],
          f"the cgroup's workload says {answer}")


def run(tmp):
    """The three regions of WORKLOAD, in the parent and the child."""
    p = subprocess.Popen([sys.executable, "-c", WORKLOAD],
                         stdout=subprocess.PIPE, text=True)
    child = None
    try:
        named, kids = lib.workload_ready(p)
        child = kids[0] if kids else None
        regions = {name: at[0] for name, at in named.items()}
        lib.wait_stopped(p.pid)
        lib.wait_stopped(child)
        pids = {p.pid: "parent", child: "child"}
        par, kid = smaps_vmas(p.pid), smaps_vmas(child)
        check(clean_in(par, regions["readback"], ("Private_Clean",)) > 0,
              "smaps counts pages read back from swap clean")
        check(clean_in(par, regions["lazyfree"],
                       ("Private_Clean", "LazyFree")) > 0,
              "smaps counts pages freed with MADV_FREE clean")
        check(clean_in(kid, regions["forked"], ("Shared_Clean",)) > 0 and
              clean_in(kid, regions["forked"], ("Shared_Dirty",)) > 0,
              "smaps counts pages read back and shared after a fork "
              "clean, and those written before it dirty")
        for pid, who in pids.items():
            record_compare(tmp, pid, who, regions)
    finally:
        lib.stop_kill(p, child)


def run_cgroup(tmp):
    """Pages pushed out to swap by a memory cgroup's limit, read back."""
    with lib.memory_cgroups("t2466") as (cg,):
        limit = os.path.join(cg, "memory.limit_in_bytes")
        if not os.path.exists(limit):
            limit = os.path.join(cg, "memory.max")
        p = lib.start_in_cgroup(CG_WORKLOAD, cg)
        try:
            check(p.stdout.readline().split() == ["filled"],
                  "the cgroup's workload mapped its memory")
            step(p, limit, 16 << 20, "fill", "pushed")
            step(p, limit, 1 << 30, "back", "back")
            named, _ = lib.workload_ready(p, "the cgroup's workload")
            lib.wait_stopped(p.pid)
            at = named["pushed"][0]
            vmas = smaps_vmas(p.pid)
            check(clean_in(vmas, at, ("Private_Clean",)) > 0,
                  "cgroup: smaps counts pages the limit pushed out, read "
                  "back, clean")
            record_compare(tmp, p.pid, "cgroup", {"pushed": at})
        finally:
            p.kill()
            p.wait()


# As nobody: 512 pages paged out, read back, one in four written again;
# says the region's address in argv[1] once ready, then stops.
NOBODY_WORKLOAD = r"""
import ctypes, mmap, os, signal, sys
PG = mmap.PAGESIZE
a = mmap.mmap(-1, 512 * PG, flags=mmap.MAP_PRIVATE)
for i in range(512):
    a[i * PG] = 1
a.madvise(21)
s = 0
for i in range(512):
    s += a[i * PG]
for i in range(0, 512, 4):
    a[i * PG] = 2
at = ctypes.addressof(ctypes.c_char.from_buffer(a))
open(sys.argv[1] + ".tmp", "w").write("%d %x" % (os.getpid(), at))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
os.kill(os.getpid(), signal.SIGSTOP)
"""


def run_nobody(tmp):
    """Recorded without CAP_SYS_ADMIN (no page frames, no kpageflags):
    DIRTY of pages read back from swap is smaps' all the same."""
    started = lib.start_as_nobody(tmp, NOBODY_WORKLOAD)
    if not started:
        return
    p, text, out = started
    try:
        pid, at = text.split()
        pid, at = int(pid), int(at, 16)
        lib.wait_stopped(pid)
        data = os.path.join(out, "r.data")
        # the region is the process's own: nothing else moves it
        truth = read_smaps(pid)
        subprocess.run(lib.NOBODY + [MEMSZ, "record", "-o", data, "-p",
                                     str(pid), "--duration", "0"],
                       check=True, stderr=subprocess.DEVNULL)
        key = [k for k in truth if k != "rollup" and k[0] <= at < k[1]]
        v = truth[key[0]] if key else {}
        check(v.get("Private_Clean", 0) > 0,
              "nobody: smaps counts pages read back from swap clean")
        r = lib.mapping_rows(data, "rss,dirty").get(key[0] if key else None)
        check(r is not None and int(r["dirty"]) == v.get("Private_Dirty") and
              int(r["rss"]) == v.get("Rss"),
              f"nobody: the region's DIRTY, RSS "
              f"{(r['dirty'], r['rss']) if r else None} == smaps "
              f"Private_Dirty, Rss {v.get('Private_Dirty')}, {v.get('Rss')}")
    finally:
        p.kill()
        p.wait()


def run_plain(tmp):
    """A process none of whose pages was ever swapped: no note."""
    p = subprocess.Popen([sys.executable, "-c", "import os, signal; "
                          "b = bytearray(1 << 22); print('ready', "
                          "flush=True); os.kill(os.getpid(), "
                          "signal.SIGSTOP)"], stdout=subprocess.PIPE,
                         text=True)
    try:
        lib.workload_ready(p, "the plain workload")
        lib.wait_stopped(p.pid)
        record_compare(tmp, p.pid, "plain", {}, note=False)
    finally:
        lib.stop_kill(p)


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: swapon")
    with tempfile.TemporaryDirectory(prefix="memsz-t2466.") as tmp, \
            lib.swap_file(tmp, "swap", SWAP_MB):
        run(tmp)
        run_plain(tmp)
        run_nobody(tmp)
        run_cgroup(tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
