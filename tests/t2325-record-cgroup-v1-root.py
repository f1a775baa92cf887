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
cgroup2 root has no memory.current): ground truth first, the kernel's
own relation usage_in_bytes = total_cache + total_rss, read together
(within 1 %). `record -G /sys/fs/cgroup/memory --duration 0`, `report
--by files`: no "[kernel memory]" row, no note that the pages exceed the
charge by more than half the root's kernel memory (the machine's
processes touch memory meanwhile), and the CHARGE column sums to
usage_in_bytes read before and after the recording, within half the
kernel memory (every process of the machine runs meanwhile).
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


def usage():
    return lib.read_int(os.path.join(ROOT, "memory.usage_in_bytes"))


def main():
    if os.geteuid() != 0:
        lib.skip("recording every process needs root")
    if not os.path.exists(os.path.join(ROOT, "memory.usage_in_bytes")):
        lib.skip("no cgroup v1 memory hierarchy")
    u = usage()
    parts = lib.memcg_stat(ROOT, "total_cache") + \
        lib.memcg_stat(ROOT, "total_rss")
    check(abs(u - parts) <= u / 100,
          f"ground truth: the root's usage_in_bytes {u} is total_cache + "
          f"total_rss {parts}")
    with tempfile.TemporaryDirectory(prefix="memsz-t2325-") as tmp:
        data = os.path.join(tmp, "root.data")
        u0 = usage()
        r = subprocess.run([MEMSZ, "record", "-G", ROOT, "--duration", "0",
                            "-o", data], capture_output=True, text=True)
        u1 = usage()
        kmem = lib.read_int(os.path.join(ROOT, "memory.kmem.usage_in_bytes"))
        if not kmem or kmem < 16 << 20:
            lib.skip_part(f"the root's kernel memory {kmem} is too small "
                          f"to tell from what moves meanwhile")
            kmem = 32 << 20
        check(r.returncode == 0, f"record -G {ROOT} exits 0")
        if r.returncode != 0:
            return
        rows = lib.report(data, "files", "-F", "rss,charge")
        text = subprocess.run([MEMSZ, "report", "-i", data, "-F",
                               "rss,charge"], capture_output=True,
                              text=True)
    total = sum(float(x["charge"]) for x in rows)
    krow = [x["charge"] for x in rows if x["files"] == "[kernel memory]"]
    check(not krow, f"no [kernel memory] row ({krow})")
    over = [ln for ln in (text.stdout + text.stderr).splitlines()
            if "exceed the charge" in ln]
    m = re.search(r"by ([0-9.]+)([KMGT]i)?", over[0]) if over else None
    excess = float(m[1]) * UNITS[m[2]] if m else 0
    check(excess < kmem / 2,
          f"the pages exceed the charge by {excess:.0f} at most (what the "
          f"machine's processes touch meanwhile), far from the kernel "
          f"memory {kmem} ({over})")
    lo, hi = min(u0, u1) - kmem / 2, max(u0, u1) + kmem / 2
    check(lo <= total <= hi, f"CHARGE sums to {total:.0f}, usage_in_bytes "
          f"{u0}..{u1} within half the kernel memory")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
