#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3100: `memsz report --by callers` on fault samples of a known workload.

tests/workloads/rep_fault_paths.c, built here with -O2 -fomit-frame-pointer
-fasynchronous-unwind-tables (no frame pointers: only DWARF CFI unwinds
it), makes memory resident from three call paths (alloc_a -> touch,
alloc_b -> touch, alloc_c -> memset) and stops itself. While it is
stopped the test reads the kernel's /proc/PID/smaps: the Rss of the VMA
holding each buffer is the ground truth. Then, recorded with
`memsz record --faults`:
 - every path's pages (the stacks through main;alloc_X) sum to that Rss;
 - all of them but a couple of allocator pages (malloc's chunk header) are
   under exactly main;alloc_X;touch (or ;memset...), the rest under frames
   called from alloc_X other than touch (the allocator's), which own at
   most a few anonymous pages (heap set-up);
 - faultsite names the first frame past the C library's memory routines
   and malloc: alloc_c for the memset path (its whole Rss), touch for the
   others; with --skip-frames '' the innermost frame (memset's);
   --format folded prints the same numbers as "a;b;c bytes" lines.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import (  # noqa: E402
    MEMSZ, PAGE, SRCDIR, check, report, smaps_vmas)


def vma_rss(pid, addr):
    """Rss of the VMA of pid holding addr, from smaps."""
    rss = None
    for v in smaps_vmas(pid):
        if v["start"] <= addr < v["end"] and "Rss" in v:
            rss = v["Rss"]
    return rss


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
    help_ = subprocess.run([MEMSZ, "record", "--help"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True).stdout
    if "--faults" not in help_:
        lib.fail("memsz record has no --faults")
    with tempfile.TemporaryDirectory(prefix="memsz-t3100-") as tmp:
        exe = os.path.join(tmp, "fault_paths")
        subprocess.run(["gcc", "-O2", "-fomit-frame-pointer",
                        "-fasynchronous-unwind-tables", "-o", exe,
                        os.path.join(SRCDIR, "tests/workloads",
                                     "rep_fault_paths.c")],
                       check=True)
        data = os.path.join(tmp, "memsz.data")
        argv = lib.urgent() + [MEMSZ, "record", "-o", data, "--faults",
                               "--", exe]
        rec = subprocess.Popen(argv, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        addrs = [int(x, 16) for x in rec.stdout.readline().split()]
        if len(addrs) != 3:
            rec.kill()
            err = rec.communicate()[1]
            if "perf" in err or "permission" in err.lower():
                lib.skip("cannot sample page faults: " + err.strip())
            check(False, "workload printed its buffers: " + err.strip())
            return
        kids = lib.children(rec.pid)
        check(len(kids) == 1, "one workload process")
        pid = kids[0]
        lib.wait_stopped(pid)
        truth = [vma_rss(pid, a) for a in addrs]
        out, err = lib.resume(rec, pid)
        check(rec.returncode == 0, "record exits 0: " + err.strip())
        check(" 0 lost" in err or "(0 lost)" in err,
              "no sample lost: " + err.strip())

        rows = report(data, "callers")
        by = {r["callers"]: int(r["rss"]) for r in rows}
        mrows = report(data, "mappings,callers")
        # anonymous memory only: the allocator's code pages (file pages
        # of libc its faults brought in) are charged to it too
        anon = {}
        for r in report(data, "kinds,callers"):
            if r["kinds"] in ("heap", "anon"):
                anon[r["callers"]] = anon.get(r["callers"], 0) + \
                    int(r["rss"])
        for name, leaf, want, addr in zip(("alloc_a", "alloc_b", "alloc_c"),
                                          ("touch", "touch", "memset"),
                                          truth, addrs):
            key = "main;" + name + ";"
            inside = {}
            for r in mrows:
                s, e = (int(x, 16) for x in
                        r["mappings"].split()[0].split("-"))
                if s <= addr < e and int(r["rss"]):
                    inside[r["callers"]] = int(r["rss"])
            total = sum(inside.values())
            check(total == want and all(key in k for k in inside),
                  f"{name}: its VMA's Rss ({want}) is all charged to "
                  f"stacks through main;{name} ({total}: {inside})")

            def is_leaf(k):
                f = k.split(key, 1)[1].split(";")[0]
                # memset is an IFUNC: __memset_avx2_... with libc's
                # symbols, [libc.so.6] without them
                return leaf in f or (leaf == "memset" and f == "[libc.so.6]")
            main_path = {k: v for k, v in inside.items() if is_leaf(k)}
            mp = sum(main_path.values())
            check(len(main_path) == 1 and want - 2 * PAGE <= mp <= want,
                  f"{name}: main;{name};{leaf} holds all but the "
                  f"allocator's pages ({mp} of {want}, "
                  f"{len(main_path)} stack(s))")
            alloc = {k: v for k, v in anon.items()
                     if key in k and not is_leaf(k) and v}
            check(sum(alloc.values()) <= 4 * PAGE and
                  all(k.split(key, 1)[1] for k in alloc),
                  f"{name}: the allocator's own pages "
                  f"({sum(alloc.values())}) are under frames called from "
                  f"{name}: {sorted(alloc)}")
            check(not any(k.endswith(";" + name) for k in by),
                  f"{name}: no page charged to {name} itself")

        none = by.get("[no fault seen]", 0)
        check(none > 0, "pages resident before sampling began are "
              "[no fault seen]")

        sites = {r["faultsite"]: int(r["rss"])
                 for r in report(data, "faultsite")}
        check(sites.get("touch", 0) == sum(
            v for k, v in by.items() if k.endswith(";touch")),
            "faultsite touch == sum of the stacks ending in touch")
        c_all = sum(v for k, v in by.items() if "main;alloc_c;" in k)
        check(sites.get("alloc_c", 0) >= truth[2] and
              sites.get("alloc_c", 0) == c_all,
              f"faultsite alloc_c: past memset and malloc, the Rss of "
              f"alloc_c's VMA ({truth[2]}) and all its stacks' "
              f"({c_all}): {sites.get('alloc_c', 0)}")
        # the routines themselves (memset and its ifunc variants, the
        # allocator's entry points and internals), not any name holding
        # the word: ld.so's __rtld_malloc_init_stubs faults at start-up
        mem = re.compile(r"(__libc_|__)?(memset|malloc|calloc|realloc|"
                         r"_int_malloc|_int_realloc|sysmalloc)\b|__memset_")
        check(not any(mem.match(k) for k in sites),
              f"faultsite: no memset or malloc frame: {sorted(sites)}")
        raw = {r["faultsite"]: int(r["rss"])
               for r in report(data, "faultsite", "--skip-frames", "")}
        check("alloc_c" not in raw and
              any("memset" in k or k == "[libc.so.6]" for k in raw),
              f"--skip-frames '': the innermost frame: {sorted(raw)}")

        folded = subprocess.run([MEMSZ, "report", "-i", data, "--by",
                                 "callers", "--format", "folded"],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True,
                                check=True).stdout
        fl = {}
        for line in folded.splitlines():
            stack, _, n = line.rpartition(" ")
            fl[stack] = int(n)
        check(fl == {k: v for k, v in by.items() if v},
              "--format folded: the same stacks and bytes as csv")


main()
sys.exit(lib.finish())
