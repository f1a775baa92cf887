#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3324: the rows of memory no process holds count no process in PROCS.

A recording of the machine (`record -a`) or of a memory cgroup (`-G`)
adds rows of the memory no process maps: [free], [kernel: ...], [page
cache, file unknown], [unexplained], [anon, process unknown] (-a) and
[kernel memory], [unexplained] (-G). They were added with the process
tag of the last snapshot still set, so each counted one process in
PROCS, and the rows of a key added up to more processes than the TOTAL.
The ground truth is the number of processes the recording holds: the
pids of its SNAP_BEGIN records (`memsz dump`), among them a `cat` started
here (seen in /proc).
 - `record -a --duration 0`: under --by pids and --by users every
   bracketed row but [charged elsewhere] (pages of processes) has PROCS
   0; the TOTAL's PROCS is the number of recorded processes that have a
   row (on a machine running other tests a process can leave a snapshot
   that makes none; they are listed), and so is the sum of the process
   rows (pids) or user rows (users); the cat's row counts 1.
 - `record -G CG` of a memory cgroup holding two processes: the same,
   with the cgroup's rows of kernel memory and [unexplained]; there
   every process recorded has its row.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# a process of the cgroup: touches 8 MiB, says ready, waits on stdin
HOLD = ("import sys; sys.stdin.readline(); b = bytearray(8 << 20); "
        "print('ready', flush=True); sys.stdin.readline()")


def rows(data, by):
    """{label: PROCS} of `report --by by -F rss,procs` and the TOTAL's."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-F",
                          "rss,procs", "-n", "0", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    return ({r["name"]: r["processes"] for r in doc["rows"]},
            doc["total"]["processes"])


def recorded_pids(data):
    """The pids of the SNAP_BEGIN records of data (`memsz dump`) with a
    mapping and a SNAP_END: a process of -a that exits while it is read
    (the machine runs other tests) can leave a snapshot without either,
    which makes no row."""
    dump = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                          text=True, check=True).stdout
    ended = set(re.findall(r" SNAP_END pid (\d+ seq \d+) ", dump))
    return set(pid for pid, seq, n in re.findall(
        r" SNAP_BEGIN pid (\d+) seq (\d+) mappings (\d+)", dump)
        if int(n) > 0 and f"{pid} seq {seq}" in ended)


def checks(data, what, pseudo_wanted, cat_pid=None, exact=True):
    """The checks of the PROCS of the pseudo-rows of recording data.
    exact: every process recorded makes a row (a -G cgroup of the test's
    own processes); else (-a, on a machine running other tests) a
    process may make none, and PROCS is held to the rows it counts."""
    pids = recorded_pids(data)
    check(len(pids) >= 2, f"{what}: the recording holds {len(pids)} "
          "processes (at least 2)")
    for by in ("pids", "users"):
        got, total = rows(data, by)
        pseudo = {k: v for k, v in got.items()
                  if k.startswith("[") and k != "[charged elsewhere]"}
        real = {k: v for k, v in got.items() if not k.startswith("[")}
        seen = [w for w in pseudo_wanted if w in pseudo]
        check(seen == pseudo_wanted,
              f"{what} --by {by}: rows {pseudo_wanted} are there "
              f"(got {sorted(pseudo)})")
        bad = {k: v for k, v in pseudo.items() if v != 0}
        check(not bad, f"{what} --by {by}: rows of memory no process "
              f"holds count no process in PROCS (got {bad or 'all 0'})")
        # (users: the processes the pids rows counted)
        if by == "pids":
            shown = set(k.split()[0] for k in real)
        want = len(pids) if exact else len(shown & pids)
        check(total == want and (exact or 0 < want <= len(pids)),
              f"{what} --by {by}: TOTAL PROCS {total} == the {want} "
              f"processes recorded{'' if exact else ' with a row'} "
              f"(recorded without one: {sorted(pids - shown)})")
        check(sum(got.values()) - got.get("[charged elsewhere]", 0) ==
              sum(real.values()) == total,
              f"{what} --by {by}: the rows' PROCS add up to the TOTAL's "
              f"{total} (got {sum(got.values())}, processes' rows "
              f"{sum(real.values())})")
        if cat_pid and by == "pids":
            mine = [v for k, v in real.items()
                    if k.split()[0] == str(cat_pid)]
            check(mine == [1], f"{what}: the row of the cat (pid "
                  f"{cat_pid}, in /proc while recorded) counts 1 process "
                  f"(got {mine})")


def machine(tmp):
    data = os.path.join(tmp, "all.data")
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
    try:
        lib.reading_pipe(cat.pid)  # in /proc, past its exec
        p = subprocess.run([MEMSZ, "record", "-a", "--duration", "0", "-o",
                            data], capture_output=True, text=True)
    finally:
        cat.kill()
        cat.wait()
    if p.returncode != 0:
        lib.skip_part(f"record -a failed: {p.stderr.strip()}")
        return
    checks(data, "-a", ["[free]", "[unexplained]"], cat.pid, exact=False)


def cgroup(tmp):
    data = os.path.join(tmp, "cg.data")
    with lib.memory_cgroups("t3324") as (cg,):
        procs = [lib.start_in_cgroup(HOLD, cg) for _ in range(2)]
        try:
            for p in procs:
                check(p.stdout.readline().split() == ["ready"],
                      f"pid {p.pid} in the cgroup is ready")
            subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "-o", data], capture_output=True, text=True,
                           check=True)
        finally:
            for p in procs:
                p.kill()
                p.wait()
    checks(data, "-G", ["[kernel memory]"])


def main():
    if os.geteuid() != 0:
        lib.skip("needs root (record -a, memory cgroups)")
        return
    with tempfile.TemporaryDirectory(prefix="t3324.") as tmp:
        machine(tmp)
        cgroup(tmp)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
