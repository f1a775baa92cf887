#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_faults_runtimes: page-fault sampling on real runtimes, idle and busy.

Workloads (public runtimes, scripts written here):
  node    two worker threads each filling 60 Buffers of 1 MiB, while the
          main thread builds a Map of 300 000 objects (/usr/bin/node)
  python  bytearray(50 MB), then a list of 300 000 small lists (python3)
each run alone and with a CPU-bound process pinned to the last cpu, bare,
under `memsz record --faults`, under `memsz record --faults --no-growth`
(row memsz-ng: the same samples without the growth snapshots, which
perf does not take; what is left is the cost of sampling) and under
`perf record -e page-faults -c 1 --call-graph dwarf` (both copy 8 KiB of
user stack per fault), the latter also with rings of 256 MiB per cpu
(row perf-big: perf losing next to nothing, which shows what every
sample costs the workload when none is dropped; perf's default rings
drop samples instead, which costs it nothing). Prints one row per run,
side by side: the
workload's own time for its work and the command's wall time, each against
the bare run of the same workload and load, the samples written and lost
(memsz: its summary line; perf: its warning and `perf report --stats`),
the size of the data file, memsz's against perf's, and how long memsz
held the workload (backpressure and snapshots). Goal: memsz 0 lost
in every row, slowdown <= perf's, data <= 0.5x perf.data. Asserts
nothing.

    bench_faults_runtimes.py [REPS]   (default 1; best time, worst loss)
Environment: MEMSZ (memsz binary), PERF (perf binary), NODE, PYTHON,
PERF_BIG (perf-big's -m, pages per cpu).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_faults as bf  # noqa: E402  (perf's loss, parsed once)

MEMSZ = os.environ.get("MEMSZ", "memsz")
PERF = os.environ.get("PERF", shutil.which("perf") or "perf")
NODE = os.environ.get("NODE", "/usr/bin/node")
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
# perf-big's ring: 65536 pages (256 MiB) per cpu
PERF_BIG = os.environ.get("PERF_BIG", "65536")

NODE_JS = r"""
const { Worker, isMainThread } = require('worker_threads');
if (isMainThread) {
  const t0 = process.hrtime.bigint();
  let done = 0;
  const finish = () => {
    if (++done < 3) return;
    const ns = process.hrtime.bigint() - t0;
    console.error('work_ns ' + ns);
  };
  for (let w = 0; w < 2; w++) {
    const wk = new Worker(__filename);
    wk.on('message', finish);
  }
  const m = new Map();
  for (let i = 0; i < 300000; i++) m.set('k' + i, { i: i, s: 'v' + i });
  finish();
} else {
  const bufs = [];
  for (let i = 0; i < 60; i++) bufs.push(Buffer.alloc(1 << 20, i & 0xff));
  require('worker_threads').parentPort.postMessage(bufs.length);
}
"""

PY = r"""
import sys, time
t0 = time.monotonic_ns()
b = bytearray(50_000_000)
l = [[i, str(i)] for i in range(300_000)]
print("work_ns", time.monotonic_ns() - t0, file=sys.stderr)
"""

HOG = "while True:\n    pass\n"


def run(argv):
    """(wall s, work s, stderr) of one run."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {p.stderr.strip()[-300:]}")
    m = re.search(r"work_ns (\d+)", p.stderr)
    return wall, int(m.group(1)) / 1e9 if m else wall, p.stderr


def start_hog():
    """A busy loop pinned to the last cpu (the other core)."""
    last = max(os.sched_getaffinity(0))
    return subprocess.Popen([sys.executable, "-c", HOG],
                            preexec_fn=lambda: os.sched_setaffinity(
                                0, {last}))


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    tmp = tempfile.mkdtemp(prefix="memsz-bench-rt-")
    have_perf = shutil.which(PERF) is not None
    try:
        js = os.path.join(tmp, "alloc.js")
        py = os.path.join(tmp, "alloc.py")
        with open(js, "w") as f:
            f.write(NODE_JS)
        with open(py, "w") as f:
            f.write(PY)
        work = {}
        if os.access(NODE, os.X_OK):
            work["node"] = [NODE, js]
        if os.access(PYTHON, os.X_OK):
            work["python"] = [PYTHON, py]
        mdata = os.path.join(tmp, "memsz.data")
        pdata = os.path.join(tmp, "perf.data")
        print(f"bench_faults_runtimes: best of {reps}, "
              f"{os.cpu_count()} cpus; hog: a busy loop on the last cpu")
        print(f"{'workload':8} {'load':5} {'tool':8} {'work s':>7} "
              f"{'x bare':>7} {'wall s':>7} {'x bare':>7} {'samples':>8} "
              f"{'lost':>7} {'lost %':>7} {'data MiB':>9} {'x perf':>7} "
              f"{'held s':>6}")
        for wname, argv in work.items():
            for load in ("alone", "hog"):
                tools = {"bare": argv,
                         "memsz": [MEMSZ, "record", "--faults", "-o", mdata,
                                   "--", *argv],
                         "memsz-ng": [MEMSZ, "record", "--faults",
                                      "--no-growth", "-o", mdata, "--",
                                      *argv]}
                if have_perf:
                    tools["perf"] = [PERF, "record", "-e", "page-faults",
                                     "-c", "1", "--call-graph", "dwarf",
                                     "-o", pdata, "--", *argv]
                    # the same with rings big enough to lose (nearly)
                    # nothing: the kernel's cost of every sample
                    tools["perf-big"] = [PERF, "record", "-m", PERF_BIG,
                                         "-e", "page-faults", "-c", "1",
                                         "--call-graph", "dwarf",
                                         "-o", pdata, "--", *argv]
                res = {}
                hog = start_hog() if load == "hog" else None
                try:
                    for _ in range(reps):
                        for tname, targv in tools.items():
                            wall, wk, err = run(targv)
                            held = None
                            if tname.startswith("memsz"):
                                c = bf.memsz_counts(err)
                                size = os.path.getsize(mdata)
                                # backpressure and snapshots together
                                held = sum(float(x) for x in re.findall(
                                    r"([\d.]+) s \(\d+ (?:times|snapshots)",
                                    err))
                            elif tname.startswith("perf"):
                                c = bf.perf_counts(err, pdata)
                                size = os.path.getsize(pdata)
                            else:
                                c, size = (None, None), None
                            old = res.get(tname)
                            if old:
                                wall, wk = min(wall, old[0]), min(wk, old[1])
                                if (old[2][1] or 0) > (c[1] or 0):
                                    c = old[2]
                                if old[4] is not None:
                                    held = max(held or 0, old[4])
                            res[tname] = (wall, wk, c, size, held)
                            for f in (mdata, pdata):
                                if os.path.exists(f):
                                    os.unlink(f)
                finally:
                    if hog:
                        hog.kill()
                        hog.wait()
                bw, bk = res["bare"][0], res["bare"][1]
                psize = res["perf"][3] if "perf" in res else None
                for tname, (wall, wk, (n, lost), size, held) in \
                        res.items():
                    pct = (f"{100.0 * lost / (n + lost):6.1f}%"
                           if n is not None and lost is not None and
                           n + lost else "-")
                    print(f"{wname:8} {load:5} {tname:8} {wk:7.2f} "
                          f"{wk / bk:6.2f}x {wall:7.2f} {wall / bw:6.2f}x "
                          f"{n if n is not None else '-':>8} "
                          f"{lost if lost is not None else '-':>7} "
                          f"{pct:>7} "
                          f"{size / 1048576 if size else 0:9.1f} "
                          + (f"{size / psize:6.3f}x" if size and psize
                             else "      -")
                          + (f" {held:6.2f}" if held is not None
                             else "      -"))
                sys.stdout.flush()
        if not have_perf:
            print("bench_faults_runtimes: perf not found, its rows skipped")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
