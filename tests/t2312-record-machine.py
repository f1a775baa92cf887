#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2312: `memsz record -a` accounts for all of the machine's memory.

As root: one snapshot of every process (`record -a --duration 0`) holds a
MACHINE record: every line of /proc/meminfo and the caches of
/proc/slabinfo, and by default no page frame walk (no walk_ key). The
report's CHARGE TOTAL is MemTotal; its kernel rows ([free], [kernel:
slab], [kernel: stacks], [kernel: page tables]) are meminfo's of the
recording, near /proc/meminfo read around it (this machine is busy:
those move), [free] near /proc/vmstat nr_free_pages too; [kernel: slab]
is broken down by cache (/proc/slabinfo), the rows summing to it.

With --frame-walk the record also holds a walk of every page frame: it
covers every frame, frames outside System RAM (/proc/iomem) as holes;
its free frames are the buddy allocator's (near nr_free_pages) and,
among the frames with no flag, what MemFree counts beyond them; the rows
are still meminfo's, and where the walk and meminfo differ by more than
1 % a note says so and that the rows use meminfo. --no-frame-walk is
accepted (the default), the last of the two options wins, and either
without -a is refused in one line.
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def meminfo():
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            v = v.split()
            out[k] = int(v[0]) * (1024 if len(v) > 1 else 1)
    return out


def machine_records(data):
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data], text=True,
                         capture_output=True).stdout
    recs, cur = [], None
    for line in out.splitlines():
        if re.search(r"\bMACHINE stats \d+", line):
            cur = {}
            recs.append(cur)
        elif not line.startswith("    "):
            cur = None
        elif cur is not None:
            k, v = line.split()
            cur[k] = int(v)
    return recs


def walk_differs(st):
    pairs = [(["walk_free", "walk_free_unlisted"], ["MemFree"]),
             (["walk_slab"], ["Slab"]),
             (["walk_pgtable"], ["PageTables", "SecPageTables"]),
             (["walk_anon"], ["AnonPages"]),
             (["walk_file", "walk_shmem"], ["Buffers", "Cached"]),
             (["walk_hugetlb"], ["Hugetlb"])]
    for w, m in pairs:
        a = sum(st.get(k, 0) for k in w)
        b = sum(st.get(k, 0) for k in m)
        if abs(a - b) * 100 > b:
            return True
    return False


def vmstat_free():
    """The zones' free pages (/proc/vmstat nr_free_pages), in bytes: the
    buddy allocator's lists; MemFree can count more (memory the kernel
    has not handed to the allocator yet)."""
    with open("/proc/vmstat") as f:
        for line in f:
            k, v = line.split()
            if k == "nr_free_pages":
                return int(v) * lib.PAGE
    return None


def ram_frames(frames):
    """Frames below frames in no top-level System RAM range of
    /proc/iomem (as root it shows addresses)."""
    ram = 0
    with open("/proc/iomem") as f:
        for line in f:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) : System RAM$",
                         line.rstrip("\n"))
            if m:
                lo = int(m[1], 16) // lib.PAGE
                hi = (int(m[2], 16) + 1) // lib.PAGE
                ram += max(0, min(hi, frames) - lo)
    return frames - ram


def check_free(st, before, after, vm):
    """Free frames: walk_free, the buddy allocator's (every frame of a
    free block has KPF_BUDDY), near the zones' nr_free_pages; what MemFree
    counts beyond them found among the frames with no flag
    (walk_free_unlisted), near MemFree - nr_free_pages; the two near
    MemFree, which [free] is. This machine is busy: free memory moves by
    hundreds of MiB between reads, hence the slack."""
    slack = 512 << 20
    lo, hi = min(vm), max(vm)
    check(lo - slack <= st["walk_free"] <= hi + slack,
          f"walk_free {st['walk_free']} near /proc/vmstat nr_free_pages "
          f"{vm}")
    out = [m["MemFree"] - v for m, v in zip((before, after), vm)]
    check(min(out) - slack <= st["walk_free_unlisted"] <= max(out) + slack,
          f"walk_free_unlisted {st['walk_free_unlisted']} near MemFree - "
          f"nr_free_pages {out}")
    free = st["walk_free"] + st["walk_free_unlisted"]
    mf = [before["MemFree"], st["MemFree"], after["MemFree"]]
    check(min(mf) - slack <= free <= max(mf) + slack,
          f"free frames {free} near MemFree before, of and after the "
          f"recording {mf}")


def slabinfo():
    """{cache: num_slabs * pagesperslab * PAGE} of /proc/slabinfo, the
    caches with slabs."""
    out = {}
    with open("/proc/slabinfo") as f:
        for line in f.readlines()[2:]:
            w = line.split()
            n = int(w[w.index("slabdata") + 2]) * int(w[5]) * lib.PAGE
            if n:
                out[w[0]] = out.get(w[0], 0) + n
    return out


def check_slab(data, st, around):
    """[kernel: slab] by cache (--by files,kinds): one row per cache of
    the recording, the rest "[not in slabinfo]", summing to the slab row,
    meminfo's Slab; the caches near /proc/slabinfo read around it."""
    rows = [r for r in lib.report(data, "files,kinds", "-F", "charge")
            if r["files"] == "[kernel: slab]"]
    got = {r["kinds"]: float(r["charge"]) for r in rows}
    caches = {k[len("slabinfo:"):]: v for k, v in st.items()
              if k.startswith("slabinfo:")}
    check(abs(sum(got.values()) - st["Slab"]) < 1,
          f"the slab rows ({len(got)}) sum to Slab {st['Slab']}")
    rest = got.pop("[not in slabinfo]", 0)
    check(got == {k: float(v) for k, v in caches.items()} and
          rest == st["Slab"] - sum(caches.values()),
          f"one row per cache recorded, the rest ({rest:.0f}) "
          f"[not in slabinfo]")
    print(f"# slabinfo's caches: {sum(caches.values())} bytes, "
          f"{100 * sum(caches.values()) / st['Slab']:.1f} % of Slab")
    big = sorted(caches, key=caches.get, reverse=True)[:5]
    for c in big:
        live = [s.get(c, 0) for s in around]
        check(min(live) * 0.8 - (4 << 20) <= caches[c] <=
              max(live) * 1.2 + (4 << 20),
              f"cache {c} {caches[c]} near /proc/slabinfo around it {live}")


def record(tmp, *opts):
    """record -a --duration 0 OPTS into a file of tmp, with /proc/meminfo,
    nr_free_pages and slabinfo read before and after: (data, MACHINE
    records, before, after, (vm0, vm1), (sl0, sl1)); None if it failed."""
    data = os.path.join(tmp, "a.data")
    before, vm0, sl0 = meminfo(), vmstat_free(), slabinfo()
    r = subprocess.run([MEMSZ, "record", "-a", *opts, "--duration", "0",
                        "-o", data], capture_output=True, text=True)
    after, vm1, sl1 = meminfo(), vmstat_free(), slabinfo()
    how = " ".join(["record -a", *opts])
    check(r.returncode == 0, f"{how} exits 0 ({r.stderr[-200:]})")
    recs = machine_records(data)
    check(len(recs) == 1, f"{how}: one MACHINE record ({len(recs)})")
    if not recs:
        return None
    return data, recs[0], before, after, (vm0, vm1), (sl0, sl1)


def check_rows(data, st, before, after, vm):
    """The report's machine rows are meminfo's of the recording (whatever
    else it holds), near /proc/meminfo read around it; the CHARGE TOTAL
    is MemTotal. Returns the report's stderr."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", "files",
                          "-F", "rss,charge", "-n", "0", "--format",
                          "csv"], capture_output=True, text=True)
    rows = {row["files"]: float(row["charge"]) for row in
            csv.DictReader(io.StringIO(out.stdout))}
    total = sum(rows.values())
    # the processes' anonymous pages are counted at the snapshot, meminfo's
    # AnonPages at another moment: on a busy machine they can exceed it,
    # which the report must say, by how much (3 digits: 1 %)
    over = re.search(r"exceed the charge by ([0-9.]+)([KMGT]i)?",
                     out.stderr)
    excess = 0
    if over:
        excess = float(over.group(1)) * 1024 ** (
            " KMGT".index(over.group(2)[0]) if over.group(2) else 0)
    check(abs(total - excess - st["MemTotal"]) < 64 * 1024 + excess / 100,
          f"CHARGE TOTAL {total:.0f} == MemTotal {st['MemTotal']} and the "
          f"excess the note gives ({excess:.0f})")
    for row, keys in (("[free]", ["MemFree"]),
                      ("[kernel: slab]", ["Slab"]),
                      ("[kernel: stacks]", ["KernelStack"]),
                      ("[kernel: page tables]",
                       ["PageTables", "SecPageTables"])):
        want = sum(st.get(k, 0) for k in keys)
        live = [sum(m.get(k, 0) for k in keys) for m in (before, after)]
        check(rows.get(row) == want, f"{row} {rows.get(row)} is the "
              f"recording's {'+'.join(keys)} {want}")
        # they move, on a busy machine by several MiB between reads
        slack = 16 << 20
        check(min(live) * 0.9 - slack <= want <=
              max(live) * 1.1 + slack,
              f"{row} near /proc/meminfo around it {live}")
    # the zones' free pages: MemFree can hold more (memory not handed to
    # the allocator yet), never less
    check(rows.get("[free]", 0) >= min(vm) - (512 << 20),
          f"[free] {rows.get('[free]')} >= /proc/vmstat nr_free_pages "
          f"{vm} (less a busy machine's slack)")
    check(rows.get("[anon]", 0) > 0 and "[unexplained]" in rows,
          "processes' anonymous memory and [unexplained] are rows")
    return out.stderr


def check_walk():
    """--frame-walk: the walk's keys beside meminfo, checked against
    /proc/kpageflags' size, /proc/iomem and /proc/vmstat; the rows stay
    meminfo's, a note where the two differ."""
    with tempfile.TemporaryDirectory(prefix="memsz-t2312-") as tmp:
        # free memory that moved by hundreds of MiB while the walk ran
        # (another test's allocations) says nothing of the walk: up to 3
        # recordings, the first in a quiet window
        for _ in range(3):
            got = record(tmp, "--frame-walk")
            if not got:
                return
            data, st, before, after, vm, _ = got
            if abs(before["MemFree"] - after["MemFree"]) < (128 << 20) \
                    and abs(vm[0] - vm[1]) < (128 << 20):
                break
        walked = sum(v for k, v in st.items() if k.startswith("walk_"))
        frames = os.path.getsize("/proc/kpageflags") // 8
        check(walked == frames * lib.PAGE or (frames == 0 and walked >=
                                              st["MemTotal"]),
              f"the walk covers every page frame ({walked} bytes)")
        # /proc/kpageflags has no size: the frames walked are the PFNs
        hole = ram_frames(frames or walked // lib.PAGE) * lib.PAGE
        check(st.get("walk_hole", 0) >= hole,
              f"frames outside System RAM (/proc/iomem) are holes: "
              f"walk_hole {st.get('walk_hole')} >= {hole}")
        check_free(st, before, after, vm)
        err = check_rows(data, st, before, after, vm)
        noted = "page frame walk and /proc/meminfo differ" in err
        check(noted == walk_differs(st),
              f"a note where the walk and meminfo differ by > 1 % "
              f"({noted})")
        check(not noted or "(the rows use /proc/meminfo)" in err,
              "the note says the rows are meminfo's")


def main():
    if os.geteuid() != 0:
        lib.skip("/proc/kpageflags and /proc/slabinfo need root")
    with tempfile.TemporaryDirectory(prefix="memsz-t2312-") as tmp:
        got = record(tmp)
        if not got:
            return
        data, st, before, after, vm, around = got
        check(st.get("MemTotal") == after["MemTotal"] and
              len([k for k in st if not k.startswith("slabinfo:")]) ==
              len(after), "every line of /proc/meminfo, MemTotal as now, "
              "and no page frame walk by default")
        check_slab(data, st, around)
        err = check_rows(data, st, before, after, vm)
        check("page frame walk" not in err, "no walk, no walk note")
    check_walk()
    check_no_walk()


def check_no_walk():
    """--no-frame-walk: accepted, the default; the last of --frame-walk and
    --no-frame-walk wins (either way round); either without -a is refused
    in one line."""
    with tempfile.TemporaryDirectory(prefix="memsz-t2312-") as tmp:
        for opts, walk in ((["--no-frame-walk"], False),
                           (["--frame-walk", "--no-frame-walk"], False),
                           (["--no-frame-walk", "--frame-walk"], True)):
            got = record(tmp, *opts)
            if not got:
                continue
            keys = [k for k in got[1] if k.startswith("walk_")]
            check("MemTotal" in got[1] and bool(keys) == walk,
                  f"{' '.join(opts)}: meminfo, "
                  f"{'walk_ keys' if walk else 'no walk_ key'} ({keys})")
            check_rows(*got[:5])
    for opt in ("--no-frame-walk", "--frame-walk"):
        r = subprocess.run([MEMSZ, "record", "-p", str(os.getpid()), opt,
                            "--duration", "0", "-o", os.devnull],
                           capture_output=True, text=True)
        check(r.returncode == 129 and r.stderr.count("\n") == 1,
              f"{opt} without -a: one line, exit 129 "
              f"({r.returncode}, {r.stderr.strip()})")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
