#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2314: SIGTERM or SIGINT that reaches `memsz record -G CG --cache-paths
DIR` while it walks DIR ends the walk at the next file and the recording as
a stop signal does: a whole recording, committed, with a NOTE that the walk
was cut short, no temporary file left; then memsz dies by the signal, a
recording that runs on (t2490) as a one-shot (--duration 0), as perf
record does, once the file is written. The session blocks these signals and read
them only between its loop's turns: `--cache-paths /` went on for minutes
with SIGTERM pending, and a one-shot recording was then killed by it
before its file was written (exit 143).

Where memsz is in its walk is known without timing: a fanotify
FAN_OPEN_PERM mark on DIR's files holds memsz in its open() of the first
one until the test answers, and the signal is sent before the answer. No
other file of DIR may then be opened (the ground truth: the open events
fanotify reports). Done once one-shot with SIGTERM, once with --interval
and SIGINT.
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

NFILES = 64
GUARD = 120  # seconds: a guard against hanging, not a timing assumption


def walk_stopped(tmp, cg, sig, extra):
    tree = os.path.join(tmp, "tree-%d" % sig)
    os.mkdir(tree)
    for i in range(NFILES):
        with open(os.path.join(tree, "f%02d" % i), "wb") as f:
            f.write(b"x" * 4096)
    out = os.path.join(tmp, "o-%d" % sig)
    os.mkdir(out)
    data = os.path.join(out, "c.data")
    fan = lib.fanotify(tree)
    rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--cache-paths",
                            tree, "-o", data, *extra],
                           stderr=subprocess.PIPE, text=True)
    opened, sent = 0, False

    def on_open(efd):
        # memsz's first open goes on only once the signal is on its way
        nonlocal opened, sent
        opened += 1
        if not sent:
            os.kill(rec.pid, sig)
            sent = True
    err = lib.fan_serve(fan, rec, on_open, GUARD)
    name = signal.Signals(sig).name
    what = "%s in the walk%s" % (name, " (%s)" % " ".join(extra))
    check(sent, "%s: memsz opened a file of --cache-paths" % what)
    check(opened == 1, "%s: no file is opened after the signal (%d of %d "
          "opened)" % (what, opened, NFILES))
    want = -sig  # the recording written, memsz dies by it (t2490)
    check(rec.returncode == want and "was cut short by a signal" in err,
          "%s: %s, the walk said cut short (exit %s, %r)" %
          (what, "death by " + name,
           rec.returncode, err))
    dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                          capture_output=True)
    check(dump.returncode == 0 and " SNAP_END " in dump.stdout and
          "NOTE the page cache walk of --cache-paths '%s' was cut short"
          % tree in dump.stdout,
          "%s: the recording is whole, with its snapshot and the NOTE "
          "(dump exit %d)" % (what, dump.returncode))
    check(os.listdir(out) == ["c.data"], "%s: no temporary file is left "
          "(%s)" % (what, os.listdir(out)))


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and fanotify marks need root")
    with lib.cat_in_cgroup("t2314") as cg, \
            tempfile.TemporaryDirectory(prefix="memsz-t2314-") as tmp:
        walk_stopped(tmp, cg, signal.SIGTERM, ["--duration", "0"])
        walk_stopped(tmp, cg, signal.SIGINT, ["--interval", "100"])


main()
sys.exit(lib.finish())
