#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2197: --call-graph fp keeps the caller of a leaf without a frame.

The kernel's frame-pointer callchain starts at the sampled ip and walks
from rbp. A function that has not set up its frame when it faults (a leaf
built with -momit-leaf-frame-pointer, glibc's memset, a prologue not yet
run) leaves rbp as its caller's, so the chain goes ip, then the caller's
own return address: the caller is lost. perf script shows the same
(`perf record -e page-faults --call-graph fp`: alloc_a;f, no g). memsz
records the leaf's bp, sp, ip and 256 bytes of stack beside the chain and
puts the caller back from the leaf's .eh_frame.

tests/workloads/rep_stack_known.c touches, in main and 4 threads, a known
number of pages of a fresh mapping each through main|thr -> f -> g ->
alloc_a (a leaf), and stops. Built -fno-omit-frame-pointer at -O2 with
-momit-leaf-frame-pointer (objdump: alloc_a pushes no rbp; gcc 12 -O2
sets up no frame in such a leaf even without the flag) and at -O0 (every
frame set up: nothing to put back, nothing added), recorded with
`memsz record --faults --call-graph fp`:
 - each buffer's VMA Rss in smaps is the count the workload printed, and
   memsz charges exactly that to one stack ending in main;f;g;alloc_a or
   thr;f;g;alloc_a, the source's call chain (names nm finds);
 - where perf is there, its chains of the same run of the first build
   lack g (the layout really loses the caller).

tests/workloads/fp_jit.c runs JIT code (an anonymous read-write-execute
mapping: no image, no .eh_frame) that pushes a return address into
marker_fn, which nothing calls, then touches 100 pages: "framed" (frame
set up) from main;outer;call_framed, "pushed" (none) from
main;outer;call_pushed. libunwind's step without unwind info takes the
word at [rsp] for the return address: no caller may be put back from it.
Each buffer's 100 pages (smaps Rss) are under one stack without
marker_fn, ending main;outer;call_framed;LEAF and main;outer;LEAF
(call_pushed is lost with the kernel's chain, as perf loses it).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check, report  # noqa: E402

NBUF = 5


def run_stopping(argv, what, nbuf=NBUF):
    """(process, [(addr, pages touched)], smaps Rss by start) of argv
    running the workload until it stops itself; resume with lib.resume."""
    rec = subprocess.Popen(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    bufs = []
    for _ in range(nbuf):
        line = rec.stdout.readline().split()
        if len(line) != 2:
            rec.kill()
            err = rec.communicate()[1]
            if "perf" in err or "permission" in err.lower():
                lib.skip(f"{what}: cannot sample page faults: " +
                         err.strip())
            lib.fail(f"{what}: workload printed its buffers: " +
                     err.strip())
        bufs.append((int(line[0], 16), int(line[1]) - 1))
    pid = lib.children(rec.pid)[0]
    lib.wait_stopped(pid)
    rss = {v["start"]: v.get("Rss") for v in lib.smaps_vmas(pid)}
    return rec, pid, bufs, rss


def perf_chains(tmp, exe):
    """The symbol chains (innermost first) perf script shows for the
    page faults of alloc_a in a run of exe, or None without perf."""
    if not shutil.which("perf"):
        return None
    data = os.path.join(tmp, "perf.data")
    rec, pid, _, _ = run_stopping(
        ["perf", "record", "-q", "-e", "page-faults", "-c", "1",
         "--call-graph", "fp", "-o", data, "--", exe], "perf")
    _, err = lib.resume(rec, pid)
    if rec.returncode != 0:
        return None
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    chains = []
    for block in out.split("\n\n"):
        syms = [m.group(1) for m in
                re.finditer(r"^\s*[0-9a-f]+ (\S+)", block, re.M)]
        if syms and syms[0] == "alloc_a":
            chains.append(syms)
    return chains


def buffer_stacks(rows, addr):
    """{callers stack: rss} of the rows of the mapping holding addr."""
    got = {}
    for r in rows:
        s, e = (int(x, 16) for x in r["mappings"].split()[0].split("-"))
        if s <= addr < e and int(r["rss"]):
            got[r["callers"]] = got.get(r["callers"], 0) + int(r["rss"])
    return got


def jit_case(tmp):
    """JIT code without .eh_frame: no caller guessed from [rsp]."""
    exe = os.path.join(tmp, "jit")
    if subprocess.run(["gcc", "-O0", "-fno-omit-frame-pointer", "-o", exe,
                       os.path.join(SRCDIR, "tests/workloads",
                                    "fp_jit.c")]).returncode:
        lib.skip_part("cannot build fp_jit.c")
        return
    data = exe + ".data"
    rec, pid, bufs, rss = run_stopping(
        lib.urgent() + [MEMSZ, "record", "-o", data, "--faults",
                        "--call-graph", "fp", "--", exe], "jit", 2)
    _, err = lib.resume(rec, pid)
    check(rec.returncode == 0, f"jit: record exits 0: {err.strip()}")
    rows = report(data, "mappings,callers")
    for (addr, n), caller in zip(bufs, ("outer;call_framed", "outer")):
        got = buffer_stacks(rows, addr)
        check(rss.get(addr) == n * PAGE,
              f"jit: buffer {addr:#x}: smaps Rss {rss.get(addr)} is the "
              f"{n} pages touched")
        stack = list(got)[0] if len(got) == 1 else ""
        frames = stack.split(";")
        ok = (list(got.values()) == [n * PAGE] and
              "marker_fn" not in frames and
              ";".join(frames[:-1]).endswith("main;" + caller))
        check(ok, f"jit: buffer {addr:#x}: its {n} pages under one stack "
              f"main;{caller};JIT, no marker_fn: {got}")


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
    if os.uname().machine != "x86_64":
        lib.skip("the leaf's caller is put back on x86_64 only")
    src = os.path.join(SRCDIR, "tests/workloads", "rep_stack_known.c")
    with tempfile.TemporaryDirectory(prefix="memsz-t2197-") as tmp:
        # gcc 12 -O2 sets up no frame in a leaf that needs no stack, even
        # with -mno-omit-leaf-frame-pointer; -O0 sets up every frame
        builds = {"leaf-no-fp": ["-O2", "-momit-leaf-frame-pointer"],
                  "leaf-fp": ["-O0"]}
        for name, flags in builds.items():
            exe = os.path.join(tmp, name)
            if subprocess.run(["gcc", "-pthread",
                               "-fno-omit-frame-pointer", *flags, "-o", exe,
                               src]).returncode:
                lib.skip(f"cannot build {name} ({flags})")
            dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                                  exe], stdout=subprocess.PIPE,
                                 text=True).stdout
            body = dis.split("<alloc_a>:\n", 1)[-1].split("\n\n", 1)[0]
            pushes = "push   %rbp" in body
            if pushes != (name == "leaf-fp"):
                lib.skip(f"{name}: alloc_a {'pushes' if pushes else 'does not push'} "
                         "rbp with these flags")
            syms = subprocess.run(["nm", exe], text=True,
                                  stdout=subprocess.PIPE).stdout.split()
            check(all(s in syms for s in ("main", "f", "g", "alloc_a",
                                          "thr")),
                  f"{name}: nm names main, thr, f, g and alloc_a")
            if name == "leaf-no-fp":
                chains = perf_chains(tmp, exe)
                if chains is None:
                    lib.skip_part("perf: the kernel's chain not shown")
                elif not chains:
                    lib.skip_part("perf: perf script showed no chain of "
                                  "alloc_a's page faults")
                else:
                    check(all(c[1:2] == ["f"] for c in chains),
                          f"{name}: perf script: the {len(chains)} chains "
                          "of alloc_a go on with f, g lost: "
                          f"{chains[0]}")
            data = exe + ".data"
            rec, pid, bufs, rss = run_stopping(
                lib.urgent() + [MEMSZ, "record", "-o", data, "--faults",
                                "--call-graph", "fp", "--", exe], "memsz")
            _, err = lib.resume(rec, pid)
            check(rec.returncode == 0,
                  f"{name}: record exits 0: {err.strip()}")
            rows = report(data, "mappings,callers")
            for i, (addr, n) in enumerate(bufs):
                got = {}
                for r in rows:
                    s, e = (int(x, 16) for x in
                            r["mappings"].split()[0].split("-"))
                    if s <= addr < e and int(r["rss"]):
                        got[r["callers"]] = got.get(r["callers"], 0) + \
                            int(r["rss"])
                check(rss.get(addr) == n * PAGE,
                      f"{name}: buffer {i}: smaps Rss {rss.get(addr)} is "
                      f"the {n} pages touched")
                want = ("main" if i == 0 else "thr") + ";f;g;alloc_a"
                ok = (len(got) == 1 and
                      list(got.values())[0] == n * PAGE and
                      (list(got)[0] + ";").endswith(";" + want + ";"))
                check(ok, f"{name}: buffer {i}: its {n} pages all under "
                      f"one stack ending in {want}: {got}")
        jit_case(tmp)


main()
sys.exit(lib.finish())
