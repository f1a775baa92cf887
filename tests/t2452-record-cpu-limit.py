#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2452: memsz reaching its soft CPU time limit (ulimit -t, systemd's
LimitCPU=) stops the recording and keeps it, with one warning.

At the soft RLIMIT_CPU the kernel sends SIGXCPU (every second after, and
SIGKILL at the hard limit); by default it kills. A long recording (-a
with --interval, --frame-walk) under a service's CPU limit died without a
word, its temporary file left behind and everything it had recorded
lost. memsz now takes SIGXCPU as it takes SIGTERM: final snapshots, the
recording written, a launched command ended as at the end of --duration,
and a warning and a report note saying why it stopped.

Cases: a real soft limit of 1 s of CPU over `-a --interval 1` (hard limit
far above, so SIGXCPU comes first); and SIGXCPU sent to a memsz that
records a launched command, once its file shows a snapshot. Ground truth:
the exit status (a signal death is negative in Python), the directory's
listing, the previous recording's SHA-256 (kept as FILE.old), `memsz
report` of the new file and its note.
"""
import contextlib
import hashlib
import os
import resource
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WARN = ("memsz: warning: the CPU time limit (ulimit -t) was reached: "
        "recording stopped (SIGXCPU)")


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def cpu_limited():
    """A soft RLIMIT_CPU of 1 s, the hard one 300 s above it."""
    resource.setrlimit(resource.RLIMIT_CPU, (1, 300))


def start(tmp, name, args, pre=None):
    """memsz record -o tmp/NAME/x.data ARGS over a previous recording, in
    a process group of its own, stderr to a file. Returns (proc, dir,
    previous digest, stderr path)."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    out = os.path.join(d, "x.data")
    with open(out, "wb") as f:
        f.write(b"previous recording " * 1000)
    errf = os.path.join(tmp, f"{name}.err")
    with open(errf, "w") as ef:
        p = subprocess.Popen([MEMSZ, "record", "-o", out, *args],
                             stdout=ef, stderr=ef, preexec_fn=pre,
                             start_new_session=True)
    return p, d, sha(out), errf


def finish_case(name, p, d, before, errf, want):
    """Waits for memsz and checks what the module docstring says; want is
    its exit status (a launched command's: 143 when SIGTERM ended it)."""
    try:
        status = p.wait(timeout=600)
    finally:
        # a memsz killed by the signal leaves its command running
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
    with open(errf) as f:
        err = f.read().splitlines()
    check(status == want, f"{name}: memsz ends by itself with {want} "
          f"(status {status}: {err})")
    check(WARN in err, f"{name}: a warning says why it stopped: {err}")
    left = sorted(os.listdir(d))
    check(left == ["x.data", "x.data.old"],
          f"{name}: the recording is written, no temporary file: {left}")
    if "x.data.old" in left:
        check(sha(os.path.join(d, "x.data.old")) == before,
              f"{name}: the previous recording is kept as x.data.old")
    if "x.data" in left:
        rep = subprocess.run([MEMSZ, "report", "-i",
                              os.path.join(d, "x.data")],
                             capture_output=True, text=True, timeout=300)
        check(rep.returncode == 0 and "TOTAL" in rep.stdout and
              WARN.split(": ", 2)[2] in rep.stdout + rep.stderr,
              f"{name}: the recording is reported, with the note")


def main():
    if os.geteuid() != 0:
        lib.skip("-a reads every process's memory: needs root")
    tmp = tempfile.mkdtemp(prefix="memsz-t2452-")
    try:
        # a round of -a every millisecond spends a second of CPU soon
        finish_case("limit", *start(tmp, "limit",
                                    ["-a", "--interval", "1"], cpu_limited),
                    0)
        p, d, before, errf = start(tmp, "signal",
                                   ["--interval", "5", "--", "sleep",
                                    "1000"])
        try:
            lib.wait_until(lambda: any(f.startswith("x.data.tmp.")
                                       and os.path.getsize(
                                           os.path.join(d, f)) > 4096
                                       for f in os.listdir(d)),
                           "memsz to write a snapshot")
            os.kill(p.pid, signal.SIGXCPU)
        except (TimeoutError, FileNotFoundError) as e:
            check(False, f"signal: {e}")
        # the command ended by SIGTERM, as at the end of --duration
        finish_case("signal", p, d, before, errf, 128 + signal.SIGTERM)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


sys.exit(main())
