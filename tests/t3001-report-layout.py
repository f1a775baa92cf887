#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3001: `memsz report` on a workload of known layout (rep_layout.c).

Expected values come from the workload's source and from `nm -S` of the
binary built here, and the setup itself is checked against smaps:
 - big (16 MiB .rodata): exactly the 5 MiB touched are resident;
 - hot_a, hot_c (called): resident with exactly their st_size bytes;
   hot_b, hot_d (not called): 0;
 - ptrs (.data.rel.ro, relocated at start): all of it private dirty;
 - bss_buf: 3 MiB resident and dirty, charged to the image, not [anon];
 - forked child: the 4 MiB region written before fork() has PSS = RSS/2
   in each process (as root).
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import (  # noqa: E402
    MEMSZ, SRCDIR, check, report, stopped, smaps_vmas)


MiB = 1024 * 1024


def nm_sizes(exe):
    out = subprocess.run(["nm", "-S", "--defined-only", exe],
                         stdout=subprocess.PIPE, text=True, check=True)
    sizes = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 4:
            sizes[f[3]] = int(f[1], 16)
    return sizes


def record(pids, data):
    subprocess.run([MEMSZ, "record", "-p", ",".join(map(str, pids)), "-o",
                    data, "--duration", "0.1"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=120)


def smaps_rss(pid, lo, hi):
    """Rss of the VMAs inside [lo, hi)."""
    return sum(v.get("Rss", 0) for v in smaps_vmas(pid)
               if lo <= v["start"] and v["end"] <= hi)


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3001-")
    exe = os.path.join(tmp, "rep_layout")
    src = os.path.join(SRCDIR, "tests", "workloads", "rep_layout.c")
    subprocess.run(["gcc", "-O1", "-fPIE", "-pie", "-o", exe, src],
                   check=True)
    sizes = nm_sizes(exe)
    procs = []
    try:
        p = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
        procs.append(p)
        pid = int(p.stdout.readline().split()[1])
        stopped(pid)
        data = os.path.join(tmp, "l.data")
        record([pid], data)

        # each symbol's bytes in its own section (the symbols key also
        # charges it its .eh_frame, .rela.dyn, .symtab, ... entries)
        home = {"big": ".rodata", "ptrs": ".data.rel.ro",
                "bss_buf": ".bss"}
        rows = {r["symbols"]: r for r in report(data, "symbols,sections")
                if r["sections"] == home.get(r["symbols"], "memsz_hot")}
        big = rows["big"]
        check(int(big["rss"]) == 5 * MiB,
              f"big: RSS {big['rss']} == 5 MiB (the pages touched)")
        check(int(big["vm_size"]) == 16 * MiB and
              int(big["file_size"]) == 16 * MiB,
              "big: VM SIZE and FILE SIZE == 16 MiB")
        for name in ("hot_a", "hot_c"):
            r = rows.get(name, {"rss": "-1"})
            check(int(r["rss"]) == sizes[name],
                  f"{name} (called): RSS {r['rss']} == st_size "
                  f"{sizes[name]}")
        for name in ("hot_b", "hot_d"):
            r = rows.get(name, {"rss": "-1"})
            check(int(r["rss"]) == 0, f"{name} (not called): RSS {r['rss']}"
                  " == 0")
        ptrs = rows["ptrs"]
        check(int(ptrs["dirty"]) == sizes["ptrs"] == 512 * 1024,
              f"ptrs (.data.rel.ro): DIRTY {ptrs['dirty']} == its size "
              f"{sizes['ptrs']} (dirtied by relocation)")
        bss = rows["bss_buf"]
        check(int(bss["rss"]) == 3 * MiB and int(bss["dirty"]) == 3 * MiB,
              f"bss_buf: RSS {bss['rss']} and DIRTY {bss['dirty']} == 3 MiB")
        byfile = {(r["files"], r["symbols"]): r
                  for r in report(data, "files,symbols")}
        check(int(byfile.get((exe, "bss_buf"), {"rss": 0})["rss"]) == 3 * MiB,
              ".bss is charged to its image")
        anon = [r for r in report(data, "files") if r["files"] == "[anon]"]
        check(not anon or int(anon[0]["rss"]) < 3 * MiB,
              "[anon] does not hold the .bss")
        kinds = {r["kinds"]: r for r in report(data, "files,kinds",
                                                "--filter", "^" + exe + "$")}
        check(int(kinds["relro"]["dirty"]) >= 512 * 1024,
              "kinds: relro is dirty (--filter on the files level)")
        check(int(kinds["bss"]["rss"]) >= 3 * MiB, "kinds: bss resident")
        # the setup itself, seen by the kernel
        base = None
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                if line.split()[-1] == exe and " 00000000 " in line:
                    base = int(line.split("-")[0], 16)
                    break
        addr = {}
        out = subprocess.run(["nm", exe], stdout=subprocess.PIPE, text=True)
        for line in out.stdout.splitlines():
            f = line.split()
            if len(f) == 3:
                addr[f[2]] = int(f[0], 16)
        hot = base + addr["hot_a"]
        check(smaps_rss(pid, hot, hot + 65536) == 2 * 4096,
              "smaps: exactly 2 pages of the hot section resident")
        os.kill(pid, signal.SIGKILL)

        # fork: PSS halves
        if os.geteuid() == 0:
            p = subprocess.Popen([exe, "fork"], stdout=subprocess.PIPE,
                                 text=True)
            procs.append(p)
            f = p.stdout.readline().split()
            pids = [int(f[1]), int(f[2])]
            anon_at = int(f[3].split("=")[1], 16)
            for q in pids:
                stopped(q)
            data = os.path.join(tmp, "f.data")
            record(pids, data)
            for r in report(data, "pids,mappings"):
                s, e = (int(x, 16) for x in
                        r["mappings"].split()[0].split("-"))
                if s <= anon_at < e:
                    rss, pss = int(r["rss"]), float(r["pss"])
                    check(rss >= 4 * MiB and
                          abs(pss - (4 * MiB) / 2 - (rss - 4 * MiB)) < 4096,
                          f"pid {r['pids']}: shared region RSS {rss}, "
                          f"PSS {pss:.0f} == half of the 4 MiB shared")
            for q in pids:
                os.kill(q, signal.SIGKILL)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
