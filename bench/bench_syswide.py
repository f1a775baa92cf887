#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_syswide: one snapshot of the whole machine, `memsz record -a
--duration 0`, beside what the kernel's own summaries cost in the same run:
`cat /proc/[0-9]*/smaps_rollup` (a total per process), `cat
/proc/[0-9]*/smaps` (per mapping, what smem reads) and `smem -t`.

Prints the best wall time of each (interleaved runs), the ratios to
reading every smaps_rollup, the size of memsz.data, and how the recorded
totals compare with smaps_rollup read right after the snapshot: per
process, RSS equal and PSS within one page per mapping, counted over the
processes whose Rss did not move between two reads around the recording.
Run as root for PSS (page frame numbers). Asserts nothing.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
PAGE = os.sysconf("SC_PAGE_SIZE")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))


def sh(cmd):
    return ["sh", "-c", cmd]


def timed(argv):
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def rollups():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/smaps_rollup") as f:
                text = f.read()
            with open(f"/proc/{d}/maps") as f:
                n = sum(1 for _ in f)
        except OSError:
            continue
        r = {"maps": n}
        for line in text.splitlines():
            p = line.split()
            if len(p) == 3 and p[2] == "kB":
                r[p[0][:-1]] = int(p[1]) * 1024
        if "Rss" in r:
            out[int(d)] = r
    return out


def snap_times(data):
    """{pid: seconds between its SNAP_BEGIN and SNAP_END} from memsz dump."""
    out = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                         text=True).stdout
    begin, took = {}, {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 5 and f[3] in ("SNAP_BEGIN", "SNAP_END"):
            pid = int(f[5])
            if f[3] == "SNAP_BEGIN":
                begin[pid] = float(f[2])
            elif pid in begin:
                took[pid] = float(f[2]) - begin[pid]
    return took


def read_time(pids, name):
    """Seconds to read /proc/PID/name of pids, one after another."""
    t0 = time.perf_counter()
    for p in pids:
        try:
            with open(f"/proc/{p}/{name}") as f:
                f.read()
        except OSError:
            pass
    return time.perf_counter() - t0


def split(data, rows):
    """Time inside snapshots, for processes mapping at most 1 TiB and the
    others (sanitizer shadows: tens of TiB of sparse address space)."""
    took = snap_times(data)
    small = [p for p in took if p in rows and
             int(rows[p]["vm_size"]) <= 1 << 40]
    big = [p for p in took if p in rows and p not in small]
    ts = sum(took[p] for p in small)
    tb = sum(took[p] for p in big)
    rs = min(read_time(small, "smaps_rollup") for _ in range(3))
    sm = min(read_time(small, "smaps") for _ in range(3))
    print(f"time inside snapshots: {ts * 1000:.1f} ms for {len(small)} "
          f"processes of <= 1 TiB VM; reading their smaps_rollup "
          f"{rs * 1000:.1f} ms ({ts / rs:.2f}x), their smaps "
          f"{sm * 1000:.1f} ms ({ts / sm:.2f}x); {tb * 1000:.1f} ms for "
          f"{len(big)} larger ones")


def compare(data):
    before = rollups()
    subprocess.run([MEMSZ, "record", "-a", "--duration", "0", "-o", data],
                   stderr=subprocess.DEVNULL, check=True)
    after = rollups()
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", "pids", "-n",
                          "0", "--format", "csv"], capture_output=True,
                         text=True, check=True).stdout
    rows = {int(f["pids"].split()[0]): f
            for f in csv.DictReader(io.StringIO(out))
            if f["pids"][0].isdigit()}
    stable = [p for p in rows if p in before and p in after and
              before[p]["Rss"] == after[p]["Rss"]]
    rss_eq = sum(int(rows[p]["rss"]) == after[p]["Rss"] for p in stable)
    pss_ok = sum(abs(float(rows[p]["pss"]) - after[p]["Pss"]) <=
                 PAGE * after[p]["maps"] for p in stable)
    m_rss = sum(int(rows[p]["rss"]) for p in stable)
    k_rss = sum(after[p]["Rss"] for p in stable)
    m_pss = sum(float(rows[p]["pss"]) for p in stable)
    k_pss = sum(after[p]["Pss"] for p in stable)
    nmaps = sum(after[p]["maps"] for p in stable)
    split(data, rows)
    print(f"processes recorded: {len(rows)}; with Rss unchanged around the "
          f"recording: {len(stable)}")
    print(f"  RSS equal to smaps_rollup: {rss_eq}/{len(stable)}; "
          f"sum {m_rss / 2**20:.1f} MiB vs {k_rss / 2**20:.1f} MiB")
    print(f"  PSS within a page per mapping: {pss_ok}/{len(stable)}; "
          f"sum {m_pss / 2**20:.2f} MiB vs {k_pss / 2**20:.2f} MiB "
          f"(diff {abs(m_pss - k_pss) / 1024:.0f} KiB, "
          f"bound {nmaps * PAGE / 2**20:.1f} MiB over {nmaps} mappings)")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-bench-syswide-")
    data = os.path.join(tmp, "memsz.data")
    cases = [
        ("memsz record -a --duration 0",
         [MEMSZ, "record", "-a", "--duration", "0", "-o", data]),
        ("cat /proc/*/smaps_rollup", sh("cat /proc/[0-9]*/smaps_rollup")),
        ("cat /proc/*/smaps", sh("cat /proc/[0-9]*/smaps")),
    ]
    if shutil.which("smem"):
        cases.append(("smem -t", ["smem", "-t"]))
    best = {name: None for name, _ in cases}
    for _ in range(RUNS):
        for name, argv in cases:
            dt = timed(argv)
            best[name] = dt if best[name] is None else min(best[name], dt)
    base = best["cat /proc/*/smaps_rollup"]
    nproc = sum(1 for d in os.listdir("/proc") if d.isdigit())
    print(f"bench_syswide: {nproc} /proc entries, best of {RUNS}, "
          f"{'root' if os.geteuid() == 0 else 'not root (no PSS)'}")
    for name, _ in cases:
        print(f"  {name:32s} {best[name] * 1000:9.1f} ms  "
              f"{best[name] / base:6.2f}x smaps_rollup")
    print(f"  memsz.data: {os.path.getsize(data) / 2**20:.2f} MiB")
    compare(data)
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
