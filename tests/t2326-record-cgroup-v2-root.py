#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2326: `record -G /` on a cgroup2-only machine says why the root
cgroup's charge is not recorded: cgroup v2's root has the memory
controller's memory.stat but no memory.current (nothing limits or
charges it). It said the root had no memory controller, which is false
and gives no way on.

This machine's cgroup2 hierarchy has no memory controller, so a copied
tree stands for a cgroup2 mount (MEMSZ_CGROUP2_ROOT, memcg.h): its root
has cgroup.procs (a python3 process of the test's), memory.stat and no
memory.current, as a real cgroup2 root (ground truth: the kernel's
cgroup-v2 documentation, "memory.current: A read-only single value file
which exists on non-root cgroups"). `record -G / --duration 0` and
`record -G ROOT --duration 0` exit 0 with the process recorded and one
warning that names the root cgroup, memory.current and `record -a`, and
not "no memory controller". A child with memory.stat and no
memory.current is still said to have no memory controller (t2311).
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

STAT = "anon 1048576\nfile 2097152\nkernel 65536\n"
WAITER = """import sys
print("ready", flush=True)
sys.stdin.readline()
"""


def run(tmp):
    root = os.path.join(tmp, "cg2")
    box = os.path.join(root, "box")
    os.makedirs(box)
    work = subprocess.Popen([sys.executable, "-c", WAITER],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        check(work.stdout.readline().startswith("ready"), "the process runs")
        for d in (root, box):
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write(f"{work.pid}\n" if d == root else "")
            with open(os.path.join(d, "memory.stat"), "w") as f:
                f.write(STAT)
        env = dict(os.environ, MEMSZ_CGROUP2_ROOT=root)
        data = os.path.join(tmp, "g.data")
        for sp in ("/", root):
            r = subprocess.run([MEMSZ, "record", "-G", sp, "--duration", "0",
                                "-o", data], capture_output=True, text=True,
                               env=env)
            warn = [ln for ln in r.stderr.splitlines() if "warning" in ln]
            check(r.returncode == 0 and work.pid in lib.pid_rows(data),
                  f"-G {sp}: the root's process recorded "
                  f"({r.stderr.strip()})")
            check(len(warn) == 1 and f"'{root}' is the root cgroup" in
                  warn[0] and "memory.current" in warn[0] and
                  "record -a" in warn[0] and
                  "no memory controller" not in warn[0],
                  f"-G {sp}: one warning: the root cgroup, no "
                  f"memory.current, record -a ({warn})")
        with open(os.path.join(box, "cgroup.procs"), "w") as f:
            f.write(f"{work.pid}\n")
        r = subprocess.run([MEMSZ, "record", "-G", "box", "--duration", "0",
                            "-o", data], capture_output=True, text=True,
                           env=env)
        check(r.returncode == 0 and "has no memory controller" in r.stderr,
              f"a child without memory.current: no memory controller "
              f"({r.stderr.strip()})")
    finally:
        work.kill()
        work.wait()


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2326-") as tmp:
        run(tmp)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
