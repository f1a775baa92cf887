#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2468: the line a failed recording ends with says what became of FILE
truthfully: "'FILE' left as it was" where FILE existed, "'FILE' not
written" where there was none.

It said "left as it was" in both cases, which reads as if a FILE had been
there. Write errors under a file size limit (ulimit -f, as t2450): a
recording cut short after its first snapshot (kept as FILE.partial) and
one cut short at its first byte (nothing kept), each with and without a
previous FILE. Ground truth: whether FILE exists before and after (its
SHA-256 when it does), and the error line.
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


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run_case(d, name, args, limit, previous):
    def pre():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = os.path.join(d, name, "x.data")
    os.mkdir(os.path.dirname(out))
    if previous:
        with open(out, "wb") as f:
            f.write(b"previous recording " * 100)
        before = sha(out)
    r = subprocess.run([MEMSZ, "record", "-o", out, *args],
                       preexec_fn=pre, capture_output=True, text=True,
                       timeout=300)
    err = r.stderr.strip()
    check(r.returncode == 1 and err.startswith(
        f"memsz: cannot write '{out}': File too large"),
        f"{name}: a write error, exit 1 ({r.returncode}, {err!r})")
    if previous:
        check(os.path.exists(out) and sha(out) == before,
              f"{name}: the previous FILE is as it was")
        check(f"'{out}' left as it was" in err,
              f"{name}: the line says FILE was left as it was: {err!r}")
    else:
        check(not os.path.exists(out), f"{name}: no FILE made")
        check(f"'{out}' not written" in err
              and "left as it was" not in err,
              f"{name}: the line says FILE was not written, not that it "
              f"was left as it was: {err!r}")


def main():
    sleeper = subprocess.Popen(["sleep", "1000"])
    try:
        with tempfile.TemporaryDirectory(prefix="memsz-t2468-") as d:
            for previous in (False, True):
                tag = "previous" if previous else "none"
                # ~8 KiB a snapshot: 12 KiB passes after the first
                run_case(d, f"partial-{tag}",
                         ["--interval", "5", "-p", str(sleeper.pid)],
                         12288, previous)
                # 1 KiB: the first batch of records fails, nothing kept
                run_case(d, f"nothing-{tag}",
                         ["--duration", "0", "-p", str(sleeper.pid)],
                         1024, previous)
    finally:
        sleeper.kill()
        sleeper.wait()
    return lib.finish()


sys.exit(main())
