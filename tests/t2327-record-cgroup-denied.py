#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2327: `record -G CG` of a cgroup whose only process cannot be read
(EPERM: another user's, recorded as nobody) says that the pid could not
be read. It said "cgroup 'CG' has no process", which is false: the scan
found a pid and was refused it.

As root, a cgroup memsz-fixcg-t2327-PID is made and a python3 process
of root's (reading its stdin) is moved in; the ground truth is the
cgroup's cgroup.procs, which lists that pid. `record -G CG --duration 0`
run as nobody (setpriv): stderr names the pid as unreadable and never
says "has no process".
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def run(tmp, cg):
    work = subprocess.Popen([sys.executable, "-c",
                             "import sys; sys.stdin.readline()"],
                            stdin=subprocess.PIPE)
    try:
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(work.pid))
        with open(os.path.join(cg, "cgroup.procs")) as f:
            procs = [int(x) for x in f.read().split()]
        check(procs == [work.pid], f"ground truth: cgroup.procs lists "
              f"{work.pid} ({procs})")
        r = subprocess.run(NOBODY + [MEMSZ, "record", "-G", cg,
                                     "--duration", "0", "-o",
                                     os.path.join(tmp, "x.data")],
                           capture_output=True, text=True, cwd=tmp)
    finally:
        work.kill()
        work.wait()
    err = r.stderr
    check(r.returncode != 0, f"nothing recorded: exit {r.returncode}")
    check("could not be read" in err and str(work.pid) in err,
          f"stderr names pid {work.pid} as unreadable ({err.strip()})")
    check("has no process" not in err,
          f"stderr does not say the cgroup has no process ({err.strip()})")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and setpriv need root")
    if not shutil.which("setpriv"):
        lib.skip("no setpriv")
    cg = lib.make_cgroup("fixcg-t2327")
    try:
        with tempfile.TemporaryDirectory(prefix="memsz-fixcg-") as tmp:
            os.chmod(tmp, 0o777)
            run(tmp, cg)
    finally:
        lib.remove_cgroup(cg)
    check(not os.path.exists(cg), f"cgroup {cg} removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
