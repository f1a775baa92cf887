#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3322: a diff of two runs pairs their processes under the pids key
also when pids is not the outermost key.

Under the pids key a process of OLD is compared with the process of NEW
that has the same command name when that name belongs to one process on
each side (the pids differ from run to run). The names were counted over
every row of the pids level, so under `--by kinds,pids` (or files,pids)
a process counted once per kind it has memory of: never one, never
paired, each kind listing OLD's process [gone] and NEW's [new]. A program
built here is run twice, each run stopped and recorded (`record -p`),
touching 64 then 192 pages of heap:
 - `--by pids`, `--by kinds,pids` and `--by files,pids`: under each row
   of the outer key one process row, changed, never new or gone, and a
   note saying which processes were paired;
 - under `--by pids` the process row's OLD RSS is smaps_rollup's Rss of
   the first run, its NEW RSS the second's; under every key the TOTAL's
   are, and the rows shown change RSS by as much as the TOTAL (rows the
   same on both sides are left out, so only changes add up there).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t n = (size_t)atoi(argv[1]) * 4096;
	char *p = malloc(n);

	memset(p, 1, n);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	return getchar() == 'x' ? p[argc] : 0;
}
"""


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p


def record(tmp, exe, pages, name):
    """Run exe touching pages, stop it, read smaps_rollup's Rss, record
    it; returns the recording and the Rss."""
    data = os.path.join(tmp, name)
    p = subprocess.Popen([exe, str(pages)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline().split()
        if not line or line[0] != "ready":
            raise RuntimeError(f"workload: {line}")
        pid = int(line[1])
        lib.stopped(pid)
        rss = lib.smaps_rollup(pid)["Rss"]
        run(MEMSZ, "record", "-p", str(pid), "-o", data, "--duration",
            "0.1")
    finally:
        p.kill()
        p.wait()
    return data, rss


def main():
    if not shutil.which("gcc"):
        lib.skip("no gcc")
    with tempfile.TemporaryDirectory(prefix="memsz-t3322-") as tmp:
        exe = os.path.join(tmp, "twice")
        src = exe + ".c"
        with open(src, "w") as f:
            f.write(SRC)
        run("gcc", "-O1", "-o", exe, src)
        old, rss_old = record(tmp, exe, 64, "old.data")
        new, rss_new = record(tmp, exe, 192, "new.data")

        for by in ("pids", "kinds,pids", "files,pids"):
            p = subprocess.run([MEMSZ, "diff", "--by", by, "-n", "0",
                                "--format", "json", old, new],
                               capture_output=True, text=True)
            check(p.returncode == 0, f"--by {by}: exit 0"
                  + ("" if p.returncode == 0 else ": " + p.stderr[-200:]))
            if p.returncode:
                continue
            d = json.loads(p.stdout)
            if by == "pids":
                procs = d["rows"]
            else:
                procs = [c for r in d["rows"] for c in r.get("rows", [])]
                check(all(len(r.get("rows", [])) <= 1 for r in d["rows"]),
                      f"--by {by}: at most one process under each row")
            if by == "pids":
                got = procs and (procs[0]["rss"]["old"],
                                 procs[0]["rss"]["new"])
                check(len(procs) == 1 and got == (rss_old, rss_new),
                      f"--by pids: the process row's RSS {got} == "
                      f"smaps_rollup Rss {(rss_old, rss_new)}")
            states = sorted({c["change"] for c in procs})
            check(procs and "new" not in states and "gone" not in states,
                  f"--by {by}: the process rows are neither new nor gone "
                  f"({states})")
            check(any("of OLD is compared with" in n for n in d["notes"]),
                  f"--by {by}: a note says which processes were paired")
            # rows left out are unchanged; a leaf under a changed kind
            # may be one: count the kinds' own values where a kind has
            # no process row shown (it then changed in no column)
            o = n = 0
            rows = d["rows"] if by != "pids" else [{"rows": d["rows"]}]
            for r in rows:
                kids = r.get("rows")
                if kids:
                    o += sum(c["rss"]["old"] for c in kids)
                    n += sum(c["rss"]["new"] for c in kids)
                else:
                    o += r["rss"]["old"]
                    n += r["rss"]["new"]
            t = d["total"]["rss"]
            check(t["old"] == rss_old,
                  f"--by {by}: OLD TOTAL RSS {t['old']} == smaps_rollup "
                  f"Rss {rss_old}")
            check(t["new"] == rss_new,
                  f"--by {by}: NEW TOTAL RSS {t['new']} == smaps_rollup "
                  f"Rss {rss_new}")
            shown_delta = n - o
            check(shown_delta == t["delta"],
                  f"--by {by}: the rows shown change RSS by "
                  f"{shown_delta}, the TOTAL by {t['delta']}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
