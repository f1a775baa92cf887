#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2454: SIGHUP and SIGXCPU that memsz finds ignored stay ignored;
SIGINT still ends the recording.

`nohup memsz record ...` ignores SIGHUP; a service may ignore SIGXCPU.
memsz blocks its stop signals and reads them from a signalfd, and Linux
queues a blocked signal even when its disposition is SIG_IGN: the
signalfd read what was meant to be ignored, and the recording stopped (a
SIGHUP at logout ended a recording started under nohup; perf under nohup
goes on). memsz now blocks and reads these only if they were not ignored.
SIGINT (and SIGTERM) it takes even when ignored, as perf record does: a
script's background job (`memsz record ... &`) has SIGINT ignored, and
`kill -INT $!` is how scripts end it (t2080, t2097, t2108 do).

For each of SIGHUP, SIGXCPU and SIGINT: memsz record --interval 100 of a
launched `sleep`, started with the signal ignored (as nohup does, through
exec); once its file shows a snapshot the signal is sent to memsz, then,
as the event that says the loop went on after it, the temporary file is
waited for to grow three times (on the old code memsz stopped within a
turn, the command ended and the file was renamed), or memsz to end.
Ground truth: for SIGHUP and SIGXCPU memsz is still running (waitpid),
said nothing, and SIGTERM then ends it; for SIGINT it has ended by
itself. Either way the command ended by memsz's SIGTERM, the file
written, and memsz dead by the signal that stopped it (SIGTERM, SIGINT:
t2490).
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


def tmp_size(d):
    """Size of memsz's temporary file in d, None once there is none."""
    for f in os.listdir(d):
        if f.startswith("x.data.tmp."):
            with contextlib.suppress(FileNotFoundError):
                return os.path.getsize(os.path.join(d, f))
    return None


def case(tmp, sig, stays):
    name = signal.Signals(sig).name
    stop = signal.SIGTERM if stays else sig  # the one memsz dies by
    d = os.path.join(tmp, name)
    os.mkdir(d)
    errf = os.path.join(tmp, f"{name}.err")

    def ignore():
        signal.signal(sig, signal.SIG_IGN)

    with open(errf, "w") as ef:
        p = subprocess.Popen([MEMSZ, "record", "-o",
                              os.path.join(d, "x.data"), "--interval",
                              "100", "--", "sleep", "1000"],
                             stdout=ef, stderr=ef, preexec_fn=ignore,
                             start_new_session=True)
    try:
        lib.wait_until(lambda: (tmp_size(d) or 0) > 4096,
                       "memsz to write a snapshot")
        os.kill(p.pid, sig)
        sizes = [tmp_size(d)]

        def grown():
            s = tmp_size(d)
            if s is not None and s > sizes[-1]:
                sizes.append(s)
            return p.poll() is not None or len(sizes) > 3

        lib.wait_until(grown, "three snapshots or memsz's end")
        if stays:
            check(p.poll() is None,
                  f"{name}: memsz records on past an ignored {name} "
                  f"(status {p.poll()})")
        else:
            lib.wait_until(lambda: p.poll() is not None, "memsz's end")
        with contextlib.suppress(ProcessLookupError):  # ended already
            os.kill(p.pid, signal.SIGTERM)
        status = p.wait(timeout=600)
    except (TimeoutError, FileNotFoundError) as e:
        check(False, f"{name}: {e}")
        status = None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
    with open(errf) as f:
        err = f.read().splitlines()
    check(status == -stop,
          f"{name}: memsz ends its command and dies by "
          f"{signal.Signals(stop).name} (status {status}: {err})")
    check(not [e for e in err if "warning" in e],
          f"{name}: no warning: {err}")
    check(sorted(os.listdir(d)) == ["x.data"],
          f"{name}: the recording is written: {sorted(os.listdir(d))}")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2454-")
    try:
        case(tmp, signal.SIGHUP, True)
        case(tmp, signal.SIGXCPU, True)
        case(tmp, signal.SIGINT, False)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


sys.exit(main())
