#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2455: the command memsz launches gets the signal mask memsz found.

A process's blocked signals are inherited through fork and exec: a
command run from a shell or service that blocks some gets them blocked.
memsz record -- CMD gave its command an empty mask instead (it reset its
own mask, which blocks the stop signals it reads from a signalfd, to
none), so the command ran with signals unblocked that it would have had
blocked without memsz.

Case: a parent blocks SIGUSR1, SIGUSR2 and SIGRTMIN+3, then runs `grep
SigBlk /proc/self/status` directly and under `memsz record --`. Ground
truth: the kernel's SigBlk line of the direct run, which must match the
one under memsz, and hold the bits of the signals blocked.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

BLOCKED = {signal.SIGUSR1, signal.SIGUSR2, signal.SIGRTMIN + 3}
CMD = ["grep", "SigBlk", "/proc/self/status"]


def block():
    signal.pthread_sigmask(signal.SIG_BLOCK, BLOCKED)


def sigblk(out):
    """The SigBlk mask out has, as an int (None if it has none)."""
    for line in out.splitlines():
        if line.startswith("SigBlk:"):
            return int(line.split()[1], 16)
    return None


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2455-")
    try:
        direct = subprocess.run(CMD, capture_output=True, text=True,
                                preexec_fn=block, timeout=60)
        want = sigblk(direct.stdout)
        bits = sum(1 << (int(s) - 1) for s in BLOCKED)
        if want is None or want & bits != bits:
            lib.skip(f"the blocked signals are not in SigBlk of a direct "
                     f"run: {direct.stdout!r}")
        rec = subprocess.run([MEMSZ, "record", "-o",
                              os.path.join(tmp, "x.data"), "--", *CMD],
                             capture_output=True, text=True,
                             preexec_fn=block, timeout=600)
        check(rec.returncode == 0,
              f"memsz record ends with the command's 0 ({rec.returncode}: "
              f"{rec.stderr})")
        got = sigblk(rec.stdout)
        check(got == want,
              f"the command's SigBlk under memsz is the one without it: "
              f"{got if got is None else hex(got)} == {hex(want)}")
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


sys.exit(main())
