#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3010: dirty-by-relocation (`memsz report --by relocs`, RELOCS column)
and the RELR estimate of `memsz size --by relocs`.

A relocation-heavy PIE (tests/workloads/rep_relocs.cc: "vtable for Foo",
37 RELATIVE relocations; "table", 3072) is recorded stopped. Ground truth:
readelf -rW (relocation offsets), nm -SC (symbol ranges), readelf -SW
(sections) and the kernel's smaps (the pages are private dirty):
 - the RELOCS of the rows "vtable for Foo" and "table" equal the number
   of readelf relocations whose r_offset lies in the symbol;
 - their DIRTY equals the bytes the documented page split gives them
   (each page cut at the first target of each owner's run);
 - RELOCS sums to every relocation of the image (all their pages dirty),
   DIRTY to the image's Private_Dirty in smaps, and [clean] holds the rest
   of its RSS.
RELR: the estimate printed for the image linked without RELR equals the
size of .relr.dyn (readelf -SW) of the same program linked with
-Wl,-z,pack-relative-relocs, and "instead of M" is 24 bytes per RELATIVE
entry of .rela.dyn.
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import (  # noqa: E402
    MEMSZ, PAGE, SRCDIR, check, stopped, smaps_vmas)


def run(*args):
    return subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, check=True)


def relocs(exe):
    offs, rel = [], 0
    for line in run("readelf", "-rW", exe).stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2].startswith("R_X86_64_"):
            offs.append(int(f[0], 16))
            rel += f[2] == "R_X86_64_RELATIVE"
    return sorted(offs), rel


def symbols(exe):
    syms = []
    for line in run("nm", "-SC", "--defined-only", exe).stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) ([0-9a-f]+) (\S) (.*)$", line)
        if m and int(m.group(2), 16):
            syms.append((int(m.group(1), 16), int(m.group(2), 16),
                         m.group(4)))
    return syms


def sections(exe):
    secs = {}
    for line in run("readelf", "-SW", exe).stdout.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            secs[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    return secs


def owner(addr, syms, secs):
    for a, s, n in syms:
        if a <= addr < a + s:
            return n
    for n, (a, s) in secs.items():
        if a <= addr < a + s:
            return "[section %s]" % n
    return "?"


def split_bytes(offs, syms, secs):
    """Bytes of each owner under the documented page split."""
    got = {}
    pages = {}
    for t in offs:
        pages.setdefault(t - t % PAGE, []).append(t)
    for page, ts in pages.items():
        runs = []
        for t in ts:
            o = owner(t, syms, secs)
            if not runs or runs[-1][0] != o:
                runs.append([o, t])
        runs[0][1] = page
        for i, (o, start) in enumerate(runs):
            end = runs[i + 1][1] if i + 1 < len(runs) else page + PAGE
            got[o] = got.get(o, 0) + end - start
    return got


def smaps(pid, path):
    vmas = [v for v in smaps_vmas(pid) if v["last"] == path]
    return (sum(v.get("Rss", 0) for v in vmas),
            sum(v.get("Private_Dirty", 0) for v in vmas))


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3010-")
    exe = os.path.join(tmp, "rep_relocs")
    src = os.path.join(SRCDIR, "tests", "workloads", "rep_relocs.cc")
    try:
        run("g++", "-O1", "-fPIE", "-pie", "-fno-rtti", "-o", exe, src)
    except (OSError, subprocess.CalledProcessError) as e:
        lib.skip("cannot build the workload with g++ (g++): %s" % e)
    # freshly written file pages would count as dirty: write back this
    # file's only (a sync(2) would also clean the pages other tests
    # running beside this one dirtied on purpose, t2457's)
    fd = os.open(exe, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    offs, nrel = relocs(exe)
    syms, secs = symbols(exe), sections(exe)
    want = {}
    for a, s, n in syms:
        if n in ("vtable for Foo", "table"):
            want[n] = sum(1 for t in offs if a <= t < a + s)
    check(want.get("vtable for Foo") == 37 and want.get("table") == 3072,
          f"fixture: readelf counts {want} (37 and 3072)")
    split = split_bytes(offs, syms, secs)

    p = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(p.stdout.readline().split()[1])
        stopped(pid)
        data = os.path.join(tmp, "r.data")
        subprocess.run([MEMSZ, "record", "-p", str(pid), "-o", data,
                        "--duration", "0.1"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=120)
        rss, dirty = smaps(pid, exe)
        out = subprocess.run([MEMSZ, "report", "-i", data, "--by",
                              "files,relocs", "-n", "0", "--format", "csv"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, check=True)
        rows = {r["relocs"]: r for r in csv.DictReader(io.StringIO(
            out.stdout)) if r["files"] == exe}
        for name in ("vtable for Foo", "table"):
            r = rows.get(name, {"reloc_count": "-1", "dirty": "-1"})
            check(int(r["reloc_count"]) == want.get(name),
                  f"{name}: RELOCS {r['reloc_count']} == readelf's "
                  f"{want.get(name)}")
            check(int(r["dirty"]) == split.get(name),
                  f"{name}: DIRTY {r['dirty']} == its page share "
                  f"{split.get(name)}")
        check(sum(int(r["reloc_count"]) for r in rows.values()) == len(offs),
              f"RELOCS sums to the {len(offs)} relocations of the image")
        check(sum(int(r["dirty"]) for r in rows.values()) == dirty,
              f"DIRTY sums to smaps Private_Dirty {dirty}")
        clean = rows.get("[clean]", {"rss": "0"})
        check(int(clean["rss"]) == rss - dirty,
              f"[clean] RSS {clean['rss']} == Rss - Private_Dirty "
              f"{rss - dirty}")
        check(dirty >= 24 * 1024, "smaps: the table's pages are dirty")
        table = run(MEMSZ, "report", "-i", data, "--by", "relocs").stdout
        check("RELOCS" in table.splitlines()[0],
              "the table has a RELOCS column with --by relocs")
        table = run(MEMSZ, "report", "-i", data, "--by", "files").stdout
        check("RELOCS" not in table.splitlines()[0],
              "and none without")
    finally:
        p.kill()
        p.wait()

    # RELR: the estimate against the linker's own .relr.dyn
    relr = os.path.join(tmp, "rep_relocs.relr")
    try:
        run("g++", "-O1", "-fPIE", "-pie", "-fno-rtti",
            "-Wl,-z,pack-relative-relocs", "-o", relr, src)
    except subprocess.CalledProcessError:
        lib.skip_part("linker without -z pack-relative-relocs (binutils "
                      ">= 2.38): RELR not checked")
        relr = None
    if relr:
        real = sections(relr).get(".relr.dyn", (0, -1))[1]
        out = run(MEMSZ, "size", "--by", "relocs", exe)
        m = re.search(r"RELR would take (\d+) bytes instead of (\d+) for "
                      r"the (\d+) relative", out.stdout)
        check(m is not None, "size --by relocs prints the RELR note")
        if m:
            check(int(m.group(1)) == real,
                  f"RELR estimate {m.group(1)} == .relr.dyn size {real}")
            check(int(m.group(2)) == 24 * nrel and int(m.group(3)) == nrel,
                  f"now {m.group(2)} bytes == 24 x {nrel} RELATIVE")
        out = run(MEMSZ, "size", "--by", "relocs", "--format", "csv", "-n",
                  "0", relr)
        rows = {r["relocs"]: r for r in csv.DictReader(io.StringIO(
            out.stdout))}
        r = rows.get("R_X86_64_RELATIVE (RELR)", {"file_size": "-1"})
        check(int(r["file_size"]) == real,
              f"R_X86_64_RELATIVE (RELR) row {r['file_size']} == {real}")
    subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
