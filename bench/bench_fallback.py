#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How much `memsz size` leaves unexplained, and what --disasm costs.

For each file and key (symbols, compileunits), with and without --disasm,
prints the share of VM SIZE under fallback labels (the footer's figure),
the bytes of .rodata no label explains, the CPU time (user + sys, best of
RUNS: wall time is meaningless on a shared machine) and the ratio of the
--disasm run to the plain one. Also counts the rows of --by symbols whose
name c++filt would still change (names left mangled). Uses memsz and
binutils' c++filt only.

Files: the arguments, or node, libLLVM-14, libjvm (OpenJDK 17) and libc
(its libc6-dbg debug file makes compileunits meaningful).
"""
import csv
import io
import os
import re
import subprocess
import sys

MEMSZ = os.environ.get("MEMSZ", "./memsz")
RUNS = int(os.environ.get("RUNS", "2"))
FILES = sys.argv[1:] or [
    "/usr/bin/node",
    "/usr/lib/llvm-14/lib/libLLVM-14.so.1",
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so",
    "/usr/lib/x86_64-linux-gnu/libc.so.6"]


def run(args):
    """(stdout, stderr, best user+sys seconds over RUNS)."""
    best, out, err = None, "", ""
    for _ in range(RUNS):
        before = os.times()
        p = subprocess.run(args, capture_output=True, text=True)
        after = os.times()
        if p.returncode:
            raise SystemExit("failed: %s: %s" % (" ".join(args), p.stderr))
        cpu = (after.children_user - before.children_user +
               after.children_system - before.children_system)
        best = cpu if best is None else min(best, cpu)
        out, err = p.stdout, p.stderr
    return out, err, best


def fallback_vm(err, key):
    m = re.search(r"%s: \d+ bytes \([\d.]+%%\) of FILE SIZE, (\d+) "
                  r"\(([\d.]+)%%\) of VM SIZE under fallback" % key, err)
    return (int(m.group(1)), float(m.group(2))) if m else (None, None)


def still_mangled(rows):
    names = [r["symbols"] for r in rows
             if r["symbols"].startswith(("_Z", "_R"))]
    if not names:
        return 0
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n",
                         capture_output=True, text=True).stdout.split("\n")
    return sum(1 for a, b in zip(names, out) if a != b)


print("%-18s %-13s %-8s %8s %10s %12s %8s %6s" % (
    "file", "key", "disasm", "fb VM %", "fb VM B", ".rodata fb",
    "cpu s", "ratio"))
for f in FILES:
    if not os.path.exists(f):
        print("# %s: not on this machine" % f)
        continue
    name = os.path.basename(f)
    for key in ("symbols", "compileunits"):
        base = None
        for disasm in (False, True):
            extra = ["--disasm"] if disasm else ["--no-disasm"]
            out, err, cpu = run([MEMSZ, "size", *extra, "--by",
                                 "sections," + key, "-n", "0", "--format",
                                 "csv", f])
            rows = list(csv.DictReader(io.StringIO(out)))
            ro = sum(int(r["vm_size"]) for r in rows
                     if r["sections"] == ".rodata" and
                     r[key] == "[section .rodata]")
            _, ferr, cpu1 = run([MEMSZ, "size", *extra, "--by", key,
                                 "-n", "0", "--format", "csv", f])
            fb_b, fb_p = fallback_vm(ferr, key)
            base = cpu1 if base is None else base
            print("%-18s %-13s %-8s %8s %10s %12d %8.2f %6.1f" % (
                name[:18], key, "yes" if disasm else "no",
                "%.1f" % fb_p if fb_p is not None else "-",
                fb_b if fb_b is not None else "-", ro, cpu1,
                cpu1 / base if base else 0))
    out, _, _ = run([MEMSZ, "size", "--by", "symbols", "-n", "0",
                     "--format", "csv", f])
    print("%-18s rows still mangled (c++filt changes them): %d" % (
        name[:18], still_mangled(list(csv.DictReader(io.StringIO(out))))))
