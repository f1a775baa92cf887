#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2441: a perf map larger than one read, and a line longer than one.

memsz reads /tmp/perf-PID.map in reads of 16 MiB, to at most 256 MiB. A
JIT that writes its whole map at once (a JVM with DumpPerfMapAtExit, at
its exit) may leave more than 16 MiB for one read: every line of it must
reach the recording, not just the first 16 MiB. A line longer than one read
(the file is its writer's) must not hold back the lines after it.

The workload (python) writes a map of "before", a 17 MiB line, 600 000
symbols (about 22 MiB) and "after", then stops itself; once it runs on
and exits, the JITMAP records (`memsz dump -v`) must hold every line of
the map that parses as START SIZE NAME, and nothing of the long line.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NSYMS = 600000
LONG = 17 << 20

WORKLOAD = f"""
import os, signal
pid = os.getpid()
with open(f"/tmp/perf-{{pid}}.map", "w") as f:
    f.write("1000 10 before\\n")
    f.write("2000 10 " + "x" * {LONG} + "\\n")
    for i in range({NSYMS}):
        f.write("%x 10 sym_%d_0123456789abcdef\\n" % (0x100000 + i * 16, i))
    f.write("3000 10 after\\n")
print(pid, flush=True)
os.kill(pid, signal.SIGSTOP)
"""


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2441-") as tmp:
        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--",
                                sys.executable, "-c", WORKLOAD],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        pid = int(rec.stdout.readline())
        path = f"/tmp/perf-{pid}.map"
        try:
            lib.wait_stopped(pid)
            truth = {(0x1000, 0x10, "before"), (0x3000, 0x10, "after")}
            truth |= {(0x100000 + i * 16, 0x10, f"sym_{i}_0123456789abcdef")
                      for i in range(NSYMS)}
            check(os.path.getsize(path) > 2 * (16 << 20),
                  "the map is larger than two reads of 16 MiB")
            out, err = lib.resume(rec, pid)
        finally:
            if os.path.exists(path):
                os.unlink(path)
        check(rec.returncode == 0, "record exits 0: " + err.strip())
        nrecs, got = lib.jitmap_syms(data, pid)
        missing = truth - got
        check(not missing,
              f"JITMAP records hold every symbol of the map ({len(got)} "
              f"of {len(truth)}; e.g. missing {sorted(missing)[:2]})")
        check(not any(s[0] == 0x2000 for s in got),
              "nothing of the line longer than a read")


main()
sys.exit(lib.finish())
