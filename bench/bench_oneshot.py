#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_oneshot: end-to-end `memsz record -p PID --duration 0` (one
snapshot, then exit: process start, /proc reads, PSS look-ups, the file
written and renamed) beside `cat /proc/PID/smaps` on the same process, in
the same run, for processes with 1, 2 and 4 GiB resident (half anonymous,
half a shared file mapping, so that PSS needs kpagecount look-ups).

Prints the best wall time of several runs of each and the ratio
memsz / cat. Target: <= 1.5. Asserts nothing.

The first row is the fixed cost: the same one-shot of a `sleep` process
(a few hundred KiB resident), where process start, /proc reads and
writing the file are nearly all there is; the last line is the start
alone (`memsz --version` beside `true`).
"""
import os
import subprocess
import sys
import tempfile
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")

# A process with SIZE bytes resident: half in an anonymous buffer, half in
# a mapped file; it prints "ready" and waits for stdin to close.
PROG = r"""
import mmap, os, sys
size, path = int(sys.argv[1]), sys.argv[2]
anon = bytearray(size // 2)
for i in range(0, len(anon), 4096):
    anon[i] = 1
with open(path, "wb") as f:
    f.truncate(size // 2)
fd = os.open(path, os.O_RDWR)
m = mmap.mmap(fd, size // 2)
for i in range(0, size // 2, 4096):
    m[i] = 1
print("ready", flush=True)
sys.stdin.read()
"""


def best(argv, reps=5):
    """Best wall time of reps runs of argv (output discarded)."""
    t = None
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        dt = time.perf_counter() - t0
        t = dt if t is None else min(t, dt)
    return t


def main():
    if os.geteuid() != 0:
        print("bench_oneshot: run as root (PSS needs /proc/kpagecount)")
    tmp = tempfile.mkdtemp(prefix="memsz-bench-oneshot-")
    data = os.path.join(tmp, "o.data")
    print(f"{'resident':>9} {'cat smaps':>10} {'memsz -d 0':>11} {'ratio':>6}")
    tiny = subprocess.Popen(["sleep", "1000"])
    try:
        cat = best(["cat", f"/proc/{tiny.pid}/smaps"], reps=20)
        rec = best([MEMSZ, "record", "-p", str(tiny.pid), "--duration", "0",
                    "-o", data], reps=20)
        print(f"{'tiny':>9} {cat * 1e3:>8.1f}ms {rec * 1e3:>9.1f}ms "
              f"{rec / cat:>6.2f}")
    finally:
        tiny.kill()
        tiny.wait()
    for gib in (1, 2, 4):
        size = gib << 30
        p = subprocess.Popen([sys.executable, "-c", PROG, str(size),
                              os.path.join(tmp, "file")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        try:
            p.stdout.readline()
            cat = best(["cat", f"/proc/{p.pid}/smaps"])
            rec = best([MEMSZ, "record", "-p", str(p.pid), "--duration",
                        "0", "-o", data])
            print(f"{gib:>7}Gi {cat * 1e3:>8.1f}ms {rec * 1e3:>9.1f}ms "
                  f"{rec / cat:>6.2f}")
        finally:
            p.stdin.close()
            p.wait()
            os.unlink(os.path.join(tmp, "file"))
    ver = best([MEMSZ, "--version"], reps=20)
    true = best(["true"], reps=20)
    print(f"start: memsz --version {ver * 1e3:.1f}ms, true "
          f"{true * 1e3:.1f}ms")
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
