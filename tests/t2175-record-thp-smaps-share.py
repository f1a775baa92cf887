#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2175: anonymous THP whose sharing smaps tells for a whole mapping
(record/snap_share.c). A snapshot of a process with enough PMD-mapped
huge pages reads /proc/PID/smaps once: in a mapping where it counts no
page shared (Shared_Clean and Shared_Dirty 0), an anonymous huge page
pagemap calls exclusive is taken from PAGEMAP_SCAN alone, with no pagemap
pread and no kpageflags read of its first page (PG_anon_exclusive).
MEMSZ_SMAPS_SHARE=1 makes every snapshot read smaps, =0 none.

t2127's workload (tests/workloads/rec_thpfork.c: 2, 4, 5 and 10 MiB of
MADV_HUGEPAGE memory) in four modes: the default and "child-first",
"parent-first" (mappings smaps counts shared pages in: taken page by page
as before), and "child-first-exit": the child copies the first page of
every huge page and exits, so that every page of the parent's huge pages
is mapped once, as smaps says, while their head pages keep
PG_anon_exclusive clear (the kpageflags check would call them maybe
shared and read their 512 kpagecount entries). Each process of each mode
is compared with its smaps per mapping as in t2127 (Rss, Private_Clean,
Private_Dirty, Shared_Clean, Shared_Dirty and AnonHugePages exactly, Pss
within a kB) with MEMSZ_SMAPS_SHARE=1 and =0. For "child-first-exit",
counted with strace (skipped without it): a snapshot with =1 reads
kpageflags at least once per huge page of the parent fewer times than
with =0, and pagemap at least once per two huge pages of the 10 MiB
mapping fewer (it asks neither about them).

tests/workloads/rec_thpzero.c, compared with smaps the same way: "zero",
one 8 MiB mapping read whole (the huge zero page PMD-mapped, which smaps
counts nowhere and PAGEMAP_SCAN before 6.16 does not call PFNZERO) and
its first 4 MiB then written (huge pages of its own), with
MEMSZ_SMAPS_SHARE=1, =0 and unset: smaps counts no page of it shared,
and its huge pages are taken from the scan alone only where its
AnonHugePages are all the first scan found PMD-mapped (skipped where the
read got no huge zero page: kpageflags' KPF_ZERO_PAGE); "many", 512 MiB
written, with MEMSZ_SMAPS_SHARE unset: enough huge pages for the default
cost rule to read smaps (skipped with fewer than 64 + 4 a mapping + 1
per 32 other resident pages), which, counted with strace, the snapshot
shows by reading kpageflags fewer times than the mapping has huge pages.

Skipped without root (PFNs), without THP in madvise or always mode, or
if the 4 MiB mapping of the side keeping the PMDs got no huge page."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check  # noqa: E402

t2127 = lib.sibling_test("t2127-record-thp-fork")

MODES = ("", "child-first", "parent-first", "child-first-exit")


def reads(pid, data, tmp, env_value):
    """Preads of /proc/kpageflags and of pid's pagemap by one snapshot of
    pid with MEMSZ_SMAPS_SHARE=env_value (None: unset), counted by
    strace."""
    log = os.path.join(tmp, "strace.log")
    env = dict(os.environ)
    env.pop("MEMSZ_SMAPS_SHARE", None)
    if env_value is not None:
        env["MEMSZ_SMAPS_SHARE"] = env_value
    # LeakSanitizer cannot run under ptrace (a sanitizer build)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    subprocess.run(["strace", "-f", "-y", "-e", "trace=pread64", "-o", log,
                    lib.MEMSZ, "record", "-o", data, "-p", str(pid),
                    "--duration", "0"], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(log, errors="surrogateescape") as f:
        text = f.read()
    flags = len(re.findall(r"pread64\(\d+</proc/kpageflags>", text))
    pm = len(re.findall(rf"pread64\(\d+</proc/{pid}/pagemap>", text))
    return flags, pm


def huge_pages(pid, regions):
    """The huge pages (AnonHugePages / 2 MiB) of pid's regions."""
    v = t2127.vmas_of(pid, regions)
    return sum(v[n]["AnonHugePages"] for n in regions) >> 21


def huge_zero_at(pid, addr):
    """True if pid maps the huge zero page at addr: kpageflags' KPF_ZERO_PAGE
    (bit 24) and KPF_THP (bit 22) of the frame pagemap gives there."""
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(addr // 4096 * 8)
        e = struct.unpack("Q", f.read(8))[0]
    pfn = e & ((1 << 55) - 1)
    if not e >> 63 or not pfn:
        return False
    with open("/proc/kpageflags", "rb") as f:
        f.seek(pfn * 8)
        fl = struct.unpack("Q", f.read(8))[0]
    return bool(fl >> 24 & 1 and fl >> 22 & 1)


def run(exe, mode, tmp):
    """One run of the workload in mode, each of its processes compared
    with smaps with MEMSZ_SMAPS_SHARE=1 and =0."""
    p = subprocess.Popen([exe] + ([mode] if mode else []),
                         stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    kid = None
    what = mode or "default"
    try:
        regions, kids = lib.workload_stopped(p, f"{what}: the workload")
        kid = kids[0] if kids else None
        keeper = kid if mode == "parent-first" else p.pid
        if not t2127.vmas_of(keeper, regions)["r4"]["AnonHugePages"]:
            lib.skip_part(f"{what}: no huge page in the 4 MiB mapping "
                          "(memory too fragmented?)")
            return
        data = os.path.join(tmp, "t.data")
        for env in ("1", "0"):
            os.environ["MEMSZ_SMAPS_SHARE"] = env
            for who, pid in (("parent", p.pid), ("child", kid)):
                if pid:
                    t2127.compare(pid, regions, data,
                                  f"{what}, {who}, MEMSZ_SMAPS_SHARE={env}")
        os.environ.pop("MEMSZ_SMAPS_SHARE", None)
        if mode != "child-first-exit":
            return
        v = t2127.vmas_of(p.pid, regions)
        check(all(v[n]["Shared_Clean"] == v[n]["Shared_Dirty"] == 0
                  for n in regions),
              f"{what}: smaps counts no page of the parent shared")
        if not shutil.which("strace"):
            lib.skip_part("no strace: the reads are not counted")
            return
        hp = huge_pages(p.pid, regions)
        f1, pm1 = reads(p.pid, data, tmp, "1")
        f0, pm0 = reads(p.pid, data, tmp, "0")
        check(f0 - f1 >= hp,
              f"{what}: kpageflags reads {f1} with smaps, {f0} without: "
              f"at least {hp} (one per huge page) fewer")
        # the 10 MiB mapping is scanned (larger than 4 MiB): its huge
        # pages cost a pagemap pread per two without smaps, none with it
        hp10 = (v["r10"]["AnonHugePages"] >> 21) // 2
        check(pm0 - pm1 >= hp10,
              f"{what}: pagemap reads {pm1} with smaps, {pm0} without: "
              f"at least {hp10} (one per two huge pages of the 10 MiB "
              "mapping) fewer")
    finally:
        lib.stop_kill(p, kid)


def set_share(env):
    """MEMSZ_SMAPS_SHARE=env for the records that follow; None: unset."""
    os.environ.pop("MEMSZ_SMAPS_SHARE", None)
    if env is not None:
        os.environ["MEMSZ_SMAPS_SHARE"] = env


def run_zero(exe, tmp):
    """rec_thpzero "zero": the huge zero page and written huge pages in
    one mapping, compared with smaps with MEMSZ_SMAPS_SHARE=1, =0 and
    unset."""
    p = subprocess.Popen([exe, "zero"], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        regions, _ = lib.workload_stopped(p, "zero: the workload")
        start, end = regions["z"]
        v = t2127.vmas_of(p.pid, regions)["z"]
        if not huge_zero_at(p.pid, start + (end - start) // 2):
            lib.skip_part("zero: no huge zero page mapped by the read "
                          "(use_zero_page off?)")
            return
        if not v["AnonHugePages"]:
            lib.skip_part("zero: no huge page written (memory too "
                          "fragmented?)")
            return
        check(v["Shared_Clean"] == v["Shared_Dirty"] == 0,
              "zero: smaps counts no page of the mapping shared")
        data = os.path.join(tmp, "z.data")
        for env in ("1", "0", None):
            set_share(env)
            t2127.compare(p.pid, regions, data,
                          f"zero, MEMSZ_SMAPS_SHARE={env or 'unset'}")
    finally:
        set_share(None)
        lib.stop_kill(p)


def run_many(exe, tmp):
    """rec_thpzero "many": enough huge pages that smaps is read with
    MEMSZ_SMAPS_SHARE unset, compared with smaps; the kpageflags reads
    counted with strace."""
    p = subprocess.Popen([exe, "many", "512"], stdout=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        regions, _ = lib.workload_stopped(p, "many: the workload")
        set_share(None)
        v = t2127.vmas_of(p.pid, regions)["big"]
        hp = v["AnonHugePages"] >> 21
        rss = sum(x.get("Rss", 0) for x in lib.smaps_vmas(p.pid)) >> 12
        need = 64 + 4 * lib.nmaps(p.pid) + (rss - hp * 512) // 32
        if hp < need:
            lib.skip_part(f"many: {hp} huge pages, the cost rule reads "
                          f"smaps from {need} (memory too fragmented?)")
            return
        data = os.path.join(tmp, "m.data")
        t2127.compare(p.pid, regions, data, "many, MEMSZ_SMAPS_SHARE unset")
        if not shutil.which("strace"):
            lib.skip_part("many: no strace: the reads are not counted")
            return
        flags, _ = reads(p.pid, data, tmp, None)
        check(flags < hp, f"many: kpageflags reads {flags} with smaps read "
              f"by the cost rule: fewer than the {hp} huge pages")
    finally:
        lib.stop_kill(p)


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: page sharing needs PFNs (CAP_SYS_ADMIN)")
    mode = t2127.thp_mode()
    if mode not in ("always", "madvise"):
        lib.skip(f"THP off ({t2127.THP_ENABLED}: {mode})")
    with tempfile.TemporaryDirectory(prefix="memsz-t2175.") as tmp:
        exe = os.path.join(tmp, "rec_thpfork")
        subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
            SRCDIR, "tests/workloads/rec_thpfork.c")], check=True)
        for m in MODES:
            run(exe, m, tmp)
        zexe = os.path.join(tmp, "rec_thpzero")
        subprocess.run(["gcc", "-O1", "-o", zexe, os.path.join(
            SRCDIR, "tests/workloads/rec_thpzero.c")], check=True)
        run_zero(zexe, tmp)
        run_many(zexe, tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
