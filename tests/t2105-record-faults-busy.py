#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2105: `memsz record --faults` loses nothing on a busy machine.

tests/workloads/fault_threads.c, built here without frame pointers, starts
NT threads together, each touching its own fresh 48 MiB mapping from its
own function touch_N (one fault per page), while a CPU-bound process runs
on every cpu (the hogs end with the test, and by themselves after 300 s).
memsz competes for the cpus with both: when it falls behind, backpressure
holds the workload instead of letting the kernel drop samples. Then, with
default settings:
 - the summary line says 0 lost, and `memsz dump` has no LOST record;
 - the Rss of each thread's mapping (the kernel's /proc/PID/smaps, read
   while the workload is stopped) is charged, all of it, to that thread's
   own function under --by mappings,faultsite, and to no other function.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import (  # noqa: E402
    MEMSZ, check, report, smaps_vmas)

NT = 4
MIB = 48
HOG = ("import time\n"
       "end = time.monotonic() + 300\n"
       "while time.monotonic() < end:\n"
       "    pass\n")


def vma(pid, addr):
    """(start, end, Rss) of the VMA of pid holding addr, from smaps."""
    for v in smaps_vmas(pid):
        if v["start"] <= addr < v["end"]:
            return v["start"], v["end"], v.get("Rss")
    return None


def main():
    hogs = []
    with tempfile.TemporaryDirectory(prefix="memsz-t2105-") as tmp:
        exe = lib.workload(tmp, "fault_threads", "-fomit-frame-pointer",
                           "-fasynchronous-unwind-tables", "-pthread")
        data = os.path.join(tmp, "memsz.data")
        try:
            for _ in range(os.cpu_count() or 1):
                hogs.append(subprocess.Popen([sys.executable, "-c", HOG]))
            # every fault counted: memsz at nice -20 (its workload and the
            # hogs at the default), backpressure for what it still misses
            rec = subprocess.Popen(lib.urgent() +
                                   [MEMSZ, "record", "--faults", "-o", data,
                                    "--", exe, str(NT), str(MIB)],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            addrs = []
            for _ in range(NT):
                line = rec.stdout.readline()
                if not line:
                    break
                addrs.append(int(line, 16))
            if len(addrs) != NT:
                rec.kill()
                err = rec.communicate()[1]
                if "not permitted" in err:
                    lib.skip("cannot sample page faults: " + err.strip())
                check(False, "workload printed its mappings: " + err)
                return
            # it stops itself right after printing
            pid = lib.stopped_child(rec.pid)
            truth = [vma(pid, a) for a in addrs]
            out, err = lib.resume(rec, pid, guard=300)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        check(rec.returncode == 0, "record exits 0: " + err.strip())
        check("(0 lost)" in err, "summary: 0 lost: " + err.strip())
        dump = subprocess.run([MEMSZ, "dump", "-i", data],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout
        nsamples = dump.count(" SAMPLE ")
        check(" LOST " not in dump,
              f"no LOST record ({nsamples} samples)")
        check(nsamples >= NT * (MIB << 8),
              f"a sample per page at least ({nsamples} >= "
              f"{NT * (MIB << 8)})")

        rows = report(data, "mappings,faultsite")
        for i, (s, e, rss) in enumerate(truth):
            mine = {}
            for r in rows:
                ms, me = (int(x, 16) for x in
                          r["mappings"].split()[0].split("-"))
                if ms == s and me == e and int(r["rss"]):
                    mine[r["faultsite"]] = int(r["rss"])
            check(mine == {f"touch_{i}": rss},
                  f"thread {i}: its mapping's Rss ({rss}) is all charged "
                  f"to touch_{i}: {mine}")


main()
sys.exit(lib.finish())
