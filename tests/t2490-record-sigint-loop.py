#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2490: Ctrl-C stops a shell loop that runs memsz record, as it stops
one that runs the command alone (and as it stops one that runs perf
record, which dies by the signal it got once its file is written).

A terminal sends SIGINT to its foreground process group: bash, memsz and
the command all get it. bash then stops its loop only if the command it
waited for died by SIGINT (it exits 130 and the loop goes on otherwise).
memsz exited 130 (with -- CMD) or 0 (with -p): the loop went on. Now,
once its recording is written, memsz dies by the signal that stopped it;
a command that handled the signal and exited normally still has its exit
status passed on, and the loop goes on as it does without memsz.

Ground truth is bash itself: the same loop with the command run alone.
Each case runs `bash loop.sh ...` in a session of its own (setsid, as a
terminal's shell), waits until the iteration's command sleeps (or memsz
polls, with -p), sends SIGINT to the process group (killpg, as the
terminal does), then waits for bash to end or start its next iteration.
"""
import contextlib
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

LOOP = """for i in 1 2 3; do
	echo "iter $i" >> "$LOG"
	"$@"
done
"""
# a command that handles SIGINT (and memsz's SIGTERM) and exits normally
TRAP = ["sh", "-c", 'trap "exit 3" INT TERM; sleep 1000 & wait']
# ... waiting for its sleep (dash waits in sigsuspend when it has traps)
WAITING = ("sh", "do_wait|sigsuspend")


# x86_64 numbers of the system calls the processes wait in, for when the
# kernel's wchan names only do_syscall_64: a traced sleep whose nanosleep a
# ptrace stop interrupted sleeps on in restart_syscall (219)
SYSCALLS = {"35": "nanosleep", "230": "nanosleep", "219": "nanosleep",
            "61": "do_wait",
            "130": "sigsuspend", "7": "poll_schedule_timeout",
            "271": "poll_schedule_timeout"}


def group(pgid):
    """{pid: (comm, wchan)} of the processes of process group pgid; wchan
    is what /proc/PID/wchan says, and after a space the name of the
    system call it sleeps in (/proc/PID/syscall, x86_64)."""
    found = {}
    x86 = os.uname().machine == "x86_64"
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
            with open(f"/proc/{d}/wchan") as f:
                wchan = f.read()
            with open(f"/proc/{d}/syscall") as f:
                nr = f.read().split()[0]
        except (OSError, IndexError):
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        rest = st[st.rindex(")") + 2:].split()
        if int(rest[2]) == pgid and rest[0] == "S":
            if x86:
                wchan += " " + SYSCALLS.get(nr, "")
            found[int(d)] = (comm, wchan)
    return found


def lines(path):
    try:
        with open(path) as f:
            return f.read().split("\n")[:-1]
    except FileNotFoundError:
        return []


def sigint_default():
    """SIGINT as a terminal's shell has it: a test run in the background
    of a non-interactive shell has it ignored, and bash cannot undo
    that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_loop(tmp, name, cmd, ready):
    """Runs the loop over cmd; once ready(group) holds for iteration 1,
    SIGINT to the group. Returns (bash's returncode, iterations run)."""
    log = os.path.join(tmp, name + ".log")
    errf = os.path.join(tmp, name + ".err")
    env = dict(os.environ, LOG=log)
    with open(errf, "w") as err:
        bash = subprocess.Popen(["bash", os.path.join(tmp, "loop.sh"),
                                 *cmd], env=env, start_new_session=True,
                                preexec_fn=sigint_default,
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        lib.wait_until(lambda: len(lines(log)) > 1 or
                       bash.poll() is not None or
                       (lines(log) == ["iter 1"] and
                        ready(group(bash.pid))),
                       f"{name}: the first iteration to run")
        if lines(log) != ["iter 1"]:
            lib.fail(f"{name}: the first iteration ended by itself: "
                     f"{lines(errf)}")
        os.killpg(bash.pid, signal.SIGINT)
        lib.wait_until(lambda: bash.poll() is not None or
                       len(lines(log)) > 1,
                       f"{name}: bash to end or go on")
    finally:
        try:
            os.killpg(bash.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        bash.wait()
    return bash.returncode, len(lines(log))


def sleeping(g, *also):
    """A sleep of the group is in nanosleep, and each of also (comm, a
    wchan) is found too (where the wchan is found in the process's)."""
    want = [("sleep", "nanosleep"), *also]
    return all(any(c == comm and any(x in w for x in wchans.split("|"))
                   for c, w in g.values())
               for comm, wchans in want)


def polling(g):
    return any(c == "memsz" and "poll_schedule_timeout" in w
               for c, w in g.values())


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2490-")
    target = None
    try:
        with open(os.path.join(tmp, "loop.sh"), "w") as f:
            f.write(LOOP)
        rec = [MEMSZ, "record", "-o", os.path.join(tmp, "r.data")]
        # ground truth: bash stops at a command killed by SIGINT, goes on
        # after one that exited
        alone = run_loop(tmp, "alone", ["sleep", "1000"], sleeping)
        if alone != (-signal.SIGINT, 1):
            lib.skip(f"bash does not stop its loop on Ctrl-C here "
                     f"({alone})")
        trapped = run_loop(tmp, "trap", TRAP,
                           lambda g: sleeping(g, WAITING))
        check(trapped[0] is not None and trapped[1] == 2,
              f"ground truth: a command that exits on SIGINT lets the "
              f"loop go on ({trapped})")

        def stops(name, what, args, ready):
            """Ctrl-C stops a loop over memsz record ARGS as it stops
            one over the command alone, once the recording is written."""
            with contextlib.suppress(FileNotFoundError):
                os.unlink(rec[3])
            got = run_loop(tmp, name, [*rec, *args], ready)
            check(got == alone,
                  f"{what}: Ctrl-C stops the loop as without memsz (bash "
                  f"{got[0]} after {got[1]} iterations; alone {alone})")
            check(subprocess.run([MEMSZ, "dump", "-i", rec[3]],
                                 capture_output=True).returncode == 0,
                  f"{what}: the recording was written first")

        stops("launch", "record -- CMD", ["--", "sleep", "1000"], sleeping)
        target = subprocess.Popen(["sleep", "1000"], start_new_session=True)
        lib.wait_until(lambda: sleeping(group(target.pid)),
                       "the -p target to sleep")
        stops("attach", "record -p", ["-p", str(target.pid)], polling)
        check(target.poll() is None, "record -p: the target runs on")

        got = run_loop(tmp, "launch-trap", [*rec, "--", *TRAP],
                       lambda g: sleeping(g, WAITING))
        check(got[1] == trapped[1],
              f"record -- CMD: a command that exits on SIGINT has its "
              f"status passed on, the loop goes on as without memsz "
              f"({got[1]} iterations)")
    finally:
        if target:
            target.kill()
            target.wait()
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
