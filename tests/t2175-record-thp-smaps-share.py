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
mapping fewer (it asks neither about them). Skipped without root
(PFNs), without THP in madvise or always mode, or if the 4 MiB mapping of
the side keeping the PMDs got no huge page."""
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "t2127", os.path.join(HERE, "t2127-record-thp-fork.py"))
t2127 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(t2127)

MODES = ("", "child-first", "parent-first", "child-first-exit")


def reads(pid, data, tmp, env_value):
    """Preads of /proc/kpageflags and of pid's pagemap by one snapshot of
    pid with MEMSZ_SMAPS_SHARE=env_value, counted by strace."""
    log = os.path.join(tmp, "strace.log")
    env = dict(os.environ, MEMSZ_SMAPS_SHARE=env_value)
    # LeakSanitizer cannot run under ptrace (a sanitizer build)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    subprocess.run(["strace", "-f", "-y", "-e", "trace=pread64", "-o", log,
                    t2127.MEMSZ, "record", "-o", data, "-p", str(pid),
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
        for pid in (kid, p.pid):
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        p.wait()


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
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
