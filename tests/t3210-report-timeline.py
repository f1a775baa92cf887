#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3210: `memsz report --timeline` against `report --snapshot N`.

`memsz record --interval 50 -- diff_grow N M` (built here): the test waits
for snapshots to appear in `memsz dump` (no sleeps) so that one snapshot is
known to be taken after the workload wrote N pages and another after it
wrote M more. Checks: every value of the timeline (csv and json, by files
and by mappings, RSS and DIRTY) equals what `report --snapshot N` gives for
that row; the series of a snapshot plus "[K others]" sum to its TOTAL,
which equals the report's total; times rise and start near 0; and the
workload's mapping grows by exactly M pages between the two known
snapshots.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check  # noqa: E402


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def record(tmp):
    exe = os.path.join(tmp, "diff_grow")
    run("gcc", "-O1", "-o", exe,
        os.path.join(SRCDIR, "tests", "workloads", "diff_grow.c"))
    data = os.path.join(tmp, "t.data")
    m = 200
    start = time.monotonic()
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--interval", "50",
                            "--", exe, "64", str(m)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        line = rec.stdout.readline().split()
        addr = int(line[2], 16)
        k0 = lib.snapshot_after(data, "'ready'")
        rec.stdin.write("go\n")
        rec.stdin.flush()
        check(rec.stdout.readline().startswith("grown"), "workload grew")
        k1 = lib.snapshot_after(data, "'grown'")
        err = rec.communicate(timeout=120)[1]
        elapsed = time.monotonic() - start
        check(rec.returncode == 0, f"record exits 0 ({err.strip()[:200]})")
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    return data, addr, k0, k1, m, elapsed


def report_rows(data, key, n):
    out = run(MEMSZ, "report", "-i", data, "--by", key, "-n", "0",
              "--format", "csv", "--snapshot", str(n))
    return {r[key]: r for r in csv.DictReader(io.StringIO(out))}


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3210-")
    try:
        data, addr, k0, k1, m, elapsed = record(tmp)
        nsnap = lib.snap_ends(data)
        for key in ("files", "mappings"):
            out = run(MEMSZ, "report", "-i", data, "--by", key, "-n", "0",
                      "--timeline=rss,dirty", "--format", "csv")
            tl = list(csv.DictReader(io.StringIO(out)))
            npoints = 1 + max(int(r["snapshot"]) for r in tl)
            check(npoints == nsnap, f"--by {key}: {npoints} points == "
                  f"{nsnap} snapshots")
            times = {}
            for r in tl:
                times[int(r["snapshot"])] = float(r["time"])
            ts = [times[i] for i in range(npoints)]
            # bounds, not a timing assumption: every snapshot falls
            # within the recording, which lasted at most `elapsed`
            check(ts == sorted(ts) and ts[0] >= 0 and ts[-1] <= elapsed,
                  f"--by {key}: times rise within the recording's "
                  f"{elapsed:.1f} s ({ts[:3]}...)")
            bad = 0
            for n in range(npoints):
                rep = report_rows(data, key, n)
                got = {r[key]: r for r in tl if int(r["snapshot"]) == n}
                for name in set(rep) | set(got):
                    for col in ("rss", "dirty"):
                        a = int(rep[name][col]) if name in rep else 0
                        b = int(got[name][col]) if name in got else 0
                        if a != b:
                            bad += 1
                            if bad < 5:
                                print(f"  snapshot {n} {name} {col}: "
                                      f"report {a} timeline {b}")
            check(bad == 0, f"--by {key}: every timeline value equals "
                  f"report --snapshot N ({npoints} snapshots)")
            if key == "mappings":
                def vma_rss(n):
                    for r in tl:
                        s, e = (int(x, 16) for x in
                                r["mappings"].split()[0].split("-"))
                        if int(r["snapshot"]) == n and s <= addr < e:
                            return int(r["rss"])
                    return None
                grow = vma_rss(k1) - vma_rss(k0)
                check(grow == m * PAGE, f"the mapping grew by {grow} == "
                      f"{m} pages between snapshots {k0} and {k1}")

        js = json.loads(run(MEMSZ, "report", "-i", data, "--timeline",
                            "-n", "3", "--format", "json"))
        check(js["columns"] == ["rss"] and len(js["snapshots"]) == nsnap,
              "json: rss by default, one entry per snapshot")
        check(len(js["rows"]) <= 4 and "others" in js["rows"][-1],
              "json: -n 3 keeps 3 rows and '[K others]'")
        ok = all(sum(int(r["rss"][i]) for r in js["rows"]) ==
                 int(js["total"]["rss"][i]) for i in range(nsnap))
        check(ok, "json: the rows of each snapshot sum to its total")
        tot = [sum(int(r["rss"]) for r in report_rows(data, "files",
                                                      n).values())
               for n in (0, nsnap - 1)]
        check([int(js["total"]["rss"][0]), int(js["total"]["rss"][-1])] ==
              tot, "json: totals equal report --snapshot 0 and last")
        js = json.loads(run(MEMSZ, "report", "-i", data, "--timeline",
                            "--fields", "dirty,res,rss", "--format",
                            "json"))
        check(js["columns"] == ["dirty", "rss"],
              "json: --fields chooses the timeline's columns (RES% not)")
        # a filter keeps at every snapshot what report --snapshot N keeps
        filt = ("--filter", "files=^\\[", "--exclude", "files=stack")
        out = run(MEMSZ, "report", "-i", data, "--by", "files", "-n", "0",
                  "--timeline", "--format", "csv", *filt)
        tl = list(csv.DictReader(io.StringIO(out)))
        bad = kept = 0
        for n in (0, nsnap - 1):
            rep = run(MEMSZ, "report", "-i", data, "--by", "files", "-n",
                      "0", "--format", "csv", "--snapshot", str(n), *filt)
            want = {r["files"]: int(r["rss"])
                    for r in csv.DictReader(io.StringIO(rep))}
            got = {r["files"]: int(r["rss"]) for r in tl
                   if int(r["snapshot"]) == n}
            want = {k: v for k, v in want.items() if v}
            got = {k: v for k, v in got.items() if v}
            kept += len(got)
            if want != got or \
                    any(not k.startswith("[") or "stack" in k for k in got):
                bad += 1
                print(f"  snapshot {n}: report {want} timeline {got}")
        check(bad == 0 and kept, "--filter/--exclude: the timeline keeps "
              f"what report --snapshot N keeps ({kept} rows)")
        for args in (["--timeline=res"], ["--timeline", "--fields", "x"]):
            p = subprocess.run([MEMSZ, "report", "-i", data, *args,
                                "--format", "json"],
                               capture_output=True, text=True)
            check(p.returncode == 129 and
                  "error" in json.loads(p.stdout or "{}"),
                  f"{args}: a usage error, as json")
        tab = run(MEMSZ, "report", "-i", data, "--timeline", "-n", "2")
        check("TOTAL" in tab and "RSS at each snapshot" in tab,
              "table: a block per column with TOTAL")
        # the table fits --width (and COLUMNS): as many points as fit,
        # the first and the last kept, a footer line says how many
        for args, env in ((["--width", "60"], {}), ([], {"COLUMNS": "60"})):
            p = subprocess.run([MEMSZ, "report", "-i", data, "--timeline",
                                "--by", "mappings", *args],
                               capture_output=True, text=True,
                               env={**os.environ, **env})
            lines = p.stdout.split("\nRSS", 1)[0].split(" TOTAL\n")[0]
            lines = lines.splitlines()
            shown = len(lines[1].split())
            check(p.returncode == 0 and
                  max(len(ln) for ln in lines) <= 60 and
                  shown == min(nsnap, (60 - 3 - 24) // 9) and
                  (shown == nsnap or f"{shown} of {nsnap} snapshots shown"
                   in p.stdout),
                  f"table {args or env}: {shown} points of {nsnap} fit 60 "
                  f"columns, the rest in csv and json")
            first = float(lines[1].split()[0].rstrip("s"))
            check(abs(first - times[0]) < 0.002,
                  f"table {args or env}: the first point is shown")
        p = subprocess.run([MEMSZ, "report", "-i", data, "--timeline",
                            "--snapshot", "0"], capture_output=True)
        check(p.returncode == 129, "--timeline with --snapshot: usage error")
    finally:
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
