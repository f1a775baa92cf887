#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2140: a real service. A PostgreSQL 15 cluster (initdb into a temporary
directory as nobody, its unix socket in a short one of its own, no TCP) is
recorded with `memsz record -p POSTMASTER` while psql sessions open and
run queries (one session ends while recorded, two stay). The cluster is
then stopped (SIGSTOP) and the recording ended. Every backend forked
meanwhile must be in the recording under its pid and its `postgres: ...`
name, and for each recorded process alive at the end, the last snapshot's
RSS, DIRTY and SWAP must equal its /proc/PID/smaps sums, SHR DIRTY and SHR
CLEAN (over the cluster's own files and memory: other processes map system
libraries meanwhile) Shared_Dirty and Shared_Clean within a few pages, and
PSS be within a page per mapping (smaps read after memsz has exited: PSS
is observer-free). --by comms groups them all under "postgres".
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import PAGE, check, proc_state, smaps_vmas  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
PGBIN = "/usr/lib/postgresql/15/bin"
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]




class Session:
    """A psql session kept open; query() returns the first output line."""

    def __init__(self, sock):
        self.p = subprocess.Popen(
            NOBODY + [f"{PGBIN}/psql", "-X", "-At", "-h", sock, "-U",
                      "tester", "-d", "postgres"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def query(self, sql):
        self.p.stdin.write(sql + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)],
                         capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


# Files any process on the machine may map too (the C library, zlib, ...;
# PostgreSQL's own binaries: t2185 starts a cluster of its own, and make
# -j2 check may run it meanwhile): one that maps a page of them and
# exits, or maps it anew, between the last snapshot and the smaps read
# turns that page from shared to private or back. The cluster's own
# files and memory are mapped by it alone.
SYSTEM = ("/usr/lib/x86_64-linux-gnu/", "/lib/", "/usr/lib/locale/",
          "/usr/share/", "/usr/lib/postgresql/")


def is_system(path):
    return path.startswith(SYSTEM)


def smaps_sums(pid):
    vmas = smaps_vmas(pid)
    sums = {k: sum(v.get(k, 0) for v in vmas)
            for k in ("Rss", "Pss", "Private_Dirty", "Swap", "Shared_Clean",
                      "Shared_Dirty")}
    own = [v for v in vmas if not is_system(v["last"])]
    sums["own_Shared_Clean"] = sum(v.get("Shared_Clean", 0) for v in own)
    sums["own_Pss"] = sum(v.get("Pss", 0) for v in own)
    sums["n"] = len(vmas)
    sums["own_n"] = len(own)
    sums["own_starts"] = {v["start"] for v in own}
    return sums


def run(tmp, sock):
    data = os.path.join(tmp, "pg.data")
    pgdata = os.path.join(tmp, "data")
    os.chmod(tmp, 0o777)
    subprocess.run(NOBODY + [f"{PGBIN}/initdb", "-D", pgdata, "-A", "trust",
                             "-U", "tester", "--no-sync"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(NOBODY + [f"{PGBIN}/pg_ctl", "-D", pgdata, "-w", "-l",
                             os.path.join(tmp, "log"), "-o",
                             f"-k {sock} -c listen_addresses=''", "start"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(pgdata, "postmaster.pid")) as f:
        pm = int(f.readline())
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "-p", str(pm),
                            "--interval", "200"], stderr=subprocess.PIPE,
                           text=True)
    try:
        lib.wait_until(lambda: lib.snap_ends(data) >= 1 or
                       rec.poll() is not None, "memsz to attach")
        check(rec.poll() is None, "memsz attached to the postmaster")
        # one session that runs a query and ends while recorded
        s0 = Session(sock)
        gone = int(s0.query("select pg_backend_pid();"))
        s0.query("select count(*) from generate_series(1, 100000);")
        s0.close()
        lib.wait_until(lambda: not os.path.exists(f"/proc/{gone}"),
                       "the first backend to exit")
        # two that stay, with queries that make them use memory
        sessions = [Session(sock), Session(sock)]
        live = [int(s.query("select pg_backend_pid();")) for s in sessions]
        for s in sessions:
            s.query("select sum(length(repeat('x', g))) from "
                    "generate_series(1, 2000) g;")
            s.query("select count(*) from pg_class;")
        # stop the whole cluster, then end the recording
        procs = [pm] + children(pm)
        for p in procs:
            os.kill(p, signal.SIGSTOP)
        for p in procs:
            lib.wait_stopped(p)
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate()
        check(rec.returncode == -signal.SIGINT,
              f"record dies by the SIGINT that ended it ({err.strip()})")
        # a process memsz detached from re-enters its group-stop
        # (at the guard the check below fails, naming the states)
        for p in procs:
            try:
                lib.wait_stopped(p)
            except TimeoutError as e:
                print("# " + str(e))
        states = {p: proc_state(p) for p in procs}
        check(all(st in "Tt" for st in states.values()),
              f"the cluster is still stopped after memsz exited {states}")

        dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                              capture_output=True, text=True).stdout
        rows = {}
        for r in lib.report(data, "pids"):
            pid = int(r["pids"].split()[0])
            rows[pid] = r
        for b in [gone] + live:
            check(f"FORK {b}/{b}: parent {pm}/" in dump,
                  f"backend {b}: FORK record")
            label = rows.get(b, {}).get("pids", "")
            check(label.startswith(f"{b} postgres: tester postgres"),
                  f"backend {b} in report --by pids as '{label}'")
        check(f"SNAP_BEGIN pid {gone} " in dump and
              any(f"SNAP_BEGIN pid {gone} " in line and "at-exit" in line
                  for line in dump.splitlines()),
              f"ended backend {gone}: a snapshot at its exit")
        # comms groups every recorded process by command name: one row,
        # "postgres", holding the sum of theirs
        comms = lib.report(data, "comms")
        check([r["comms"] for r in comms] == ["postgres"],
              f"report --by comms: one 'postgres' row "
              f"({[r['comms'] for r in comms]})")
        check(comms and int(comms[0]["rss"]) ==
              sum(int(r["rss"]) for r in rows.values()),
              "report --by comms: its RSS is the sum of the processes'")
        own_shared = {}
        for r in lib.report(data, "pids,files"):
            if not is_system(r["files"]):
                pid = int(r["pids"].split()[0])
                own_shared[pid] = (own_shared.get(pid, 0) +
                                   int(r["shared_clean"]))
        # PSS by mapping (a library's .bss is its file's row in --by
        # files, an anonymous VMA in smaps)
        map_pss = {}
        for r in lib.report(data, "pids,mappings"):
            pid = int(r["pids"].split()[0])
            start = int(r["mappings"].split()[0].split("-")[0], 16)
            map_pss[pid, start] = map_pss.get((pid, start), 0) + \
                float(r["pss"])
        for p in [pm] + live:
            want = smaps_sums(p)
            r = rows.get(p)
            if r is None:
                check(False, f"{p} in the report")
                continue
            check(int(r["rss"]) == want["Rss"],
                  f"{p}: RSS {r['rss']} == smaps Rss {want['Rss']}")
            check(int(r["dirty"]) == want["Private_Dirty"],
                  f"{p}: DIRTY {r['dirty']} == smaps Private_Dirty "
                  f"{want['Private_Dirty']}")
            check(int(r["swap"]) == want["Swap"],
                  f"{p}: SWAP {r['swap']} == smaps Swap {want['Swap']}")
            # shared: mapped by another process too (the postmaster's
            # shared memory, the postgres binary); memsz itself not
            # counted. Shared clean pages of system libraries turn private
            # or shared as processes of other tests map and unmap them
            # meanwhile: Shared_Clean is compared over the cluster's own
            # files and memory, the rest only through RSS = USS + shared,
            # exactly. Shared dirty pages (copied on write after fork) are
            # the cluster's alone.
            got = own_shared.get(p, 0)
            check(abs(got - want["own_Shared_Clean"]) <= 8 * PAGE,
                  f"{p}: shared_clean {got} == smaps Shared_Clean "
                  f"{want['own_Shared_Clean']} within 8 pages, system "
                  f"libraries left out (all: {r['shared_clean']} vs "
                  f"{want['Shared_Clean']})")
            check(abs(int(r["shared_dirty"]) - want["Shared_Dirty"]) <=
                  8 * PAGE,
                  f"{p}: shared_dirty {r['shared_dirty']} == smaps "
                  f"Shared_Dirty {want['Shared_Dirty']} within 8 pages")
            check(int(r["rss"]) == int(r["uss"]) + int(r["shared_clean"]) +
                  int(r["shared_dirty"]),
                  f"{p}: RSS == USS + SHR CLEAN + SHR DIRTY")
            # PSS within a page per mapping over the cluster's own files
            # and memory; the system libraries' share moves with their
            # sharers in other tests (up to their whole Rss)
            tol = want["own_n"] * PAGE
            own = sum(v for (pid, a), v in map_pss.items()
                      if pid == p and a in want["own_starts"])
            check(abs(own - want["own_Pss"]) <= tol,
                  f"{p}: PSS {own:.0f} == smaps Pss {want['own_Pss']} "
                  f"within {want['own_n']} pages, system libraries' "
                  f"mappings left out")
            # a system library's page changes PSS only if it was
            # shared at the snapshot or at the smaps read
            moved = max(int(r["shared_clean"]) - got,
                        want["Shared_Clean"] - want["own_Shared_Clean"])
            tol = want["n"] * PAGE + moved
            check(abs(float(r["pss"]) - want["Pss"]) <= tol,
                  f"{p}: all PSS {float(r['pss']):.0f} == smaps Pss "
                  f"{want['Pss']} within {want['n']} pages and the "
                  f"system libraries' shared clean pages {moved}")
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
        for p in [pm] + children(pm):
            try:
                os.kill(p, signal.SIGCONT)
            except ProcessLookupError:
                pass
        for s in locals().get("sessions", []):
            s.close()
        subprocess.run(NOBODY + [f"{PGBIN}/pg_ctl", "-D", pgdata, "-m",
                                 "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: nobody runs the cluster, memsz needs PFNs")
    if not os.access(f"{PGBIN}/postgres", os.X_OK):
        lib.skip(f"no {PGBIN}/postgres (Debian package postgresql)")
    # the socket in a short directory of its own: one under a long
    # TMPDIR would not fit in sun_path
    with tempfile.TemporaryDirectory(prefix="memsz-t2140.") as tmp, \
            lib.socket_dir("nobody") as sock:
        run(tmp, sock)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
