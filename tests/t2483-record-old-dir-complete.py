#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2483: when the complete recording cannot replace FILE (FILE.old is a
directory), the error line says what happened, not that the recording
stopped and the command ended.

The commit makes FILE.old a link of the previous FILE; with a directory
at FILE.old that fails ("Is a directory"). The recording was complete
and the launched command had ended by itself, yet the line said
"recording stopped and the command ended". It now says that FILE was
left as it was and where the complete recording is kept.

Ground truth: the command writes a marker file as its last act (it ran
to its end, no signal cut it short); FILE's bytes before and after; the
kept file's records (memsz dump: its last record is END, so it is
complete) and `memsz report` reading it. A write error while the command
still runs (a file size limit of 1 KiB, the command `sleep 1000`) still
says that the recording stopped and the command ended: memsz returns long
before the command would have.
"""
import os
import resource
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2483-") as d:
        out = os.path.join(d, "x.data")
        marker = os.path.join(d, "done")
        os.makedirs(out + ".old/sub")
        with open(out, "wb") as f:
            f.write(b"previous recording " * 100)
        r = subprocess.run([MEMSZ, "record", "-o", out, "--", "sh", "-c",
                            f"echo done > '{marker}'"],
                           capture_output=True, text=True, timeout=300)
        err = r.stderr.strip()
        check(os.path.exists(marker), "the command ran to its end")
        check(r.returncode == 1 and err.startswith(
            f"memsz: cannot move '{out}' to '{out}.old': Is a directory"),
            f"memsz says the move to FILE.old failed, exit 1 "
            f"({r.returncode}, {err!r})")
        check("command ended" not in err and "stopped" not in err,
              f"the line does not say memsz stopped the recording or "
              f"ended the command: {err!r}")
        kept = out + ".partial"
        check(read(out) == b"previous recording " * 100,
              "FILE holds what it held")
        check(f"'{out}' left as it was" in err and
              f"the complete recording is in '{kept}'" in err,
              f"the line says FILE was left as it was and where the "
              f"complete recording is: {err!r}")
        dump = subprocess.run([MEMSZ, "dump", "-i", kept],
                              capture_output=True, text=True, timeout=300)
        lines = dump.stdout.strip().splitlines()
        rep = subprocess.run([MEMSZ, "report", "-i", kept],
                             capture_output=True, timeout=300)
        check(dump.returncode == 0 and lines and " END " in lines[-1]
              and rep.returncode == 0,
              f"the kept file is complete (its last record END: "
              f"{lines[-1] if lines else dump.stderr.strip()!r}) and "
              f"memsz report reads it")

        # a write error while the command runs: memsz ends it
        def pre():
            resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
        out2 = os.path.join(d, "y.data")
        r = subprocess.run([MEMSZ, "record", "-o", out2, "--", "sleep",
                            "1000"], preexec_fn=pre, capture_output=True,
                           text=True, timeout=300)
        err = r.stderr.strip()
        check(r.returncode == 1 and "File too large; recording stopped "
              "and the command ended" in err,
              f"a write error while the command runs: the line says the "
              f"recording stopped and the command ended ({r.returncode}, "
              f"{err!r})")
    sys.exit(lib.finish())


main()
