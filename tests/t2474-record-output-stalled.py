#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2474: a stalled output does not make memsz deaf to SIGINT, and the
targets it held run again.

`memsz record --output-special -o FIFO` writes straight into a pipe. When
its reader stops reading, the write waits; memsz blocks its stop signals
to read them from a signalfd, so before the fix nothing ended that wait:
SIGINT did nothing, and every thread of a traced target stayed held at
its next ptrace stop (a leash with --faults, a fork or exit stop
without), since memsz no longer ran its tracer.

The test opens a FIFO for reading and never reads it (the reader that
stopped; once also memsz's stdout, a pipe, -o /dev/stdout), starts memsz on the workload stall_churn (two threads that
map, touch and unmap 1 MiB in a loop; the main thread forks children
that do the same and exit), waits for the events: memsz asleep in a pipe
write (its wchan) while a thread of the workload is held by it (state
't'), both at once.
memsz must say once that the output is not read and the targets wait.
Then it sends memsz SIGINT. memsz must die by it, its last line
saying the output stalled and that what the FIFO received is incomplete
(nothing about a '.partial' file it cannot make there); the workload
must run again: no thread in 't', TracerPid 0 in every thread's status,
its CPU time growing and new children forked. Attached (-p), memsz must not have signalled it
(it still runs); launched (-- CMD), memsz ends it as after any write
error. Each case with and without --faults.
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

# How long memsz may take to exit after SIGINT: a guard against a hang
# (before the fix it never exits), not a timing assumption.
EXIT_GUARD = 60


def threads(pid):
    """The tids of pid (none once it ended)."""
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def kids(pid):
    """The children of pid (none once it ended)."""
    try:
        return set(lib.children(pid))
    except OSError:
        return set()


def held(pid):
    """Whether a thread of pid or of a child of it is stopped by a tracer
    (state 't'): without --faults the workload waits for a child held at
    its fork or exit stop."""
    return any(lib.task_field(p, t, "State") == "t"
               for p in {pid} | kids(pid) for t in threads(p))


def in_pipe_write(pid):
    """Whether pid sleeps in the kernel in a pipe write (its wchan)."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f.read().endswith(("pipe_write", "pipe_wait",
                                      "pipe_wait_writable"))
    except OSError:
        return False


def cpu_ticks(pid):
    """utime + stime of pid (all its threads), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])


def one_case(tmp, churn, faults, launch, pipe=False):
    """memsz on the workload, its output a FIFO the test never reads or,
    with pipe, -o /dev/stdout, a pipe the test never reads."""
    what = (("launched" if launch else "attached") +
            (", --faults" if faults else ", no --faults") +
            (", /dev/stdout" if pipe else ""))
    fifo = os.path.join(tmp, "out.fifo")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    # the reader: open, never read (memsz opens a FIFO without blocking,
    # which fails while nobody has it open for reading)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    errf = open(os.path.join(tmp, "memsz.err"), "w+")
    work = rec = target = None
    args = [MEMSZ, "record", "--output-special", "-o",
            "/dev/stdout" if pipe else fifo]
    out = subprocess.PIPE if pipe else subprocess.DEVNULL
    if faults:
        args.append("--faults")
    try:
        if launch:
            rec = subprocess.Popen(args + ["--", churn],
                                   stdout=subprocess.DEVNULL, stderr=errf)
            lib.wait_until(lambda: rec.poll() is not None or
                           lib.children(rec.pid), "the launched command")
            mine = [] if rec.poll() is not None else lib.children(rec.pid)
            target = mine[0] if mine else None
        else:
            work = subprocess.Popen([churn], stdout=subprocess.PIPE,
                                    text=True)
            work.stdout.readline()  # "ready": its threads run
            target = work.pid
            rec = subprocess.Popen(args + ["-p", str(target)],
                                   stdout=out, stderr=errf)

        def err():
            errf.seek(0)
            return errf.read().strip()

        # Both at once: memsz asleep in the write (the pipe is full, so
        # it stays there) and a thread held. A thread seen held before
        # the stall may have been let go since; one held while memsz
        # sleeps in the write stays held.
        try:
            lib.wait_until(lambda: rec.poll() is not None or
                           (in_pipe_write(rec.pid) and held(target)),
                           f"{what}: memsz to stall in the write while it "
                           f"holds a thread of the workload")
        except TimeoutError:
            pass
        if rec.poll() is not None:
            if faults and "sample" in err():
                lib.skip_part(f"{what}: memsz cannot sample ({err()})")
                return
            check(False, f"{what}: memsz runs until the output stalls "
                  f"(exit {rec.returncode}: {err()})")
            return
        check(held(target), f"{what}: before SIGINT, the stalled output "
              f"holds a thread of the workload (state 't')")
        try:
            lib.wait_until(lambda: "is not read" in err(),
                           "the stall to be said", EXIT_GUARD)
        except TimeoutError:
            pass
        check("is not read: the traced targets wait" in err(),
              f"{what}: memsz says that the output is not read and the "
              f"targets wait ({err()!r})")
        os.kill(rec.pid, signal.SIGINT)
        try:
            rec.wait(timeout=EXIT_GUARD)
        except subprocess.TimeoutExpired:
            check(False, f"{what}: memsz exits after SIGINT while its "
                  f"output is stalled (still running after "
                  f"{EXIT_GUARD} s; wchan "
                  f"{open(f'/proc/{rec.pid}/wchan').read()})")
            return
        last = err().splitlines()[-1] if err() else ""
        check(rec.returncode == -signal.SIGINT and "stopped reading" in last
              and "incomplete recording" in last
              and "partial" not in last,
              f"{what}: memsz dies by the SIGINT (exit {rec.returncode}) "
              f"saying the output stalled and what it received is "
              f"incomplete: {last!r}")
        if launch:
            left = {k: lib.task_field(target, target, k)
                    for k in ("State", "PPid", "TracerPid")}
            # ended: gone, or a zombie memsz's grace period (4 s under
            # load) left to init, as after any write error
            check(left["State"] in (None, "Z"),
                  f"{what}: the launched command was ended (pid "
                  f"{target}; {left})")
            return
        tracers = {lib.task_field(target, t, "TracerPid")
                   for t in threads(target)}
        check(work.poll() is None and tracers == {"0"}
              and not held(target),
              f"{what}: the workload runs on, untraced (TracerPid "
              f"{sorted(tracers)}, a thread in 't': {held(target)}, "
              f"exit {work.poll()})")
        # it runs: CPU time (its threads) and new children (its main
        # thread, which waits for each child it forks)
        start, seen = cpu_ticks(target), kids(target)
        try:
            lib.wait_until(lambda: cpu_ticks(target) > start and
                           kids(target) - seen, "the workload to run")
            ran = True
        except TimeoutError:
            ran = False
        check(ran, f"{what}: the workload runs again: its CPU time "
              f"grows, it forks new children")
    finally:
        for p in (rec, work):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        # a launched workload that memsz left (it failed to end it): the
        # test's own, known by its executable
        if launch and target and os.path.exists(f"/proc/{target}"):
            try:
                if os.readlink(f"/proc/{target}/exe") == churn:
                    os.kill(target, signal.SIGKILL)
            except OSError:
                pass
        for p in (rec, work):
            if p and p.stdout:
                p.stdout.close()
        os.close(rfd)
        errf.close()


def main():
    if os.geteuid() != 0:
        lib.skip("not root: --faults on an attached process needs perf "
                 "and ptrace permission")
    with tempfile.TemporaryDirectory(prefix="memsz-t2474-") as tmp:
        churn = lib.workload(tmp, "stall_churn", "-pthread")
        for launch in (False, True):
            for faults in (True, False):
                one_case(tmp, churn, faults, launch)
        # a pipe memsz was given (a dup of the shell's descriptor)
        one_case(tmp, churn, True, False, pipe=True)
    sys.exit(lib.finish())


main()
