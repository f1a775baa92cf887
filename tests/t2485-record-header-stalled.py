#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2485: a direct output that stalls on the file header does not make
memsz deaf to SIGINT.

memsz blocks SIGINT, SIGTERM and SIGHUP (it reads them from a signalfd)
before it opens its output, and writes the 64-byte header in the open. A
write to a direct output (--output-special) that waits asks the session's
wait hook every tick whether a stop signal came (t2474), but the hook was
set only after the open returned: a pipe already full when memsz started
held it in the header's write, and SIGINT did nothing (only SIGKILL ended
it). The open now has the hook from the header on.

The test fills a pipe (64 KiB, the test never reads it) and starts
`memsz record --output-special -o /dev/stdout -p PID` with that pipe as
its stdout, PID a `sleep`. It waits until memsz sleeps in a pipe write
(its wchan), sends SIGINT and waits for memsz to exit: non-zero, its one
line on stderr saying the output's reader stopped reading. memsz had not
attached yet: the target's TracerPid is 0 and it still runs.
"""
import fcntl
import os
import signal
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# How long memsz may take to exit after SIGINT: a guard against the hang
# (before the fix it never exits), not a timing assumption.
EXIT_GUARD = 60


def fill(fd):
    """Writes to the pipe fd until it is full (non-blocking for that),
    then makes it blocking again; returns the bytes written."""
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    n = 0
    try:
        while True:
            n += os.write(fd, b"x" * 4096)
    except BlockingIOError:
        pass
    fcntl.fcntl(fd, fcntl.F_SETFL, flags)
    return n


def main():
    r, w = os.pipe()
    target = rec = None
    try:
        full = fill(w)
        target = subprocess.Popen(["sleep", "1000"])
        lib.in_nanosleep(target.pid)
        rec = subprocess.Popen([MEMSZ, "record", "--output-special", "-o",
                                "/dev/stdout", "-p", str(target.pid)],
                               stdout=w, stderr=subprocess.PIPE, text=True)
        try:
            lib.wait_until(lambda: rec.poll() is not None or
                           open(f"/proc/{rec.pid}/wchan").read()
                           .endswith(("pipe_write", "pipe_wait",
                                      "pipe_wait_writable")),
                           "memsz to wait in a write of the full pipe")
        except OSError:
            pass
        if rec.poll() is not None:
            check(False, f"memsz waits in its header's write to the pipe "
                  f"filled with {full} bytes (exit {rec.returncode}: "
                  f"{rec.stderr.read().strip()})")
            sys.exit(lib.finish())
        rec.send_signal(signal.SIGINT)
        try:
            _, err = rec.communicate(timeout=EXIT_GUARD)
        except subprocess.TimeoutExpired:
            with open(f"/proc/{rec.pid}/wchan") as f:
                where = f.read()
            check(False, f"memsz exits after SIGINT while its header's "
                  f"write is stalled (still running after {EXIT_GUARD} "
                  f"s; wchan {where})")
            sys.exit(lib.finish())
        lines = err.strip().splitlines()
        check(rec.returncode == -signal.SIGINT and len(lines) == 1 and
              "stopped reading" in lines[0],
              f"memsz dies by the SIGINT (exit {rec.returncode}) with one "
              f"line "
              f"saying the output's reader stopped reading: {lines}")
        tracer = lib.task_field(target.pid, target.pid, "TracerPid")
        check(target.poll() is None and tracer == "0",
              f"the target runs, untraced (TracerPid {tracer}, exit "
              f"{target.poll()})")
    finally:
        for p in (rec, target):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        if rec and rec.stderr:
            rec.stderr.close()
        os.close(r)
        os.close(w)
    sys.exit(lib.finish())


main()
