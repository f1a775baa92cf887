# SPDX-License-Identifier: GPL-2.0-or-later
"""What the bench/ scripts share: timing one command.

Imported by the scripts beside it (python3 puts a script's own folder
first on sys.path).
"""
import os
import time


def measure(cmd, runs, may_fail=False, quiet=False):
    """Best wall time over runs and peak RSS (KiB) of cmd, its stdout
    discarded (its stderr too when quiet). may_fail: a non-zero exit is
    not a failed run (eu-readelf exits 1 after decoding everything when it
    met something it could not print)."""
    best, peak = None, 0
    for _ in range(runs):
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            if quiet:
                os.dup2(fd, 2)
            os.execvp(cmd[0], cmd)
        _, status, ru = os.wait4(pid, 0)
        dt = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0 and not may_fail:
            raise SystemExit("failed: %s" % " ".join(cmd))
        best = dt if best is None else min(best, dt)
        peak = max(peak, ru.ru_maxrss)
    return best, peak
