#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2450: a recording that grows past the file size limit (ulimit -f,
RLIMIT_FSIZE) is a write error said in one line, never a death by SIGXFSZ.

The kernel sends SIGXFSZ to a process whose write would pass its
RLIMIT_FSIZE, and by default that kills it: memsz died without a word
(exit 153), its temporary file left behind and what it had recorded
lost. Ignoring the signal, the write fails with EFBIG, which memsz treats
as a full disk: one line, a non-zero exit, what was recorded kept as
FILE.partial, the previous recording left as it was.

Cases, each with SIGXFSZ by default as a shell leaves it and a limit the
recording passes: a launched command with --interval, an attached process
with --interval (a limit passed later, and one passed by the start
snapshot: that error was said with a second line calling the live process
"exited while memsz attached"), and a one-shot (--duration 0) of an
attached process.
Ground truth: the exit status (a signal death is negative in Python), the
previous file's SHA-256, the directory's listing, `memsz report` of the
partial file. Last, the launched command gets SIGXFSZ as memsz found it:
its SigIgn mask in /proc/PID/status (bit 24) is compared with the same
command's run without memsz.
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

XFSZ_BIT = 1 << (signal.SIGXFSZ - 1)


def limited(nbytes, ignore=False):
    """A preexec_fn: RLIMIT_FSIZE of nbytes, SIGXFSZ by default (Python
    ignores it; subprocess puts it back) or ignored."""
    def pre():
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
        if ignore:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return pre


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run_case(tmp, name, args, limit, ignore=False):
    """Records into tmp/NAME/x.data over a previous recording under a
    file size limit; checks what the module docstring says."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    out = os.path.join(d, "x.data")
    with open(out, "wb") as f:
        f.write(b"previous recording " * 1000)  # not read by record
    before = sha(out)
    errf = os.path.join(tmp, f"{name}.err")
    # stderr to a file and a process group of its own: a memsz killed by
    # SIGXFSZ leaves its command running, which the group's end reaches
    with open(errf, "w") as ef:
        r = subprocess.Popen([MEMSZ, "record", "-o", out, *args],
                             preexec_fn=limited(limit, ignore), stdout=ef,
                             stderr=ef, start_new_session=True)
        try:
            status = r.wait(timeout=300)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(r.pid, signal.SIGKILL)
    with open(errf) as ef:
        stderr = ef.read()
    err = stderr.splitlines()
    check(status > 0,
          f"{name}: memsz exits non-zero by itself, not by a signal "
          f"(status {status})")
    check(len(err) == 1 and err[0].startswith(
        f"memsz: cannot write '{out}': File too large"),
        f"{name}: one line says the write failed: {stderr!r}")
    check(sha(out) == before, f"{name}: the previous recording is intact")
    left = sorted(os.listdir(d))
    check(all(f in ("x.data", "x.data.partial") for f in left),
          f"{name}: no temporary file left: {left}")
    if "x.data.partial" in left:
        rep = subprocess.run([MEMSZ, "report", "-i",
                              os.path.join(d, "x.data.partial")],
                             capture_output=True, text=True, timeout=300)
        check(rep.returncode == 0 and "TOTAL" in rep.stdout,
              f"{name}: the partial recording is reported")


def sigign(tmp, tag, prefix, ignore):
    """The SigIgn mask of `sh` run as prefix + sh (its own status read
    before it execs true), SIGXFSZ ignored in its parent or not."""
    f = os.path.join(tmp, f"sigign-{tag}")
    cmd = prefix + ["sh", "-c", f"grep '^SigIgn:' /proc/$$/status > {f}"]
    subprocess.run(cmd, preexec_fn=limited(resource.RLIM_INFINITY, ignore),
                   capture_output=True, timeout=300)
    with open(f) as fh:
        return int(fh.read().split()[1], 16)


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2450-")
    sleeper = subprocess.Popen(["sleep", "1000"])
    try:
        # started: a snapshot of a sleep Popen has just exec'd is ~2 KiB
        lib.in_nanosleep(sleeper.pid)
        # a snapshot of a sleep takes ~8 KiB: 12 KiB passes within a few
        run_case(tmp, "launch", ["--interval", "5", "--", "sleep", "1000"],
                 12288)
        run_case(tmp, "attach", ["--interval", "5", "-p", str(sleeper.pid)],
                 12288)
        check(sleeper.poll() is None, "attach: the attached process lives")
        # the start snapshot passes 4 KiB: the write error is said, not
        # the live process as "exited while memsz attached" (SIGXFSZ
        # ignored, as by a service manager: the EFBIG path alone)
        run_case(tmp, "attach-start",
                 ["--interval", "5", "-p", str(sleeper.pid)], 4096, True)
        # the one-shot's single snapshot passes 4 KiB
        run_case(tmp, "one-shot",
                 ["--duration", "0", "-p", str(sleeper.pid)], 4096)
        for ignore in (False, True):
            base = sigign(tmp, f"base-{ignore}", [], ignore)
            rec = sigign(tmp, f"memsz-{ignore}",
                         [MEMSZ, "record", "-o",
                          os.path.join(tmp, "s.data"), "--"], ignore)
            how = "ignored" if ignore else "by default"
            check(base & XFSZ_BIT == rec & XFSZ_BIT,
                  f"the command gets SIGXFSZ {how} as memsz found it "
                  f"(SigIgn {rec:#x}, without memsz {base:#x})")
    finally:
        sleeper.kill()
        sleeper.wait()
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


sys.exit(main())
