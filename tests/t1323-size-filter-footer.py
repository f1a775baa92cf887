#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1323: the footer's share of a file under fallback labels is the
file's, whatever --filter or --exclude keeps.

The manual's FOOTER: "for each file and each key ... the bytes under
fallback labels and their share of FILE SIZE and VM SIZE". With a filter
that keeps two symbols only, the note said "0 bytes (0.0%) of FILE SIZE,
0 (0.0%) of VM SIZE under fallback labels": a file all but fully
explained, when most of it is [section X] and the header rows. Ground
truth: the same note without the filter, and the unfiltered rows (json)
whose labels are fallbacks, added up.
 - the note with --filter, with --exclude and without is one line;
 - its byte counts are the sums of the unfiltered rows named [section
   X], LOAD #n, [ELF ...] and [Unmapped] (the manual's list);
 - the filtered rows still sum to what the filter keeps (TOTAL).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = """int t1323_table[100] = {1};
static int t1323_helper(int x) { return x * 3; }
int t1323_fn(int x) { return t1323_helper(x) + t1323_table[x & 63]; }
"""
FALLBACK = re.compile(r"^(\[section .*\]|LOAD #\d+ \[R?W?X?\]|"
                      r"\[ELF (Header|Program Headers|Section Headers)\]|"
                      r"\[Unmapped\])$")


def size_json(path, *extra):
    r = subprocess.run([MEMSZ, "size", "--by", "symbols", "-n", "0",
                        "--no-disasm", "--format", "json", *extra, path],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"size {' '.join(extra)} exits 0"
          + ("" if r.returncode == 0 else f": {r.stderr[-200:]}"))
    return json.loads(r.stdout) if r.returncode == 0 else None


def note(d):
    """The footer's symbols line of d."""
    lines = [n for n in d["notes"] if ": symbols: " in n]
    return lines[0] if len(lines) == 1 else repr(lines)


def main():
    if not shutil.which("gcc"):
        lib.skip("gcc is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t1323-")
    try:
        so = os.path.join(tmp, "libf.so")
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", so,
                        "-x", "c", "-"], input=SRC, text=True, check=True)
        full = size_json(so)
        kept = size_json(so, "--filter", "symbols=^t1323_(fn|table)$")
        dropped = size_json(so, "--exclude", "symbols=^t1323_fn$")
        if None in (full, kept, dropped):
            lib.skip("memsz size failed; see above")
        fb = [sum(r[c] for r in full["rows"] if FALLBACK.match(r["name"]))
              for c in ("file_size", "vm_size")]
        want = (f"symbols: {fb[0]} bytes "
                f"({100.0 * fb[0] / full['total']['file_size']:.1f}%) of "
                f"FILE SIZE, {fb[1]} "
                f"({100.0 * fb[1] / full['total']['vm_size']:.1f}%) of "
                f"VM SIZE under fallback labels")
        check(want in note(full),
              f"unfiltered: the fallback rows' sums ({want}): {note(full)}")
        check(note(kept) == note(full),
              f"--filter: the file's share, as unfiltered: {note(kept)}")
        check(note(dropped) == note(full),
              f"--exclude: the file's share, as unfiltered: "
              f"{note(dropped)}")
        names = sorted(r["name"] for r in kept["rows"])
        check(names == ["t1323_fn", "t1323_table"] and
              kept["total"]["file_size"] ==
              sum(r["file_size"] for r in kept["rows"]),
              f"--filter keeps its two rows, TOTAL their sum: {names}")
    finally:
        shutil.rmtree(tmp)
    lib.finish()


if __name__ == "__main__":
    main()
