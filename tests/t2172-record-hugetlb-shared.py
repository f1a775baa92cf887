#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2172: hugetlb pages mapped through a shared page table are not THP.

PAGEMAP_SCAN reports hugetlb pages huge, as it does THP's; memsz must
tell them apart whatever the process's status says. The workload
(tests/workloads/rec_hugetlb_shared.c), run as nobody, maps a hugetlb
memfd MAP_SHARED over a whole 1 GiB aligned range, writes one 2 MiB page
and forks: the child reads the page through the parent's PMD page table,
so its status shows HugetlbPages: 0 while its smaps shows Shared_Hugetlb.
The child also writes 2 MiB of an anonymous MADV_HUGEPAGE mapping (a THP:
smaps' AnonHugePages, and the machine's /proc/meminfo AnonHugePages above
0 while it is recorded), then stops. Where the test can mount a
hugetlbfs (pagesize=2M), the parent also maps a 2 MiB file of it shared
and writes it, and memsz records the parent too (a hugetlbfs memsz knows
only from the target's mountinfo, not from its own probe of the kernel's
internal mounts). The
test reserves the hugetlb pages (two more in the 2 MiB pool, restored
after). memsz records the child
(`record -p CHILD --duration 0`) as nobody (no page flags) and as root;
in `report --by mappings --fields rss,thp`, ground truth the kernel's
smaps: THP per mapping equals AnonHugePages + ShmemPmdMapped +
FilePmdMapped (0 for the hugetlb mapping, 2 MiB for the THP one) and RSS
the mapping's resident bytes, Rss + Shared_Hugetlb + Private_Hugetlb
(smaps keeps hugetlb pages out of its Rss line; memsz counts them
resident); and where smaps has no Private_Hugetlb (the page table
shared), no byte of the mapping private dirty (kpagecount is 1 there).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import SRCDIR, check, smaps_vmas  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
POOL = "/sys/kernel/mm/hugepages/hugepages-2048kB"
THP_FIELDS = ("AnonHugePages", "ShmemPmdMapped", "FilePmdMapped")
RES_FIELDS = ("Rss", "Shared_Hugetlb", "Private_Hugetlb")


def meminfo_kb(field):
    """A field of /proc/meminfo in kB (0 if absent)."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def status_kb(pid, field):
    """A field of /proc/PID/status in kB, or None."""
    with open(f"/proc/{pid}/status") as f:
        m = re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.M)
    return int(m.group(1)) if m else None


def rows(data):
    """{(start, end): row} of `memsz report --by mappings -F
    rss,thp,dirty,shdirty`."""
    out = {}
    for r in lib.report(data, "mappings", "--fields",
                        "rss,thp,dirty,shdirty"):
        first = r["mappings"].split()[0]
        if "-" in first:
            s, e = (int(x, 16) for x in first.split("-"))
            out[(s, e)] = r
    return out


def compare(who, data, vmas, htlb, thp):
    """The report of data against the smaps (vmas) of its process, whose
    hugetlb mappings are htlb (2 MiB resident each) and THP region thp
    (2 MiB of AnonHugePages; None: none)."""
    got = rows(data)
    have_thp = want_thp = 0
    for v in vmas:
        key = (v["start"], v["end"])
        name = f"{who}: {key[0]:x}-{key[1]:x} {v['last']}"
        r = got.get(key)
        if r is None:
            check(False, f"{name}: in the report")
            continue
        wt = sum(v.get(f, 0) for f in THP_FIELDS)
        ht = int(r["thp"])
        have_thp += ht
        want_thp += wt
        lib.check_quiet(ht == wt, f"{name}: THP {ht} == smaps {wt}")
        if key in htlb:
            want = sum(v.get(f, 0) for f in RES_FIELDS)
            check(ht == 0 and wt == 0,
                  f"{name}: THP {ht} == smaps {wt} (0) in the hugetlb "
                  "mapping")
            check(int(r["rss"]) == want and want == 2 << 20,
                  f"{name}: RSS {r['rss']} == smaps Rss + Shared_Hugetlb "
                  f"+ Private_Hugetlb {want} (2 MiB)")
            if not v.get("Private_Hugetlb", 0):
                # mapped once through a page table two processes share:
                # kpagecount 1, but shared (pagemap's bit, smaps'
                # Shared_Hugetlb), so no byte of it is private dirty
                # (DIRTY is private dirty bytes, SHR DIRTY apart)
                priv = int(r["dirty"])
                check(priv == 0, f"{name}: private dirty {priv} == "
                      "smaps Private_Hugetlb 0")
            if not v.get("Private_Hugetlb", 0) and who.startswith("root"):
                # the page written is all shared dirty (root: kpageflags
                # tell dirty; nobody has no PFNs)
                shd, sh = int(r["shared_dirty"]), v.get("Shared_Hugetlb", 0)
                check(shd == sh and sh == 2 << 20,
                      f"{name}: shared dirty {shd} == smaps Shared_Hugetlb "
                      f"{sh} (2 MiB)")
        if key == thp:
            check(ht == wt and wt == 2 << 20,
                  f"{name}: THP {ht} == smaps AnonHugePages {wt} (2 MiB)")
    check(have_thp == want_thp,
          f"{who}: THP summed over mappings {have_thp} == smaps {want_thp}")


def run(tmp, hfs):
    exe = os.path.join(tmp, "rec_hugetlb_shared")
    subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
        SRCDIR, "tests/workloads/rec_hugetlb_shared.c")], check=True)
    out = os.path.join(tmp, "nobody")
    os.mkdir(out)
    os.chmod(tmp, 0o755)
    os.chmod(out, 0o777)
    args = [os.path.join(hfs, "f")] if hfs else []
    p = subprocess.Popen(NOBODY + [exe] + args, stdout=subprocess.PIPE, text=True)
    child = None
    try:
        regions, kids = lib.workload_ready(p)
        child = kids[0] if kids else None
        lib.wait_stopped(child)
        vmas = smaps_vmas(child)
        hv = [v for v in vmas if (v["start"], v["end"]) == regions["hugetlb"]]
        check(len(hv) == 1 and hv[0].get("Shared_Hugetlb", 0) == 2 << 20,
              "smaps: the child's hugetlb mapping has Shared_Hugetlb 2 MiB")
        print(f"# child HugetlbPages {status_kb(child, 'HugetlbPages')} kB "
              "(0 where its page table is shared)")
        tv = [v for v in vmas if (v["start"], v["end"]) == regions["thp"]]
        if not tv or not tv[0].get("AnonHugePages"):
            lib.fail("smaps: no AnonHugePages in the child's MADV_HUGEPAGE "
                     "region: THP cannot be checked next to hugetlb")
        check(meminfo_kb("AnonHugePages") > 0,
              "meminfo: AnonHugePages > 0 while recorded (the workload's)")
        targets = [("child", child, vmas, [regions["hugetlb"]],
                    regions["thp"])]
        if "mounted" in regions:
            targets.append(("parent", p.pid, smaps_vmas(p.pid),
                            [regions["hugetlb"], regions["mounted"]], None))
        for name, pid, pvmas, htlb, thp in targets:
            for who, pre, data in (
                    ("nobody", NOBODY, os.path.join(out, name + ".data")),
                    ("root", [], os.path.join(tmp, name + ".data"))):
                subprocess.run(pre + [MEMSZ, "record", "-o", data, "-p",
                                      str(pid), "--duration", "0"],
                               check=True, stderr=subprocess.DEVNULL)
                compare(f"{who}, {name}", data, pvmas, htlb, thp)
    finally:
        lib.stop_kill(p, child)
        # the child (not ours to reap) holds the hugetlbfs file until its
        # memory is gone: dead (a zombie) or reaped
        if child:
            lib.wait_until(lambda: gone(child), f"pid {child} to exit")


def gone(pid):
    """True once pid has exited (a zombie, or no more)."""
    try:
        return lib.proc_state(pid) == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: reserves a hugetlb page, runs the workload "
                 "as nobody")
    if lib.read_int(os.path.join(POOL, "nr_hugepages")) is None:
        lib.skip(f"no {POOL}: the kernel has no 2 MiB hugetlb pages")
    try:
        with open(THP_ENABLED) as f:
            mode = re.search(r"\[(\w+)\]", f.read()).group(1)
    except (OSError, AttributeError):
        mode = None
    if mode not in ("always", "madvise"):
        lib.skip(f"THP is not enabled ({THP_ENABLED}: {mode}): no THP to "
                 "show next to hugetlb")
    with lib.hugetlb_pool_lock():  # the pool is read and restored
        nr = lib.read_int(os.path.join(POOL, "nr_hugepages"))
        try:
            with open(os.path.join(POOL, "nr_hugepages"), "w") as f:
                f.write(str(nr + 2))
            free = lib.read_int(os.path.join(POOL, "free_hugepages")) or 0
            if not free:
                lib.skip("no free 2 MiB hugetlb page could be reserved")
            with tempfile.TemporaryDirectory(prefix="memsz-t2172.") as tmp:
                hfs = os.path.join(tmp, "hfs")
                os.mkdir(hfs)
                mounted = free >= 2 and subprocess.run(
                    ["mount", "-t", "hugetlbfs", "-o", "pagesize=2M,mode=0777",
                     "memsz-t2172", hfs]).returncode == 0
                if not mounted:
                    lib.skip_part("a mounted hugetlbfs: " +
                                  ("mount failed" if free >= 2 else
                                   "one free hugetlb page only"))
                try:
                    run(tmp, hfs if mounted else None)
                finally:
                    if mounted:
                        subprocess.run(["umount", "-l", hfs])
        finally:
            with open(os.path.join(POOL, "nr_hugepages"), "w") as f:
                f.write(str(nr))
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
