#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3327: what `memsz report` shows is what it was asked, or it says why;
its --help says every option.

PROCS is shown only when a report covers more than one process
(memsz-report(1)). Asked for with other fields on a recording of one
process, it was dropped without a word; alone, it was an error. Two
`cat`s waiting on a pipe (their wchan says when) are recorded, one alone
(`record -p A`) and both (`record -p A,B`); the number of processes of
each recording is the pids of its SNAP_BEGIN records (`memsz dump`):
 - one process: `-F rss,procs` exits 0 with RSS and no PROCS column, and
   a note "PROCS left out: the report covers one process"; `-F procs`
   exits non-zero with one line on stderr;
 - two processes: `-F rss,procs` has the PROCS column, 1 in each
   process's row and 2 in the TOTAL, and no such note.
The usage lines of `report --help` and `diff --help` left out
--debug-root, which their option lists and man pages have: every long
option of the man page's SYNOPSIS, and every option of the --help
option list (its long or its short form), is in the usage lines.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NOTE = "PROCS left out: the report covers one process"


def run(*args):
    return subprocess.run([MEMSZ, *args], capture_output=True, text=True)


def procs_checks(tmp, cats):
    one = os.path.join(tmp, "one.data")
    two = os.path.join(tmp, "two.data")
    for data, pids in ((one, cats[:1]), (two, cats)):
        p = run("record", "-p", ",".join(str(c) for c in pids),
                "--duration", "0", "-o", data)
        check(p.returncode == 0, f"record -p {pids} ({p.stderr.strip()})")
        dump = run("dump", "-i", data).stdout
        got = set(int(x) for x in re.findall(r" SNAP_BEGIN pid (\d+) ", dump))
        check(got == set(pids), f"the recording holds pids {sorted(got)}")

    p = run("report", "-i", one, "--by", "pids", "-F", "rss,procs",
            "--format", "json")
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    check(p.returncode == 0 and doc.get("columns") == ["rss"],
          f"one process, -F rss,procs: exit {p.returncode}, columns "
          f"{doc.get('columns')} (PROCS left out)")
    check(NOTE in doc.get("notes", []),
          f"one process, -F rss,procs: a note says why PROCS is left out "
          f"({doc.get('notes')})")
    p = run("report", "-i", one, "--by", "pids", "-F", "rss,procs")
    check(p.returncode == 0 and NOTE in p.stdout + p.stderr,
          "one process, -F rss,procs, table: the note is in the footer")
    p = run("report", "-i", one, "-F", "procs")
    check(p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1,
          f"one process, -F procs alone: exit {p.returncode}, one line on "
          f"stderr ({p.stderr.strip()})")

    p = run("report", "-i", two, "--by", "pids", "-F", "rss,procs",
            "--format", "json")
    doc = json.loads(p.stdout)
    rows = {r["name"].split()[0]: r.get("processes") for r in doc["rows"]}
    check(doc["columns"] == ["rss", "processes"] and
          doc["total"]["processes"] == 2 and
          all(rows.get(str(c)) == 1 for c in cats),
          f"two processes, -F rss,procs: PROCS {rows}, TOTAL "
          f"{doc['total'].get('processes')}")
    check(NOTE not in doc.get("notes", []),
          "two processes: no note about PROCS")


def man_synopsis_options(cmd):
    """The long options of the SYNOPSIS of man/memsz-CMD.1."""
    with open(os.path.join(lib.SRCDIR, "man", f"memsz-{cmd}.1")) as f:
        man = f.read()
    syn = man[man.index(".SH SYNOPSIS"):man.index(".SH DESCRIPTION")]
    syn = re.sub(r"\\f[BIRP]", "", syn).replace("\\-", "-")
    return set(re.findall(r"--([a-z][a-z-]*)", syn))


def usage_checks(cmd):
    text = run(cmd, "--help").stdout
    usage = text[:text.index("\n\n")]
    in_usage = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage))
    missing = {o for o in man_synopsis_options(cmd)
               if "--" + o not in in_usage}
    check(not missing, f"{cmd} --help: the usage lines have every long "
          f"option of the man page's SYNOPSIS (missing: {missing})")
    listed = re.findall(r"^    (?:(-\w), )?(--[a-z][a-z-]*)", text, re.M)
    missing = {lng for short, lng in listed
               if lng not in in_usage and short not in in_usage and
               lng not in ("--help", "--disasm")}
    check(listed and not missing,
          f"{cmd} --help: the usage lines have every option of the "
          f"option list, long or short ({len(listed)} listed; missing: "
          f"{missing})")


def main():
    for cmd in ("report", "diff"):
        usage_checks(cmd)
    cats = [subprocess.Popen(["cat"], stdin=subprocess.PIPE)
            for _ in range(2)]
    try:
        for c in cats:
            lib.reading_pipe(c.pid)
        with tempfile.TemporaryDirectory(prefix="memsz-t3327-") as tmp:
            procs_checks(tmp, [c.pid for c in cats])
    finally:
        for c in cats:
            c.kill()
            c.wait()


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
