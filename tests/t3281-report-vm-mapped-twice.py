#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3281: a file range one process maps twice is twice its VM SIZE.

Two workloads map the same file pages twice in one process: one maps 16
pages of a file MAP_SHARED twice and touches both copies; the other links
libm and loads it again with dlmopen(LM_ID_NEWLM) (libc, libm and the
dynamic loader's segments then twice). Both copies are the process's VM:
the ground truth is the sum of the kernel's smaps Size of the process,
read while it is stopped, which its --by pids row's VM SIZE must equal
(and, one process, the TOTAL's); under --by files no row may have more RSS
than VM SIZE, and the file mapped twice has twice its 16 pages. The build
before took the second copy for the first walked again and counted it once
(3457024 bytes where smaps said 6348800; the file 65536 with RSS 131072).
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
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

TWICE = r"""
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = 16 * sysconf(_SC_PAGESIZE);
	int fd = open(argv[1], O_RDWR);
	volatile char *a = mmap(0, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	volatile char *b = mmap(0, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (fd < 0 || a == MAP_FAILED || b == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i += sysconf(_SC_PAGESIZE)) {
		a[i] = 1;
		b[i] = 2;
	}
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
"""

DLMOPEN = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlmopen(LM_ID_NEWLM, "libm.so.6", RTLD_NOW);

	if (!h)
		return 1;
	printf("ready %d\n", (int)cos(argc - 1));
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
"""


def csv_rows(data, by):
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n",
                          "0", "-F", "vm,rss", "--format", "csv"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if out.returncode:
        lib.fail(f"report --by {by} exits 0: {out.stderr.strip()[:200]}")
    return [ln.split(",") for ln in out.stdout.splitlines()[1:]]


def run(tmp, name, src, libs, args, ready):
    """Records the workload, checks its VM SIZE against smaps; returns the
    recording and its smaps VMAs."""
    c, exe = os.path.join(tmp, name + ".c"), os.path.join(tmp, name)
    with open(c, "w") as f:
        f.write(src)
    subprocess.run(["gcc", "-O1", "-o", exe, c, *libs], check=True)
    data = os.path.join(tmp, name + ".data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--", exe, *args],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if not rec.stdout.readline().startswith(ready):
        rec.kill()
        lib.fail(f"{name} started: " + rec.communicate()[1].strip())
    pid = lib.children(rec.pid)[0]
    lib.wait_stopped(pid)
    vmas = lib.smaps_vmas(pid)
    size = sum(v["end"] - v["start"] for v in vmas)
    _, err = lib.resume(rec, pid)
    check(rec.returncode == 0, f"{name}: record exits 0: {err[-200:]}")
    pids = csv_rows(data, "pids")
    check(len(pids) == 1 and int(pids[0][1]) == size,
          f"{name}: --by pids: VM SIZE {pids[0][1] if pids else None} is "
          f"smaps' Size sum {size}")
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", "files",
                          "-F", "vm", "--format", "json"],
                         stdout=subprocess.PIPE, text=True, check=True)
    total = json.loads(out.stdout)["total"]["vm_size"]
    check(total == size, f"{name}: --by files: the TOTAL's VM SIZE {total}"
          f" is {size}")
    for r in csv_rows(data, "files"):
        check(int(r[2]) <= int(r[1]),
              f"{name}: --by files: {r[0]}: RSS {r[2]} within VM SIZE {r[1]}")
    return data, vmas


def main():
    if not shutil.which("gcc"):
        lib.skip("no gcc")
    with tempfile.TemporaryDirectory(prefix="memsz-t3281-") as tmp:
        path = os.path.join(tmp, "file")
        with open(path, "wb") as f:
            f.write(b"\0" * 16 * PAGE)
        data, vmas = run(tmp, "twice", TWICE, [], [path], "ready")
        twice = sum(v["end"] - v["start"] for v in vmas if v["last"] == path)
        check(twice == 32 * PAGE, f"smaps: the file mapped twice ({twice})")
        row = [r for r in csv_rows(data, "files") if r[0] == path]
        check(len(row) == 1 and int(row[0][1]) == twice,
              f"--by files: the file's VM SIZE {row[0][1] if row else None}"
              f" is {twice}")
        run(tmp, "dlm", DLMOPEN, ["-lm", "-ldl"], [], "ready")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
