#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2185: `memsz record -p PID --children` attaches to PID and to every
descendant it has at attach, and follows those forked later.

A python3 tree built here before the attach: P holds 3 MiB of anonymous
memory, its child C1 5 MiB, C1's child G1 7 MiB, P's child C2 9 MiB (each
touched page by page).
- stopped (SIGSTOP), recorded with `--children --duration 0`: `report
  --by pids` has exactly the four processes, each with RSS equal to its
  /proc/PID/smaps_rollup Rss (read after memsz exited) and at least what
  it touched; without --children, P alone (what `-p` always did);
- running, recorded with `--children --interval 200`: G1 forks N (11 MiB)
  once memsz is attached, C2 is killed: N is in the recording, C2 has a
  snapshot at its exit (it was traced, not only snapshot at attach), and
  every process of the tree is reported;
- with PostgreSQL 15 installed: a cluster started here (as nobody), recorded
  with `-p POSTMASTER --children --duration 0`, has every process whose
  parent is the postmaster (checkpointer, background writer, walwriter,
  autovacuum and logical replication launchers) under its `postgres: ...`
  name, all under the user nobody;
- --children without -p is a usage error.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
MIB = 1 << 20
PGBIN = "/usr/lib/postgresql/15/bin"
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

# Each process prints "ready NAME PID" once its memory is touched, then
# waits for signals; G1 forks N (11 MiB) at SIGUSR1.
WORKLOAD = r"""
import mmap, os, signal

def hold(mib):
    m = mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE)
    for off in range(0, mib << 20, 4096):
        m[off] = 1
    return m

def serve(name, mib, kids=()):
    keep = hold(mib)
    for k in kids:
        if os.fork() == 0:
            serve(*k)
    os.write(1, b"ready %s %d\n" % (name.encode(), os.getpid()))
    while True:
        signal.pause()

def fork_n(sig, frame):
    if os.fork() == 0:
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        serve("N", 11)

signal.signal(signal.SIGUSR1, fork_n)
serve("P", 3, [("C1", 5, [("G1", 7)]), ("C2", 9)])
"""
HELD = {"P": 3, "C1": 5, "G1": 7, "C2": 9, "N": 11}


def ready(out, pids, n):
    """Reads n "ready NAME PID" lines of out into pids {NAME: PID}."""
    for _ in range(n):
        w = out.readline().split()
        if len(w) != 3 or w[0] != "ready":
            lib.fail(f"the workload started ({w})")
        pids[w[1]] = int(w[2])


def rows(data):
    return lib.pid_rows(data)


def stopped_tree(tmp, pids):
    data = os.path.join(tmp, "stopped.data")
    tree = [pids[k] for k in ("P", "C1", "G1", "C2")]
    for p in tree:
        lib.stopped(p)
    try:
        rec = subprocess.run([MEMSZ, "record", "-o", data, "-p",
                              str(pids["P"]), "--children", "--duration",
                              "0"], capture_output=True, text=True,
                             timeout=300)
        check(rec.returncode == 0, f"record --children exits 0 "
              f"{rec.stderr.strip()}")
        got = rows(data)
        check(sorted(got) == sorted(tree),
              f"--children: the whole tree {sorted(tree)} is recorded "
              f"({sorted(got)})")
        for name in ("P", "C1", "G1", "C2"):
            p = pids[name]
            want = lib.smaps_rollup(p)["Rss"]
            rss = int(got.get(p, {}).get("rss", -1))
            check(rss == want and rss >= HELD[name] * MIB,
                  f"{name} ({p}): RSS {rss} == smaps_rollup Rss {want}, "
                  f">= the {HELD[name]} MiB it touched")
        rec = subprocess.run([MEMSZ, "record", "-o", data, "-p",
                              str(pids["P"]), "--duration", "0"],
                             capture_output=True, text=True, timeout=300)
        check(rec.returncode == 0 and sorted(rows(data)) == [pids["P"]],
              "without --children: the process alone")
    finally:
        for p in tree:
            os.kill(p, signal.SIGCONT)


def running_tree(tmp, pids, out):
    data = os.path.join(tmp, "running.data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "-p",
                            str(pids["P"]), "--children", "--interval",
                            "200"], stderr=subprocess.PIPE, text=True)
    try:
        lib.wait_until(lambda: lib.snap_ends(data) >= 4 or
                       rec.poll() is not None, "4 first snapshots")
        check(rec.poll() is None, "memsz attached to the tree")
        os.kill(pids["G1"], signal.SIGUSR1)
        ready(out, pids, 1)
        os.kill(pids["C2"], signal.SIGKILL)
        lib.wait_until(lambda: lib.proc_state(pids["C2"]) in "ZX",
                       "C2 to exit")

        def seen():
            dump = subprocess.run([MEMSZ, "dump", "-i",
                                   lib.recording(data)],
                                  capture_output=True, text=True).stdout
            return f"SNAP_BEGIN pid {pids['N']} " in dump
        lib.wait_until(seen, "a snapshot of N")
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=300)
        check(rec.returncode == -signal.SIGINT,
              f"record dies by the SIGINT that ended it ({err.strip()})")
        got = rows(data)
        check(sorted(got) == sorted(pids.values()),
              f"the tree and N, forked after the attach, are recorded: "
              f"{sorted(got)} == {sorted(pids.values())}")
        dump = subprocess.run([MEMSZ, "dump", "-i", data],
                              capture_output=True, text=True).stdout
        c2 = pids["C2"]
        check(any(f"SNAP_BEGIN pid {c2} " in line and "at-exit" in line
                  for line in dump.splitlines()),
              f"C2 ({c2}), a child at attach, has a snapshot at its exit")
        n = int(got.get(pids["N"], {}).get("rss", 0))
        check(n >= HELD["N"] * MIB, f"N: RSS {n} >= {HELD['N']} MiB")
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()


def postgres(tmp):
    """The postmaster's processes under record -p PM --children."""
    if os.geteuid() != 0:
        lib.skip_part("PostgreSQL: needs root (the cluster runs as nobody)")
        return
    if not os.access(f"{PGBIN}/postgres", os.X_OK):
        lib.skip_part(f"PostgreSQL: no {PGBIN}/postgres (Debian package "
                      "postgresql)")
        return
    pg = os.path.join(tmp, "pg")
    os.chmod(tmp, 0o755)  # nobody must reach pg
    os.mkdir(pg)
    os.chmod(pg, 0o777)
    pgdata = os.path.join(pg, "data")
    data = os.path.join(tmp, "pg.data")
    subprocess.run(NOBODY + [f"{PGBIN}/initdb", "-D", pgdata, "-A", "trust",
                             "-U", "tester", "--no-sync"],
                   check=True, stdout=subprocess.DEVNULL)
    # the socket in a short directory of its own: one under a long
    # TMPDIR would not fit in sun_path
    with lib.socket_dir("nobody") as sock:
        postgres_cluster(pg, pgdata, sock, data)


def postgres_cluster(pg, pgdata, sock, data):
    """Starts the cluster in pgdata (log in pg, socket in sock), records
    it into data and checks the recording; stops it."""
    subprocess.run(NOBODY + [f"{PGBIN}/pg_ctl", "-D", pgdata, "-w", "-l",
                             os.path.join(pg, "log"), "-o",
                             f"-k {sock} -c listen_addresses=''", "start"],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        with open(os.path.join(pgdata, "postmaster.pid")) as f:
            pm = int(f.readline())
        # the launchers start just after the postmaster is ready
        lib.wait_until(lambda: len(lib.children(pm)) >= 5,
                       "the postmaster's 5 background processes")
        kids = lib.children(pm)
        rec = subprocess.run([MEMSZ, "record", "-o", data, "-p", str(pm),
                              "--children", "--duration", "0"],
                             capture_output=True, text=True, timeout=300)
        check(rec.returncode == 0, f"postgres: record exits 0 "
              f"{rec.stderr.strip()}")
        got = rows(data)
        missing = [k for k in kids if k not in got]
        check(pm in got and not missing,
              f"postgres: the postmaster and its {len(kids)} processes are "
              f"recorded (missing {missing})")
        names = sorted(got[k]["pids"].split(" ", 1)[1] for k in kids
                       if k in got)
        check(all(n.startswith("postgres: ") for n in names) and
              any("checkpointer" in n for n in names) and
              any("walwriter" in n for n in names),
              f"postgres: named by their command lines {names}")
        users = {r["users"] for r in lib.report(data, "users")}
        check(users == {"nobody"}, f"postgres: all under nobody {users}")
    finally:
        subprocess.run(NOBODY + [f"{PGBIN}/pg_ctl", "-D", pgdata, "-m",
                                 "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    p = subprocess.run([MEMSZ, "record", "--children", "-a"],
                       capture_output=True, text=True)
    check(p.returncode == 129 and "--children" in p.stderr,
          f"--children without -p: usage error ({p.stderr.strip()})")
    with tempfile.TemporaryDirectory(prefix="memsz-t2185.") as tmp:
        wl = subprocess.Popen([sys.executable, "-c", WORKLOAD],
                              stdout=subprocess.PIPE, text=True)
        pids = {}
        try:
            ready(wl.stdout, pids, 4)
            stopped_tree(tmp, pids)
            running_tree(tmp, pids, wl.stdout)
        finally:
            for p in pids.values():
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            wl.kill()
            wl.wait()
        postgres(tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
