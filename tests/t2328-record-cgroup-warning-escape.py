#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2328: the warnings `record -G` says about its cgroup ("has no memory
controller", "is the root cgroup", "was removed": one code path) escape
the cgroup's path as every message naming something does: a cgroup's
name may hold any byte but '/' and newline, and ESC [31m must not reach
the terminal.

As root, a cgroup named memsz-fixcg-t2328-PID<ESC>[31m<TAB>x is made
in a cgroup2 hierarchy without the memory controller (ground truth: its
directory has no memory.current, its parent's cgroup.subtree_control
does not name memory; skipped where every hierarchy has it), a python3
process waiting on its stdin is moved in, and `record -G CG --duration
0`: stderr has the "no memory controller" warning naming the cgroup
with \\x1b and \\x09, and no byte below 0x20 but newline.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def run(tmp, cg):
    work = subprocess.Popen([sys.executable, "-c",
                             "import sys; sys.stdin.readline()"],
                            stdin=subprocess.PIPE)
    try:
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(work.pid))
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "-o", os.path.join(tmp, "x.data")],
                           capture_output=True)
    finally:
        work.kill()
        work.wait()
    err = r.stderr.decode("utf-8", "replace")
    said = [ln for ln in err.splitlines() if "no memory controller" in ln]
    check(len(said) == 1 and
          ("memsz-fixcg-t2328-%d\\x1b[31m\\x09x'" % os.getpid()) in said[0],
          f"one warning names the cgroup escaped ({said or err!r})")
    bad = sorted({b for b in r.stderr if b < 0x20 and b != 0x0a})
    check(not bad, f"stderr has no control byte but newline ({bad})")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    mount = lib.cgroup2_mount()
    if not mount:
        lib.skip("no cgroup2 hierarchy")
    with open(os.path.join(mount, "cgroup.subtree_control")) as f:
        if "memory" in f.read().split():
            lib.skip(f"{mount} hands the memory controller down")
    cg = os.path.join(mount, "memsz-fixcg-t2328-%d\x1b[31m\tx" % os.getpid())
    os.mkdir(cg)
    try:
        check(not os.path.exists(os.path.join(cg, "memory.current")),
              "ground truth: the cgroup has no memory.current")
        with tempfile.TemporaryDirectory(prefix="memsz-fixcg-") as tmp:
            run(tmp, cg)
    finally:
        lib.remove_cgroup(cg, "the cgroup to be removed")
    check(not os.path.exists(cg), "the cgroup removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
