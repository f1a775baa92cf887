#!/usr/bin/env python3
"""Benchmark `memsz size --by symbols` on the machine's largest ELF files.

Each file is measured side by side with a baseline in the same run:
`eu-readelf -s` (elfutils, printing the whole symbol table) and, for
reference, `readelf -sW` (binutils). Prints wall time (best of N runs) and
peak RSS of each command, and the ratio memsz / eu-readelf.
"""
import os
import resource
import subprocess
import sys

import benchlib

MEMSZ = os.environ.get("MEMSZ", "./memsz")
RUNS = int(os.environ.get("RUNS", "3"))
FILES = sys.argv[1:] or ["/usr/bin/node",
                         "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
                         "/usr/lib/x86_64-linux-gnu/libc.so.6"]


def measure(cmd):
    """Best wall time over RUNS and peak RSS (KiB) of one run of cmd."""
    return benchlib.measure(cmd, RUNS)


print("%-48s %10s %10s %10s %10s %7s" % ("file / command", "wall s",
      "peak MiB", "base s", "base MiB", "ratio"))
for f in FILES:
    if not os.path.exists(f):
        print("# %s: not on this machine" % f)
        continue
    mt, mr = measure([MEMSZ, "size", "--by", "symbols", f])
    bt, br = measure(["eu-readelf", "-s", f])
    rt, rr = measure(["readelf", "-sW", f])
    name = os.path.basename(f)
    print("%-48s %10.3f %10.1f %10.3f %10.1f %7.2f" %
          ("%s: memsz size --by symbols" % name, mt, mr / 1024, bt,
           br / 1024, mt / bt))
    print("%-48s %10.3f %10.1f" % ("%s:   (readelf -sW)" % name, rt,
                                    rr / 1024))
    mt2, mr2 = measure([MEMSZ, "size", "--by", "sections,symbols", f])
    print("%-48s %10.3f %10.1f" % ("%s: memsz size --by sections,symbols"
                                    % name, mt2, mr2 / 1024))
