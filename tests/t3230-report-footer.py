#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3230: what a report prints around its rows says only what it needs to.

Two processes, one with a command line of 200 characters, recorded at once
(`record -p A,B --duration 0`). Checks:
1. The footer has one line per kind of note (README): one "peak RSS" line
   for the two processes (both with -v); no line about FILE SIZE and VM
   SIZE counting a file once when those columns are not shown (-F rss) or
   when the report covers one process (--pid).
2. A key with nothing to add for a row adds no level: under --by
   files,sections the [heap], [stack] and [anon] rows have no child of the
   same name (json, table).
3. csv and json hold whole labels and every row: no "[N others]" row unless
   -n asks for one, and the pids label of the long command holds the whole
   command line as /proc/PID/cmdline has it; a table at --width 80 cuts
   that label's end, keeping the pid and the start of the command.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

ANON = ("[heap]", "[stack]", "[anon]")


def memsz(*args):
    p = subprocess.run([MEMSZ, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"memsz {args}: exit {p.returncode}: {p.stderr}")
    return p.stdout, p.stderr


def footer(out):
    """The lines after the table's TOTAL line."""
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if ln.rstrip().endswith("TOTAL"):
            return lines[i + 1:]
    return []


def record(tmp):
    long_arg = "x" * 200
    a = subprocess.Popen(["sleep", "100"])
    b = subprocess.Popen(["sh", "-c", "sleep 100; : " + long_arg])
    try:
        lib.wait_until(lambda: lib.nmaps(a.pid) > 3 and lib.nmaps(b.pid) > 3,
                       "both processes to have mapped their libraries")
        with open(f"/proc/{b.pid}/cmdline", "rb") as f:
            cmdline = f.read().rstrip(b"\0").replace(b"\0", b" ").decode()
        data = os.path.join(tmp, "two.data")
        memsz("record", "-p", f"{a.pid},{b.pid}", "--duration", "0",
              "-o", data)
    finally:
        for p in (a, b):
            p.kill()
            p.wait()
    return data, a.pid, b.pid, cmdline


def check_footer(data, a):
    out, _ = memsz("report", "-i", data)
    foot = footer(out)
    peak = [ln for ln in foot if "peak RSS" in ln]
    check(len(peak) == 1, f"one footer line for the peak RSS of two "
          f"processes ({len(peak)}: {peak})")
    out, _ = memsz("report", "-i", data, "-v")
    peak = [ln for ln in footer(out) if "peak RSS" in ln]
    check(len(peak) == 2, f"-v: a peak RSS line per process ({len(peak)})")
    once = "counts a file on disk several processes map once"
    out, _ = memsz("report", "-i", data, "--by", "pids", "-F", "rss,pss")
    check(not any(once in ln for ln in footer(out)),
          "no note on FILE SIZE/VM SIZE when they are not shown")
    out, _ = memsz("report", "-i", data, "--by", "pids", "--pid", str(a))
    check(not any(once in ln for ln in footer(out)),
          "no note on files counted once across processes for one process")


def check_levels(data):
    out, _ = memsz("report", "-i", data, "--by", "files,sections", "-n", "0",
                   "--format", "json")
    js = json.loads(out)
    rep = [(r["name"], [c["name"] for c in r.get("rows", [])])
           for r in js["rows"] if r["name"] in ANON]
    check(rep, f"the report has anonymous rows ({[n for n, _ in rep]})")
    check(all(n not in kids for n, kids in rep),
          f"no anonymous row repeats under itself (json: {rep})")
    out, _ = memsz("report", "-i", data, "--by", "files,sections", "-n", "0")
    lines = [ln.split()[-1] for ln in out.splitlines() if ln.strip()]
    again = [n for n in ANON for i in range(len(lines) - 1)
             if lines[i] == n and lines[i + 1] == n]
    check(not again, f"no anonymous row repeats under itself (table: "
          f"{again})")


def check_whole(data, b, cmdline):
    out, _ = memsz("report", "-i", data, "--by", "files,sections",
                   "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    folded = [r for r in rows if any("others]" in v for v in r.values())]
    check(not folded, f"csv without -n has no [N others] row "
          f"({len(folded)})")
    all_rows, _ = memsz("report", "-i", data, "--by", "files,sections",
                        "-n", "0", "--format", "csv")
    check(len(rows) == len(list(csv.DictReader(io.StringIO(all_rows)))),
          "csv without -n has every row")
    out, _ = memsz("report", "-i", data, "--by", "pids", "--format", "csv")
    labels = [r["pids"] for r in csv.DictReader(io.StringIO(out))
              if r["pids"].split()[0] == str(b)]
    check(labels and labels[0] == f"{b} {cmdline}",
          f"csv pids label is whole ({len(labels[0]) if labels else 0} "
          f"characters, the command line has {len(cmdline)})")
    out, _ = memsz("report", "-i", data, "--by", "pids", "--format", "json")
    names = [r["name"] for r in json.loads(out)["rows"]
             if r["name"].split()[0] == str(b)]
    check(names and names[0] == f"{b} {cmdline}", "json pids label is whole")
    # a table too narrow for the label cuts its end: the pid and the start
    # of the command line stay (cutting its middle kept the pid and the
    # last characters, "xxxx", which tell nothing)
    out, _ = memsz("report", "-i", data, "--by", "pids", "--width", "80")
    # the table's rows only: a footer line may name pid b too (the peak
    # RSS summary names the process whose peak no snapshot caught)
    table = out.splitlines()[:-len(footer(out)) or None]
    line = [ln for ln in table if f" {b} " in ln]
    label = line[0][line[0].index(f" {b} ") + 1:] if line else ""
    check(len(line) == 1 and label.startswith(f"{b} {cmdline[:12]}") and
          label.endswith("\u2026") and len(line[0]) <= 80,
          f"--width 80 cuts the end of a pids label ({line})")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3230-")
    try:
        data, a, b, cmdline = record(tmp)
        check_footer(data, a)
        check_levels(data)
        check_whole(data, b, cmdline)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
