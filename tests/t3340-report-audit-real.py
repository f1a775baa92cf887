#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3340: `memsz report` of real layouts, mapping by mapping, against the
smaps of the same stopped processes, and its formats against each other.

rep_audit (built here: a 64 MiB .bss, transparent huge pages, a file
mapped shared and privately with copy-on-write pages, a deleted file
still mapped, 40 threads, a forked child) and, where installed, a node
process holding 64 Buffers, are stopped; their smaps are read, they are
recorded with --duration 0, and smaps is read again. Checked:
- per mapping (--by pids,mappings), for each VMA whose smaps was the same
  before and after the recording: VM SIZE == Size, RSS == Rss, DIRTY ==
  Private_Dirty, SWAP == Swap, THP == AnonHugePages + ShmemPmdMapped +
  FilePmdMapped; and on the workload's own VMAs (not system libraries,
  whose pages another process may map and leave while memsz records:
  seen with libstdc++) SHR CLEAN == Shared_Clean, SHR DIRTY ==
  Shared_Dirty, USS == Private_Clean + Private_Dirty and PSS within 1 KiB
  (smaps rounds each VMA down to a kB); no VMA missing, none extra;
- the TOTAL (json) of every key and of nested keys: RSS, DIRTY and SWAP
  equal the sums of smaps; USS too and PSS within 1 KiB per VMA when no
  VMA's smaps changed while memsz recorded;
- -n 3 under files: "[N others]" names the rows folded and holds exactly
  their sum; tsv carries csv's rows; folded sums to the json TOTAL.
"""
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

KEYS = ["pids", "comms", "users", "files", "mappings", "segments",
        "sections", "symbols", "kinds", "compileunits", "relocs",
        "files,sections,symbols", "kinds,files", "pids,files",
        "symbols,files", "users,pids,mappings"]
FIELDS = {"vm_size": ("Size",), "rss": ("Rss",),
          "dirty": ("Private_Dirty",), "swap": ("Swap",),
          "shared_clean": ("Shared_Clean",),
          "shared_dirty": ("Shared_Dirty",),
          "uss": ("Private_Clean", "Private_Dirty"),
          "thp": ("AnonHugePages", "ShmemPmdMapped", "FilePmdMapped")}

# Columns that depend on who else maps a page, and files any process of
# the machine may map (then leave) while the recording runs, between two
# identical smaps reads: those columns are compared on the workload's own
# mappings only.
SHARING = ("shared_clean", "shared_dirty", "uss")
SYSTEM = ("/usr/lib/", "/lib/", "/usr/share/")


def memsz_out(data, by, *extra, fmt="json"):
    return subprocess.run([MEMSZ, "report", "-i", data, "--by", by,
                           "--format", fmt, *extra], check=True,
                          stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.decode(
                              "utf-8", "surrogateescape")


def rows(data, by, *extra, fmt="csv"):
    text = memsz_out(data, by, "-n", "0", *extra, fmt=fmt)
    return list(csv.DictReader(io.StringIO(text),
                               delimiter="," if fmt == "csv" else "\t"))


def record_stopped(name, pids, data):
    """smaps of pids before and after `memsz record` of them, stopped."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    for pid in pids:
        lib.wait_stopped(pid)
    before = {pid: lib.smaps_vmas(pid) for pid in pids}
    rec = subprocess.run([MEMSZ, "record", "-p", ",".join(map(str, pids)),
                          "-o", data, "--duration", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    after = {pid: lib.smaps_vmas(pid) for pid in pids}
    for pid in pids:
        os.kill(pid, signal.SIGCONT)
    check(rec.returncode == 0, f"{name}: memsz record exits 0")
    return before, after


def check_mappings(name, data, before, after):
    got = {}
    for r in rows(data, "pids,mappings", "-F", ",".join(FIELDS) + ",pss"):
        start = int(r["mappings"].split("-")[0], 16)
        got[(int(r["pids"].split()[0]), start)] = r
    bad, stable = [], 0
    for pid, vmas in before.items():
        same = {v["start"]: v == w for v, w in zip(vmas, after[pid])}
        for v in vmas:
            r = got.pop((pid, v["start"]), None)
            if r is None:
                bad.append(f"{pid} {v['start']:x} {v['last']} missing")
                continue
            if not same.get(v["start"]):
                continue
            stable += 1
            for col, ks in FIELDS.items():
                if col in SHARING and v["last"].startswith(SYSTEM):
                    continue
                want = sum(v.get(k, 0) for k in ks)
                if int(r[col]) != want:
                    bad.append(f"{r['mappings']} {col} {r[col]} != {want}")
            if v["last"].startswith(SYSTEM):
                continue
            if abs(float(r["pss"]) - v["Pss"]) >= 1024:
                bad.append(f"{r['mappings']} pss {r['pss']} vs {v['Pss']}")
    bad += [f"{k[0]} {r['mappings']} extra" for k, r in got.items()]
    check(not bad, f"{name}: {stable} mappings equal their smaps "
          f"({'; '.join(bad[:5])})")


def check_totals(name, data, before, after):
    def sums(state):
        out = {c: sum(v.get(k, 0) for vmas in state.values() for v in vmas
                      for k in ks) for c, ks in FIELDS.items()}
        out["pss"] = sum(v.get("Pss", 0) for vmas in state.values()
                         for v in vmas)
        return out
    want, nvma = sums(before), sum(len(vmas) for vmas in before.values())
    cols = ["rss", "dirty", "swap"]  # what others mapping a page keeps
    if any(want[c] != sums(after)[c] for c in cols):
        lib.skip_part(f"{name}: totals (smaps changed while recorded)")
        return
    if before == after:
        cols.append("uss")
    for by in KEYS:
        total = json.loads(memsz_out(data, by))["total"]
        bad = [f"{c} {total[c]} != {want[c]}"
               for c in cols if int(total[c]) != want[c]]
        if before == after and abs(float(total["pss"]) -
                                   want["pss"]) > 1024 * nvma:
            bad.append(f"pss {total['pss']} vs {want['pss']}")
        check(not bad, f"{name} --by {by}: TOTAL {', '.join(cols)} == "
              f"smaps sums ({'; '.join(bad)})")


def check_formats(name, data):
    full = rows(data, "files")
    part = list(csv.DictReader(io.StringIO(
        memsz_out(data, "files", "-n", "3", fmt="csv"))))
    oth = part[-1]
    rest = full[3:]
    ok = (len(part) == 4 and oth["files"] == f"[{len(rest)} others]" and
          all(int(oth[c]) == sum(int(r[c]) for r in rest)
              for c in ("rss", "dirty", "uss", "swap")))
    check(ok, f"{name} -n 3: [{len(rest)} others] holds the rest")
    for by in ("files,sections,symbols", "pids,mappings"):
        check(rows(data, by, fmt="tsv") == rows(data, by),
              f"{name} --by {by}: tsv rows == csv rows")
        total = json.loads(memsz_out(data, by))["total"]
        for col in ("rss", "dirty", "pss"):
            text = memsz_out(data, by, "-F", col, fmt="folded")
            s = sum(int(line.rsplit(" ", 1)[1])
                    for line in text.splitlines())
            check(abs(s - float(total[col])) <= 0.5,
                  f"{name} --by {by}: folded {col} {s} == TOTAL "
                  f"{total[col]}")


def audit(name, pids, data):
    before, after = record_stopped(name, pids, data)
    check_mappings(name, data, before, after)
    check_totals(name, data, before, after)
    check_formats(name, data)


def read_pids(proc, want):
    out = {}
    while len(out) < want:
        line = proc.stdout.readline().split()
        if len(line) != 2:
            lib.fail(f"workload ended early: {line}")
        out[line[0]] = int(line[1])
    return out


def main():
    if os.geteuid() != 0:
        lib.skip("exact PSS and shared pages need root (page frames)")
    tmp = tempfile.mkdtemp(prefix="memsz-t3340-")
    procs, kids = [], []
    try:
        exe = lib.workload(tmp, "rep_audit", "-g", "-pthread")
        p = subprocess.Popen([exe, os.path.join(tmp, "f.bin"),
                              os.path.join(tmp, "gone.bin")],
                             stdout=subprocess.PIPE, text=True)
        procs.append(p)
        ids = read_pids(p, 2)
        kids.append(ids["child"])
        lib.wait_until(lambda: len(os.listdir(
            f"/proc/{ids['ready']}/task")) == 41, "40 threads")
        audit("rep_audit", [ids["ready"], ids["child"]],
              os.path.join(tmp, "c.data"))
        if shutil.which("node"):
            js = ("const b=[];for(let i=0;i<64;i++)b.push(Buffer.alloc("
                  "1<<20,i));globalThis.k=b;console.log('ready '+"
                  "process.pid);setInterval(()=>{},1e6)")
            n = subprocess.Popen(["node", "-e", js], stdout=subprocess.PIPE,
                                 text=True)
            procs.append(n)
            audit("node", [read_pids(n, 1)["ready"]],
                  os.path.join(tmp, "n.data"))
        else:
            lib.skip_part("node is not installed")
    finally:
        for p in procs:
            p.kill()
            p.wait()
        for pid in kids:  # rep_audit's forked child, by its pid
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
