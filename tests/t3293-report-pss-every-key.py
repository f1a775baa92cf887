#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3293: one PSS TOTAL whatever --by cuts the pages into.

PSS is a page's bytes over the processes mapping it, kept in fixed point.
Each piece a key cuts a page into (a symbol's bytes of it, a section's)
was given its own share rounded down, so the finer the key, the more
fractions were lost: --by symbols had a smaller TOTAL PSS than --by files
(84 bytes on a recording of a shell's 41 processes), and json and csv
showed a different TOTAL for each key. Now a piece's share is the run's
share up to its end less the share up to its start, so the pieces of a
run add up to the same whatever cuts them.

A program forks five children and all six stop themselves, so the
pages of the C library, of the program and its copy-on-write data are
mapped by up to six processes; they are recorded with -p. Six, not
three: from the fourth process that sees the same page runs of an image
the report adds the runs it counted (the counted-run cache of
report/charge_runs.c), whose pieces must keep their own start (taking
the run's start for each piece's gave a TOTAL PSS that differs per key,
which three processes did not reach). Checked: the
json TOTAL PSS (two decimals) is the same under files, kinds, segments,
sections, symbols, mappings, pids, files,symbols, symbols,files and
relocs; and, ground truth, it is within a KiB per mapping (smaps prints
kB, rounded down) of the Pss of the six processes' smaps, read while
they are stopped.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

KEYS = ("files", "kinds", "segments", "sections", "symbols", "mappings",
        "pids", "files,symbols", "symbols,files", "relocs")


def rep(data, by):
    r = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                        "--format", "json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode:
        lib.fail(f"report --by {by} exits 0: {r.stderr.strip()[:200]}")
    return json.loads(r.stdout)


PROG = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define NKIDS 5
static char data[256 << 10] = {1};
int main(void)
{
	pid_t kids[NKIDS];

	memset(data, 2, sizeof(data) / 2);
	for (int i = 0; i < NKIDS; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			data[i * 8192] = 3; /* one page its own */
			raise(SIGSTOP);
			return 0;
		}
	}
	printf("%d", getpid());
	for (int i = 0; i < NKIDS; i++)
		printf(" %d", kids[i]);
	printf("\n");
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
"""


def smaps_pss(pid):
    """(Pss summed over pid's smaps, number of its mappings)."""
    vmas = lib.smaps_vmas(pid)
    return sum(v.get("Pss", 0) for v in vmas), len(vmas)


def main():
    if not shutil.which("gcc"):
        lib.skip("no gcc")
    with tempfile.TemporaryDirectory(prefix="memsz-t3293-") as tmp:
        src, exe = os.path.join(tmp, "forks.c"), os.path.join(tmp, "forks")
        with open(src, "w") as f:
            f.write(PROG)
        subprocess.run(["gcc", "-O1", "-o", exe, src], check=True)
        prog = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
        pids = [int(x) for x in prog.stdout.readline().split()]
        try:
            for pid in pids:
                lib.wait_stopped(pid)
            truth, nmaps = 0, 0
            for pid in pids:
                p, n = smaps_pss(pid)
                truth += p
                nmaps += n
            data = os.path.join(tmp, "memsz.data")
            r = subprocess.run([MEMSZ, "record", "-o", data, "--duration",
                                "0", "-p", ",".join(map(str, pids))],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        finally:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            prog.wait()
        if r.returncode:
            lib.fail("record exits 0: " + r.stderr.strip()[-200:])
        totals = {by: rep(data, by)["total"] for by in KEYS}
        pss = totals["files"].get("pss")
        if pss is None:
            lib.skip("no PSS in this recording (no page frame numbers)")
        check(truth <= pss < truth + 1024 * nmaps,
              f"--by files: TOTAL PSS {pss} within a KiB per mapping "
              f"({nmaps}) of smaps' {truth}")
        for by in KEYS[1:]:
            check(totals[by]["pss"] == pss,
                  f"--by {by}: TOTAL PSS {totals[by]['pss']} is --by "
                  f"files' {pss}")
            check(totals[by]["rss"] == totals["files"]["rss"],
                  f"--by {by}: TOTAL RSS {totals[by]['rss']}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
