#!/usr/bin/env python3
"""t2085: a SIGKILLed memsz never leaves its target stopped.

memsz stops targets only with ptrace stops (--freeze while a snapshot is
taken; backpressure while it drains the sample rings), which the kernel
ends when the tracer dies. tests/workloads/fault_loop.c faults without end
and prints "tick N" lines. For each way of holding it:
 - attached with --freeze and a snapshot every millisecond (256 MiB
   resident: each snapshot takes a while),
 - attached with --faults and rings so small that every drain holds it,
 - launched with --faults and the same small rings,
the test waits until /proc/PID/stat shows the target held ('t'), SIGKILLs
memsz at once, reaps it, then checks that the target's state is neither T
nor t and that it prints another tick (a bounded wait for that line, not a
sleep).
"""
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import (  # noqa: E402
    MEMSZ, check, proc_state as state)

# hang guard on every wait for an event: how long an event may take on a
# loaded machine before the test gives up, not a timing assumption
WAIT_S = 120


def next_tick(f, bound=WAIT_S):
    """The next "tick N" line of f, or None if none comes within bound."""
    end = time.monotonic() + bound
    while time.monotonic() < end:
        r, _, _ = select.select([f], [], [], end - time.monotonic())
        if not r:
            break
        line = f.readline()
        if not line:
            return None
        if line.startswith("tick"):
            return line.strip()
    return None


def wait_held(pid, rec):
    """Polls the target's state until a ptrace stop is seen; True then."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end and rec.poll() is None:
        try:
            if state(pid) == "t":
                return True
        except OSError:
            return False
    return False


def case(name, exe, tmp, launch, args, keep_mib):
    data = os.path.join(tmp, name + ".data")
    target = None
    if launch:
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "--",
                                exe, str(keep_mib)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        out = rec.stdout
        if next_tick(out) is None:
            rec.kill()
            err = rec.communicate()[1]
            if "not permitted" in err:
                lib.skip("cannot sample page faults: " + err.strip())
            check(False, f"{name}: the workload runs: {err.strip()}")
            return
        kids = lib.children(rec.pid)
        if not kids:
            rec.kill()
            rec.wait()
            check(False, f"{name}: memsz launched the workload")
            return
        pid = kids[0]
    else:
        target = subprocess.Popen([exe, str(keep_mib)],
                                  stdout=subprocess.PIPE, text=True)
        out = target.stdout
        pid = target.pid
        if next_tick(out) is None:
            check(False, f"{name}: the workload runs")
            target.kill()
            return
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "-p",
                                str(pid)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        held = wait_held(pid, rec)
        if held:
            rec.kill()
        rec.wait(timeout=WAIT_S)
        if not held:
            err = rec.stderr.read()
            if "not permitted" in err:
                lib.skip("cannot sample page faults: " + err.strip())
        check(held, f"{name}: the target was seen held ('t') by memsz")
        st = state(pid)
        check(st not in "Tt",
              f"{name}: after SIGKILL of memsz the target is not stopped "
              f"(state {st})")
        # drain what it printed meanwhile, then wait for a fresh line
        while select.select([out], [], [], 0)[0] and out.readline():
            pass
        tick = next_tick(out)
        check(tick is not None, f"{name}: the target runs on ({tick})")
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        if target:
            target.wait()


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2085-") as tmp:
        exe = lib.workload(tmp, "fault_loop", "-pthread")
        small = ["--faults", "-m", "2", "--stack-size", "512"]
        case("freeze", exe, tmp, False, ["--freeze", "--interval", "1"],
             256)
        case("backpressure", exe, tmp, False, small, 0)
        case("backpressure-launched", exe, tmp, True, small, 0)


main()
sys.exit(lib.finish())
