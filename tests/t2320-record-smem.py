#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2320: `memsz record -a` reports beside Debian's smem, read at the same
moment.

A workload built here under a name of its own (sys_share: a shared file
read whole by a parent and its forked child) is stopped; smaps_rollup of
every process is read, then `memsz record -a --duration 0`, `smem -t`
(per process), `smem -m -P ^PATH` (per mapped file), `smem -u -P ^PATH` (per user,
the workload only), and smaps_rollup again. Tolerances:
- the stopped workload: RSS equals smem's exactly (smem prints kB;
  pages are whole kB); USS within one page per mapping and PSS within
  1 KiB per mapping (smem adds the kernel's per-mapping Pss, each
  rounded down to a kB) plus one page per mapping (its shared C library
  pages may change sharers meanwhile: exclusive at one read, shared by a
  process another test starts at the other);
- `smem -m`: the shared file has PIDs 2 and memsz's PROCS 2, and the same
  PSS within 1 KiB per process;
- `smem -u -P ^PATH` against `report --by users,pids --filter NAME`: the same
  user, count and RSS, PSS as above;
- processes memsz does not control, read by both: those that did not run
  at all from before the first smaps_rollup read to after the second (the
  same threads, the same cpu time to the nanosecond in schedstat) and whose
  Rss did not change (within 1 %) agree with smem's RSS within 2 % + 64 KiB
  (what reclaim may take meanwhile), and their sums within 1 %.
"""
import fcntl
import os
import pwd
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check  # noqa: E402


def smem(*args):
    """The rows of `smem -H -a args`, split into words. smem cuts a map
    name to 40 characters (and a command line), unless told to size its
    columns (-a) to the terminal its stdin is (80 columns without one):
    here a pseudo-terminal 4096 columns wide, so that the whole path of a
    file under a long TMPDIR is there to compare."""
    pty, tty = os.openpty()
    try:
        fcntl.ioctl(tty, termios.TIOCSWINSZ,
                    struct.pack("HHHH", 50, 4096, 0, 0))
        out = subprocess.run(["smem", "-H", "-a", *args], stdin=tty,
                             capture_output=True, text=True,
                             check=True).stdout
    finally:
        os.close(tty)
        os.close(pty)
    return [line.split() for line in out.splitlines()
            if line.strip() and not line.startswith("-")]


def main():
    if not shutil.which("smem"):
        lib.skip("smem (smem) is not installed")
    name = f"t2320w{os.getpid()}"[:15]
    with tempfile.TemporaryDirectory(prefix="memsz-t2320-") as tmp:
        exe = os.path.join(tmp, name)
        subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
            SRCDIR, "tests/workloads/sys_share.c")], check=True)
        data_file = os.path.join(tmp, "shared.bin")
        with open(data_file, "wb") as f:
            f.write(os.urandom(64 * PAGE))
        p = subprocess.Popen([exe, data_file, "1024"],
                             stdout=subprocess.PIPE, text=True)
        parent = int(p.stdout.readline().split()[1])
        child = int(p.stdout.readline().split()[1])
        try:
            run(tmp, name, exe, data_file, parent, child)
        finally:
            for pid in (child, parent):
                os.kill(pid, signal.SIGKILL)
            p.wait()


def run(tmp, name, exe, data_file, parent, child):
    data = os.path.join(tmp, "all.data")
    lib.stopped(parent)
    lib.stopped(child)
    cpu_before = lib.all_cpu_states()
    before = lib.all_rollups()
    rec = subprocess.run([MEMSZ, "record", "-a", "--duration", "0", "-o",
                          data], capture_output=True, text=True)
    procs = {int(r[0]): r for r in smem("-t", "-c", "pid user rss pss uss")
             if r[0].isdigit()}
    # -P matches command lines too: anchored, so that smem's own (which
    # holds the pattern) does not. smem -m reads only the workload's
    # maps: it stops on a map name that is not UTF-8 (UnicodeDecodeError),
    # which a test running beside this one may have mapped
    only = ("-P", "^" + re.escape(exe))
    maps = smem("-m", *only, "-c", "pids pss map")
    users = smem("-u", *only, "-c", "user count rss pss")
    after = lib.all_rollups()
    cpu_after = lib.all_cpu_states()
    check(rec.returncode == 0, f"record -a exits 0 ({rec.stderr.strip()})")
    if rec.returncode:
        return
    rows = lib.pid_rows(data)

    for pid in (parent, child):
        r, s = rows.get(pid), procs.get(pid)
        check(r is not None and s is not None,
              f"pid {pid} in both memsz and smem")
        if r is None or s is None:
            continue
        check(int(r["rss"]) == int(s[2]) * 1024,
              f"pid {pid}: RSS {r['rss']} == smem {int(s[2]) * 1024}")
        # a C library page only it maps at one read may be shared at the
        # other (a process another test starts or ends): a page per
        # mapping, as for PSS (CI saw one page)
        utol = PAGE * lib.nmaps(pid)
        check(abs(int(r["uss"]) - int(s[4]) * 1024) <= utol,
              f"pid {pid}: USS {r['uss']} within {utol} of smem "
              f"{int(s[4]) * 1024}")
        tol = (1024 + PAGE) * lib.nmaps(pid)
        check(abs(float(r["pss"]) - int(s[3]) * 1024) <= tol,
              f"pid {pid}: PSS {float(r['pss']):.0f} within {tol} of smem "
              f"{int(s[3]) * 1024}")

    # smem -m: the shared file
    real = os.path.realpath(data_file)
    m = [x for x in maps if x[-1] == real]
    files = {r["files"]: r for r in lib.report(data, "files")}
    f = files.get(real)
    check(m and f and int(m[0][0]) == 2 and f["processes"] == "2",
          f"smem -m PIDs {m and m[0][0]} == memsz PROCS "
          f"{f and f['processes']} == 2 for the shared file")
    if m and f:
        check(abs(float(f["pss"]) - int(m[0][1]) * 1024) <= 2 * 1024,
              f"its PSS {float(f['pss']):.0f} within 2 KiB of smem -m "
              f"{int(m[0][1]) * 1024}")

    # smem -u -P ^PATH: the workload's user
    owner = pwd.getpwuid(os.stat(f"/proc/{parent}").st_uid).pw_name
    u = {x[0]: x for x in users}
    # --filter keeps the paths with a label matching at any level: the
    # workload's pids under their user
    by_up = lib.report(data, "users,pids", "--filter", f"[ /]{name}( |$)")
    got = [r for r in by_up if r.get("pids") and
           lib.pid_label_is(r["pids"], r["pids"].split(" ")[0], name)]
    rss = sum(int(r["rss"]) for r in got)
    pss = sum(float(r["pss"]) for r in got)
    check(owner in u and int(u[owner][1]) == len(got) == 2 and
          all(r["users"] == owner for r in got),
          f"smem -u -P: user {owner}, count {u.get(owner, ['', '?'])[1]} "
          f"== memsz {len(got)}")
    if owner in u:
        check(int(u[owner][2]) * 1024 == rss,
              f"smem -u RSS {int(u[owner][2]) * 1024} == memsz {rss}")
        tol = (1024 + PAGE) * (lib.nmaps(parent) + lib.nmaps(child))
        check(abs(int(u[owner][3]) * 1024 - pss) <= tol,
              f"smem -u PSS {int(u[owner][3]) * 1024} within {tol} of "
              f"memsz {pss:.0f}")

    # the rest of the machine: stable processes
    stable = [p for p in set(rows) & set(procs) & set(before) & set(after)
              if p not in (parent, child) and isinstance(before[p], dict)
              and cpu_before.get(p) is not None
              and cpu_before.get(p) == cpu_after.get(p)
              and isinstance(after[p], dict) and before[p] and after[p] and
              abs(before[p]["Rss"] - after[p]["Rss"]) <=
              0.01 * after[p]["Rss"]]
    bad = [(p, int(rows[p]["rss"]), int(procs[p][2]) * 1024)
           for p in stable if abs(int(rows[p]["rss"]) -
                                  int(procs[p][2]) * 1024) >
           0.02 * int(procs[p][2]) * 1024 + 65536]
    check(stable and not bad,
          f"{len(stable)} stable processes: RSS within 2 % + 64 KiB of "
          f"smem (off: {bad[:5]})")
    a = sum(int(rows[p]["rss"]) for p in stable)
    b = sum(int(procs[p][2]) * 1024 for p in stable)
    check(abs(a - b) <= 0.01 * b,
          f"their RSS sum {a} within 1 % of smem's {b}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
