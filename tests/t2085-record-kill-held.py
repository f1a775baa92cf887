#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
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
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check, proc_state as state  # noqa: E402

# hang guard on every wait for an event: how long an event may take on a
# loaded machine before the test gives up, not a timing assumption
WAIT_S = 120


def wait_held(pid, rec):
    """Polls the target's state without pause (a ptrace stop may last only
    a moment) until a ptrace stop is seen: True then; False once memsz or
    the target has ended, or at the hang guard."""
    seen = []

    def held_or_ended():
        try:
            if state(pid) == "t":
                seen.append(True)
                return True
        except OSError:
            return True
        return rec.poll() is not None
    try:
        lib.wait_until(held_or_ended, f"pid {pid} held by memsz", WAIT_S,
                       interval=0)
    except TimeoutError as e:
        print("# " + str(e))
    return bool(seen)


def case(name, exe, tmp, launch, args, keep_mib):
    data = os.path.join(tmp, name + ".data")
    got = lib.start_fault_loop(name, data, args, [exe, str(keep_mib)],
                               launch)
    if not got:
        return
    rec, pid, out, target = got
    try:
        held = wait_held(pid, rec)
        # held: SIGKILL now is the case; not held at the hang guard: memsz
        # is ended too, so that the check below fails, not the wait
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
        tick = lib.next_tick(out, WAIT_S)
        check(tick is not None, f"{name}: the target runs on ({tick})")
    finally:
        lib.end_fault_loop(rec, pid, target)


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
