#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3335: a file cut short while `record -G` scans its page cache costs
its pages past the new end, not the recording. The scan maps the cached
pages by loading a byte of each (t2497: not marked accessed); a load
past the end of a file truncated after mincore(2) raises SIGBUS, which
the scan takes and leaves those pages out.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) holds a python3 process that writes an 8 MiB
file, closes it and waits on its stdin. A library built here (cc) and
preloaded into memsz wraps mincore(2): after the call over the file's
8 MiB it truncates the file to one page (ground truth: strace-free, the
file's size after the recording is that page). `record -G CG
--cache-paths FILE --duration 0` exits 0 (it was killed by SIGBUS when
the load was not guarded) and the report's row of the file holds at most
that page.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 8 << 20
WRAP = r"""
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
/* mincore(2), then the file of TRUNC_PATH cut to a page when the call
 * was over its TRUNC_LEN bytes */
int mincore(void *addr, size_t len, unsigned char *vec)
{
	long r = syscall(SYS_mincore, addr, len, vec);
	const char *p = getenv("TRUNC_PATH"), *n = getenv("TRUNC_LEN");

	if (p && n && len == strtoul(n, NULL, 10))
		truncate(p, sysconf(_SC_PAGESIZE));
	return (int)r;
}
"""


def run(tmp, cg):
    path = os.path.join(tmp, "cut-short.bin")
    env = lib.build_preload(tmp, WRAP, TRUNC_PATH=path, TRUNC_LEN=str(SIZE))
    w = lib.start_in_cgroup(lib.FILE_WRITER, cg, path, SIZE >> 20)
    try:
        lib.workload_ready(w, "the writer")
        data = os.path.join(tmp, "g.data")
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "--cache-paths", path, "-o", data],
                           capture_output=True, text=True, env=env)
    finally:
        w.kill()
        w.wait()
    size = os.stat(path).st_size
    if size == SIZE:
        lib.skip("the file was not cut short: memsz's mincore(2) calls "
                 "are not the preloaded one's")
    check(size == lib.PAGE, f"ground truth: the file was cut to a page "
          f"during the scan ({size})")
    check(r.returncode == 0, f"record exits 0, not killed by SIGBUS "
          f"(exit {r.returncode}, {r.stderr.strip()})")
    rows = {x["files"]: float(x["charge"])
            for x in lib.report(data, "files", "-F", "charge")}
    check(rows.get(path, 0) <= lib.PAGE, f"the file's row holds at most "
          f"the page left ({rows.get(path, 0):.0f})")


if __name__ == "__main__":
    lib.preload_test("t3335", run, "the mincore(2) wrapper")
