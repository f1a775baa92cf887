#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2445: a command name set with prctl(PR_SET_NAME) to bytes that hold
a newline, an escape and a byte that is not UTF-8 is recorded whole,
attached (`record -p PID`: read from /proc/PID/comm) as launched
(`record -- CMD`: perf's COMM records).

/proc/PID/comm prints the name as it is and ends it with one newline;
memsz cut it at the first newline, so `record -p` named the process
"co" where `record --` named it "co\\x0am\\x1b\\xff".

Ground truth: /proc/PID/comm of the stopped workload, its last newline
taken off. Checked: the last COMM record of the pid (dump) and the row of
`report --by comms` carry that name, escaped as memsz escapes text
(printable ASCII as it is, any other byte here as \\xNN).
"""
import csv
import io
import os
import subprocess
import sys
import tempfile
import shutil

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NAME = b"co\nm\x1b\xff"

WORKLOAD = r"""
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(15, ctypes.c_char_p(%r), 0, 0, 0):
    raise OSError(ctypes.get_errno(), "PR_SET_NAME")
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
os._exit(0)
""" % NAME


def escaped(b):
    """memsz's escape of b (str_escape) for bytes that are ASCII or not
    UTF-8 at all, as NAME's."""
    return "".join(chr(c) if 0x20 <= c < 0x7f else "\\x%02x" % c for c in b)


def truth(pid):
    with open(f"/proc/{pid}/comm", "rb") as f:
        comm = f.read()
    return comm[:-1] if comm.endswith(b"\n") else comm


def checks(mode, data, pid, comm):
    want = escaped(comm)
    dump = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")
    tag = " COMM %d/%d: " % (pid, pid)
    names = [ln.split(tag, 1)[1].rsplit(" (uid", 1)[0]
             for ln in dump.splitlines() if tag in ln]
    check(names and names[-1] == want, "%s: the last COMM record of pid %d "
          "names %r (%s)" % (mode, pid, want, names))
    rep = subprocess.run([MEMSZ, "report", "-i", data, "--by", "comms", "-n",
                          "0", "--format", "csv"], capture_output=True,
                         check=True).stdout.decode("utf-8", "replace")
    rows = [r["comms"] for r in csv.DictReader(io.StringIO(rep))]
    check(want in rows, "%s: report --by comms has a row %r (%s)"
          % (mode, want, rows))


def attached(tmp):
    w = subprocess.Popen([sys.executable, "-c", WORKLOAD],
                         stdout=subprocess.PIPE, text=True)
    try:
        if w.stdout.readline().strip() != "ready":
            lib.fail("the workload could not set its name")
        lib.wait_stopped(w.pid)
        comm = truth(w.pid)
        check(comm == NAME, "the kernel keeps the name %r (%r)"
              % (NAME, comm))
        data = os.path.join(tmp, "p.data")
        rec = subprocess.run([MEMSZ, "record", "-p", str(w.pid), "-o", data,
                              "--duration", "0"],
                             capture_output=True, text=True)
        check(rec.returncode == 0, "record -p exits 0: " + rec.stderr.strip())
    finally:
        w.kill()
        w.wait()
    checks("record -p", data, w.pid, comm)


def launched(tmp):
    data = os.path.join(tmp, "c.data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--",
                            sys.executable, "-c", WORKLOAD],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if rec.stdout.readline().strip() != "ready":
        rec.kill()
        lib.fail("the workload could not set its name: " +
                 rec.communicate()[1].strip())
    pid = lib.stopped_child(rec.pid)
    comm = truth(pid)
    err = lib.resume(rec, pid)[1]
    check(rec.returncode == 0, "record -- exits 0: " + err.strip())
    checks("record --", data, pid, comm)


def main():
    if os.geteuid() != 0:
        lib.skip("record -p of another process needs root here")
    tmp = tempfile.mkdtemp(prefix="memsz-t2445-")
    try:
        attached(tmp)
        launched(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
