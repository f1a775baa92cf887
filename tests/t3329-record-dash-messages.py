#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3329: the messages of `memsz record -o -` name its output "standard
output", the thing the user chose, not /dev/stdout, a path they did not
type (`-o -` is written as --output-special /dev/stdout is, t2492): the
summary said "wrote ... to '/dev/stdout'", a failed write "cannot write
'/dev/stdout'".

Each case runs `record -o - --duration 0 -p PID` of a sleep with
standard output:
- a file: the summary says "to standard output";
- a pipe whose reader has left (closed before memsz starts): "cannot open
  standard output: Broken pipe" (its header's write fails), exit 1;
- a file past the file size limit (RLIMIT_FSIZE, a limit that the header
  fits in and the snapshot does not): "cannot write standard output: File
  too large; ... what standard output received is an incomplete
  recording", exit 1;
- with `-- CMD` (its output too): "cannot open standard output: also the
  command's output";
- `-G` of an empty cgroup (root: a cgroup to make): "nothing recorded:
  ... standard output received no complete recording" (it said "left as
  it was" of a descriptor that had received the header: the file holds
  bytes);
and no line names /dev/stdout. `--output-special -o /dev/stdout`, where
the user typed that path, still names it.
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def record(args, stdout, **kw):
    """(exit status, stderr lines) of `memsz record ARGS` with stdout."""
    r = subprocess.run([MEMSZ, "record", *args], stdout=stdout,
                       stderr=subprocess.PIPE, text=True, timeout=300, **kw)
    return r.returncode, r.stderr.splitlines()


def check_lines(what, got, rc, want):
    """Exit status rc and a line with each of want, none with
    /dev/stdout."""
    ret, err = got
    check(ret == rc and
          all(any(w in line for line in err) for w in want) and
          not any("/dev/stdout" in line for line in err),
          f"{what}: exit {rc}, says {want}, not /dev/stdout ({ret}, {err})")


def fsize_limit(n):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3329-")
    target = subprocess.Popen(["sleep", "1000"])
    try:
        rec = ["-o", "-", "--duration", "0", "-p", str(target.pid)]
        out = os.path.join(tmp, "out.data")
        with open(out, "wb") as f:
            got = record(rec, f)
        check_lines("-o - > FILE", got, 0,
                    ["memsz record: wrote", "to standard output ]"])

        r, w = os.pipe()
        os.close(r)
        try:
            got = record(rec, w)
        finally:
            os.close(w)
        check_lines("-o - into a pipe nobody reads", got, 1,
                    ["cannot open standard output: Broken pipe"])

        # the header (~100 bytes) fits, a snapshot of sleep does not
        with open(os.path.join(tmp, "limited.data"), "wb") as f:
            got = record(rec, f, preexec_fn=fsize_limit(1024))
        check_lines("-o - past RLIMIT_FSIZE", got, 1,
                    ["cannot write standard output: File too large",
                     "what standard output received is an incomplete "
                     "recording"])

        with open(os.path.join(tmp, "cmd.data"), "wb") as f:
            got = record(["-o", "-", "--", "true"], f)
        check_lines("-o - -- CMD", got, 1,
                    ["cannot open standard output: also the command's "
                     "output"])

        with open(os.path.join(tmp, "special.data"), "wb") as f:
            got = record(["--output-special", "-o", "/dev/stdout",
                          "--duration", "0", "-p", str(target.pid)], f)
        check(got[0] == 0 and
              any("to '/dev/stdout' ]" in line for line in got[1]),
              f"--output-special -o /dev/stdout: the summary names the "
              f"path typed ({got})")

        if os.geteuid() != 0:
            lib.skip_part("needs root to make an empty cgroup for -G")
        else:
            cg = lib.make_cgroup("t3329")
            try:
                empty = os.path.join(tmp, "empty.data")
                with open(empty, "wb") as f:
                    got = record(["-o", "-", "--duration", "0", "-G", cg],
                                 f)
                check_lines("-o - -G EMPTY", got, 1,
                            ["nothing recorded: cgroup",
                             "standard output received no complete "
                             "recording"])
                print(f"# -G EMPTY: standard output got "
                      f"{os.path.getsize(empty)} bytes")
            finally:
                lib.remove_cgroup(cg)
            check(not os.path.exists(cg), f"cgroup {cg} removed")
    finally:
        lib.stop_kill(target)
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
