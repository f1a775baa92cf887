#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2489: after a write error, memsz signals only the processes it
launched that it still traces, never a process that took the pid of one
that ended.

After a write error `record -- CMD` ends what it launched (SIGTERM to the
command and to every process forked from it, SIGKILL after a grace
period) and reaps them through ptrace; the targets of a recording that
failed to write stay in its list. A process forked from the command that
has ended and been reaped by its parent has given its pid back: another
process may hold it now, and must get nothing from memsz.

In a pid namespace of its own (unshare -p, where the test may choose the
next pid through /proc/sys/kernel/ns_last_pid), the test records, with
`--output-special -o FIFO --interval 100`, a python command that ignores
SIGTERM and forks a child C (sleep). Once the first bytes came through the
FIFO, the test closes its read end: memsz's next write fails. memsz
SIGTERMs the command and C; C ends, the command reaps it and says so.
memsz is then stopped (SIGSTOP, so that it still has its grace period
ahead), C's pid is given to a new `sleep` the test starts (the victim),
and memsz is let go (SIGCONT). memsz must exit non-zero saying why, and
the victim must still run. With signal_launched() taking every target
kill(pid, 0) finds for its own (before the fix), the victim got memsz's
SIGTERM or SIGKILL.
"""
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# The launched command: ignores SIGTERM, forks C (sleep), prints C's pid,
# reaps C, prints "reaped", and waits on its stdin (SIGKILL ends it).
CMD = """import os, signal, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
c = os.fork()
if c == 0:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.execvp("sleep", ["sleep", "1000"])
print(c, flush=True)
os.waitpid(c, 0)
print("reaped", flush=True)
sys.stdin.read()
"""

# How many times the scenario is tried when the victim did not get C's
# pid, or memsz ended before it could be stopped (a machine too slow for
# the 2 s grace period): the check cannot be made then.
TRIES = 3


def inner(tmp):
    """The scenario, as pid 1 of a new pid namespace. Returns True when
    the check was made."""
    fifo = os.path.join(tmp, "out.fifo")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    errf = open(os.path.join(tmp, "memsz.err"), "w+")
    # the read end first: memsz opens a FIFO without blocking, which fails
    # (ENXIO) while nobody has it open for reading
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    rec = subprocess.Popen(
        [MEMSZ, "record", "--output-special", "-o", fifo, "--interval",
         "100", "--", sys.executable, "-c", CMD],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errf,
        text=True)
    victim = None
    stop = threading.Event()
    read = []

    def err():
        errf.seek(0)
        return errf.read().strip()[:300]

    def drain(fd):
        """Reads the FIFO (memsz blocks on a full one) until stop is
        set or memsz closes it, then closes it: memsz's next write fails
        (EPIPE). select() says when there is something to read, its
        timeout only lets stop be seen."""
        while not stop.is_set():
            if not select.select([fd], [], [], 0.1)[0]:
                continue
            try:
                b = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not b:
                break
            read.append(len(b))
        os.close(fd)

    reader = threading.Thread(target=drain, daemon=True, args=(rfd,))
    reader.start()
    try:
        line = rec.stdout.readline()
        stop.set()
        reader.join()
        if not line.strip().isdigit():
            check(False, f"the command starts and forks C ({line!r}; "
                  f"memsz exit {rec.wait()}: {err()})")
            return True
        c = int(line)
        check(read and c > 0, f"memsz writes to the FIFO ({sum(read)} "
              f"bytes); C is pid {c}")
        line = rec.stdout.readline().strip()
        if line != "reaped":
            check(False, f"the command reaped C after memsz's SIGTERM "
                  f"({line!r}; memsz: {err()})")
            return True
        os.kill(rec.pid, signal.SIGSTOP)
        lib.wait_until(lambda: lib.proc_state(rec.pid) in "TtZX",
                       "memsz to stop")
        if rec.poll() is not None:
            print(f"# memsz ended before it was stopped (exit "
                  f"{rec.returncode}): trying again")
            return False
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(c - 1))
        victim = subprocess.Popen(["sleep", "1000"])
        if victim.pid != c:
            print(f"# the victim got pid {victim.pid}, not {c}: trying "
                  f"again")
            os.kill(rec.pid, signal.SIGCONT)
            return False
        os.kill(rec.pid, signal.SIGCONT)
        rec.communicate(timeout=300)
        check(rec.returncode not in (0, None) and "memsz" in err(),
              f"memsz exits non-zero after the write error (exit "
              f"{rec.returncode}: {err()})")
        check(victim.poll() is None,
              f"the process that took C's pid {c}, which memsz did not "
              f"launch, still runs (its status: {victim.returncode})")
        return True
    finally:
        stop.set()
        for p in (victim, rec):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        errf.close()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        for _ in range(TRIES):
            with tempfile.TemporaryDirectory(prefix="memsz-t2489-") as tmp:
                if inner(tmp):
                    sys.exit(lib.finish())
        lib.skip(f"in {TRIES} tries the check could not be made (above: "
                 f"memsz ended within its 2 s grace period before the "
                 f"test could stop it, or the victim got another pid)")
    if os.geteuid() != 0:
        lib.skip("not root: a pid namespace and ns_last_pid need root")
    unshare = shutil.which("unshare")
    if not unshare:
        lib.skip("no unshare(1) (util-linux)")
    r = subprocess.run([unshare, "--pid", "--fork", "--mount-proc",
                        sys.executable, os.path.abspath(__file__),
                        "--inner"])
    sys.exit(r.returncode)


main()
