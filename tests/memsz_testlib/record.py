# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.record: memsz's recordings and what it reports of them:
`memsz report` rows (report, pid_rows, mapping_rows), the file being
recorded and its snapshots (recording, snap_ends, wait_snaps,
snapshot_after), a recording between two equal smaps reads checked
against them (record_between, compare_regions), JITMAP records
(jitmap_syms, jit_checks), the fault_loop workload under memsz
(start_fault_loop, stop_after_tick, end_fault_loop) and the SNAP_CHARGE
runs of a recording (charge_runs).
"""
import csv
import io
import os
import re
import select
import signal
import subprocess
import time

from .core import MEMSZ, PAGE, check, fail, skip, wait_until
from .proc import children, smaps_vmas


def report(data, by, *extra):
    """Rows (dicts) of `memsz report -i data --by by -n 0 --format csv`;
    raises CalledProcessError if memsz fails."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                          "--format", "csv", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True)
    return list(csv.DictReader(io.StringIO(out.stdout)))


def recording(data):
    """The file an unfinished `memsz record -o data` is writing: a
    temporary data.tmp.XXXXXX beside data until the recording is complete
    and renamed to data (then data itself)."""
    d, base = os.path.split(data)
    for f in sorted(os.listdir(d or ".")):
        if f.startswith(base + ".tmp."):
            return os.path.join(d, f)
    return data


def jitmap_syms(data, pid):
    """(the number of JITMAP records of pid, the set of their (start, size,
    name) symbols) in the recording data, by `memsz dump -v`."""
    dump = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                          stdout=subprocess.PIPE, text=True,
                          check=True).stdout
    recs = re.findall(rf"JITMAP pid {pid} symbols (\d+)", dump)
    got = set()
    for m in re.finditer(r"^    0x([0-9a-f]+) 0x([0-9a-f]+) (.*)$",
                         dump, re.M):
        got.add((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return len(recs), got


def jit_checks(data, truth, pid, hot_names, least, filt):
    """The checks of a JIT runtime's recording data (pid, its perf map
    truth, the names of its hot function hot_names, a --filter regex
    that matches them): every map line is in
    the JITMAP records; `--by faultsite` charges at least least bytes to
    frames of those names, and no anonymous frame more; `--by symbols`
    charges resident code to them within the bytes the map gives them."""
    nrecs, got = jitmap_syms(data, pid)
    missing = [t for t in truth if t not in got]
    check(nrecs and not missing,
          f"JITMAP records of pid {pid} ({nrecs}) hold every line of its "
          f"map ({len(truth)}; missing {missing[:3]})")
    sites = {r["faultsite"]: int(r["rss"]) for r in report(data, "faultsite")}
    total = sum(sites.values())
    hot_rss = sum(v for k, v in sites.items() if k in hot_names)
    check(hot_rss >= least,
          f"faultsite: {hot_rss >> 20} MiB charged to the hot function as "
          f"the map names it (want >= {least >> 20} MiB), of "
          f"{total >> 20} MiB (top: {sorted(sites, key=sites.get)[-3:]})")
    check(not any(k in ("[anon]", "[unknown]") and v > hot_rss
                  for k, v in sites.items()),
          "faultsite: no anonymous frame outweighs the hot function")
    syms = report(data, "symbols", "--filter", filt)
    vm = sum(int(r["vm_size"]) for r in syms if r["symbols"] in hot_names)
    rss = sum(int(r["rss"]) for r in syms if r["symbols"] in hot_names)
    size = sum(t[1] for t in truth if t[2] in hot_names)
    check(0 < rss <= vm <= size,
          f"symbols: resident JIT code of the hot function ({rss} B, VM "
          f"{vm} B) within the bytes its map gives it ({size} B)")


def next_tick(f, guard=120):
    """The next "tick N urg M" line that tests/workloads/fault_loop.c
    prints to f, as (N, M); None if f ends or no line comes within guard
    seconds (a hang guard, not a timing assumption)."""
    end = time.monotonic() + guard
    while time.monotonic() < end:
        if not select.select([f], [], [], end - time.monotonic())[0]:
            break
        line = f.readline()
        if not line:
            return None
        w = line.split()
        if len(w) == 4 and w[0] == "tick":
            return int(w[1]), int(w[3])
    return None


def start_fault_loop(name, data, args, wargs, launch):
    """Runs fault_loop (wargs: its argv) under `memsz record -o data args`,
    launched by memsz or attached to with -p. Returns (rec, pid, out,
    target) once it ticks: memsz's Popen, the workload's pid, its stdout,
    its Popen when attached (else None). None after a failed check; skips
    when memsz may not sample."""
    target = None
    if launch:
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "--",
                                *wargs], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        out = rec.stdout
        kids = children(rec.pid) if next_tick(out) else []
        if not kids:
            rec.kill()
            err = rec.communicate()[1]
            if "not permitted" in err:
                skip("cannot sample page faults: " + err.strip())
            check(False, f"{name}: the workload runs: {err.strip()}")
            return None
        return rec, kids[0], out, None
    target = subprocess.Popen(wargs, stdout=subprocess.PIPE, text=True)
    if next_tick(target.stdout) is None:
        check(False, f"{name}: the workload runs")
        target.kill()
        target.wait()
        return None
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "-p",
                            str(target.pid)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    return rec, target.pid, target.stdout, target


def stop_after_tick(name, rec, data, out, guard=120):
    """Waits until memsz (rec, recording into data) has taken its first
    snapshot and fault_loop (stdout out) ticks after it, then ends memsz
    with SIGINT. Returns (its stderr, `memsz dump` of data), or None after
    a failed check. guard: the hang guard of each wait, in seconds."""
    wait_until(lambda: snap_ends(data) >= 1 or rec.poll() is not None,
               f"{name}: memsz's first snapshot", guard)
    if rec.poll() is not None:
        check(False, f"{name}: memsz attached: {rec.stderr.read()}")
        return None
    check(next_tick(out) is not None,
          f"{name}: the workload runs while recorded")
    rec.send_signal(signal.SIGINT)
    rec.wait(timeout=guard)
    err = rec.stderr.read().strip()
    # the recording written, memsz dies by the SIGINT that ended it
    check(rec.returncode == -signal.SIGINT,
          f"{name}: memsz dies by SIGINT ({rec.returncode}): {err}")
    dump = subprocess.run([MEMSZ, "dump", "-i", data],
                          capture_output=True, text=True).stdout
    return err, dump


def end_fault_loop(rec, pid, target):
    """Kills memsz (rec) if it still runs, then the workload, and reaps
    both (target: the workload's Popen when attached, else None)."""
    if rec.poll() is None:
        rec.kill()
        rec.wait()
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    if target:
        target.wait()


def mapping_rows(data, fields):
    """The rows of `memsz report --by mappings -F fields` of data, keyed by
    their mapping's (start, end)."""
    rows = {}
    for r in report(data, "mappings", "-F", fields):
        s, e = (int(x, 16) for x in r["mappings"].split()[0].split("-"))
        rows[(s, e)] = r
    return rows


def record_between(pid, data, read, fields, who, env=None):
    """Runs `memsz record -o data -p pid --duration 0` (environment env)
    between two calls of read() ({name: smaps_vmas() dict}) until both
    agree on fields (a stopped process's smaps may still move: 20 tries,
    then fails); returns the second."""
    for _ in range(20):
        before = read()
        subprocess.run([MEMSZ, "record", "-o", data, "-p", str(pid),
                        "--duration", "0"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        after = read()
        if all(before[n].get(f) == after[n].get(f) for n in after
               for f in fields):
            return after
    fail(f"{who}: smaps kept changing while stopped")


def mapping_row_checks(what, r, v):
    """(ok, message) of each check of r, a `report --by mappings --format
    csv` row of columns rss, pss, uss, dirty, shclean, shdirty and any of
    swap and thp (None: the mapping is not reported, a failed check),
    against v, the mapping's smaps_vmas() dict: Rss, Private_Dirty,
    Private_Clean, Shared_Clean, Shared_Dirty, Swap and AnonHugePages
    exactly, Pss within a kB (smaps rounds it down)."""
    if r is None:
        return [(False, f"{what}: memsz reports the mapping")]
    dirty, uss = int(r["dirty"]), int(r["uss"])
    have = {"Rss": int(r["rss"]), "Private_Dirty": dirty,
            "Private_Clean": uss - dirty,
            "Shared_Clean": int(r["shared_clean"]),
            "Shared_Dirty": int(r["shared_dirty"])}
    for col, field in (("swap", "Swap"), ("thp", "AnonHugePages")):
        if col in r:
            have[field] = int(r[col])
    out = [(True, f"{what}: memsz reports the mapping")]
    for f, got in have.items():
        out.append((got == v[f], f"{what}: {f} {got} == smaps {v[f]}"))
    pss = float(r["pss"])
    out.append((v["Pss"] <= pss < v["Pss"] + 1024,
                f"{what}: Pss {pss} in smaps [{v['Pss']}, + 1 kB)"))
    return out


def checks_retried(attempt, who):
    """Checks what attempt() returns, (ok, message) pairs, calling it again
    up to three times in all while one fails, each failure printed: a
    recording between two equal smaps reads may still catch a page
    mid-migration (compaction of other processes' huge page allocations
    moves a stopped process's pages), which memsz cannot look up; a wrong
    number memsz always gives fails every time."""
    for n in range(1, 4):
        res = attempt()
        bad = [m for ok, m in res if not ok]
        if not bad or n == 3:
            break
        for m in bad:
            print(f"# {who}, attempt {n} differs: {m}")
    for ok, m in res:
        check(ok, m)


def smaps_regions(pid, regions):
    """smaps dicts (smaps_vmas) of pid's mappings named in regions (name:
    (start, end)), each the mapping of exactly that range; a failure if
    one is not there."""
    by = {(v["start"], v["end"]): v for v in smaps_vmas(pid)}
    out = {}
    for name, se in regions.items():
        if se not in by:
            fail(f"pid {pid} has no mapping {se[0]:x}-{se[1]:x}")
        out[name] = by[se]
    return out


def compare_regions(pid, regions, data, who, fields, cols):
    """Records pid into data between two equal smaps reads of its
    mappings named in regions (record_between: smaps fields) and checks
    each against memsz's row of it (mapping_rows cols,
    mapping_row_checks), recording again while one differs
    (checks_retried)."""
    def attempt():
        after = record_between(pid, data,
                               lambda: smaps_regions(pid, regions),
                               fields, who)
        rows = mapping_rows(data, cols)
        return [c for name, se in regions.items()
                for c in mapping_row_checks(f"{who}, {name}", rows.get(se),
                                            after[name])]
    checks_retried(attempt, who)


def check_mapping_row(what, r, v):
    """Checks r against v as mapping_row_checks lists."""
    for ok, m in mapping_row_checks(what, r, v):
        check(ok, m)


def pid_rows(data, *extra):
    """{pid: row} of `memsz report --by pids` (csv) of data."""
    return {int(r["pids"].split()[0]): r for r in report(data, "pids", *extra)
            if r["pids"] != "TOTAL" and r["pids"][0].isdigit()}


def pid_label_is(label, pid, name):
    """True if label is process pid's --by pids label, 'PID' then its
    command line (or its command name when it has none), for a program
    whose file name is name."""
    parts = (label or "").split(" ")
    return (len(parts) >= 2 and parts[0] == str(pid) and
            os.path.basename(parts[1]) == name)


def snap_ends(data):
    """The number of complete snapshots (SNAP_END records) `memsz dump`
    reads in data, which may still be being written (then into its
    temporary file, see recording)."""
    p = subprocess.run([MEMSZ, "dump", "-i", recording(data)],
                       capture_output=True, text=True)
    return p.stdout.count("SNAP_END")


def wait_snaps(data, n):
    """Waits (polling data for records; see wait_until) until data holds n
    complete snapshots; returns how many it holds (fewer only at the hang
    guard)."""
    try:
        wait_until(lambda: snap_ends(data) >= n, f"{n} snapshots in {data}")
    except TimeoutError as e:
        print("# " + str(e))
    return snap_ends(data)


def snapshot_after(data, what):
    """Checks that data, still being recorded, gets a complete snapshot
    begun after now, i.e. after the snapshot under way (if any) ends: waits
    for two SNAP_END records more than it has now. Returns the number of
    that snapshot; what names the event it follows, for the check."""
    k = snap_ends(data) + 1
    check(wait_snaps(data, k + 1) >= k + 1, f"a snapshot after {what}")
    return k


def charge_runs(data, start, end):
    """The SNAP_CHARGE runs of data within [start, end) as merged
    (vaddr, end, cgroup inode) ranges, in address order."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data], text=True,
                         capture_output=True).stdout
    runs, inrec = [], False
    for line in out.splitlines():
        if not line.startswith("    "):
            inrec = "SNAP_CHARGE" in line
            continue
        m = re.match(r"    (0x[0-9a-f]+) (\d+) cgroup (\d+)$", line)
        if not (inrec and m):
            continue
        va, n, cg = int(m[1], 16), int(m[2]), int(m[3])
        s, e = max(va, start), min(va + n * PAGE, end)
        if s >= e:
            continue
        if runs and runs[-1][1] == s and runs[-1][2] == cg:
            runs[-1] = (runs[-1][0], e, cg)
        else:
            runs.append((s, e, cg))
    return sorted(runs)


def check_charge_runs(data, start, end, want, what):
    """Checks that the SNAP_CHARGE runs of data within [start, end)
    (charge_runs) are exactly want, (vaddr, end, cgroup inode) ranges in
    address order; the check's text names what and the first that
    differ."""
    runs = charge_runs(data, start, end)
    bad = [x for x in runs if x not in want] + \
        [x for x in want if x not in runs]
    check(runs == want,
          f"{what}: the mapping's SNAP_CHARGE runs are exactly the "
          f"{len(want)} wanted ({len(runs)} runs; differing "
          f"{[(hex(s), hex(e), c) for s, e, c in bad[:3]]})")
