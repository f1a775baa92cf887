#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2492: `memsz record -o -` writes the recording to standard output, as
`perf record -o -` does; it wrote a file named '-' in the current
directory.

It is `--output-special /dev/stdout`, with the same refusals, and one
more: a terminal (a recording is binary). Ground truth: the bytes that
reach a regular file and a pipe given as stdout are a recording `memsz
dump` reads whole (its END record), with the snapshot of the process
recorded; no file '-' is made; a terminal (a pty) receives no byte and
memsz says why in one line, exit 1; with `-- CMD`, whose output is that
stdout too, it is refused as --output-special /dev/stdout refuses it.
"""
import os
import pty
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def dumped(path):
    r = subprocess.run([MEMSZ, "dump", "-i", path], capture_output=True,
                       text=True, timeout=300)
    return r.returncode == 0 and " END " in r.stdout.splitlines()[-1] and \
        " SNAP_END " in r.stdout


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2492-")
    target = subprocess.Popen(["sleep", "1000"])
    try:
        rec = [MEMSZ, "record", "-o", "-", "--duration", "0", "-p",
               str(target.pid)]
        out = os.path.join(tmp, "file.data")
        with open(out, "wb") as f:
            r = subprocess.run(rec, stdout=f, stderr=subprocess.PIPE,
                               text=True, cwd=tmp, timeout=300)
        check(r.returncode == 0 and dumped(out),
              f"-o - > FILE: the file holds the recording ({r.returncode}, "
              f"{r.stderr!r})")
        check(not os.path.exists(os.path.join(tmp, "-")),
              "-o -: no file named '-' is written")

        piped = os.path.join(tmp, "pipe.data")
        with open(piped, "wb") as f:
            cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=f)
            r = subprocess.run(rec, stdout=cat.stdin,
                               stderr=subprocess.PIPE, text=True, cwd=tmp,
                               timeout=300)
            cat.stdin.close()
            cat.wait()
        check(r.returncode == 0 and dumped(piped),
              f"-o - | cat: the pipe carries the recording "
              f"({r.returncode}, {r.stderr!r})")

        master, slave = pty.openpty()
        r = subprocess.run(rec, stdout=slave, stderr=subprocess.PIPE,
                           text=True, cwd=tmp, timeout=300)
        os.close(slave)
        os.set_blocking(master, False)
        try:
            got = os.read(master, 4096)
        except (BlockingIOError, OSError):
            got = b""
        os.close(master)
        err = r.stderr.splitlines()
        check(r.returncode == 1 and len(err) == 1 and
              "terminal" in err[0] and not got,
              f"-o - on a terminal: refused in one line, no byte sent "
              f"({r.returncode}, {err}, {len(got)} bytes)")

        with open(os.path.join(tmp, "cmd.data"), "wb") as f:
            r = subprocess.run([MEMSZ, "record", "-o", "-", "--", "echo",
                                "hi"], stdout=f, stderr=subprocess.PIPE,
                               text=True, cwd=tmp, timeout=300)
        err = r.stderr.splitlines()
        check(r.returncode == 1 and len(err) == 1 and
              "also the command's output" in err[0] and
              os.path.getsize(os.path.join(tmp, "cmd.data")) == 0,
              f"-o - -- CMD: refused, the command's output would mix "
              f"with it ({r.returncode}, {err})")
    finally:
        target.kill()
        target.wait()
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
