#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2310: `memsz record -G CGROUP` records exactly the processes of a cgroup
v2 subtree, including those that join it and those they fork.

As root, a cgroup directory and a child cgroup are made under the cgroup2
mount. A workload (sys_share) is moved into the child cgroup and forks;
`memsz record -G NAME` starts; a second workload is moved into the top
cgroup while memsz runs and forks a child only after joining. A third
workload stays outside. Then: the recording holds the four processes of
the subtree (the late child included) and nothing else; the same cgroup
given as an absolute path finds the same four; bad cgroups are one-line
errors. The cgroups are removed at the end.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check  # noqa: E402


class Workload:
    """sys_share started in "wait" mode: joins a cgroup, then forks."""

    def __init__(self, exe, data_file):
        self.p = subprocess.Popen([exe, data_file, "512", "wait"],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.pid = int(self.p.stdout.readline().split()[1])
        self.child = None

    def fork(self, cgroup=None):
        if cgroup:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(self.pid))
        self.p.stdin.write("go\n")
        self.p.stdin.flush()
        self.child = int(self.p.stdout.readline().split()[1])

    def kill(self):
        for pid in (self.child, self.pid):
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.p.wait()


def has_snapshot(data, pid):
    """True if data holds a complete snapshot of pid (`memsz dump`)."""
    out = subprocess.run([MEMSZ, "dump", "-i", lib.recording(data)],
                         text=True, capture_output=True).stdout
    return re.search(rf"SNAP_END pid {pid}\b", out) is not None


def wait_snapshot(data, pid):
    """Waits (see lib.wait_until) until data holds a complete snapshot of
    pid; False only at the hang guard."""
    try:
        lib.wait_until(lambda: has_snapshot(data, pid),
                       f"a snapshot of pid {pid} in {data}")
    except TimeoutError as e:
        print("# " + str(e))
        return False
    return True


def rmdir_wait(path):
    """Removes the cgroup directory path, waiting (see lib.wait_until)
    while it is busy; leaves it at the hang guard (checked by the test)."""
    lib.remove_cgroup(path)


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    mnt = lib.cgroup2_mount()
    if not mnt:
        lib.skip("no cgroup2 file system mounted")
    name = f"memsz-t2310-{os.getpid()}"
    top = os.path.join(mnt, name)
    sub = os.path.join(top, "sub")
    work = []
    with tempfile.TemporaryDirectory(prefix="memsz-t2310-") as tmp:
        exe = os.path.join(tmp, "sys_share")
        subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(
            SRCDIR, "tests/workloads/sys_share.c")], check=True)
        data_file = os.path.join(tmp, "shared.bin")
        with open(data_file, "wb") as f:
            f.write(os.urandom(16 * PAGE))
        os.mkdir(top)
        os.mkdir(sub)
        try:
            run(tmp, exe, data_file, name, top, sub, work)
        finally:
            for w in work:
                w.kill()
            rmdir_wait(sub)
            rmdir_wait(top)
        check(not os.path.exists(top), f"cgroup {top} removed")


def run(tmp, exe, data_file, name, top, sub, work):
    outside = Workload(exe, data_file)
    work.append(outside)
    outside.fork()
    early = Workload(exe, data_file)
    work.append(early)
    early.fork(sub)
    data = os.path.join(tmp, "g.data")
    rec = subprocess.Popen([MEMSZ, "record", "-G", name, "--interval",
                            "200", "-o", data], stderr=subprocess.PIPE,
                           text=True)
    try:
        check(wait_snapshot(data, early.child),
              "the processes already in the child cgroup are recorded")
        late = Workload(exe, data_file)
        work.append(late)
        late.fork(top)
        check(wait_snapshot(data, late.child),
              "a process that joins, and the child it forks after "
              "joining, are found")
    finally:
        rec.send_signal(signal.SIGINT)
        err = rec.communicate()[1]
    check(rec.returncode == -signal.SIGINT,
          f"record -G dies by the SIGINT that ended it ({err.strip()})")
    want = {early.pid, early.child, late.pid, late.child}
    rows = lib.pid_rows(data)
    check(set(rows) == want,
          f"only the subtree's processes: {sorted(rows)} == {sorted(want)}")
    check(all(lib.pid_label_is(r["pids"], p, "sys_share")
              for p, r in rows.items()),
          "each named sys_share")
    check(outside.pid not in rows and outside.child not in rows,
          "the workload outside the cgroup is not recorded")

    # the same cgroup, given by its absolute path, one snapshot
    data2 = os.path.join(tmp, "abs.data")
    r = subprocess.run([MEMSZ, "record", "-G", top, "--duration", "0", "-o",
                        data2], capture_output=True, text=True)
    check(r.returncode == 0 and set(lib.pid_rows(data2)) == want,
          f"-G {top} --duration 0: the same four processes")
    r = subprocess.run([MEMSZ, "record", "-G", "/" + name, "--duration",
                        "0", "-o", data2], capture_output=True, text=True)
    check(r.returncode == 0 and set(lib.pid_rows(data2)) == want,
          f"-G /{name} (as /proc/PID/cgroup shows it): the same four")

    # errors
    r = subprocess.run([MEMSZ, "record", "-G", name + "-none", "-o",
                        data2], capture_output=True, text=True)
    check(r.returncode == 1 and
          r.stderr.strip() == f"memsz: no cgroup '{name}-none'",
          f"a missing cgroup: one line, exit 1 ({r.stderr.strip()})")
    r = subprocess.run([MEMSZ, "record", "-G", tmp, "-o", data2],
                       capture_output=True, text=True)
    check(r.returncode == 1 and "not a cgroup directory" in r.stderr,
          f"a directory that is no cgroup: one line, exit 1 "
          f"({r.stderr.strip()})")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
