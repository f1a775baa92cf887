#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2473: the dirty-by-mapping notes of an interval recording are one
footer line; -v lists each.

Where swap or MADV_FREE was used since boot, each snapshot counts the
anonymous pages of a mapping dirty up to smaps' dirty totals and writes
a NOTE (kind dirty-by-mapping) that says so, ~650 characters. The report
printed every one of them: a recording of 12 snapshots had 12 such
paragraphs in its footer. They are now one line that adds them up (from
the numbers the note carries, not its words), as the other notes a
snapshot writes are; -v shows each note and not that line.

A workload writes 16 MiB of anonymous memory, frees it with MADV_FREE,
reads it all back (the pages clean: smaps' Private_Clean) and writes the
first half again (dirty), then waits in a read of its stdin. memsz
records it every 200 ms for 2 s. Ground truth: the snapshots `memsz dump`
lists (SNAP_BEGIN records, N of them), and the region's VMA in smaps,
read before and after the recording (the same: the workload does not
run), whose clean bytes each snapshot counts clean. The footer must
hold one line for the N snapshots of the one process, that sums N times
those bytes, and no note of a single snapshot; -v must hold a note for
each snapshot dump lists and not the summing line.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WORKLOAD = r"""
import ctypes, mmap, sys
PG = mmap.PAGESIZE
N = (16 << 20) // PG
m = mmap.mmap(-1, N * PG, flags=mmap.MAP_PRIVATE)
for i in range(N):
    m[i * PG] = 1
m.madvise(8)  # MADV_FREE
s = 0
for i in range(N):
    s += m[i * PG]
for i in range(N // 2):
    m[i * PG] = 2
print("region %x" % ctypes.addressof(ctypes.c_char.from_buffer(m)))
print("ready", flush=True)
sys.stdin.read()
"""

SUMMARY = "counted anonymous memory clean by the dirty totals smaps"
EACH = "counted clean by the dirty totals smaps gives those mappings"


def region_clean(pid, at):
    """The bytes smaps counts clean in the VMA of pid holding at (an
    anonymous mapping: every resident page anonymous)."""
    v = [v for v in lib.smaps_vmas(pid) if v["start"] <= at < v["end"]]
    if not v:
        return None
    v = v[0]
    return v.get("Rss", 0) - v.get("Private_Dirty", 0) - \
        v.get("Shared_Dirty", 0)


def footer(data, *extra):
    """The lines of `memsz report` of data after the table."""
    out = subprocess.run([MEMSZ, "report", "-i", data, *extra], check=True,
                         capture_output=True, text=True).stdout
    return out.splitlines()


def main():
    if os.geteuid() != 0:
        lib.skip("not root: memsz record -p of another process needs "
                 "ptrace permission")
    with tempfile.TemporaryDirectory(prefix="memsz-t2473-") as tmp:
        script = os.path.join(tmp, "w.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        work = subprocess.Popen([sys.executable, script],
                                stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        try:
            regions, _ = lib.workload_ready(work)
            at = regions["region"][0]
            lib.reading_pipe(work.pid)
            before = region_clean(work.pid, at)
            if not before:
                lib.skip(f"smaps counts no clean page in the region "
                         f"after MADV_FREE ({before}): nothing to note")
            data = os.path.join(tmp, "x.data")
            lib.run_ok([MEMSZ, "record", "-o", data, "-p", str(work.pid),
                        "--interval", "200", "--duration", "2"])
            after = region_clean(work.pid, at)
        finally:
            work.stdin.close()
            work.wait()
            work.stdout.close()
        check(before == after, f"smaps' clean bytes of the region did "
              f"not change while recorded ({before} -> {after})")
        dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                              capture_output=True,
                              text=True).stdout.splitlines()
        seqs = [int(re.search(r"\bseq (\d+)", ln).group(1))
                for ln in dump if " SNAP_BEGIN " in ln]
        n = len(seqs)
        check(n >= 2, f"the recording has two snapshots or more ({n})")
        plain = footer(data)
        lines = [ln for ln in plain if SUMMARY in ln]
        check(len(lines) == 1 and
              lines[0].startswith(f"{n} snapshots of 1 process(es) "),
              f"the footer has one line for the {n} snapshots of the "
              f"process: {lines}")
        m = re.search(r": (\d+) bytes in \d+ mapping\(s\), summed",
                      lines[0] if lines else "")
        check(m and int(m.group(1)) == n * before,
              f"it sums {n} x {before} bytes smaps counts clean "
              f"({m.group(1) if m else None})")
        each = [ln for ln in plain if EACH in ln]
        check(not each, f"no note of one snapshot in the footer: "
              f"{len(each)}")
        verbose = footer(data, "-v")
        each = [ln for ln in verbose if EACH in ln]
        got = sorted(int(re.search(r"snapshot (\d+):", ln).group(1))
                     for ln in each)
        check(got == sorted(seqs), f"-v has a note for each snapshot dump "
              f"lists ({sorted(seqs)}): {got}")
        check(not [ln for ln in verbose if SUMMARY in ln],
              "-v has no summing line")
    sys.exit(lib.finish())


main()
