#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3304: the table's --width is terminal columns, also for labels of
wide and combining characters.

A process is recorded, then maps three files made here, named with CJK
characters (two columns each on a terminal), with 'e' + U+0301
COMBINING ACUTE (one column a pair) and in plain ASCII, and is recorded
again. Labels were cut by code points, so a CJK path cut to fit --width
100 took 119 columns, and a cut could leave a combining mark on the
ellipsis. For widths 60 to 160, and the width the widest of the
three rows takes whole (at least one label is whole then, however long
the temporary path is), in the table of report, report
--timeline and diff -F rss (OLD: before the files were mapped), every line of
the three files' rows must take at most --width columns as Python's
unicodedata measures them (east-asian width W or F: 2, combining: 0),
and no cut label may begin its tail with a combining mark. A label is
either whole, or cut because whole it would go past --width, and then
cut to the room there is: the line takes --width columns (at least
--width - 2 for the CJK name, whose wide characters may leave a column
unused on each side of the ellipsis). The csv keeps each name whole.

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
print("up", flush=True)
sys.stdin.readline()
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


def record(pid, data):
    subprocess.run([MEMSZ, "record", "-o", data, "-p", str(pid),
                    "--duration", "0"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, check=True)


def label_of(line, names):
    """The label a row's line shows, without diff's " [new]" mark after
    it, and which of names (CJK, combining, plain) it is, by how it ends
    (a cut keeps a tail); None if none."""
    if "/" not in line:
        return None, None
    lab = line[line.index("/"):]
    for mark in (" [new]", " [gone]"):
        if lab.endswith(mark):
            lab = lab[:-len(mark)]
    for n, end in zip(names, ("\u5b57", "\u0301", "plain")):
        if lab.endswith(end):
            return lab, n
    return None, None


def widths(argv, names):
    """--width 60 to 160 by 10, then the columns the widest line of the
    three files' rows takes uncut (--width 0): there every label is
    whole, however long the temporary directory's path makes it."""
    out = subprocess.run([MEMSZ, *argv, "-n", "0", "--width", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=True).stdout.decode()
    wide = max([cols(line) for line in out.splitlines()
                if label_of(line, names)[1]], default=0)
    return list(range(60, 161, 10)) + [wide]


def check_view(what, argv, names):
    over, marks, short, uncut, seen, whole = [], [], [], [], 0, 0
    for width in widths(argv, names):
        out = subprocess.run([MEMSZ, *argv, "-n", "0", "--width",
                              str(width)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             check=True).stdout.decode()
        for line in out.splitlines():
            lab, name = label_of(line, names)
            if not name:
                continue
            seen += 1
            n = cols(line)
            if n > width:
                over.append((width, n, line[-40:]))
            tail = lab.partition("\u2026")[2]
            if tail and unicodedata.combining(tail[0]):
                marks.append((width, line[-30:]))
            if "\u2026" not in lab:
                whole += 1
                if lab != name:
                    uncut.append((width, "not whole", lab[-30:]))
                continue
            if n - cols(lab) + cols(name) <= width:
                uncut.append((width, "cut but fits", lab[-30:]))
            if n < width - (2 if "\u5b57" in name else 0):
                short.append((width, n, line[-30:]))
    check(seen >= 36 and whole >= 3,
          "%s: the three files' rows are shown (%d lines, %d labels "
          "whole)" % (what, seen, whole))
    check(not over, "%s: no line wider than --width (%d over: %r)" %
          (what, len(over), over[:2]))
    check(not marks, "%s: no cut leaves a combining mark after the "
          "ellipsis (%r)" % (what, marks[:2]))
    check(not uncut, "%s: a label is whole, or cut only when whole it "
          "would not fit (%r)" % (what, uncut[:2]))
    check(not short, "%s: a cut label takes the room there is: the line "
          "is --width columns (%d short: %r)" % (what, len(short),
                                                  short[:2]))


def main():
    if not have_c_utf8():
        lib.skip("the C.UTF-8 locale is not installed: memsz counts "
                 "every character as one column without it")
    with tempfile.TemporaryDirectory(prefix="memsz-t3304-") as tmp:
        names = [os.path.join(tmp, "\u6f22\u5b57" * 30),
                 os.path.join(tmp, "e\u0301" * 40),
                 os.path.join(tmp, "plain" * 16)]
        for n in names:
            with open(n, "wb") as f:
                f.write(b"x" * 4096)
        old = os.path.join(tmp, "old.data")
        data = os.path.join(tmp, "w.data")
        p = subprocess.Popen([sys.executable, "-c", HOLD, *names],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            p.stdout.readline()
            record(p.pid, old)
            p.stdin.write(b"\n")
            p.stdin.flush()
            p.stdout.readline()
            record(p.pid, data)
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
        check_view("report", ["report", "-i", data], names)
        check_view("report --timeline", ["report", "-i", data,
                                         "--timeline"], names)
        check_view("diff", ["diff", "-F", "rss", old, data], names)


main()
sys.exit(lib.finish())
