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
machine, the interleaved median hardly. So are the ratios against Bloaty
where its run takes under PAIR_MAX (libc's: 0.03 and 0.15 s). Beside
Bloaty's compileunits row, the CPU time zlib takes to inflate the DWARF
sections that key reads (zlib_floor()): both tools inflate them whole,
with zlib, before they read a unit, so no ratio goes below that one.

Bloaty as measured in the README: github:google/bloaty at 81a414c, built
with cmake (Release, BUILD_TESTING=OFF) against Debian 12's protobuf,
capstone, re2, zlib and zstd, and with BLOATY_PREFER_SYSTEM_ABSL=OFF: its
abseil (third_party/abseil-cpp at d38452e) and demumble (at 10e00fb)
submodules checked out from their own clones, since Debian's abseil
20220623 is older than Bloaty's code needs.
"""
import csv
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

MEMSZ = os.environ.get("MEMSZ", "./memsz")
RUNS = int(os.environ.get("RUNS", "3"))
PAIRS = int(os.environ.get("PAIRS", "15"))
# Bloaty runs shorter than this (seconds) are also measured interleaved
PAIR_MAX = 0.5
BLOATY = os.environ.get("BLOATY") or shutil.which("bloaty") or next(
    (b for b in ["/tmp/bloaty/build/bloaty"] if os.access(b, os.X_OK)), None)
FILES = sys.argv[1:] or [
    "/usr/bin/node",
    "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"]


def measure(cmd, may_fail=False):
    """(best CPU seconds over RUNS, peak RSS MiB, output of the last run).
    The CPU time comes from wait4() on cmd itself, run directly RUNS
    times, in microseconds: under GNU time it would count GNU time's own
    start too, ~1 ms on this machine, a tenth of libc's runs, which moved
    their ratios. GNU time measures the RSS, in one more run: a child
    forked from this python would start with python's RSS, and the
    kernel keeps the high-water mark across exec."""
    best, out = None, ""
    with tempfile.NamedTemporaryFile("r") as tf, \
            tempfile.TemporaryFile() as of:
        for i in range(RUNS + 1):
            of.seek(0)
            of.truncate()
            rss = i == RUNS
            p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o",
                                  tf.name, *cmd] if rss else cmd,
                                 stdout=of, stderr=subprocess.STDOUT)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode and not may_fail:
                raise SystemExit("failed: %s" % " ".join(cmd))
            if rss:
                tf.seek(0)
                peak = int(tf.read().split()[-1]) / 1024
                continue
            cpu = ru.ru_utime + ru.ru_stime
            best = cpu if best is None else min(best, cpu)
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


# The DWARF sections `--by compileunits` has inflated (elf/dwopen.c hides
# the line, location, macro and frame ones from libdw)
CU_SECTIONS = {".debug_info", ".debug_types", ".debug_abbrev", ".debug_addr",
               ".debug_aranges", ".debug_line_str", ".debug_pubnames",
               ".debug_str", ".debug_str_offsets", ".debug_ranges",
               ".debug_rnglists"}


def zlib_floor(path):
    """(best CPU seconds over RUNS, bytes) of inflating, with zlib in this
    process (the library memsz and Bloaty inflate with), the SHF_COMPRESSED
    zlib sections of CU_SECTIONS in the 64-bit little-endian ELF file
    path; None if it has none. A floor under both tools' compileunits
    runs: each inflates them whole before it reads a unit."""
    with open(path, "rb") as fh:
        b = fh.read()
    if b[:6] != b"\x7fELF\x02\x01":
        return None
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
    shdrs = [struct.unpack_from("<IIQQQQ", b, shoff + i * shentsize)
             for i in range(shnum)]
    names = shdrs[shstrndx][4]
    streams = []
    for name, _, flags, _, off, size in shdrs:
        n = b[names + name:b.index(b"\0", names + name)].decode()
        if (n in CU_SECTIONS and flags & 0x800 and size > 24 and
                struct.unpack_from("<I", b, off)[0] == 1):
            # ch_size: the output buffer zlib fills, allocated once
            streams.append((b[off + 24:off + size],
                            struct.unpack_from("<Q", b, off + 8)[0]))
    if not streams:
        return None
    best, total = None, 0
    for _ in range(RUNS):
        t = time.process_time()
        total = sum(len(zlib.decompress(z, bufsize=n)) for z, n in streams)
        t = time.process_time() - t
        best = t if best is None else min(best, t)
    return best, total


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
            bloaty = [BLOATY, "-d", key, "-n", "0", "--csv",
                      *(["--debug-file", dbg] if dbg else []), f]
            c, r, out = measure(bloaty)
            base = (c, r)
            row("%s %s: bloaty" % (name, key), c, r, bloaty_share(out))
            z = key == "compileunits" and zlib_floor(
                f if has_dwarf(f) or not dbg else dbg)
            if z:
                print("  zlib inflating its %.1f MB of DWARF alone: %.3f s, "
                      "%.2f of Bloaty's CPU" % (z[1] / 1e6, z[0], z[0] / c))
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
            if BLOATY and PAIRS and base[0] < PAIR_MAX and not dynsym_only:
                best, med = measure_pair(
                    [MEMSZ, "size", *opt, "--by", key, "-n", "0", f],
                    bloaty)
                print("  CPU / bloaty's, %d interleaved runs: "
                      "best %.2f, median %.2f" % (PAIRS, best, med))
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
