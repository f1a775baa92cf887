#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2491: memsz run with its standard output closed (`>&-`).

memsz puts /dev/null on a closed standard descriptor, so that no file it
opens becomes its stdout or stderr. That made `memsz report >&-` (and
dump, size) print into /dev/null and exit 0: the output was lost without
a word. Now the descriptor it puts there for a closed stdout is not
writable: a command whose output goes to standard output fails with one
line and exit 1, as cat and the other coreutils do ("write error: Bad
file descriptor"). And `record -- CMD` gave its command /dev/null for
the stdout its caller had closed: the command's own writes succeeded
where they fail without memsz; it now gets its standard descriptors as
memsz was given them, closed ones closed.

Ground truth: the exit status of `cat FILE >&-` and its errno text
(strerror(EBADF)); `sh -c 'echo hi; echo $? >&2; ...' >&-` run alone
(the status sh's echo sees, its error line, and whether /proc/$$/fd/1
exists) against the same under `memsz record --`.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

EBADF = os.strerror(9)


def closed_stdout(args):
    """args run with fd 1 closed: (returncode, stderr lines)."""
    r = subprocess.run(args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=600,
                       preexec_fn=lambda: os.close(1))
    return r.returncode, r.stderr.splitlines()


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t2491-")
    try:
        data = os.path.join(tmp, "x.data")
        lib.run_ok([MEMSZ, "record", "-o", data, "--", "true"],
                   timeout=600)
        cat = closed_stdout(["cat", "/etc/passwd"])
        if cat[0] == 0 or not any(EBADF in e for e in cat[1]):
            lib.skip(f"cat succeeds with its stdout closed here ({cat})")
        for name, args in (("report", ["report", "-i", data]),
                           ("dump", ["dump", "-i", data]),
                           ("size", ["size", "/bin/true"]),
                           ("help", ["help", "report"])):
            rc, err = closed_stdout([MEMSZ, *args])
            check(rc == 1 and len(err) == 1 and EBADF in err[0],
                  f"{name} >&-: fails with one line, as cat does "
                  f"({rc}, {err}; cat: {cat})")

        # the status echo sees, and whether fd 1 is open at all (memsz's
        # own /dev/null there, read-only, fails writes too)
        sh = ["sh", "-c", "echo hi; echo $? >&2; "
              "test -e /proc/$$/fd/1 && echo open >&2 || echo closed >&2"]
        alone = closed_stdout(sh)
        if alone[1][-2:] != ["1", "closed"]:
            lib.skip(f"sh's echo does not fail on a closed stdout "
                     f"({alone})")
        rc, err = closed_stdout([MEMSZ, "record", "-o", data, "--", *sh])
        check(rc == 0 and err[-1].startswith("[ memsz record: wrote") and
              err[:-1] == alone[1],
              f"record -- CMD >&-: the command finds its stdout closed "
              f"as without memsz ({err}; alone {alone[1]})")
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
