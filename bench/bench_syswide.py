#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_syswide: one snapshot of the whole machine, `memsz record -a
--duration 0`, beside what the kernel's own summaries cost in the same
run: `smem -t` (per process USS/PSS/RSS from every /proc/PID/smaps; the
target is memsz <= 1.5x smem), `cat /proc/[0-9]*/smaps_rollup` (a total
per process) and `cat /proc/[0-9]*/smaps`.

SANITIZERS (default 2) processes shaped like ASan/TSan/JVM ones run
meanwhile: a 20 TiB MAP_NORESERVE reservation with one page touched
every 64 GiB.

Measured by CPU time (user + system of the command and its children,
getrusage), the median of RUNS (default 5) paired runs, each command in
turn. `record -a` records meminfo and slabinfo for the memory no
process maps; `record -a --frame-walk` also walks every page frame of
the machine (record/machine.c) to cross-check them, and is measured in
the same pairs, as is reading /proc/kpageflags whole (`dd bs=1M`, the
walk's floor: it reads the same file in 1 MiB preads).

Then the time inside snapshots, and how the recorded totals compare with
smaps_rollup read right after the snapshot: per process, RSS equal and
PSS within one page per mapping, counted over the processes whose Rss did
not move between two reads around the recording. Run as root for PSS
(page frame numbers). Asserts nothing.
"""
import csv
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
PAGE = os.sysconf("SC_PAGE_SIZE")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SANITIZERS = int(os.environ.get("SANITIZERS", "2"))

# A sanitizer-shaped process: 20 TiB reserved (MAP_NORESERVE, 0x4000 on
# Linux), one page touched every 64 GiB; prints "ready", waits for stdin
# to close.
SANITIZER = r"""
import mmap, sys
m = mmap.mmap(-1, 20 << 40, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS |
              0x4000, prot=mmap.PROT_READ | mmap.PROT_WRITE)
for i in range(0, 20 << 40, 1 << 36):
    m[i] = 1
print("ready", flush=True)
sys.stdin.read()
"""


def sh(cmd):
    return ["sh", "-c", cmd]


def cpu(argv):
    """CPU seconds (user + system) argv and its children took."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


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


def sanitizers(n):
    procs = []
    for _ in range(n):
        p = subprocess.Popen([sys.executable, "-c", SANITIZER],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        p.stdout.readline()
        procs.append(p)
    return procs


def measure(data):
    cases = [
        ("memsz record -a --duration 0",
         [MEMSZ, "record", "-a", "--duration", "0", "-o", data]),
        ("memsz record -a --frame-walk",
         [MEMSZ, "record", "-a", "--frame-walk", "--duration", "0",
          "-o", data]),
        ("smem -t", ["smem", "-t"]),
        ("cat /proc/*/smaps_rollup", sh("cat /proc/[0-9]*/smaps_rollup")),
        ("cat /proc/*/smaps", sh("cat /proc/[0-9]*/smaps")),
        ("dd /proc/kpageflags bs=1M",
         ["dd", "if=/proc/kpageflags", "of=/dev/null", "bs=1M"]),
    ]
    if not shutil.which("smem"):
        print("  (smem not installed: the ratio to smem -t is missing)")
        cases = [c for c in cases if c[0] != "smem -t"]
    times = {name: [] for name, _ in cases}
    for _ in range(RUNS):
        for name, argv in cases:
            times[name].append(cpu(argv))
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    ref = med.get("smem -t")
    roll = med["cat /proc/*/smaps_rollup"]
    for name, _ in cases:
        r = f"{med[name] / ref:6.2f}x smem -t" if ref else ""
        print(f"  {name:31s} {med[name] * 1000:9.1f} ms  {r}  "
              f"{med[name] / roll:6.2f}x smaps_rollup")
    rec = med["memsz record -a --frame-walk"]
    nowalk = med["memsz record -a --duration 0"]
    dd = med["dd /proc/kpageflags bs=1M"]
    print(f"  the page frame walk (--frame-walk): "
          f"{(rec - nowalk) * 1000:.1f} ms, "
          f"{(rec - nowalk) / dd:.2f}x reading /proc/kpageflags alone")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-bench-syswide-")
    data = os.path.join(tmp, "memsz.data")
    san = sanitizers(SANITIZERS)
    try:
        nproc = sum(1 for d in os.listdir("/proc") if d.isdigit())
        print(f"bench_syswide: {nproc} /proc entries ({SANITIZERS} with a "
              f"20 TiB reservation), CPU medians of {RUNS} paired runs, "
              f"load {os.getloadavg()[0]:.1f}, "
              f"{'root' if os.geteuid() == 0 else 'not root (no PSS)'}")
        measure(data)
        print(f"  load after: {os.getloadavg()[0]:.1f}")
        print(f"  memsz.data: {os.path.getsize(data) / 2**20:.2f} MiB")
        compare(data)
    finally:
        for p in san:
            p.stdin.close()
            p.wait()
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
