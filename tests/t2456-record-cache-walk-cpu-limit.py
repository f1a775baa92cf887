#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2456: SIGXCPU (the soft CPU time limit) that reaches `memsz record -G
CG --cache-paths DIR --duration 0` while it walks DIR cuts the walk short
as any stop signal does (t2314), and also says and notes why: the CPU time
limit warning. The walk took the signal itself and said only that it was
"cut short by a signal (CPU time limit exceeded)", not the warning a
SIGXCPU gets elsewhere.

Where memsz is in its walk is known without timing, as in t2314: a
fanotify FAN_OPEN_PERM mark on DIR's files holds memsz in its open() of
the first one until the test answers, and the signal is sent before the
answer. Ground truth: fanotify's open events, memsz's exit status, its
stderr and `memsz dump` of the recording (its NOTEs).
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NFILES = 16
GUARD = 120  # seconds: a guard against hanging, not a timing assumption
CPU = ("the CPU time limit (ulimit -t) was reached: recording stopped "
       "(SIGXCPU)")


def walk_stopped(tmp, cg):
    tree = os.path.join(tmp, "tree")
    os.mkdir(tree)
    for i in range(NFILES):
        with open(os.path.join(tree, "f%02d" % i), "wb") as f:
            f.write(b"x" * 4096)
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    data = os.path.join(out, "c.data")
    fan = lib.fanotify(tree)
    rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--cache-paths",
                            tree, "-o", data, "--duration", "0"],
                           stderr=subprocess.PIPE, text=True)
    opened, sent = 0, False

    def on_open(efd):
        nonlocal opened, sent
        opened += 1
        if not sent:
            os.kill(rec.pid, signal.SIGXCPU)
            sent = True
    err = lib.fan_serve(fan, rec, on_open, GUARD)
    check(sent and opened == 1, "memsz opened one file of --cache-paths, "
          "none after the signal (%d of %d)" % (opened, NFILES))
    check(rec.returncode == 0 and "was cut short by a signal" in err,
          "exit 0, the walk said cut short (exit %s, %r)" %
          (rec.returncode, err))
    check("memsz: warning: " + CPU in err,
          "the CPU time limit warning is said: %r" % err)
    dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                          capture_output=True)
    check(dump.returncode == 0 and "NOTE " + CPU in dump.stdout and
          "was cut short" in dump.stdout,
          "the recording notes the CPU time limit and the cut walk "
          "(dump exit %d)" % dump.returncode)
    check(os.listdir(out) == ["c.data"], "no temporary file is left "
          "(%s)" % os.listdir(out))


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and fanotify marks need root")
    with lib.cat_in_cgroup("t2456") as cg, \
            tempfile.TemporaryDirectory(prefix="memsz-t2456-") as tmp:
        walk_stopped(tmp, cg)


main()
sys.exit(lib.finish())
