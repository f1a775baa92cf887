#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2107: with --faults, a target cannot outrun memsz, even a stopped memsz.

Each traced thread carries a leash: a counter of its own samples that
sends the thread a signal every K samples, K small enough that all
threads' samples since memsz last looked fit in the rings. The thread
stops at that signal (a ptrace signal-delivery-stop) until memsz lets it
go, which it does only while the rings have room. So when memsz gets no
cpu at all (here: SIGSTOP), the faulting threads stop by themselves
within K faults, and no sample is lost.

tests/workloads/fault_loop.c faults without end, prints "tick N urg M"
lines (M: the SIGURGs it caught; it has a SIGURG handler unless it blocks
SIGURG), with NT threads faulting. The rings are small (-m 64, 256 KiB per
cpu: K is a few dozen samples, so leash stops come long before the first
tick):
 - launched, one thread; attached, three threads; attached, two threads
   that block SIGURG (memsz must pick SIGWINCH for them); attached, four
   threads, three of them made after memsz attached and all the time (each
   ends after one round, starting the one that takes its place) in a
   process that blocks SIGURG: a new thread blocks every signal at its
   first stop (pthread_create blocks them around clone()), so memsz must
   give it the signal of the thread that made it, SIGWINCH, not SIGURG,
   which would stop nothing. Once the workload ticks (with its new
   threads), memsz is stopped with SIGSTOP. The test waits until every
   thread of the workload is in a ptrace stop ('t'; an ended one may wait
   as a zombie for memsz to reap it; in the churning cases one may sleep
   in a futex wait for a C library lock that a thread stopped at its
   leash holds, see all_leashed); without leashes nothing would stop them and that
   wait fails (a hang guard, not a timing assumption).
   memsz gets SIGCONT, the workload ticks again (it was let go), then the
   recording ends: the summary says 0 lost, the file has no LOST record
   and notes the leash stops. The threads fault on while memsz ends an
   attached recording (it must not take the samples counted after its
   last look at the rings for lost ones);
 - attached, CHURN_ROUNDS times, to eight threads that block SIGURG and
   churn from the start: memsz may seize a thread inside pthread_create(),
   all its signals blocked; its leash signal (which every thread it makes
   inherits) must still be SIGWINCH, judged by its process's other
   threads; and a thread made by one seized already is traced by the
   kernel, which a second PTRACE_SEIZE refuses: memsz must take it as
   traced, not give up ptrace (the file would note "cannot ptrace", a
   note every attached case checks for at the first snapshot). A thread
   seized inside clone() may also have made one the kernel does not
   trace, after memsz read the thread list: that line of threads ran
   unleashed (CI: 3312 samples lost in attached-late; in attached-
   churning1, one thread running while the others were stopped). So
   every attached case checks at the first snapshot that each thread's
   TracerPid is memsz. Checked as above (memsz stopped; 0 lost);
 - launched, with memsz SIGKILLed while the workload sits at its leash:
   the workload runs on (not stopped, ticks again), and its SIGURG handler
   never ran: memsz picks a leash signal the process does not catch
   (SIGWINCH here), which the kernel delivers when the tracer dies.
"""
import os
import select
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, proc_state  # noqa: E402

# hang guard on every wait for an event, not a timing assumption
WAIT_S = 120
RING = ["--faults", "-m", "64"]
# attaching to a churning process: rounds (each may seize a thread in
# pthread_create(), or one the kernel traces already, or neither)
CHURN_ROUNDS = int(os.environ.get("T2107_CHURN_ROUNDS", "4"))


def drain_ticks(f):
    """Reads the lines already printed; the highest urg count among them."""
    urg = 0
    while select.select([f], [], [], 0)[0]:
        line = f.readline()
        if not line:
            break
        w = line.split()
        if len(w) == 4 and w[0] == "tick":
            urg = max(urg, int(w[3]))
    return urg


def states(pid):
    """The state letter of every thread of pid, "F" for one asleep in a
    futex wait (its /proc wchan names a futex function)."""
    out = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()[0]
            if st == "S":
                with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                    st = "F" if "futex" in f.read() else st
            out.append(st)
        except OSError:
            pass
    return out


def thread_detail(pid):
    """One line on each thread of pid for a failed check: tid, state,
    wchan and blocked signals, then the process's Threads count."""
    out = []
    try:
        tids = sorted(os.listdir(f"/proc/{pid}/task"), key=int)
    except OSError as e:
        return f"no thread list: {e.strerror}"
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()[0]
            with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                wchan = f.read().strip() or "-"
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                blk = [x.split()[1] for x in f if x.startswith("SigBlk")]
            out.append(f"{tid}:{st}:{wchan}:{blk[0] if blk else '?'}")
        except OSError as e:
            out.append(f"{tid}:{e.strerror}")
    try:
        with open(f"/proc/{pid}/status") as f:
            n = [x.split()[1] for x in f if x.startswith("Threads")]
    except OSError:
        n = []
    return f"Threads {n[0] if n else '?'}: " + " ".join(out)


def all_leashed(pid, nt, churn=False):
    """True once pid has nt threads or more that cannot run on and no
    other but zombies (churning threads that ended, not reaped yet): in a
    ptrace stop, or (churn: threads that start and end all the time)
    asleep in a futex wait while none runs. A thread stopped by memsz (at
    its leash, its clone event, or held) may hold a lock of the C library
    that pthread_create() and a detached thread's exit take (the stack
    cache's, say); the threads that want it sleep on it, and with memsz
    stopped nothing lets the holder go, so they sleep on, taking no
    sample. One at least is in a ptrace stop. Only the churning cases
    take such locks: elsewhere a thread in a futex wait is not stopped.
    (Commit 03e9282 says the waiting threads have every signal blocked;
    not always: one was seen with SigBlk 0x400000, inside
    pthread_create() before it blocks them. The check looks at wchan
    only, which holds either way.)"""
    s = states(pid)
    ok = "tZF" if churn else "tZ"
    return (s.count("t") + s.count("F") >= nt and "t" in s and
            all(x in ok for x in s))


def start(tmp, exe, name, launch, nt, words=()):
    """Starts the workload (words: its flags) and memsz (see
    lib.start_fault_loop); once attached, waits for memsz's first snapshot:
    its threads are traced and leashed then. With "late", the workload then
    makes its other threads, and this waits until it runs with them."""
    data = os.path.join(tmp, name + ".data")
    got = lib.start_fault_loop(name, data, RING,
                               [exe, "0", str(nt), *words], launch)
    if got and not launch:
        rec = got[0]
        try:
            lib.wait_until(lambda: lib.snap_ends(data) >= 1 or
                           rec.poll() is not None,
                           f"{name}: memsz's first snapshot", WAIT_S)
        except TimeoutError as e:
            print("# " + str(e))
        if rec.poll() is not None:
            check(False, f"{name}: memsz attached: {rec.stderr.read()}")
            lib.end_fault_loop(*got[0:2], got[3])
            return None
        # written before the first snapshot where ptrace was refused
        dump = subprocess.run([MEMSZ, "dump", "-i", lib.recording(data)],
                              capture_output=True, text=True).stdout
        note = [x for x in dump.splitlines() if "cannot ptrace" in x]
        check(not note, f"{name}: memsz traces the workload (no "
              f"'cannot ptrace' note) {' '.join(note)}")
        # a thread made untraced while memsz attached, and the line of
        # threads it starts, would run unleashed
        free = lib.untraced_threads(got[1], rec.pid)
        check(not free, f"{name}: every thread of the workload is traced "
              f"by memsz (TracerPid), none of {free}")
        if note or free:
            lib.end_fault_loop(*got[0:2], got[3])
            return None
    if got and "late" in words:
        os.kill(got[1], signal.SIGUSR1)
        try:
            lib.wait_until(lambda: len(states(got[1])) >= nt,
                           f"{name}: the workload's {nt} threads", WAIT_S)
            drain_ticks(got[2])
            ok = lib.next_tick(got[2]) is not None
        except TimeoutError:
            ok = False
        check(ok, f"{name}: the workload runs with its {nt} threads")
        if not ok:
            lib.end_fault_loop(*got[0:2], got[3])
            return None
    return got


def stop_memsz(name, rec, pid, nt, churn=False):
    """SIGSTOPs memsz and waits for every workload thread to stop (churn:
    see all_leashed)."""
    os.kill(rec.pid, signal.SIGSTOP)
    lib.wait_until(lambda: proc_state(rec.pid) == "T", "memsz to stop")
    try:
        lib.wait_until(lambda: all_leashed(pid, nt, churn),
                       f"{name}: the {nt} workload thread(s) to stop at "
                       "their leash", WAIT_S)
        ok = True
    except TimeoutError:
        ok = False
    check(ok, f"{name}: with memsz stopped, all {nt} workload thread(s) "
          f"stopped by themselves ({' '.join(states(pid))})" +
          ("" if ok else f" [{thread_detail(pid)}]"))
    return ok


def ended(name, rec, data):
    """Checks the summary and the file of a finished recording."""
    # one line each: a failed check's line is what CI shows of it
    err = " | ".join(rec.stderr.read().strip().splitlines())
    check("(0 lost)" in err, f"{name}: summary says 0 lost: {err}")
    dump = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                          text=True).stdout
    lost = [x.strip() for x in dump.splitlines() if " LOST " in x or
            ("NOTE" in x and "leash" in x)]
    check(" LOST " not in dump and dump.count(" SAMPLE ") > 0,
          f"{name}: no LOST record ({dump.count(' SAMPLE ')} samples)" +
          (f" [{' | '.join(lost[:8])}]" if " LOST " in dump else ""))
    check("at their leash" in dump,
          f"{name}: the file notes the leash stops")


def case_stopped(tmp, exe, name, launch, nt, words=()):
    got = start(tmp, exe, name, launch, nt, words)
    if not got:
        return
    rec, pid, out, target = got
    try:
        if not stop_memsz(name, rec, pid, nt, "churn" in words):
            return
        os.kill(rec.pid, signal.SIGCONT)
        drain_ticks(out)
        check(lib.next_tick(out) is not None,
              f"{name}: once memsz runs again, so does the workload")
        if launch:
            os.kill(pid, signal.SIGKILL)
        else:
            rec.send_signal(signal.SIGINT)
        rec.wait(timeout=WAIT_S)
        ended(name, rec, os.path.join(tmp, name + ".data"))
    finally:
        lib.end_fault_loop(rec, pid, target)


def case_killed(tmp, exe):
    name = "killed"
    got = start(tmp, exe, name, True, 1)
    if not got:
        return
    rec, pid, out, _ = got
    try:
        if not stop_memsz(name, rec, pid, 1):
            return
        rec.kill()
        rec.wait(timeout=WAIT_S)
        st = proc_state(pid)
        check(st not in "Tt",
              f"{name}: after SIGKILL of memsz the workload is not stopped "
              f"(state {st})")
        urg = drain_ticks(out)
        tick = lib.next_tick(out)
        check(tick is not None, f"{name}: the workload runs on ({tick})")
        urg = max(urg, tick[1] if tick else 0)
        check(urg == 0, f"{name}: the leash signal never reached the "
              f"workload's SIGURG handler (caught {urg})")
    finally:
        lib.end_fault_loop(rec, pid, None)


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2107-") as tmp:
        exe = lib.workload(tmp, "fault_loop", "-pthread")
        case_stopped(tmp, exe, "launched", True, 1)
        case_stopped(tmp, exe, "attached", False, 3)
        case_stopped(tmp, exe, "attached-blocked", False, 2, ["block"])
        case_stopped(tmp, exe, "attached-late", False, 4,
                     ["block", "late", "churn"])
        for i in range(CHURN_ROUNDS):
            case_stopped(tmp, exe, f"attached-churning{i}", False, 8,
                         ["block", "churn"])
        case_killed(tmp, exe)


main()
sys.exit(lib.finish())
