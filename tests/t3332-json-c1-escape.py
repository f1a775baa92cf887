#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3332: json (and the html page, whose data is json) escapes C1
controls (U+0080..U+009F) as \\u0080..\\u009f, as it escapes C0 ones:
no control character reaches the output raw.

They were written as their UTF-8 bytes: a file named with U+009B (a
terminal's 8-bit CSI) followed by "[31m" put that sequence raw in
`memsz report --format json` and in the html page, where every other
text format shows "\\u009b".

Ground truth: a python3 that maps a file named here with U+0085 and
U+009B[31m and stops itself; `memsz record -p` of it. The json row of
that file must decode to the file's name, and neither the json text
nor the html page may hold a C0 or C1 control character.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NAME = "t3332 nel\u0085 csi\u009b[31m end"

WORKLOAD = r"""
import mmap, os, signal, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
m[0]
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def controls(text):
    return sorted({hex(ord(c)) for c in text
                   if ord(c) < 0x20 and c not in "\t\n" or
                   0x7f <= ord(c) < 0xa0})


def main():
    if os.geteuid() != 0:
        lib.skip("memsz record -p needs root here")
    with tempfile.TemporaryDirectory(prefix="memsz-t3332-") as tmp:
        path = os.path.join(tmp, NAME)
        with open(path, "wb") as f:
            f.write(b"x" * 8192)
        p = subprocess.Popen([sys.executable, "-c", WORKLOAD, path],
                             stdout=subprocess.PIPE, text=True)
        try:
            if p.stdout.readline().strip() != "ready":
                lib.fail("the workload did not start")
            lib.wait_stopped(p.pid)
            data = os.path.join(tmp, "r.data")
            subprocess.run([MEMSZ, "record", "-o", data, "-p", str(p.pid),
                            "--duration", "0"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=True)
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
        raw = subprocess.run([MEMSZ, "report", "-i", data, "--format",
                              "json", "-n", "0"], stdout=subprocess.PIPE,
                             check=True).stdout.decode("utf-8")
        names = [r["name"] for r in json.loads(raw)["rows"]]
        check(path in names, "json: the file's row is named %r (%r)"
              % (path, [n for n in names if "t3332" in n]))
        check(not controls(raw), "json: no control character in the text "
              "(%r)" % controls(raw))
        page = subprocess.run([MEMSZ, "report", "-i", data, "--format",
                               "html"], stdout=subprocess.PIPE,
                              check=True).stdout.decode("utf-8")
        check(not controls(page), "html: no control character in the "
              "page (%r)" % controls(page))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
