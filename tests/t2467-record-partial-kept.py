#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2467: a failed recording never replaces the FILE.partial an earlier
failed run left: it is kept as FILE.partial.1 (then .2, ...), and the
error line says where, and that the earlier one is kept.

A write error keeps what was recorded up to it as FILE.partial; a second
failed run with the same -o renamed its own over it, and the first run's
recording was lost. Three runs under a file size limit (ulimit -f, as
t2450) that the recording of an attached sleep passes after its first
snapshot. Ground truth: each partial file's SHA-256 right after its run,
compared with the file at the end; the directory's listing; the error
line; `memsz report` reads each partial file. When every name up to
FILE.partial.999 is taken, the recording is thrown away: the line said
only "'FILE' not written" and now says so.
"""
import hashlib
import os
import resource
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

LIMIT = 12288  # a snapshot of a sleep takes ~8 KiB: passed within a few


def limited():
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    sleeper = subprocess.Popen(["sleep", "1000"])
    try:
        with tempfile.TemporaryDirectory(prefix="memsz-t2467-") as d:
            out = os.path.join(d, "x.data")
            names = ["x.data.partial", "x.data.partial.1",
                     "x.data.partial.2"]
            kept = {}
            for run, name in enumerate(names):
                r = subprocess.run([MEMSZ, "record", "-o", out,
                                    "--interval", "5", "-p",
                                    str(sleeper.pid)],
                                   preexec_fn=limited, capture_output=True,
                                   text=True, timeout=300)
                check(r.returncode == 1 and "File too large" in r.stderr,
                      f"run {run}: a write error, exit 1 "
                      f"({r.returncode}, {r.stderr.strip()!r})")
                p = os.path.join(d, name)
                check(os.path.exists(p),
                      f"run {run}: its recording is kept as {name} "
                      f"({sorted(os.listdir(d))})")
                check(f"what was recorded is in '{p}'" in r.stderr,
                      f"run {run}: the error line names {name}: "
                      f"{r.stderr.strip()!r}")
                if run == 1:
                    check(f"('{out}.partial', an earlier run's, kept)"
                          in r.stderr,
                          f"run 1: says x.data.partial is kept: "
                          f"{r.stderr.strip()!r}")
                if run == 2:
                    check(f"('{out}.partial' to '{out}.partial.1', "
                          "earlier runs', kept)" in r.stderr,
                          f"run 2: says the earlier two are kept: "
                          f"{r.stderr.strip()!r}")
                if os.path.exists(p):
                    kept[name] = sha(p)
            check(sorted(os.listdir(d)) == names,
                  f"the three partial recordings, nothing else "
                  f"({sorted(os.listdir(d))})")
            for name, h in kept.items():
                p = os.path.join(d, name)
                check(os.path.exists(p) and sha(p) == h,
                      f"{name} is as its run left it")
                rep = subprocess.run([MEMSZ, "report", "-i", p],
                                     capture_output=True, text=True,
                                     timeout=300)
                check(rep.returncode == 0 and "TOTAL" in rep.stdout,
                      f"{name} is reported")
            all_taken(d, out, sleeper.pid)
    finally:
        sleeper.kill()
        sleeper.wait()
    return lib.finish()


def all_taken(d, out, pid):
    """x.data.partial to x.data.partial.999 all exist (the limit): the
    recording is thrown away, and the line says so, not only that x.data
    was left as it was (or not written)."""
    for n in range(3, 1000):
        open(os.path.join(d, f"x.data.partial.{n}"), "w").close()
    before = sorted(os.listdir(d))
    r = subprocess.run([MEMSZ, "record", "-o", out, "--interval", "5",
                        "-p", str(pid)],
                       preexec_fn=limited, capture_output=True, text=True,
                       timeout=300)
    check(r.returncode == 1 and "File too large" in r.stderr,
          f"all taken: a write error, exit 1 ({r.returncode}, "
          f"{r.stderr.strip()!r})")
    check(sorted(os.listdir(d)) == before,
          "all taken: no file made, none replaced")
    check(f"what was recorded is thrown away: '{out}.partial' to "
          f"'{out}.partial.999', earlier runs', all exist" in r.stderr,
          f"all taken: the line says the recording is thrown away: "
          f"{r.stderr.strip()!r}")


sys.exit(main())
