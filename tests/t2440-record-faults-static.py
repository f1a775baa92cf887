#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2440: fault stacks of static executables, which have no .eh_frame_hdr.

gcc -static does not ask ld for .eh_frame_hdr (no PT_GNU_EH_FRAME): the
unwinder must search .eh_frame itself, or it falls back on guessing frame
pointers (a leaf without a frame then loses its caller, and code built
without frame pointers unwinds into garbage such as "[stack];alloc_a").
tests/workloads/rep_stack_known.c touches, in main and 4 threads, a known
number of pages of a fresh mapping each through main|thr -> f -> g ->
alloc_a, and stops. Built static with and without frame pointers (and, as
the reference, as a PIE), recorded with `memsz record --faults`:
 - each buffer's VMA Rss in smaps (read while the workload is stopped) is
   the count the workload printed, and memsz charges exactly that to one
   stack;
 - that stack ends in main;f;g;alloc_a (the buffer of main) or
   thr;f;g;alloc_a (the threads'), names that nm finds in the executable.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check, report  # noqa: E402

NBUF = 5


def record(tmp, exe):
    """(data, [(addr, pages touched, smaps Rss)]) of a run of exe."""
    data = exe + ".data"
    rec = subprocess.Popen(lib.urgent() + [MEMSZ, "record", "-o", data,
                                           "--faults", "--", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    bufs = []
    for _ in range(NBUF):
        line = rec.stdout.readline().split()
        if len(line) != 2:
            rec.kill()
            err = rec.communicate()[1]
            if "perf" in err or "permission" in err.lower():
                lib.skip("cannot sample page faults: " + err.strip())
            lib.fail("workload printed its buffers: " + err.strip())
        bufs.append((int(line[0], 16), int(line[1]) - 1))
    pid = lib.children(rec.pid)[0]
    lib.wait_stopped(pid)
    rss = {v["start"]: v.get("Rss") for v in lib.smaps_vmas(pid)}
    out, err = lib.resume(rec, pid)
    check(rec.returncode == 0, f"{exe}: record exits 0: {err.strip()}")
    return data, [(a, n, rss.get(a)) for a, n in bufs]


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
    src = os.path.join(SRCDIR, "tests/workloads", "rep_stack_known.c")
    with tempfile.TemporaryDirectory(prefix="memsz-t2440-") as tmp:
        builds = {"pie": ["-fomit-frame-pointer"],
                  "static": ["-fomit-frame-pointer", "-static"],
                  "static-fp": ["-fno-omit-frame-pointer", "-static"]}
        for name, flags in builds.items():
            exe = os.path.join(tmp, name)
            if subprocess.run(["gcc", "-O2", "-pthread", *flags, "-o", exe,
                               src]).returncode:
                lib.skip_part(f"cannot build {name} ({flags})")
                continue
            phdrs = subprocess.run(["readelf", "-lW", exe], text=True,
                                   stdout=subprocess.PIPE).stdout
            if "static" in name and "GNU_EH_FRAME" in phdrs:
                lib.skip_part(f"{name}: this toolchain adds .eh_frame_hdr")
            syms = subprocess.run(["nm", exe], text=True,
                                  stdout=subprocess.PIPE).stdout.split()
            check(all(s in syms for s in ("main", "f", "g", "alloc_a",
                                          "thr")),
                  f"{name}: nm names main, thr, f, g and alloc_a")
            data, bufs = record(tmp, exe)
            rows = report(data, "mappings,callers")
            for i, (addr, n, rss) in enumerate(bufs):
                got = {}
                for r in rows:
                    s, e = (int(x, 16) for x in
                            r["mappings"].split()[0].split("-"))
                    if s <= addr < e and int(r["rss"]):
                        got[r["callers"]] = got.get(r["callers"], 0) + \
                            int(r["rss"])
                check(rss == n * PAGE,
                      f"{name}: buffer {i}: smaps Rss {rss} is the "
                      f"{n} pages touched")
                want = ("main" if i == 0 else "thr") + ";f;g;alloc_a"
                ok = (len(got) == 1 and
                      list(got.values())[0] == n * PAGE and
                      (list(got)[0] + ";").endswith(";" + want + ";"))
                check(ok, f"{name}: buffer {i}: its {n} pages all under "
                      f"one stack ending in {want}: {got}")


main()
sys.exit(lib.finish())
