#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3336: when the pages a -G recording's processes map exceed the
cgroup's charge recorded after them, the note says why as it is: the
counters are of a later moment than the snapshots (memory freed in
between), and memory.stat lags. It said that "anonymous pages charged
before a process joined the cgroup are taken as its own", which a
recording with page frame numbers never does: each page's cgroup is read
from /proc/kpagecgroup, and such pages are "[charged elsewhere]".

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) holds a python3 process holding 32 MiB of
anonymous memory. `record -G CG --duration 0`; then the charge of every
CGROUP record of CG (its usage field) is lowered to 1 MiB, as if the
processes had freed the rest before the counters were read (the record
checksums made again). `report` has one note that the pages exceed the
charge, naming the cgroup's counters read after the snapshots and
memory.stat's lag, and saying nothing of pages taken as a process's
own.
"""
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 32 << 20
CGROUP = 17     # record type (memsz-data(5))
F_TARGET = 4    # its flag: the -G cgroup's counters
LOWERED = 1 << 20


def lower_usage(path):
    """Sets the usage of the target CGROUP records of the recording at
    path to LOWERED; returns how many it changed."""
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    n = 0
    for off, rtype, _ in lib.md_records(raw):
        # payload at off + 16: time, pid, version, flags, nstats, ino,
        # usage (memsz-data(5))
        flags = struct.unpack_from("<I", raw, off + 16 + 16)[0]
        if rtype == CGROUP and flags & F_TARGET:
            struct.pack_into("<Q", raw, off + 16 + 32, LOWERED)
            n += 1
    lib.md_fix_checksums(raw)
    with open(path, "wb") as f:
        f.write(raw)
    return n


def run(tmp, cg):
    w = lib.start_in_cgroup(lib.ANON_HOLDER, cg, SIZE)
    try:
        lib.workload_ready(w, "the holder")
        data = os.path.join(tmp, "g.data")
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "-o", data], capture_output=True, text=True)
    finally:
        w.kill()
        w.wait()
    check(r.returncode == 0, f"record -G exits 0 ({r.stderr.strip()})")
    check(lower_usage(data) > 0, "the -G cgroup's charge lowered to 1 MiB "
          "in its CGROUP records")
    out = subprocess.run([MEMSZ, "report", "-i", data, "-F", "charge"],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"report exits 0 ({out.stderr.strip()})")
    note = [ln for ln in out.stdout.splitlines() if "exceed the charge" in ln]
    if "without page frame numbers" in out.stdout:
        lib.skip("recorded without page frame numbers: the other note")
    check(len(note) == 1, f"a note says the pages exceed the charge "
          f"({note})")
    said = note[0] if note else ""
    check("cgroup's counters, read after the snapshots" in said and
          "memory.stat can lag" in said,
          f"it names the counters of a later moment and memory.stat's lag "
          f"({said})")
    check("taken as its own" not in said,
          f"it says no page is taken as a process's own ({said})")


if __name__ == "__main__":
    lib.cgroup_test("t3336", run)
    sys.exit(lib.finish())
