#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_report: what a report costs beside what it shows, in one run.

1. Many processes of the same images: `memsz report --by
   files,sections,symbols` of a recording of 10 and of 300 `sleep`
   processes (libc, ld.so, sleep: each image's rows are built once,
   whatever the number of processes). Target: 300 <= 3x the CPU time of
   10.
2. Big images: `memsz report --by files,sections,symbols` of python3 with
   libLLVM-14.so.1 loaded (ctypes.CDLL) and /usr/bin/node, beside `memsz
   size --by sections,symbols` of the images they map. Target: peak RSS
   of the report <= 1.2x that of size of the same images (every ELF file
   the two processes map: libLLVM, node, libpython, libstdc++, libc, ...).

CPU time is user+sys of the best of REPS runs (the machine may be
shared); peak RSS is ru_maxrss. Asserts nothing.
Usage: bench_report.py [REPS]   (MEMSZ=path/to/memsz)
"""
import os
import subprocess
import sys
import tempfile

MEMSZ = os.environ.get("MEMSZ", "memsz")
LLVM = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
NODE = "/usr/bin/node"
BY = "files,sections,symbols"


def run(argv, reps):
    """Best CPU time (user+sys, s) of reps runs of argv, and the highest
    peak RSS (KiB)."""
    best, peak = None, 0
    for _ in range(reps):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("failed: " + " ".join(argv))
        cpu = ru.ru_utime + ru.ru_stime
        best = cpu if best is None else min(best, cpu)
        peak = max(peak, ru.ru_maxrss)
    return best, peak


def record(pids, data):
    subprocess.run([MEMSZ, "record", "-p", ",".join(map(str, pids)), "-o",
                    data, "--duration", "0"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def many_processes(tmp, reps):
    procs = [subprocess.Popen(["sleep", "600"]) for _ in range(300)]
    try:
        d10, d300 = os.path.join(tmp, "10.data"), os.path.join(tmp,
                                                               "300.data")
        record([p.pid for p in procs[:10]], d10)
        record([p.pid for p in procs], d300)
        t10, m10 = run([MEMSZ, "report", "-i", d10, "--by", BY], reps)
        t300, m300 = run([MEMSZ, "report", "-i", d300, "--by", BY], reps)
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
    print(f"report --by {BY}, 10 sleep:   {t10:.3f} s CPU, "
          f"peak RSS {m10 / 1024:.1f} MiB")
    print(f"report --by {BY}, 300 sleep:  {t300:.3f} s CPU, "
          f"peak RSS {m300 / 1024:.1f} MiB")
    print(f"ratio 300 / 10: CPU {t300 / t10:.2f} (target <= 3)")


def mapped_images(pids):
    """The ELF files the processes pids map (what their report shows
    under `files`), in the order first seen."""
    seen = []
    for pid in pids:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                path = parts[5].strip() if len(parts) == 6 else ""
                if not path.startswith("/") or path in seen:
                    continue
                try:
                    with open(path, "rb") as img:
                        if img.read(4) != b"\x7fELF":
                            continue
                except OSError:
                    continue
                seen.append(path)
    return seen


def big_images(tmp, reps):
    for f in (LLVM, NODE):
        if not os.path.exists(f):
            print(f"bench_report: {f} missing, big images skipped")
            return
    data = os.path.join(tmp, "big.data")
    py = subprocess.Popen(
        [sys.executable, "-c",
         f"import ctypes, sys; ctypes.CDLL('{LLVM}'); print('ready', "
         "flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    node = subprocess.Popen(
        [NODE, "-e", "console.log('ready'); setInterval(() => {}, 1000)"],
        stdout=subprocess.PIPE, text=True)
    try:
        py.stdout.readline()
        node.stdout.readline()
        record([py.pid, node.pid], data)
        images = mapped_images([py.pid, node.pid])
        rep = run([MEMSZ, "report", "-i", data, "--by", BY], reps)
        size = run([MEMSZ, "size", "--by", "sections,symbols"] + images,
                   reps)
    finally:
        py.kill()
        node.kill()
        py.wait()
        node.wait()
    print(f"report --by {BY} (python3+libLLVM, node): "
          f"{rep[0]:.2f} s CPU, peak RSS {rep[1] / 1024:.0f} MiB")
    print(f"size --by sections,symbols of the {len(images)} images they map: "
          f"{size[0]:.2f} s CPU, peak RSS {size[1] / 1024:.0f} MiB")
    print(f"ratio report / size: peak RSS {rep[1] / size[1]:.2f} "
          f"(target <= 1.2), CPU {rep[0] / size[0]:.2f}")


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    tmp = tempfile.mkdtemp(prefix="memsz-bench-report-")
    try:
        many_processes(tmp, reps)
        big_images(tmp, reps)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
