#!/usr/bin/env python3
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
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check  # noqa: E402


def cgroup2_mount():
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split(" - ")[0].split()[4] for line in f
                  if " - cgroup2 " in line]
    if "/sys/fs/cgroup" in mounts:
        return "/sys/fs/cgroup"
    return mounts[0] if mounts else None


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


def wait_snapshot(data, pid):
    """Waits (at most 20 s) until data holds a complete snapshot of pid."""
    pat = re.compile(rf"SNAP_END pid {pid}\b")
    for _ in range(2000):
        out = subprocess.run([MEMSZ, "dump", "-i", lib.recording(data)],
                             text=True, capture_output=True).stdout
        if pat.search(out):
            return True
        time.sleep(0.01)
    return False


def rmdir_retry(path):
    for _ in range(200):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def main():
    if os.geteuid() != 0:
        print("SKIP: making a cgroup needs root")
        return 77
    mnt = cgroup2_mount()
    if not mnt:
        print("SKIP: no cgroup2 file system mounted")
        return 77
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
            rc = run(tmp, exe, data_file, name, top, sub, work)
        finally:
            for w in work:
                w.kill()
            rmdir_retry(sub)
            rmdir_retry(top)
        check(not os.path.exists(top), f"cgroup {top} removed")
        return 1 if lib.failures else rc


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
    check(rec.returncode == 0, f"record -G exits 0 ({err.strip()})")
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
    check(r.returncode == 1 and "not a cgroup v2 directory" in r.stderr,
          f"a directory that is no cgroup: one line, exit 1 "
          f"({r.stderr.strip()})")
    return 1 if lib.failures else 0


if __name__ == "__main__":
    sys.exit(main())
