#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark `memsz size` on large ELF files, side by side with a baseline.

For each file and key (symbols; compileunits, and compileunits,symbols
whose share is the compile units', where the file has DWARF),
runs memsz by default (code-to-data references decoded) and with
--no-disasm, and prints CPU time (user + sys, best of RUNS: wall time
means little on a shared machine), peak RSS and the share of VM SIZE under
fallback labels (the footer's figure). The baseline, in the same run:
Bloaty (`bloaty -d KEY`) when $BLOATY names it, `bloaty` is on PATH or
it is built beside the project (/tmp/bloaty/build/bloaty, as the README
says), its fallback share counted from its rows the same way ([section
...], [LOAD ...], [ELF ...] headers, [Unmapped]; its own [...] labels
too); else `eu-readelf -s` (which names the symbols but attributes
nothing: CPU and RSS only). A file with `.dynsym` only (no `.symtab`
in it or its debug file: Bloaty reads no `.dynsym`) is measured beside
`eu-readelf -s` too, with its default key (sections) as well. The ratio
columns are memsz / baseline.

For such a file the CPU ratios against `eu-readelf -s` are also measured
interleaved, one run of each in turn (PAIRS of them, 15 unless set), and
printed as the best and the median of each: a ratio of two best-of-3 runs
taken one after the other moved by 10 % with the load of a shared
machine, the interleaved median hardly.
"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

MEMSZ = os.environ.get("MEMSZ", "./memsz")
RUNS = int(os.environ.get("RUNS", "3"))
PAIRS = int(os.environ.get("PAIRS", "15"))
BLOATY = os.environ.get("BLOATY") or shutil.which("bloaty") or next(
    (b for b in ["/tmp/bloaty/build/bloaty"] if os.access(b, os.X_OK)), None)
FILES = sys.argv[1:] or [
    "/usr/bin/node",
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"]


def measure(cmd, may_fail=False):
    """(best CPU seconds over RUNS, peak RSS MiB, output of the last run).
    GNU time measures the RSS: a child forked from this python would
    start with python's RSS, and the kernel keeps the high-water mark
    across exec. The CPU time comes from wait4() on GNU time, which counts
    its waited-for child, in microseconds (GNU time prints hundredths:
    libc's runs take a few of them)."""
    best, peak, out = None, 0, ""
    with tempfile.NamedTemporaryFile("r") as tf, \
            tempfile.TemporaryFile() as of:
        for _ in range(RUNS):
            of.seek(0)
            of.truncate()
            p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o",
                                  tf.name, *cmd], stdout=of,
                                 stderr=subprocess.STDOUT)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode and not may_fail:
                raise SystemExit("failed: %s" % " ".join(cmd))
            tf.seek(0)
            m = tf.read().split()[-1]
            cpu = ru.ru_utime + ru.ru_stime
            best = cpu if best is None else min(best, cpu)
            peak = max(peak, int(m) / 1024)
            of.seek(0)
            out = of.read().decode("utf-8", "replace")
    return best, peak, out


def cpu_of(cmd):
    """CPU seconds (user + sys) of one run of cmd, output discarded."""
    with open(os.devnull, "wb") as dn:
        p = subprocess.Popen(cmd, stdout=dn, stderr=dn)
        _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def measure_pair(cmd, base):
    """(best, median) of cmd's CPU / base's CPU over PAIRS runs of each
    taken in turn, so that both see the same load."""
    a, b = [], []
    for _ in range(PAIRS):
        a.append(cpu_of(cmd))
        b.append(cpu_of(base))
    a.sort()
    b.sort()
    return a[0] / b[0], a[len(a) // 2] / b[len(b) // 2]


def memsz_share(out, key):
    """The footer's share of VM SIZE under fallback labels for key."""
    m = re.search(r": %s: \d+ bytes \([\d.]+%%\) of FILE SIZE, \d+ "
                  r"\(([\d.]+)%%\) of VM SIZE under fallback" % key, out)
    return float(m.group(1)) if m else None


def bloaty_share(out):
    """Share of VM SIZE under Bloaty's fallback rows, from its csv."""
    total = fb = 0
    for r in csv.DictReader(io.StringIO(out)):
        name = next(iter(r.values()))
        vm = int(r.get("vmsize", 0) or 0)
        total += vm
        if name.startswith("[") or name.startswith("LOAD"):
            fb += vm
    return 100.0 * fb / total if total else None


def debug_file(path):
    """The separate debug file of path under /usr/lib/debug/.build-id
    (Bloaty looks for none: it is given with --debug-file), or None."""
    r = subprocess.run(["readelf", "-n", path], capture_output=True,
                       text=True)
    m = re.search(r"Build ID: ([0-9a-f]{4,})", r.stdout)
    if not m:
        return None
    f = "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1)[:2],
                                                  m.group(1)[2:])
    return f if os.path.exists(f) else None


def has_symtab(path):
    r = subprocess.run(["readelf", "-S", "-W", path], capture_output=True,
                       text=True)
    return ".symtab" in r.stdout


def has_dwarf(path):
    r = subprocess.run(["readelf", "-S", "-W", path], capture_output=True,
                       text=True)
    return ".debug_info" in r.stdout


def row(label, cpu, rss, share, base=None):
    s = "%-44s %8.3f %8.1f %8s" % (label, cpu, rss,
                                    "-" if share is None else
                                    "%.1f%%" % share)
    if base:
        s += " %7s %7.2f" % ("%.2f" % (cpu / base[0]) if base[0] else "-",
                             rss / base[1])
    print(s)


def bench_default(f, name):
    """`memsz size FILE` (the default key, sections) of a file with
    `.dynsym` only, beside `eu-readelf -s` (its CPU ratios interleaved,
    as for the symbols key below)."""
    c, r, _ = measure(["eu-readelf", "-s", f], may_fail=True)
    eu = (c, r)
    row("%s: eu-readelf -s" % name, c, r, None)
    c, r, _ = measure([MEMSZ, "size", f])
    row("%s (default key): memsz" % name, c, r, None, eu)
    if PAIRS:
        best, med = measure_pair([MEMSZ, "size", f], ["eu-readelf", "-s", f])
        print("  CPU / eu-readelf -s's, %d interleaved runs: "
              "best %.2f, median %.2f" % (PAIRS, best, med))


def bench_file(f):
    name = os.path.basename(f)
    keys = ["symbols"]
    dbg = debug_file(f)
    if has_dwarf(f) or (dbg and has_dwarf(dbg)):
        keys += ["compileunits", "compileunits,symbols"]
    dynsym_only = not has_symtab(f) and not (dbg and has_symtab(dbg))
    if dynsym_only:
        bench_default(f, name)
    for key in keys:
        base = None
        if key == "symbols" and dynsym_only:
            c, r, _ = measure(["eu-readelf", "-s", f], may_fail=True)
            eu = (c, r)
            row("%s: eu-readelf -s" % name, c, r, None)
        if BLOATY:
            bk = key
            c, r, out = measure([BLOATY, "-d", bk, "-n", "0", "--csv",
                                 *(["--debug-file", dbg] if dbg else []),
                                 f])
            base = (c, r)
            row("%s %s: bloaty" % (name, key), c, r, bloaty_share(out))
        elif key == "symbols" and dynsym_only:
            base = eu
        elif key == "symbols":
            c, r, _ = measure(["eu-readelf", "-s", f], may_fail=True)
            base = (c, r)
            row("%s: eu-readelf -s" % name, c, r, None)
        for opt, what in (([], "memsz"), (["--no-disasm"],
                                          "memsz --no-disasm")):
            c, r, out = measure([MEMSZ, "size", *opt, "--by", key, "-n",
                                 "0", f])
            row("%s %s: %s" % (name, key, what), c, r,
                memsz_share(out, key.split(",")[0]), base)
            if key == "symbols" and dynsym_only and BLOATY:
                row("  ratios against eu-readelf -s", c, r, None, eu)
            if key == "symbols" and dynsym_only and PAIRS:
                best, med = measure_pair(
                    [MEMSZ, "size", *opt, "--by", key, "-n", "0", f],
                    ["eu-readelf", "-s", f])
                print("  CPU / eu-readelf -s's, %d interleaved runs: "
                      "best %.2f, median %.2f" % (PAIRS, best, med))


def main():
    print("%-44s %8s %8s %8s %7s %7s" % (
        "file key: command", "CPU s", "RSS MiB", "fb VM", "xCPU", "xRSS"))
    print("# baseline: %s; ratios: memsz / baseline" %
          (BLOATY or "eu-readelf -s (no bloaty: $BLOATY or PATH)"))
    for f in FILES:
        if not os.path.exists(f):
            print("# %s: not on this machine" % f)
            continue
        bench_file(f)


if __name__ == "__main__":
    main()
