#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2170: the THP and LOCKED columns against smaps. A workload
(tests/workloads/rec_thp.c) maps anonymous THP (MADV_HUGEPAGE), locked
memory (MAP_LOCKED, mlock of a part of a mapping, an mlocked file), a
shared file on a tmpfs mounted here with huge=always (ShmemPmdMapped) and
a file read back through read-ahead (FilePmdMapped where the file system
gives the page cache PMD-sized folios), a dense THP mapping that starts a
page past a PMD boundary (read in chunks that cut PMD-mapped pages) and,
with a hugetlb page the test reserves, a MAP_HUGETLB page (huge to
PAGEMAP_SCAN too, but not THP), then stops itself. memsz records
it (`record -p PID --duration 0`); per mapping, THP must equal smaps'
AnonHugePages + ShmemPmdMapped + FilePmdMapped exactly and LOCKED smaps'
Locked within a page. The regions meant to have them must have them in
smaps (else the kernel gave none: the test makes THP possible as root and
fails if it still cannot; only the read-ahead file's THP, which its file
system may not give, is then skipped, saying so) and in memsz (so a memsz
without the columns, or that left the bits out, fails). Also: neither column is in the default
output; dump shows the pmd page flag and locked mappings.
"""
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import PAGE, SRCDIR, check, smaps_vmas  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
THP_FIELDS = ("AnonHugePages", "ShmemPmdMapped", "FilePmdMapped")
NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"


def thp_mode():
    """The selected mode of THP_ENABLED ("always", "madvise", "never"),
    or None without THP."""
    try:
        with open(THP_ENABLED) as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except (OSError, AttributeError):
        return None


def reserve_hugetlb(nr):
    """Makes one default-sized hugetlb page free (one more in the pool
    than nr, its size; restored by the caller). Returns whether it is."""
    free_path = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
    free = lib.read_int(free_path)
    if nr is None or free is None:
        lib.fail("no pool of 2 MiB hugetlb pages to reserve a page in")
    if free == 0:
        with open(NR_HUGEPAGES, "w") as f:
            f.write(str(nr + 1))
        free = lib.read_int(free_path)
    check(free > 0, "a free hugetlb page for the MAP_HUGETLB region")
    return free > 0


def memsz_rows(data, fields):
    """{(start, end): row} of `memsz report --by mappings` (csv)."""
    out = {}
    for r in lib.report(data, "mappings", "--fields", fields):
        first = r["mappings"].split()[0]
        if "-" not in first:
            continue
        s, e = (int(x, 16) for x in first.split("-"))
        out[(s, e)] = r
    return out


def run(tmp, shmdir, hugetlb):
    """Start the workload, record it, compare. Returns nothing; checks."""
    exe = os.path.join(tmp, "rec_thp")
    subprocess.run(["gcc", "-O1", "-o", exe,
                    os.path.join(SRCDIR, "tests/workloads/rec_thp.c")],
                   check=True)
    files = os.path.join(tmp, "files")
    os.mkdir(files)
    p = subprocess.Popen([exe, files, shmdir or "-"] +
                         (["hugetlb"] if hugetlb else []),
                         stdout=subprocess.PIPE, text=True)
    try:
        regions = {}
        for line in p.stdout:
            if line.strip() == "ready":
                break
            name, s, e = line.split()
            regions[name] = (int(s, 16), int(e, 16))
        else:
            lib.fail("the workload ended before it was ready")
        lib.wait_stopped(p.pid)
        data = os.path.join(tmp, "t.data")
        subprocess.run([MEMSZ, "record", "-o", data, "-p", str(p.pid),
                        "--duration", "0"], check=True,
                       stderr=subprocess.DEVNULL)
        vmas = smaps_vmas(p.pid)
        compare(data, regions, vmas, shmdir)
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()


def smaps_in(vmas, rng):
    """Sums of the THP fields and of Locked over the VMAs inside rng."""
    thp = locked = 0
    for v in vmas:
        if rng[0] <= v["start"] and v["end"] <= rng[1]:
            thp += sum(v.get(f, 0) for f in THP_FIELDS)
            locked += v.get("Locked", 0)
    return thp, locked


def compare(data, regions, vmas, shmdir):
    # the preconditions: what the kernel gave
    # (a region without them makes every comparison below 0 == 0, which
    # proves nothing: the test fails, or for the file system's choice of
    # folios says it is skipped)
    thp, _ = smaps_in(vmas, regions["thp"])
    check(thp > 0, f"smaps: {thp} bytes AnonHugePages in the MADV_HUGEPAGE "
          f"region after MADV_COLLAPSE (THP {thp_mode()})")
    _, locked = smaps_in(vmas, regions["locked"])
    check(locked > 0, f"smaps: {locked} bytes Locked in the MAP_LOCKED "
          "region")
    if not thp or not locked:
        lib.fail("the THP and LOCKED columns cannot be checked without them")
    if shmdir:
        shm, _ = smaps_in(vmas, regions["shmem"])
        check(shm > 0, f"smaps: {shm} bytes ShmemPmdMapped on the "
              "huge=always tmpfs")
    fthp, _ = smaps_in(vmas, regions["file-thp"])
    if not fthp:
        lib.skip_part("THP of a file read through read-ahead: the file "
                      "system gave it no PMD-sized page cache folios here "
                      "(FilePmdMapped 0)")

    rows = memsz_rows(data, "rss,pss,thp,locked")
    want_thp = want_locked = have_thp = have_locked = 0.0
    for v in vmas:
        key = (v["start"], v["end"])
        r = rows.get(key)
        name = f"{key[0]:x}-{key[1]:x} {v['last']}"
        if r is None:
            check(False, f"{name}: in the report")
            continue
        wt = sum(v.get(f, 0) for f in THP_FIELDS)
        wl = v.get("Locked", 0)
        ht, hl = int(r["thp"]), float(r["locked"])
        want_thp += wt
        want_locked += wl
        have_thp += ht
        have_locked += hl
        # smaps prints whole kB rounded down: Locked (a PSS) lies in
        # [Locked, Locked + 1 KiB); "within a page" as PSS is
        lib.check_quiet(ht == wt, f"{name}: THP {ht} == smaps {wt}")
        lib.check_quiet(wl - 8 <= hl < wl + PAGE,
                        f"{name}: LOCKED {hl} within a page of smaps {wl}")
    check(have_thp == want_thp,
          f"THP summed over mappings: {have_thp:.0f} == smaps {want_thp:.0f}")
    check(abs(have_locked - want_locked) < PAGE * len(vmas),
          f"LOCKED summed: {have_locked:.0f} ~ smaps {want_locked:.0f}")

    # memsz itself, where the kernel has them: a run without the columns
    # or without the page or mapping bits fails here
    def region_sum(name, col):
        lo, hi = regions[name]
        return sum(float(r[col]) for (s, e), r in rows.items()
                   if lo <= s and e <= hi)
    check(region_sum("thp", "thp") == 8 << 20, "THP: 8 MiB in the THP region")
    lo, hi = regions["thp-sparse"]
    sparse = sum(int(r["thp"]) for (s, e), r in rows.items()
                 if s <= lo and hi <= e)
    check(sparse == 4 << 20, f"THP: {sparse} bytes (4 MiB) in the middle of "
          "a large sparse mapping, across its 64 MiB chunks")
    want, _ = smaps_in(vmas, regions["thp-offset"])
    have = region_sum("thp-offset", "thp")
    check(want >= 64 << 20 and have == want,
          f"THP: {have:.0f} == smaps {want} (64 MiB or more) in a dense "
          "mapping a page past a PMD boundary, read in 64 MiB chunks that "
          "start off PMD boundaries")
    check(region_sum("thp-locked", "thp") == 4 << 20 and
          region_sum("thp-locked", "locked") == 4 << 20,
          "THP and LOCKED: 4 MiB in the locked THP region")
    check(region_sum("locked", "locked") == 3 << 20,
          "LOCKED: 3 MiB in the MAP_LOCKED region")
    check(region_sum("locked-mid", "locked") == 1 << 20,
          "LOCKED: the mlocked middle 1 MiB of a mapping")
    check(region_sum("file-lock", "locked") > 0,
          "LOCKED: the mlocked file mapping")
    check(region_sum("locked", "thp") == 0 and
          region_sum("file-lock", "thp") == 0,
          "THP: none in regions of small pages")
    if shmdir:
        check(region_sum("shmem", "thp") == 4 << 20,
              "THP: 4 MiB of the huge=always tmpfs file")
    if fthp:
        have = region_sum("file-thp", "thp")
        check(have == fthp, f"THP: {have:.0f} == smaps FilePmdMapped {fthp} "
              "in the file read through read-ahead")
    if "hugetlb" in regions:
        check(any(v.get("Private_Hugetlb", 0) > 0 for v in vmas
                  if regions["hugetlb"][0] <= v["start"] <
                  regions["hugetlb"][1]),
              "smaps: the MAP_HUGETLB page is Private_Hugetlb")
        check(region_sum("hugetlb", "thp") == 0,
              "THP: none in the hugetlb page")

    # not in the default columns of any format
    for fmt in ("table", "csv", "json"):
        out = subprocess.run([MEMSZ, "report", "-i", data, "--format", fmt],
                             capture_output=True, text=True,
                             check=True).stdout
        if fmt == "json":
            head = json.loads(out)["columns"]
        else:
            head = re.split(r",|\s{2,}", out.splitlines()[0].strip().lower())
        check("thp" not in head and "locked" not in head,
              f"default {fmt} has no THP or LOCKED column: {head}")
    # sorting by them, diff and timeline take them
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", "mappings",
                          "--sort", "locked", "--fields", "locked,thp",
                          "-n", "1", "--format", "csv"],
                         capture_output=True, text=True, check=True).stdout
    first = next(csv.DictReader(io.StringIO(out)))
    check(first["mappings"] != "TOTAL" and float(first["locked"]) == 4 << 20,
          f"--sort locked puts the locked THP region first: {first}")
    out = subprocess.run([MEMSZ, "diff", data, data, "--fields", "thp,locked",
                          "--format", "csv"], capture_output=True, text=True)
    check(out.returncode == 0 and "thp" in out.stdout.splitlines()[0],
          "diff --fields thp,locked")
    out = subprocess.run([MEMSZ, "report", "-i", data, "--timeline=thp",
                          "-n", "0", "--format", "csv"],
                         capture_output=True, text=True)
    tl = sum(int(r["thp"]) for r in csv.DictReader(io.StringIO(out.stdout)))
    check(out.returncode == 0 and tl == want_thp,
          f"report --timeline=thp: its rows sum to the THP total {tl}")

    dump = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                          capture_output=True, text=True, check=True).stdout
    lo, hi = regions["locked"]
    check(re.search(rf"SNAP_MAPPING \[0x{lo:x}-0x{hi:x}\) rw-p locked ",
                    dump) is not None, "dump: the MAP_LOCKED mapping is locked")
    lo, hi = regions["thp"]
    check(re.search(rf"run 0x{lo:x}-0x{hi:x} pages \d+ \S*,pmd ", dump)
          is not None, "dump: the THP region's run has the pmd flag")
    check(re.search(r"SNAP_BEGIN .* flags \S*pmd,locked", dump) is not None,
          "dump: the snapshot says PMD pages and locked mappings are known")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: LOCKED is a PSS (PFNs need CAP_SYS_ADMIN), "
                 "the tmpfs is mounted")
    mode = thp_mode()
    if mode is None:
        lib.fail(f"no {THP_ENABLED}: the kernel has no THP")
    with tempfile.TemporaryDirectory(prefix="memsz-t2170.") as tmp:
        shmdir = os.path.join(tmp, "shm")
        os.mkdir(shmdir)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o",
                                  "huge=always,size=16m", "memsz-t2170",
                                  shmdir]).returncode == 0
        check(mounted, "a tmpfs with huge=always mounted")
        with lib.hugetlb_pool_lock():  # the pool is read and restored
            nr_huge = lib.read_int(NR_HUGEPAGES)
            try:
                if mode == "never":
                    # madvise: THP only where asked (MADV_HUGEPAGE)
                    with open(THP_ENABLED, "w") as f:
                        f.write("madvise")
                hugetlb = reserve_hugetlb(nr_huge)
                run(tmp, shmdir if mounted else None, hugetlb)
            finally:
                if mode == "never":
                    with open(THP_ENABLED, "w") as f:
                        f.write("never")
                if (nr_huge is not None and
                        lib.read_int(NR_HUGEPAGES) != nr_huge):
                    with open(NR_HUGEPAGES, "w") as f:
                        f.write(str(nr_huge))
                if mounted:
                    subprocess.run(["umount", shmdir])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
