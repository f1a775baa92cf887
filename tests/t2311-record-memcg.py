#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2311: a recording holds the memory cgroups' own counters (CGROUP
records): the -G cgroup's at every snapshot, each process's own cgroup's
after its snapshot, from cgroup v1 and from cgroup v2 files.

v1 (as root, where the memory controller is on v1): a memory cgroup is
made, a workload moved into it reads a 64 MiB file with read() and holds
50 MiB of anonymous memory. `record -G DIR --duration 0`: the CGROUP
record of the -G cgroup has usage_in_bytes within 1 % of the kernel's
figure read just before and after, its kmem, and memory.stat with the
file's cache and the anon memory; the process's own record names the
same cgroup; the cgroup given by name finds it too; `record -p` writes
the process's cgroup; a process that joins later gets its records.

v2 (this machine's v2 hierarchy has no memory controller): a copied tree
of v2 files (cgroup.procs, memory.current, memory.stat; the last two a
real v2 cgroup's, see V2_STAT) given through MEMSZ_CGROUP2_ROOT is read
as a v2 cgroup; a cgroup with no memory
controller is said once.
"""
import csv
import io
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

MIB = 1 << 20
V1_ROOT = "/sys/fs/cgroup/memory"
# A real cgroup v2 memory.stat and its memory.current, as Linux
# 6.10.0-rc6 printed them in a memory cgroup OOM report (the OOM report
# prints memory_stat_format(), the text of memory.stat, line by line, after
# "memory: usage 481280kB": page_counter_read(), which memory.current
# shows): Chris Li, "Re: [PATCH V2] mm/gup: Clear the LRU flag of a page
# before adding to LRU batch", stable@vger.kernel.org, 2024-07-27,
# Message-ID
# <CAF8kJuNP5iTj2p07QgHSGOJsiUfYpJ2f4R1Q5-3BN9JiD9W_KA@mail.gmail.com>
# (cgroup /build-kernel-tmpfs). Copied with the dmesg time stamps removed;
# no v2 memory controller can be enabled on the machine these tests were
# written on.
V2_CURRENT = 481280 * 1024
V2_STAT = """anon 461377536
file 10264576
kernel 20480000
kernel_stack 2146304
pagetables 9916416
sec_pagetables 0
percpu 54496
sock 0
vmalloc 0
shmem 24576
zswap 0
zswapped 0
file_mapped 9805824
file_dirty 0
file_writeback 0
swapcached 24576
anon_thp 213909504
file_thp 0
shmem_thp 0
inactive_anon 180965376
active_anon 291487744
inactive_file 1298432
active_file 7987200
unevictable 0
slab_reclaimable 943096
slab_unreclaimable 6340520
slab 7283616
workingset_refault_anon 1138
workingset_refault_file 180
workingset_activate_anon 627
workingset_activate_file 123
workingset_restore_anon 579
workingset_restore_file 115
workingset_nodereclaim 0
pgscan 101315
pgsteal 51494
pgscan_kswapd 0
pgscan_direct 101315
pgscan_khugepaged 0
pgsteal_kswapd 0
pgsteal_direct 51494
pgsteal_khugepaged 0
pgfault 994774
pgmajfault 1839
pgrefill 134581
pgactivate 32506
pgdeactivate 0
pglazyfree 0
pglazyfreed 0
zswpin 0
zswpout 0
zswpwb 0
thp_fault_alloc 485
thp_collapse_alloc 0
thp_swpout 4
thp_swpout_fallback 0
"""


class Load:
    """cg_load: moved into cgroup (a directory with cgroup.procs), then
    told to read the file (held open) and file2 (closed) and dirty its
    anonymous memory."""

    def __init__(self, exe, data_file, anon_kb, cgroup=None, file2=None,
                 early_kb=0):
        env = dict(os.environ, CG_LOAD_EARLY_KB=str(early_kb))
        self.p = subprocess.Popen([exe, data_file, str(anon_kb)] +
                                  ([file2] if file2 else []),
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env)
        self.pid = int(self.p.stdout.readline().split()[1])
        self.before = memcg_of(self.pid)
        if cgroup:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(self.pid))
        self.p.stdin.write("go\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        assert line.startswith("ready"), line

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait()


def memcg_of(pid):
    """The v1 memory cgroup directory of pid (/proc/PID/cgroup), or
    None."""
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            _, ctl, path = line.rstrip("\n").split(":", 2)
            if "memory" in ctl.split(","):
                return os.path.normpath(V1_ROOT + path)
    return None


def cgroups(data):
    """The CGROUP records of data (`memsz dump -v`): a list of dicts
    with pid, version, ino, usage, kmem, target, path and stats."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", lib.recording(data)],
                         text=True, capture_output=True).stdout
    recs = []
    for line in out.splitlines():
        m = re.search(r"CGROUP pid (\d+) v(\d) ino (\d+)(?: usage (\d+))?"
                      r"(?: kmem (\d+))? stats (\d+)( target)?(?: payer)? (.*)$", line)
        if m:
            recs.append({"pid": int(m[1]), "version": int(m[2]),
                         "ino": int(m[3]),
                         "usage": int(m[4]) if m[4] else None,
                         "kmem": int(m[5]) if m[5] else None,
                         "nstats": int(m[6]), "target": bool(m[7]),
                         "path": m[8], "stats": {}})
        elif recs and line.startswith("    ") and \
                len(recs[-1]["stats"]) < recs[-1]["nstats"]:
            k, v = line.split()
            recs[-1]["stats"][k] = int(v)
    return recs


def charges(data):
    """The SNAP_CHARGE runs of data by mapping: a list of (mapping name,
    own, [(vaddr, npages, cgroup)]) for each mapping of a snapshot with
    runs in it."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", lib.recording(data)],
                         text=True, capture_output=True).stdout
    maps, recs = [], []
    for line in out.splitlines():
        if "SNAP_BEGIN" in line:
            maps = []
        m = re.search(r"SNAP_MAPPING \[(0x[0-9a-f]+)-(0x[0-9a-f]+)\).* "
                      r"runs \d+ (.*)$", line)
        if m:
            maps.append((int(m[1], 16), int(m[2], 16), m[3]))
            continue
        m = re.search(r"SNAP_CHARGE own (\d+) runs", line)
        if m:
            own = int(m[1])
            continue
        m = re.match(r"    (0x[0-9a-f]+) (\d+) cgroup (\d+)$", line)
        if not m:
            continue
        va, n, cg = int(m[1], 16), int(m[2]), int(m[3])
        for s, e, name in maps:
            if va < e and va + n * PAGE > s:
                if not recs or recs[-1][0] != name or \
                        recs[-1][3] != (s, own):
                    recs.append((name, own, [], (s, own)))
                recs[-1][2].append((va, n, cg))
    return [(n, o, r) for n, o, r, _ in recs]


def cgroups_raw(data):
    """(ino, payer, path) of each CGROUP record of data."""
    out = subprocess.run([MEMSZ, "dump", "-i", lib.recording(data)],
                         text=True, capture_output=True).stdout
    return [(int(m[1]), bool(m[2]), m[3]) for m in
            re.finditer(r"CGROUP pid \d+ v\d ino (\d+).* stats \d+"
                        r"(?: target)?( payer)? (.*)", out)]


def record(*args, env=None):
    return subprocess.run([MEMSZ, "record", *args], capture_output=True,
                          text=True, env=env)


def test_v1(tmp, exe, data_file, work):
    if not lib.memory_cgroup_root(v1=True):
        lib.skip_part("no cgroup v1 memory hierarchy at " + V1_ROOT)
        return
    with lib.memory_cgroups("t2311", v1=True) as (cg,):
        try:
            run_v1(tmp, exe, data_file, work, os.path.basename(cg), cg)
            for w in work:
                w.kill()
            work.clear()
            run_v1_early(tmp, exe, data_file, work, cg)
        finally:
            for w in work:
                w.kill()
            work.clear()


def run_v1(tmp, exe, data_file, work, name, cg):
    file2 = os.path.join(tmp, "db", "f2.bin")
    load = Load(exe, data_file, 50 * 1024, cg, file2)
    work.append(load)
    ino = os.stat(cg).st_ino
    data = os.path.join(tmp, "v1.data")
    before = lib.read_int(os.path.join(cg, "memory.usage_in_bytes"))
    r = record("-G", cg, "--duration", "0", "-o", data)
    after = lib.read_int(os.path.join(cg, "memory.usage_in_bytes"))
    check(r.returncode == 0, f"record -G {cg} exits 0 ({r.stderr.strip()})")
    recs = cgroups(data)
    tgt = [g for g in recs if g["target"]]
    own = [g for g in recs if g["pid"] == load.pid]
    check(len(tgt) == 1 and tgt[0]["pid"] == 0,
          f"one CGROUP record of the -G cgroup per snapshot ({len(tgt)})")
    if not tgt:
        return
    g = tgt[0]
    check(g["version"] == 1 and g["ino"] == ino and g["path"] == cg,
          f"it is the v1 cgroup {cg} (ino {g['ino']} == {ino})")
    lo, hi = min(before, after), max(before, after)
    check(g["usage"] is not None and
          lo * 0.99 <= g["usage"] <= hi * 1.01,
          f"usage {g['usage']} within 1 % of memory.usage_in_bytes "
          f"({before} before, {after} after)")
    check(g["kmem"] is not None and 0 < g["kmem"] < g["usage"],
          f"kmem recorded ({g['kmem']})")
    st = g["stats"]
    check(len(st) == g["nstats"] and st.get("cache", 0) >= 63 * MIB,
          f"memory.stat: cache {st.get('cache')} holds the 64 MiB read")
    check(st.get("rss", 0) >= 49 * MIB,
          f"memory.stat: rss {st.get('rss')} holds the 50 MiB of anon")
    check(len(own) == 1 and own[0]["ino"] == ino and not own[0]["target"],
          "the process's own memory cgroup is recorded after its snapshot")

    check_report(data, g["usage"], data_file, file2, False)
    r = record("-G", cg, "--duration", "0", "--cache-paths",
               os.path.dirname(file2), "-o", data)
    g = [g for g in cgroups(data) if g["target"]]
    check(r.returncode == 0 and g, f"--cache-paths: recorded "
          f"({r.stderr.strip()})")
    if g:
        check_report(data, g[0]["usage"], data_file, file2, True)
    r = record("-p", str(load.pid), "--cache-paths", tmp, "-o", data)
    check(r.returncode == 129 and "give -G" in r.stderr,
          f"--cache-paths without -G: usage error ({r.stderr.strip()})")

    # charges: pages charged to other cgroups than the process's
    ch = charges(data)
    check(ch and all(own == ino for _, own, _ in ch),
          f"SNAP_CHARGE records name the process's cgroup as own ({ino})")
    check(all(c != ino for _, _, runs in ch for _, _, c in runs),
          "they list only pages charged to other cgroups")
    libc = [runs for n, _, runs in ch if "libc" in (n or "")]
    check(libc and all(runs for runs in libc),
          "libc's pages, loaded before the cgroup was made, are charged "
          "elsewhere")
    paid = {c for _, _, runs in ch for _, _, c in runs}
    payers = [g for g in cgroups_raw(data) if g[1]]
    check(payers and all(p[0] in paid for p in payers) and
          len({p[0] for p in payers}) == len(payers),
          f"each paying cgroup named once by a CGROUP payer record "
          f"({sorted(p[0] for p in payers)} of {sorted(paid)})")
    check(all(os.path.isdir(p[2]) for p in payers),
          "payer records name existing cgroup directories")

    r = record("-G", name, "--duration", "0", "-o", data)
    recs = cgroups(data)
    check(r.returncode == 0 and any(g["target"] and g["ino"] == ino
                                    for g in recs),
          f"-G {name}: found in the v1 memory hierarchy "
          f"({r.stderr.strip()})")
    r = record("-p", str(load.pid), "--duration", "0", "-o", data)
    recs = cgroups(data)
    check(r.returncode == 0 and
          [(g["pid"], g["ino"], g["target"]) for g in recs
           if g["pid"] or g["target"]] == [(load.pid, ino, False)],
          f"-p {load.pid}: its memory cgroup recorded, no -G target")

    # a process that joins while memsz records
    rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--interval", "200",
                            "-o", data], stderr=subprocess.PIPE, text=True)
    try:
        late = Load(exe, data_file, 1024, cg)
        work.append(late)
        try:
            lib.wait_until(lambda: any(g["pid"] == late.pid
                                       for g in cgroups(data)),
                           f"a CGROUP record of pid {late.pid}")
            joined = True
        except TimeoutError:
            joined = False
    finally:
        rec.send_signal(signal.SIGINT)
        err = rec.communicate()[1]
    recs = cgroups(data)
    check(rec.returncode == -signal.SIGINT and joined,
          f"a process that joins gets its CGROUP records ({err.strip()})")
    check(sum(g["target"] for g in recs) >= 2,
          "the -G cgroup is recorded at every snapshot")
    usages = [g["usage"] for g in recs if g["target"]]
    out = subprocess.run([MEMSZ, "report", "-i", data, "--timeline", "-F",
                          "charge", "--format", "csv"], capture_output=True,
                         text=True).stdout
    totals = {}
    for r in csv.DictReader(io.StringIO(out)):
        totals[r["snapshot"]] = totals.get(r["snapshot"], 0) + \
            float(r["charge"])
    check(totals and all(min(abs(t - u) for u in usages) <= t * 0.01
                         for t in totals.values()),
          f"--timeline: each point's CHARGE TOTAL is the cgroup's charge "
          f"then ({len(totals)} points)")


def run_v1_early(tmp, exe, data_file, work, cg):
    """Anonymous memory charged before the process joined: cg_load
    dirties EARLY in the cgroup it starts in, then moves into cg, where
    v1 does not move charges (memory.move_charge_at_immigrate 0), and
    dirties ANON there. The kernel charges cg for ANON only; the report
    has EARLY under [charged elsewhere], named by the cgroup the process
    started in, and CHARGE TOTAL is still cg's usage."""
    early, anon = 32 * MIB, 20 * MIB
    with open(os.path.join(cg, "memory.move_charge_at_immigrate"), "w") as f:
        f.write("0")
    load = Load(exe, data_file, anon // 1024, cg, early_kb=early // 1024)
    work.append(load)
    rss = lib.memcg_stat_until(cg, "rss", lambda v: anon <= v < early)
    check(load.before and load.before != cg and anon <= rss < early,
          f"the kernel charges {cg} for the anon dirtied there only "
          f"(rss {rss}), {load.before} for the {early} before")
    data = os.path.join(tmp, "early.data")
    r = record("-G", cg, "--duration", "0", "-o", data)
    g = [g for g in cgroups(data) if g["target"]]
    check(r.returncode == 0 and g, f"record -G {cg} ({r.stderr.strip()})")
    if not g:
        return
    rows = lib.report(data, "files,kinds", "-F", "rss,charge")
    total = sum(float(r["charge"]) for r in rows)
    check(abs(total - g[0]["usage"]) <= g[0]["usage"] * 0.01,
          f"CHARGE TOTAL {total:.0f} == the recorded usage {g[0]['usage']}")
    el = [r for r in rows if r["files"] == "[charged elsewhere]" and
          r["kinds"] == f"{load.before}: [anon]"]
    check(el and early <= float(el[0]["rss"]) < early + MIB and
          float(el[0]["charge"]) == 0,
          f"[charged elsewhere] > '{load.before}: [anon]' holds the "
          f"{early} dirtied before, CHARGE 0: "
          f"{[(r['rss'], r['charge']) for r in el]}")
    here = sum(float(r["charge"]) for r in rows if r["files"] == "[anon]")
    check(anon <= here < anon + MIB,
          f"[anon] CHARGE {here:.0f}: the {anon} dirtied in {cg} only")


def cached(path):
    """The bytes of path in the page cache, as fincore says."""
    fc = subprocess.run(["fincore", "-b", "-n", "-o", "RES", path],
                        capture_output=True, text=True)
    if fc.returncode:
        lib.skip_part("fincore (util-linux) did not run")
        return os.path.getsize(path)
    return int(fc.stdout.split()[0])


def near(got, want, what):
    check(abs(got - want) <= want * 0.01 + 64 * 1024,
          f"{what}: {got:.0f} ~ {want}")


def check_report(data, usage, data_file, file2, named2):
    """The report of a -G recording: CHARGE TOTAL is the cgroup's charge,
    explained but for less than 1 %; what others pay for is under
    [charged elsewhere] with CHARGE 0; the file the workload holds open
    by name with its cached bytes, file2 (read and closed) by name only
    with named2 (--cache-paths), else in [page cache, file unknown]."""
    rows = {r["files"]: r for r in lib.report(data, "files", "-F",
                                               "rss,charge")}
    total = sum(float(r["charge"]) for r in rows.values())
    unexplained = float(rows.get("[unexplained]", {}).get("charge", 0))
    check(abs(total - usage) <= usage * 0.01,
          f"CHARGE TOTAL {total:.0f} == the recorded usage {usage}")
    check(unexplained < usage * 0.01,
          f"[unexplained] {unexplained:.0f} < 1 % of {usage}")
    anon = float(rows.get("[anon]", {}).get("charge", 0))
    check(50 * MIB <= anon < 51 * MIB,
          f"[anon] CHARGE {anon:.0f}: the 50 MiB the workload holds")
    unknown = float(rows.get("[page cache, file unknown]", {})
                    .get("charge", 0))
    near(float(rows.get(data_file, {}).get("charge", 0)),
         cached(data_file), "the file held open, never mapped: by name, "
         "its cached bytes (fincore)")
    named = float(rows.get(file2, {}).get("charge", 0))
    if named2:
        near(named, cached(file2), "--cache-paths: the file read and "
             "closed by name, its cached bytes (fincore)")
        check(unknown < 64 * 1024, f"no [page cache, file unknown] "
              f"({unknown:.0f})")
    else:
        check(named == 0, "a file read and closed is not named")
        near(unknown, cached(file2), "it is in [page cache, file "
             "unknown]")
    kernel = float(rows.get("[kernel memory]", {}).get("charge", 0))
    check(kernel > 0, f"[kernel memory] {kernel:.0f} (memory.kmem)")
    el = rows.get("[charged elsewhere]")
    check(el is not None and float(el["rss"]) > 0 and
          float(el["charge"]) == 0,
          "[charged elsewhere]: resident, CHARGE 0")
    libs = [r for r in lib.report(data, "files,kinds", "-F", "rss,charge")
            if r["files"] == "[charged elsewhere]" and
            "libc.so" in r["kinds"] and ": " in r["kinds"]]
    check(libs and all(float(r["charge"]) == 0 for r in libs),
          "libc under [charged elsewhere], its paying cgroup named: "
          + (libs[0]["kinds"] if libs else "none"))


def check_v2_report(data, st, current):
    """The kernel's parts of a v2 cgroup's charge as rows, from its
    memory.stat; TOTAL CHARGE is memory.current."""
    rows = {r["files"]: float(r["charge"])
            for r in lib.report(data, "files", "-F", "charge")}
    slab = st["slab_reclaimable"] + st["slab_unreclaimable"]
    parts = slab + st["kernel_stack"] + st["pagetables"] + \
        st["percpu"] + st["vmalloc"]
    want = {"[kernel: slab]": slab,
            "[kernel: stacks]": st["kernel_stack"],
            "[kernel: page tables]": st["pagetables"],
            "[kernel: percpu]": st["percpu"],
            "[kernel: vmalloc]": st["vmalloc"],
            "[kernel: other]": st["kernel"] - parts,
            "[page cache, file unknown]": st["file"]}
    got = {k: rows.get(k, 0) for k in want}
    check(got == want, f"v2 kernel rows from memory.stat: {got}")
    check(abs(sum(rows.values()) - current) < 1,
          f"TOTAL CHARGE {sum(rows.values()):.0f} == memory.current "
          f"{current}")
    check(rows.get("[charged elsewhere]", -1) == 0,
          "the processes' pages, charged to their v1 cgroup, are "
          "elsewhere")


def test_v2(tmp, exe, data_file, work):
    root = os.path.join(tmp, "cg2")
    box = os.path.join(root, "box")
    os.makedirs(box)
    load = Load(exe, data_file, 1024)
    work.append(load)
    with open(os.path.join(box, "cgroup.procs"), "w") as f:
        f.write(f"{load.pid}\n")
    with open(os.path.join(box, "memory.current"), "w") as f:
        f.write(f"{V2_CURRENT}\n")
    with open(os.path.join(box, "memory.stat"), "w") as f:
        f.write(V2_STAT)
    env = dict(os.environ, MEMSZ_CGROUP2_ROOT=root)
    data = os.path.join(tmp, "v2.data")
    r = record("-G", "box", "--duration", "0", "-o", data, env=env)
    recs = [g for g in cgroups(data) if g["target"]]
    check(r.returncode == 0 and len(recs) == 1,
          f"-G box under MEMSZ_CGROUP2_ROOT: recorded ({r.stderr.strip()})")
    if recs:
        g = recs[0]
        want = {k: int(v) for k, v in
                (line.split() for line in V2_STAT.splitlines())}
        check(g["version"] == 2 and g["usage"] == V2_CURRENT and
              g["kmem"] is None and g["path"] == box and
              g["ino"] == os.stat(box).st_ino,
              f"read as v2: memory.current {g['usage']}, no kmem, {box}")
        check(g["stats"] == want,
              "every line of memory.stat, in its order and value")
        check_v2_report(data, want, V2_CURRENT)
    os.remove(os.path.join(box, "memory.current"))
    r = record("-G", "box", "--duration", "0", "-o", data, env=env)
    check(r.returncode == 0 and r.stderr.count("has no memory controller")
          == 1 and not any(g["target"] for g in cgroups(data)),
          f"a cgroup without memory controller: said once "
          f"({r.stderr.strip()})")


def make_file(path, mib):
    """A file of mib MiB, out of the page cache, so that the workload's
    read() charges its own cgroup for it."""
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(os.urandom(MIB))
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    work = []
    with tempfile.TemporaryDirectory(prefix="memsz-t2311-") as tmp:
        exe = lib.workload(tmp, "cg_load")
        data_file = os.path.join(tmp, "big.bin")
        make_file(data_file, 64)
        os.mkdir(os.path.join(tmp, "db"))
        make_file(os.path.join(tmp, "db", "f2.bin"), 8)
        try:
            test_v1(tmp, exe, data_file, work)
            test_v2(tmp, exe, data_file, work)
        finally:
            for w in work:
                w.kill()


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
