#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3301: in `--format folded` a label holding ';' stays one frame.

Folded stacks join the labels of a row's path with ';' (flamegraph.pl,
speedscope and pprof's -raw reader split there), and file names are
chosen by others: `sleep` copied to "x;y;z-sleep" and recorded must be
one frame under --by files and --by files,sections, its ';' shown as ':'
(as the callers key and perf's stackcollapse show a ';' in a frame's
name). Each line of the folded output must then split into as many
frames as there are keys, and the lines must be the csv's leaf rows of
the same report (the csv quotes its labels, so the ';' is its own
there), RSS bytes for bytes.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def out(*args):
    return subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          check=True).stdout


def main():
    sleep = shutil.which("sleep")
    if not sleep:
        lib.skip("no sleep(1)")
    with tempfile.TemporaryDirectory() as tmp:
        name = os.path.join(tmp, "x;y;z-sleep")
        shutil.copy(sleep, name)
        data = os.path.join(tmp, "f.data")
        subprocess.run([MEMSZ, "record", "-o", data, "--", name, "0.1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       check=True)
        for by in ("files", "files,sections"):
            depth = len(by.split(","))
            rows = {}
            for r in csv.DictReader(io.StringIO(out(
                    "report", "-i", data, "--by", by, "--format", "csv"))):
                path = ";".join(r[k].replace(";", ":")
                                for k in by.split(",") if r[k])
                if int(r["rss"]):
                    rows[path] = rows.get(path, 0) + int(r["rss"])
            folded = {}
            frames = set()
            for line in out("report", "-i", data, "--by", by,
                            "--format", "folded", "-F", "rss").splitlines():
                stack, _, n = line.rpartition(" ")
                folded[stack] = folded.get(stack, 0) + int(n)
                frames.add(len(stack.split(";")))
            mine = [s for s in folded if "z-sleep" in s]
            check(mine and all(s.startswith(name.replace(";", ":"))
                               for s in mine),
                  "--by %s: the image is one frame, ';' shown as ':' "
                  "(%r)" % (by, mine[:2]))
            check(frames and max(frames) <= depth,
                  "--by %s: no line has more frames than keys (%s)" %
                  (by, sorted(frames)))
            check(folded == rows,
                  "--by %s: the folded lines are the csv's leaf rows "
                  "(%d lines, %d rows; differ: %r)" %
                  (by, len(folded), len(rows),
                   sorted(set(folded.items()) ^ set(rows.items()))[:3]))


main()
sys.exit(lib.finish())
