#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark the DWARF keys: `memsz size --by compileunits` (and inlines)
on libc.so.6 with its libc6-dbg debug file, beside `eu-readelf
--debug-dump=aranges` and `eu-readelf --debug-dump=info` on the debug file (elfutils
decoding the same DWARF); and `memsz size --by symbols` on /usr/bin/node
beside `eu-readelf -s`. Prints wall time (best of RUNS) and peak RSS of
each command, and memsz's ratio to the baseline. Asserts nothing.
"""
import os
import subprocess
import sys

import benchlib

MEMSZ = os.environ.get("MEMSZ", "./memsz")
RUNS = int(os.environ.get("RUNS", "3"))
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
NODE = "/usr/bin/node"


def measure(cmd, may_fail=False):
    """Best wall time over RUNS and peak RSS (KiB) of cmd (output
    discarded); may_fail as in benchlib.measure()."""
    return benchlib.measure(cmd, RUNS, may_fail=may_fail, quiet=True)


def debug_file(path):
    out = subprocess.run(["eu-readelf", "-n", path], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            bid = line.split()[-1]
            p = "/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:])
            if os.path.exists(p):
                return p
    return None


def row(name, t, rss, base=None):
    ratio = "" if base is None else "  %.2fx time, %.2fx RSS" % (
        t / base[0], rss / base[1])
    print("  %-52s %8.3f s %9d KiB%s" % (name, t, rss, ratio))


def main():
    dbg = debug_file(LIBC) if os.path.exists(LIBC) else None
    if dbg:
        print("%s (debug file %s, %d bytes)" % (LIBC, dbg,
                                                 os.stat(dbg).st_size))
        sys.stdout.flush()
        aranges = measure(["eu-readelf", "--debug-dump=aranges", dbg], True)
        info = measure(["eu-readelf", "--debug-dump=info", dbg], True)
        row("eu-readelf --debug-dump=aranges DEBUG", *aranges)
        row("eu-readelf --debug-dump=info DEBUG", *info)
        for key in ("compileunits", "inlines", "sections,compileunits"):
            row("memsz size --by %s" % key,
                *measure([MEMSZ, "size", "--by", key, LIBC]), base=aranges)
    else:
        print("# no libc debug file (libc6-dbg): DWARF keys not measured")
    if os.path.exists(NODE):
        print(NODE)
        base = measure(["eu-readelf", "-s", NODE])
        row("eu-readelf -s", *base)
        row("memsz size --by symbols",
            *measure([MEMSZ, "size", "--by", "symbols", NODE]), base=base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
