#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2486: a traced target that exits while memsz snapshots another one
leaves a recording that reads whole, with nothing after its END record.

memsz handles a traced target's exit at its ptrace exit stop, which it
sees when it polls the tracer. A target killed while memsz is busy with
the last snapshot of another is seen only when memsz detaches at its very
end (tracer_free() handles the stops pending): memsz then took its exit
snapshot and appended it to the file after the END record, and `memsz
report` called the recording damaged, `memsz dump` failed on it.

Without timing: B (1 MiB) and A (256 MiB in 512 regions, so that a snapshot
of it takes a while) are recorded with -p B,A, so that each snapshot of B
comes before A's. Once memsz is in A's last snapshot (it has opened
/proc/A/pagemap: after the freeze, with --freeze), B is SIGKILLed and the
test waits until B is in its exit stop (state 't'). If A's pagemap is
still open then, B's exit can only be seen after the recording ended; if
A's snapshot was over first, the attempt is repeated (at most ATTEMPTS
times; the part is skipped if none got there). The ways:
 - one-shot: --freeze --duration 0 (the last snapshot is the start one),
 - --freeze with an --interval, ended by SIGINT (its final snapshot),
 - no --freeze, ended by SIGINT.
Checked: memsz succeeds, `memsz dump` reads every record without an
error, `memsz report` finds no damage, and the RSS of A and of B in the
report equals the Rss of their /proc/PID/smaps_rollup (read before: both
only sleep, running no code they did not run before).
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, proc_state as state  # noqa: E402

GUARD = 120  # seconds: a guard against hanging, not a timing assumption
ATTEMPTS = 5
A_MIB = 256


def pagemap_open(rec, pid):
    """True while memsz (Popen rec) has /proc/PID/pagemap open."""
    d = f"/proc/{rec.pid}/fd"
    want = f"/proc/{pid}/pagemap"
    try:
        fds = os.listdir(d)
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(os.path.join(d, fd)) == want:
                return True
        except OSError:
            pass
    return False


def wait_for(cond, what):
    """wait_until with a short pause (the states last a few ms; a pause,
    not a spin, leaves the CPU to memsz and to B on its way to its exit
    stop); False at the hang guard."""
    try:
        lib.wait_until(cond, what, GUARD, interval=0.0005)
        return True
    except TimeoutError as e:
        print("# " + str(e))
        return False


def start(exe, mib):
    """rec_many_maps mib, once ready: (Popen, smaps_rollup Rss)."""
    p = subprocess.Popen([exe, str(mib)], stdout=subprocess.PIPE, text=True)
    lib.workload_ready(p, f"rec_many_maps {mib}")
    return p, lib.smaps_rollup(p.pid)["Rss"]


def kill_in_last_snapshot(rec, a, b, data, interval):
    """Waits until memsz is in A's last snapshot, kills B, waits for B's
    exit stop. True if A's snapshot was still under way then."""
    if interval:
        # the start snapshots written and A's over: then SIGINT
        if not wait_for(lambda: lib.snap_ends(data) >= 2 or
                        rec.poll() is not None, "the start snapshots"):
            return False
        wait_for(lambda: not pagemap_open(rec, a.pid),
                 "the end of A's start snapshot")
        rec.send_signal(signal.SIGINT)
    if not wait_for(lambda: pagemap_open(rec, a.pid) or
                    rec.poll() is not None, "A's last snapshot"):
        return False
    b.kill()
    wait_for(lambda: state(b.pid) == "t" or rec.poll() is not None or
             not pagemap_open(rec, a.pid), "B's exit stop")
    stopped = state(b.pid) == "t"
    during = pagemap_open(rec, a.pid)
    if not (stopped and during):
        print(f"# B in its exit stop: {stopped}, A's snapshot under way "
              f"then: {during}")
    return stopped and during


def attempt(name, exe, tmp, args, interval):
    """One recording; True if it got B's exit stop during A's snapshot
    (then checked) or memsz failed, False to try again."""
    data = os.path.join(tmp, name + ".data")
    b, b_rss = start(exe, 1)
    a, a_rss = start(exe, A_MIB)
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "-p",
                            f"{b.pid},{a.pid}"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        got = kill_in_last_snapshot(rec, a, b, data, interval)
        err = rec.communicate(timeout=GUARD)[1]
    finally:
        for p in (rec, a, b):
            if p.poll() is None:
                p.kill()
            p.wait()
    # ended by SIGINT (an interval), memsz dies by it once written
    ok = -signal.SIGINT if interval else 0
    if not got and rec.returncode == ok:
        print(f"# {name}: B's exit stop came after A's snapshot: again")
        return False
    check(rec.returncode == ok,
          f"{name}: memsz record succeeds ({err.strip()})")
    if not got:
        return True
    dump = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                          text=True)
    check(dump.returncode == 0 and not dump.stderr,
          f"{name}: memsz dump reads every record "
          f"({dump.stderr.strip()})")
    # the table's footer says what the file lacks
    rep = subprocess.run([MEMSZ, "report", "-i", data, "-n", "0"],
                         capture_output=True, text=True)
    said = [ln for ln in (rep.stdout + rep.stderr).splitlines()
            if "damaged" in ln]
    check(rep.returncode == 0 and not said,
          f"{name}: memsz report finds no damage {said}")
    rows = lib.pid_rows(data)
    for who, p, rss in (("A", a, a_rss), ("B", b, b_rss)):
        got_rss = int(rows[p.pid]["rss"]) if p.pid in rows else None
        check(got_rss == rss,
              f"{name}: {who}'s RSS {got_rss} is its smaps Rss {rss}")
    return True


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2486-") as tmp:
        exe = lib.workload(tmp, "rec_many_maps", "-Wl,-z,now")
        for name, args, interval in (
                ("one-shot", ["--freeze", "--duration", "0"], False),
                ("interval-freeze", ["--freeze", "--interval", "3600000"],
                 True),
                ("sigint", [], True)):
            for _ in range(ATTEMPTS):
                if attempt(name, exe, tmp, args, interval):
                    break
            else:
                lib.skip_part(f"{name}: B's exit stop never came during "
                              f"A's snapshot in {ATTEMPTS} attempts")


main()
sys.exit(lib.finish())
