#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2325: `record -G` of cgroup v1's root memory cgroup: its
memory.usage_in_bytes is not a page counter but the sum of its page
cache and anonymous memory (memory.stat total_cache + total_rss: the
kernel never charges the root), so kernel memory is no part of it. The
report added "[kernel memory]" (memory.kmem.usage_in_bytes) all the same,
and its CHARGE went past the charge by that much, with a note blaming
memory.stat's lag.

As root, where v1's memory hierarchy is mounted (skipped elsewhere: a
cgroup2 root has no memory.current): `record -G /sys/fs/cgroup/memory
--duration 0`. Ground truth, from the recording's CGROUP records of the
root (`memsz dump -v`), the kernel's own relation usage_in_bytes =
total_cache + total_rss (within 1 %, in one record at least: memsz
reads the two files moments apart). `report --by files`: no "[kernel
memory]" row, and the CHARGE column sums to the usage of the root's last
CGROUP record plus what a note says the pages exceed the charge by (a
[kernel memory] row without its name would show there). Only values of
the recording are compared: the machine's load cannot move them.
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

ROOT = lib.V1_MEMORY
UNITS = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}


def root_records(data):
    """(usage, kmem, total_cache + total_rss) of each CGROUP record of
    the -G root in data (`memsz dump -v`)."""
    return [(r["usage"], r["kmem"], r["stats"].get("total_cache", 0)
             + r["stats"].get("total_rss", 0))
            for r in lib.cgroup_targets(data)
            if r["version"] == 1 and r["ino"] == 1]


def main():
    if os.geteuid() != 0:
        lib.skip("recording every process needs root")
    if not os.path.exists(os.path.join(ROOT, "memory.usage_in_bytes")):
        lib.skip("no cgroup v1 memory hierarchy")
    with tempfile.TemporaryDirectory(prefix="memsz-t2325-") as tmp:
        data = os.path.join(tmp, "root.data")
        r = subprocess.run([MEMSZ, "record", "-G", ROOT, "--duration", "0",
                            "-o", data], capture_output=True, text=True)
        check(r.returncode == 0, f"record -G {ROOT} exits 0")
        if r.returncode != 0:
            return
        recs = root_records(data)
        rows = lib.report(data, "files", "-F", "rss,charge")
        text = subprocess.run([MEMSZ, "report", "-i", data, "-F",
                               "rss,charge"], capture_output=True,
                              text=True)
    if not recs:
        check(False, "the recording has CGROUP records of the root")
        return
    near = [u for u, _, parts in recs if abs(u - parts) <= u / 100]
    check(near, f"ground truth: a recorded usage_in_bytes is total_cache + "
          f"total_rss ({len(near)} of {len(recs)}; last "
          f"{recs[-1][0]}, {recs[-1][2]})")
    usage, kmem = recs[-1][0], recs[-1][1]
    if not kmem:
        lib.skip_part("the root's recorded kernel memory is 0: no row "
                      "would show it")
    total = sum(float(x["charge"]) for x in rows)
    krow = [x["charge"] for x in rows if x["files"] == "[kernel memory]"]
    check(not krow, f"no [kernel memory] row ({krow}; recorded kmem "
          f"{kmem})")
    over = [ln for ln in (text.stdout + text.stderr).splitlines()
            if "exceed the charge" in ln]
    m = re.search(r"by ([0-9.]+)([KMGT]i)?", over[0]) if over else None
    excess = float(m[1]) * UNITS[m[2]] if m else 0
    # the note's excess is printed with 3 significant digits
    slack = excess / 100 + 4096
    check(abs(total - (usage + excess)) <= slack,
          f"CHARGE sums to {total:.0f}: the last recorded usage {usage} "
          f"plus the excess a note states {excess:.0f} ({over}), not "
          f"plus the kernel memory {kmem}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
