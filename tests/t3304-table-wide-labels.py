#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3304: the table's --width is terminal columns, also for labels of
wide and combining characters.

A process maps three files made here, named with CJK characters (two
columns each on a terminal), with 'e' + U+0301 COMBINING ACUTE (one
column a pair) and in plain ASCII, and is recorded. Labels were cut by
code points, so a CJK path cut to fit --width 100 took 119 columns, and
a cut could leave a combining mark on the ellipsis. For widths 60 to
160, every line of the table's rows (report, and report --timeline)
must take at most --width columns as Python's unicodedata measures them
(east-asian width W or F: 2, combining: 0), and no cut label may begin
its tail with a combining mark; the csv keeps each name whole.

memsz takes the widths from the C library's C.UTF-8 locale (glibc has
no width table without one): where newlocale() cannot open it, as
memsz calls it, the test is skipped.
"""
import ctypes
import csv
import io
import os
import subprocess
import sys
import tempfile
import unicodedata

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

HOLD = """
import mmap, sys
maps = []
for n in sys.argv[1:]:
    with open(n, "rb") as f:
        m = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)
    m[0]
    maps.append(m)
print("ready", flush=True)
sys.stdin.read(1)
"""


def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.combining(c) else 1 for c in s)


def have_c_utf8():
    """Whether newlocale(LC_CTYPE_MASK, "C.UTF-8") works, as in memsz."""
    libc = ctypes.CDLL(None)
    libc.newlocale.restype = ctypes.c_void_p
    libc.newlocale.argtypes = [ctypes.c_int, ctypes.c_char_p,
                               ctypes.c_void_p]
    libc.freelocale.argtypes = [ctypes.c_void_p]
    loc = libc.newlocale(1 << 0, b"C.UTF-8", None)  # LC_CTYPE_MASK
    if loc:
        libc.freelocale(loc)
    return bool(loc)


def main():
    if not have_c_utf8():
        lib.skip("the C.UTF-8 locale is not installed: memsz counts "
                 "every character as one column without it")
    with tempfile.TemporaryDirectory(prefix="memsz-t3304-") as tmp:
        names = [os.path.join(tmp, "漢字" * 30),
                 os.path.join(tmp, "e\u0301" * 40),
                 os.path.join(tmp, "plain" * 16)]
        for n in names:
            with open(n, "wb") as f:
                f.write(b"x" * 4096)
        p = subprocess.Popen([sys.executable, "-c", HOLD, *names],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            p.stdout.readline()
            data = os.path.join(tmp, "w.data")
            subprocess.run([MEMSZ, "record", "-o", data, "-p", str(p.pid),
                            "--duration", "0"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=True)
        finally:
            p.stdin.close()
            p.wait()
        out = subprocess.run([MEMSZ, "report", "-i", data, "--format",
                              "csv"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, check=True).stdout
        files = {r["files"] for r in
                 csv.DictReader(io.StringIO(out.decode()))}
        check(all(n in files for n in names),
              "csv: every name whole (%d of 3)" %
              sum(n in files for n in names))
        for extra in ([], ["--timeline"]):
            over, marks, seen = [], [], 0
            for width in range(60, 161, 10):
                out = subprocess.run(
                    [MEMSZ, "report", "-i", data, "-n", "0", "--width",
                     str(width), *extra], stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, check=True).stdout.decode()
                for line in out.splitlines():
                    if tmp[:12] not in line and "\u2026" not in line:
                        continue
                    if "漢" in line or "\u0301" in line:
                        seen += 1
                    if cols(line) > width:
                        over.append((width, cols(line), line[-40:]))
                    tail = line.partition("\u2026")[2]
                    if tail and unicodedata.combining(tail[0]):
                        marks.append((width, line[-30:]))
            what = "report" + (" --timeline" if extra else "")
            check(seen >= 22, "%s: the wide labels are shown (%d lines)" %
                  (what, seen))
            check(not over, "%s: no line wider than --width (%d over: "
                  "%r)" % (what, len(over), over[:2]))
            check(not marks, "%s: no cut leaves a combining mark after the "
                  "ellipsis (%r)" % (what, marks[:2]))


main()
sys.exit(lib.finish())
