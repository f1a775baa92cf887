#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2300: `memsz record -a` against every process's smaps_rollup.

A workload built here (sys_share: a shared file mapping read whole, dirty
heap, a forked child) is stopped with SIGSTOP; smaps_rollup of every
process is read, `memsz record -a --duration 0` takes one snapshot of the
machine, and smaps_rollup is read again. Then:
- the stopped workload, exactly: RSS = Rss, DIRTY = Private_Dirty, SWAP =
  Swap; PSS within one page per mapping of Pss (pages it shares with
  running processes, the C library, may change sharers meanwhile);
- every process that could be read before and after is in the report, and
  the ones that could not be read (smaps_rollup refused) are exactly the
  ones the note names; no kernel thread is recorded, and memsz is not;
- processes memsz does not control: those that did not run at all from
  before the first read to after the second (the same threads, the same
  schedstat cpu time) and whose Rss did not change (within 1 %) must match
  it within 2 % + 64 KiB, and their sum within 1 % (a busy machine moves
  the others);
- names and owners: the workload's row is 'PID sys_share ...', --by users puts
  it under its owner, and the file both processes map has PROCS 2.
"""
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check  # noqa: E402


def start(tmp, data_file):
    exe = os.path.join(tmp, "sys_share")
    subprocess.run(["gcc", "-O1", "-o", exe,
                    os.path.join(SRCDIR, "tests/workloads/sys_share.c")],
                   check=True)
    p = subprocess.Popen([exe, data_file, "2048"], stdout=subprocess.PIPE,
                         text=True)
    parent = int(p.stdout.readline().split()[1])
    child = int(p.stdout.readline().split()[1])
    return p, parent, child


def noted_denied(stderr):
    m = re.search(r"could not be read \([^)]*\) and (?:is|are) left out: "
                  r"pid ([0-9, .]+)", stderr)
    if not m:
        return set()
    return {int(x) for x in re.findall(r"\d+", m.group(1))}


def main():
    if not shutil.which("gcc"):
        lib.skip("gcc (gcc) is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t2300-") as tmp:
        data_file = os.path.join(tmp, "shared.bin")
        with open(data_file, "wb") as f:
            f.write(os.urandom(64 * PAGE))
        proc, parent, child = start(tmp, data_file)
        try:
            run(tmp, data_file, parent, child)
        finally:
            for pid in (child, parent):
                os.kill(pid, signal.SIGKILL)
            proc.wait()


def run(tmp, data_file, parent, child):
    data = os.path.join(tmp, "all.data")
    lib.stopped(parent)
    lib.stopped(child)
    cpu_before = lib.all_cpu_states()
    before = lib.all_rollups()
    rec = subprocess.Popen([MEMSZ, "record", "-a", "--duration", "0",
                            "-o", data], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    memsz_pid = rec.pid
    rec.stderr = rec.communicate()[1]
    after = lib.all_rollups()
    cpu_after = lib.all_cpu_states()
    check(rec.returncode == 0, f"record -a exits 0 ({rec.stderr.strip()})")
    if rec.returncode:
        return
    rows = lib.pid_rows(data)

    # the stopped workload: exact
    for pid in (parent, child):
        r, s = rows.get(pid), after[pid]
        check(r is not None, f"stopped pid {pid} recorded")
        if r is None:
            continue
        check(int(r["rss"]) == s["Rss"],
              f"pid {pid}: RSS {r['rss']} == smaps_rollup Rss {s['Rss']}")
        check(int(r["dirty"]) == s["Private_Dirty"],
              f"pid {pid}: DIRTY {r['dirty']} == Private_Dirty "
              f"{s['Private_Dirty']}")
        check(int(r["swap"]) == s["Swap"], f"pid {pid}: SWAP == Swap")
        tol = PAGE * lib.nmaps(pid)
        check(abs(float(r["pss"]) - s["Pss"]) <= tol,
              f"pid {pid}: PSS {float(r['pss']):.0f} within {tol} of Pss "
              f"{s['Pss']}")
    check(lib.pid_label_is(rows.get(parent, {}).get("pids"), parent,
                           "sys_share"),
          "the workload is named 'PID sys_share ...'")

    # coverage: readable user processes present before and after
    both = set(before) & set(after)
    denied = {p for p in both
              if before[p] == "denied" and after[p] == "denied"}
    user = {p for p in both if p not in denied and before[p] and after[p]
            and before[p] != "denied" and after[p] != "denied"}
    missing = sorted(user - set(rows))
    check(not missing, f"every readable process recorded ({len(user)}; "
          f"missing {missing[:10]})")
    noted = noted_denied(rec.stderr)
    check(denied <= noted and noted <= set(before) | set(after),
          f"unreadable processes noted: {sorted(denied)} in {sorted(noted)}")
    kth = [p for p in rows if lib.is_kthread(p)]
    check(not kth, f"no kernel thread recorded ({kth[:5]})")
    table = subprocess.run([MEMSZ, "report", "-i", data], text=True,
                           capture_output=True).stdout
    check(re.search(r"^\d+ kernel threads? skipped", table, re.M),
          "a note counts the kernel threads skipped")
    check(memsz_pid not in rows,
          "memsz does not record itself")

    # processes memsz does not control: the stable ones
    stable = [p for p in user & set(rows) if p not in (parent, child)
              and cpu_before.get(p) is not None
              and cpu_before.get(p) == cpu_after.get(p)
              and abs(before[p]["Rss"] - after[p]["Rss"]) <=
              0.01 * after[p]["Rss"]]
    bad = [(p, int(rows[p]["rss"]), after[p]["Rss"]) for p in stable
           if abs(int(rows[p]["rss"]) - after[p]["Rss"]) >
           0.02 * after[p]["Rss"] + 65536]
    check(stable and not bad,
          f"{len(stable)} stable processes: RSS within 2 % + 64 KiB of "
          f"smaps_rollup (off: {bad[:5]})")
    got = sum(int(rows[p]["rss"]) for p in stable)
    want = sum(after[p]["Rss"] for p in stable)
    check(abs(got - want) <= 0.01 * want,
          f"their RSS sum {got} within 1 % of smaps_rollup's {want}")

    # names, owners, processes per file
    owner = pwd.getpwuid(os.stat(f"/proc/{parent}").st_uid).pw_name
    byuser = lib.report(data, "users,pids")
    check(any(r["users"] == owner and
              lib.pid_label_is(r["pids"], parent, "sys_share")
              for r in byuser),
          f"--by users,pids puts the workload under '{owner}'")
    files = {r["files"]: r for r in lib.report(data, "files")}
    f = files.get(os.path.realpath(data_file))
    check(f is not None and f["processes"] == "2",
          f"the shared file is mapped by PROCS 2 "
          f"({f and f['processes']})")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
