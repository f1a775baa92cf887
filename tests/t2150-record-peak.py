#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2150: the peak of a launched command, without --interval. python3
allocates a 50 MB bytearray (memset page by page) and frees it before it
exits, so neither the start nor the at-exit snapshot holds it: the
growth snapshots, woken by the kernel's page-fault counter, must. The
peak snapshot (report --snapshot peak) must hold >= 90 % of the process's
peak RSS as the kernel tracks it (VmHWM, recorded with each snapshot), and
with --faults the ~48 MB must be charged to the memset stack. The
summary line counts as many snapshots that held the target as the file
has growth snapshots, and no snapshot follows the at-exit one.

A process that keeps growing while a one-shot reads its pages (nothing
holds it): the VmHWM the snapshot records must hold every page it
counted (the kernel's peak is never below the RSS at any moment after
the pages were found). memsz read VmHWM before the pages once, and such
a snapshot held more than the peak it recorded.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
CMD = ["/usr/bin/python3", "-c", "x = bytearray(50_000_000)"]
BUF = 50_000_000
# touches a page of a fresh 1 GiB mapping, one after another, once a
# line arrives on stdin; says "ready" before, "growing" 4 MiB in and
# "done" after
GROWER = """
import mmap, sys
m = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
print("ready", flush=True)
sys.stdin.readline()
for off in range(0, 1 << 30, 4096):
    m[off] = 1
    if off == 4 << 20:
        print("growing", flush=True)
print("done", flush=True)
sys.stdin.readline()
"""


def check_growing(tmp):
    """One-shots of a growing process: snapshot RSS <= its VmHWM."""
    p = subprocess.Popen(["/usr/bin/python3", "-c", GROWER],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        check(p.stdout.readline().strip() == "ready", "the grower is ready")
        p.stdin.write("go\n")
        p.stdin.flush()
        check(p.stdout.readline().strip() == "growing", "it grows")
        datas = [os.path.join(tmp, f"grow{i}.data") for i in range(3)]
        for data in datas:
            subprocess.run([MEMSZ, "record", "-p", str(p.pid), "--duration",
                            "0", "-o", data], check=True,
                           stderr=subprocess.DEVNULL)
        check(p.stdout.readline().strip() == "done", "the grower is done")
    finally:
        p.kill()
        p.wait()
    for data in datas:
        dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                              capture_output=True, text=True).stdout
        hwm = [int(line.split("vm_hwm ")[1].split()[0])
               for line in dump.splitlines()
               if "SNAP_END" in line and "vm_hwm" in line]
        rss = int(lib.report(data, "pids")[0]["rss"])
        check(len(hwm) == 1 and rss <= hwm[0],
              f"a growing process: snapshot RSS {rss} <= its VmHWM {hwm}")


def record(data, *opts):
    err = subprocess.run([MEMSZ, "record", "-o", data, *opts, "--", *CMD],
                         check=True, stderr=subprocess.PIPE,
                         text=True).stderr
    dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                          capture_output=True, text=True).stdout
    hwm = [int(line.split("vm_hwm ")[1].split()[0])
           for line in dump.splitlines()
           if "SNAP_END" in line and "vm_hwm" in line]
    snaps = [line for line in dump.splitlines() if "SNAP_BEGIN" in line]
    # the summary counts the snapshots that held the target: without
    # --freeze, the growth snapshots
    m = re.search(r" [\d.]+ s \((\d+) snapshots\) \]$", err.strip())
    growth = sum("growth" in s for s in snaps)
    # a growth snapshot whose stop meets the exit is not taken after the
    # exit snapshot (the memory is being torn down by then)
    check(snaps and "at-exit" in snaps[-1],
          f"the at-exit snapshot is the last ({snaps[-1] if snaps else ''})")
    check(m is not None and int(m.group(1)) == growth,
          f"summary: {m.group(1) if m else 'no'} snapshots held the target,"
          f" {growth} growth snapshots in the file")
    return max(hwm, default=0), snaps


def main():
    if not os.access(CMD[0], os.X_OK):
        lib.skip(f"no {CMD[0]}")
    with tempfile.TemporaryDirectory(prefix="memsz-t2150.") as tmp:
        # memsz is woken by the kernel but must get a cpu to stop the
        # target: on a machine loaded far beyond its cpus a run can miss
        # the peak (the footer then says so). Up to three runs.
        for attempt in range(3):
            data = os.path.join(tmp, f"p{attempt}.data")
            hwm, snaps = record(data)
            peak = lib.report(data, "pids", "--snapshot", "peak")
            if int(peak[0]["rss"]) >= 0.9 * hwm:
                break
        check(hwm > BUF, f"VmHWM {hwm} holds the buffer")
        check(any("growth" in s for s in snaps),
              f"growth snapshots taken ({len(snaps)} snapshots)")
        first = lib.report(data, "pids", "--snapshot", "first")
        last = lib.report(data, "pids", "--snapshot", "last")
        peak = lib.report(data, "pids", "--snapshot", "peak")
        rss = int(peak[0]["rss"])
        check(int(first[0]["rss"]) < BUF / 4 and int(last[0]["rss"]) < BUF / 4,
              f"start ({first[0]['rss']}) and at-exit ({last[0]['rss']}) "
              f"snapshots miss the buffer")
        check(rss >= 0.9 * hwm,
              f"peak snapshot RSS {rss} >= 90 % of VmHWM {hwm} "
              f"({100.0 * rss / hwm:.1f} %, run {attempt + 1})")

        out = subprocess.run([MEMSZ, "report", "-i", data, "--by", "pids"],
                             capture_output=True, text=True)
        want = f"peak RSS {hwm / 1048576:.1f} MiB (kernel VmHWM), " \
               f"highest snapshot {rss / 1048576:.1f} MiB"
        check(want in out.stdout + out.stderr,
              f"the footer says '{want}'")

        check_growing(tmp)

        # sampling every fault with its stack slows the target and memsz
        # both: on a loaded machine the peak snapshot may hold a little
        # less of the buffer than without --faults, or miss the peak as
        # above. Up to three runs.
        for attempt in range(3):
            data = os.path.join(tmp, f"f{attempt}.data")
            hwm, snaps = record(data, "--faults")
            rows = lib.report(data, "callers", "--snapshot", "peak")
            memset = sum(int(r["rss"]) for r in rows
                         if r["callers"].split(";")[-1].startswith(
                             ("memset", "__memset")))
            if memset >= 0.85 * BUF:
                break
        check(memset >= 0.85 * BUF,
              f"--faults: {memset} bytes charged to memset "
              f"(>= 85 % of {BUF}, run {attempt + 1})")
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
