#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_report: `memsz report --by files,symbols` of processes that map
libLLVM-14.so.1 (python3 + ctypes.CDLL) and /usr/bin/node, beside
`memsz size --by symbols` of those two images, in the same run.

Prints wall time and peak RSS of each run and the ratio
report / (size libLLVM + size node). Target: <= 1.5. Asserts nothing.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
LLVM = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
NODE = "/usr/bin/node"


def timed(argv, reps=3):
    """Best wall time of reps runs and the peak RSS (KiB) of the best."""
    best = None
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{argv} failed")
        if best is None or dt < best[0]:
            best = (dt, ru.ru_maxrss)
    return best


def main():
    for f in (LLVM, NODE):
        if not os.path.exists(f):
            print(f"bench_report: {f} missing, skipped")
            return 0
    tmp = tempfile.mkdtemp(prefix="memsz-bench-report-")
    data = os.path.join(tmp, "memsz.data")
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
        subprocess.run([MEMSZ, "record", "-p", f"{py.pid},{node.pid}", "-o",
                        data, "--duration", "0.2"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rep = timed([MEMSZ, "report", "-i", data, "--by", "files,symbols"])
        s1 = timed([MEMSZ, "size", "--by", "symbols", LLVM])
        s2 = timed([MEMSZ, "size", "--by", "symbols", NODE])
        print(f"report --by files,symbols (python3+libLLVM, node): "
              f"{rep[0]:.3f} s, peak RSS {rep[1] / 1024:.1f} MiB")
        print(f"size --by symbols libLLVM-14.so.1:                  "
              f"{s1[0]:.3f} s, peak RSS {s1[1] / 1024:.1f} MiB")
        print(f"size --by symbols node:                             "
              f"{s2[0]:.3f} s, peak RSS {s2[1] / 1024:.1f} MiB")
        print(f"ratio report / (size + size): time "
              f"{rep[0] / (s1[0] + s2[0]):.2f} (target <= 1.5), "
              f"peak RSS {rep[1] / (s1[1] + s2[1]):.2f}")
    finally:
        py.kill()
        node.kill()
        py.wait()
        node.wait()
        subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
