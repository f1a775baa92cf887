#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3000: invariant I2 of `memsz report` against the kernel's own numbers.

For each workload (rep_layout with a forked child, built here; a python3
process with its extension modules), stopped with SIGSTOP: record it with
`memsz record -p`, read /proc/PID/smaps of the same stopped processes, and
for every key of --by check that the report's RSS sums to the sum of smaps
Rss, DIRTY to Private_Dirty, SWAP to Swap and (as root) PSS to Pss within
one page per mapping; USS <= RSS on every row; nothing dropped.
"""
import csv
import io
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import (  # noqa: E402
    PAGE, SRCDIR, check, smaps_vmas)


MEMSZ = os.environ.get("MEMSZ", "memsz")
KEYS = ["pids", "files", "mappings", "segments", "sections", "symbols",
        "kinds", "bbs", "relocs", "callers", "faultsite"]


def smaps_totals(pid):
    vmas = smaps_vmas(pid)
    tot = {k: sum(v.get(k, 0) for v in vmas)
           for k in ("Rss", "Pss", "Private_Dirty", "Swap")}
    tot["n"] = len(vmas)
    return tot


def report_csv(data, key, extra=()):
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", key, "-n", "0",
                          "--format", "csv", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError(f"memsz report --by {key}: {out.stderr}")
    return list(csv.DictReader(io.StringIO(out.stdout)))


def wait_ready(proc):
    line = proc.stdout.readline()
    if not line.startswith("ready"):
        raise RuntimeError(f"workload did not start: {line!r}")
    return line.split()


def run_case(name, pids, data):
    rec = subprocess.run([MEMSZ, "record", "-p", ",".join(map(str, pids)),
                          "-o", data, "--duration", "0.1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, timeout=120)
    check(rec.returncode == 0, f"{name}: memsz record -p exits 0 "
          f"({rec.stderr.strip()[:200]})")
    if rec.returncode != 0:
        return
    want = {"Rss": 0, "Pss": 0, "Private_Dirty": 0, "Swap": 0, "n": 0}
    for pid in pids:
        for k, v in smaps_totals(pid).items():
            want[k] += v
    root = os.geteuid() == 0
    for key in KEYS:
        rows = report_csv(data, key)
        got = {c: sum(float(r[c]) for r in rows)
               for c in ("rss", "dirty", "swap", "uss")}
        check(got["rss"] == want["Rss"],
              f"{name} --by {key}: RSS {got['rss']:.0f} == smaps Rss "
              f"{want['Rss']}")
        check(got["dirty"] == want["Private_Dirty"],
              f"{name} --by {key}: DIRTY {got['dirty']:.0f} == smaps "
              f"Private_Dirty {want['Private_Dirty']}")
        check(got["swap"] == want["Swap"],
              f"{name} --by {key}: SWAP {got['swap']:.0f} == smaps Swap "
              f"{want['Swap']}")
        bad = [r for r in rows if float(r["uss"]) > float(r["rss"])]
        check(not bad, f"{name} --by {key}: USS <= RSS on every row "
              f"({len(rows)} rows)")
        if root:
            check("pss" in rows[0],
                  f"{name} --by {key}: PSS column present as root")
            if "pss" in rows[0]:
                pss = sum(float(r["pss"]) for r in rows)
                tol = want["n"] * PAGE
                check(abs(pss - want["Pss"]) <= tol,
                      f"{name} --by {key}: PSS {pss:.0f} == smaps Pss "
                      f"{want['Pss']} within {want['n']} pages")


def stop_all(pids):
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    # wait until every one is really stopped
    for pid in pids:
        lib.wait_stopped(pid)


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3000-")
    exe = os.path.join(tmp, "rep_layout")
    src = os.path.join(SRCDIR, "tests", "workloads", "rep_layout.c")
    cc = subprocess.run(["gcc", "-O1", "-fPIE", "-pie", "-o", exe, src])
    if cc.returncode != 0:
        lib.fail("cannot build the workload with gcc")

    procs = []
    try:
        # rep_layout with a child sharing pages.
        p = subprocess.Popen([exe, "fork"], stdout=subprocess.PIPE,
                             text=True)
        procs.append(p)
        ready = wait_ready(p)
        pids = [int(ready[1]), int(ready[2])]
        stop_all(pids)
        run_case("rep_layout+child", pids, os.path.join(tmp, "a.data"))
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

        # python3 with its extension modules loaded.
        py = subprocess.Popen(
            [sys.executable, "-c",
             "import json, decimal, ctypes, sqlite3, sys, os\n"
             "x = [str(i) * 10 for i in range(100000)]\n"
             "print('ready', os.getpid(), flush=True)\n"
             "sys.stdin.read()\n"],
            stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
        procs.append(py)
        ready = wait_ready(py)
        pid = int(ready[1])
        stop_all([pid])
        run_case("python3", [pid], os.path.join(tmp, "b.data"))
        os.kill(pid, signal.SIGKILL)
    finally:
        for p in procs:
            try:
                p.kill()
            except OSError:
                pass
            p.wait()
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
