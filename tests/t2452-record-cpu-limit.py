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
far above, so SIGXCPU comes first); a one-shot `-a --frame-walk
--duration 0` started by a wrapper that spent most of a 2 s soft limit
(CPU time carries across exec), so that SIGXCPU comes while memsz takes
its snapshots (how much is left to it is searched: see one_shot()): no
loop reads it there, and the session's mask restored after the file was
written let it kill memsz (status -24, no warning);
and SIGXCPU sent to a memsz that records a launched command, once its
file shows a snapshot (no root needed: run by anyone). Ground truth:
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


# Sets a soft CPU limit of 1 s and spends CPU until its SIGXCPU comes:
# the kernel's clock for the limit (ticks) runs ahead of getrusage()'s
# here (1 s of limit at 0.67-0.85 s of getrusage), so the getrusage
# seconds g1 of that moment calibrate it. The kernel has then raised the
# soft limit to 2 s: the wrapper spends CPU until 2 * g1 - argv[1]
# (argv[1]: the getrusage seconds left to memsz before the next SIGXCPU),
# then execs argv[2:] (CPU time carries across exec; the handler does
# not: memsz gets SIGXCPU by default).
BURN = """
import os, resource, signal, sys
def spent():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
got = []
signal.signal(signal.SIGXCPU, lambda s, f: got.append(spent()))
resource.setrlimit(resource.RLIMIT_CPU, (1, 300))
while not got:
    pass
while spent() < 2 * got[0] - float(sys.argv[1]):
    pass
os.execv(sys.argv[2], sys.argv[2:])
"""


def one_shot_try(tmp, n, mem, args, budget):
    """One run of the wrapper leaving memsz budget s of CPU. Returns the
    run as finish_case() takes it, and what came of it: "early" (SIGXCPU
    before memsz had begun its recording: the file untouched), "none"
    (memsz ended before it) or "ok" (the case to check)."""
    d = os.path.join(tmp, f"oneshot{n}")
    os.mkdir(d)
    x = os.path.join(d, "x.data")
    with open(x, "wb") as f:
        f.write(b"previous recording " * 1000)
    before = sha(x)
    errf = os.path.join(tmp, f"oneshot{n}.err")
    with open(errf, "w") as ef:
        p = subprocess.Popen([sys.executable, "-c", BURN, str(budget),
                              mem, "record", "-o", x, *args], stdout=ef,
                             stderr=ef, start_new_session=True)
    status = p.wait(timeout=600)
    run = (p, d, before, errf)
    with open(errf) as f:
        err = f.read()
    if os.listdir(d) == ["x.data"] and status == -signal.SIGXCPU:
        return run, "early"
    if status == 0 and "SIGXCPU" not in err:
        return run, "none"
    return run, "ok"


def one_shot(tmp):
    """-a --frame-walk --duration 0 reaching its soft CPU limit while it
    takes its snapshots: the CPU it spends unlimited is measured, then
    the wrapper leaves it part of that before the limit, halved toward
    more if SIGXCPU came before the recording began, toward less if it
    did not come at all (a search, not a timing assumption)."""
    args = ["-a", "--frame-walk", "--duration", "0"]
    out = os.path.join(tmp, "measure.data")
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([MEMSZ, "record", "-o", out, *args],
                   capture_output=True, timeout=600)
    t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (t1.ru_utime + t1.ru_stime) - (t0.ru_utime + t0.ru_stime)
    if cpu < 0.1:
        print(f"# oneshot: skipped: the one-shot spends {cpu:.3f} s of "
              "CPU, too little to reach a limit within it")
        return
    mem = os.path.realpath(subprocess.run(
        ["sh", "-c", f'command -v "{MEMSZ}"'], capture_output=True,
        text=True).stdout.strip() or MEMSZ)
    lo, hi = 0.0, cpu
    for n in range(8):
        run, what = one_shot_try(tmp, n, mem, args, (lo + hi) / 2)
        print(f"# oneshot: {(lo + hi) / 2:.3f} s of {cpu:.3f} left to "
              f"memsz: {what}")
        if what == "ok":
            finish_case("oneshot", *run, 0)
            return
        if what == "early":
            lo = (lo + hi) / 2
        else:
            hi = (lo + hi) / 2
    check(False, "oneshot: no budget let SIGXCPU come during the "
          "recording")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2452-")
    try:
        if os.geteuid() != 0:
            print("# limit, oneshot: skipped: -a reads every process's "
                  "memory: needs root")
        else:
            # a round of -a every millisecond spends a second of CPU soon
            finish_case("limit", *start(tmp, "limit",
                                        ["-a", "--interval", "1"],
                                        cpu_limited), 0)
            one_shot(tmp)
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
