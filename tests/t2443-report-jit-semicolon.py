#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2443: a JIT frame whose name holds ';' stays one frame.

Fault stacks are frames joined by ';' (the callers key, folded stacks,
flame graphs). JVM perf map agents name methods by class descriptors,
"Ljava/lang/String;::hashCode": such a name must not become two frames.
tests/workloads/rep_jit_semicolon.c copies a page-touching loop into
anonymous executable memory, names it so in /tmp/perf-PID.map (the ground
truth is that line), runs it on the 64 pages of a fresh mapping and
stops. Recorded with --faults, `--by faultsite --format folded` must
give those 64 pages (smaps Rss of the mapping) to one frame, the name
with ';' made ':' (as perf's stackcollapse does), and the callers
stack must end in main and that one frame.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def folded(data, by):
    """{stack: bytes} of `memsz report --by by --format folded`."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by,
                          "--format", "folded", "-n", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        rows[stack] = rows.get(stack, 0) + int(n)
    return rows


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
    if os.uname().machine != "x86_64":
        lib.skip("the workload's JIT code is x86-64 machine code")
    with tempfile.TemporaryDirectory(prefix="memsz-t2443-") as tmp:
        exe = lib.workload(tmp, "rep_jit_semicolon")
        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.Popen(lib.urgent() + [MEMSZ, "record", "-o", data,
                                               "--faults", "--", exe],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        line = rec.stdout.readline().split()
        if len(line) != 2:
            rec.kill()
            err = rec.communicate()[1]
            if "perf" in err or "permission" in err.lower():
                lib.skip("cannot sample page faults: " + err.strip())
            lib.fail("workload printed its pid: " + err.strip())
        pid, buf = int(line[0]), int(line[1], 16)
        path = f"/tmp/perf-{pid}.map"
        try:
            lib.wait_stopped(pid)
            name = lib.perf_map(pid)[0][2]
            rss = [v["Rss"] for v in lib.smaps_vmas(pid)
                   if v["start"] == buf]
            out, err = lib.resume(rec, pid)
        finally:
            if os.path.exists(path):
                os.unlink(path)
        check(rec.returncode == 0, "record exits 0: " + err.strip())
        check(";" in name, f"the map names the code with a ';': {name}")
        frame = name.replace(";", ":")
        sites = folded(data, "faultsite")
        check(rss and sites.get(frame, 0) == rss[0],
              f"faultsite: the mapping's Rss ({rss}) under the one frame "
              f"{frame!r}: {sites.get(frame)} "
              f"(top: {sorted(sites, key=sites.get)[-3:]})")
        stacks = folded(data, "callers")
        mine = {k: v for k, v in stacks.items() if "java" in k}
        check(mine and all(k.endswith(";main;" + frame) for k in mine),
              f"callers: stacks end in main;{frame}: {mine}")


main()
sys.exit(lib.finish())
