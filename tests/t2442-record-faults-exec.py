#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2442: faults from before an exec are not the new program's.

An exec replaces the address space: every page of the new program is made
resident after it, by its own faults (or the kernel's on its behalf), never
by code of the program it replaced nor by its parent before the fork. With
address space randomization off (setarch -R, as under a debugger), the new
program's libraries load at the same addresses as the old ones', so
memsz must not name a page by a fault at the same address from before the
exec: for file pages the first fault of a 64 KiB window names the pages
fault-around brought in, and the old program's fault came first.

The workload: `old` touches libc and 50 pages of stack under old_main ->
deep_stack and execs `new` (another image, which stops). Every page of
the stopped `new` process must be charged to a stack without old's
functions (old_main, deep_stack) or to [no fault seen]. An exec is known
by perf's MMAP2 of a new [stack]; the kernel reports the stack again as
it grows down, which is no exec: a program that writes 8 MiB of heap,
then grows its stack 400 KiB, keeps the heap under heap_toucher.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, report  # noqa: E402

OLD = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void deep_stack(int d)
{
	char buf[4096];
	memset(buf, d, sizeof(buf));
	sink += buf[100];
	if (d)
		deep_stack(d - 1);
}
__attribute__((noinline)) int old_main(char **argv)
{
	char tmp[64];
	deep_stack(50);
	snprintf(tmp, sizeof(tmp), "%ld", (long)sink);
	execv(argv[1], argv + 1);
	return 1;
}
int main(int argc, char **argv) { return old_main(argv); }
"""

NEW = r"""
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	printf("%d\n", getpid());
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
"""

# Not an exec: the kernel reports the stack again (an MMAP2 of [stack])
# each time it grows down a page; faults before it stay the program's.
GROW = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) void heap_toucher(void)
{
	char *p = malloc(8 << 20);
	memset(p, 1, 8 << 20);
	sink += p[5];
}
__attribute__((noinline)) void deep_stack(int d)
{
	char buf[4096];
	memset(buf, d, sizeof(buf));
	sink += buf[100];
	if (d)
		deep_stack(d - 1);
}
int main(void)
{
	heap_toucher();
	deep_stack(100);
	printf("%d\n", getpid());
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}
"""


def check_growth(tmp):
    """A stack grown down 400 KiB is no exec: the 8 MiB heap_toucher
    wrote before it keep their stack (they became '[no fault seen]')."""
    c = os.path.join(tmp, "grow.c")
    exe = os.path.join(tmp, "grow")
    with open(c, "w") as f:
        f.write(GROW)
    subprocess.run(["gcc", "-O0", "-o", exe, c], check=True)
    data = os.path.join(tmp, "grow.data")
    rec = subprocess.Popen(lib.urgent() + [
        MEMSZ, "record", "-o", data, "--faults", "--", exe],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = int(rec.stdout.readline())
    lib.wait_stopped(pid)
    out, err = lib.resume(rec, pid)
    check(rec.returncode == 0, "grow: record exits 0: " + err.strip())
    dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                          stdout=subprocess.PIPE, check=True).stdout
    grew = sum(1 for ln in dump.split("\n")
               if " MMAP2 " in ln and ln.endswith("[stack]"))
    if grew < 10:
        lib.skip_part(f"the stack was reported {grew} times: no growth")
    rows = report(data, "callers")
    heap = sum(int(r["rss"]) for r in rows if "heap_toucher" in r["callers"])
    check(heap >= 8 << 20, f"grow: the 8 MiB heap_toucher wrote keep its "
          f"stack after {grew} [stack] records ({heap} bytes under it)")


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
    if subprocess.run(["setarch", "-R", "true"]).returncode:
        lib.skip("setarch -R does not run here")
    with tempfile.TemporaryDirectory(prefix="memsz-t2442-") as tmp:
        exes = {}
        for name, src in (("old", OLD), ("new", NEW)):
            c = os.path.join(tmp, name + ".c")
            with open(c, "w") as f:
                f.write(src)
            exes[name] = os.path.join(tmp, name)
            subprocess.run(["gcc", "-O1", "-o", exes[name], c], check=True)
        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.Popen(lib.urgent() + [
            MEMSZ, "record", "-o", data, "--faults", "--",
            "setarch", "-R", exes["old"], exes["new"]],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = rec.stdout.readline()
        if not line.strip():
            rec.kill()
            err = rec.communicate()[1]
            if "perf" in err or "permission" in err.lower():
                lib.skip("cannot sample page faults: " + err.strip())
            lib.fail("new printed its pid: " + err.strip())
        pid = int(line)
        lib.wait_stopped(pid)
        out, err = lib.resume(rec, pid)
        check(rec.returncode == 0, "record exits 0: " + err.strip())

        dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                              stdout=subprocess.PIPE, check=True).stdout
        libc = [ln.split("[", 2)[2].split("(")[0] for ln in dump.split("\n")
                if " MMAP2 " in ln and "r-xp" in ln and "/libc.so" in ln]
        # setarch's own libc is randomized; old's and new's are not
        if len(libc) < 2 or libc[-1] != libc[-2]:
            lib.skip_part(f"libc not at one address in old and new: {libc}")
        # what perf's MMAP2 records of old's and new's executables say
        # (the dump names each record's file by its dev and inode)
        inos = {}
        for name in ("old", "new"):
            st = os.stat(exes[name])
            inos[name] = st.st_ino
        wrong = [ln for ln in dump.split("\n") if " MMAP2 " in ln and
                 ln.endswith(exes["old"]) and
                 f" {inos['new']} " in ln]
        check(not wrong, f"no MMAP2 record of old carries new's inode "
              f"({inos['new']}): {wrong[:2]}")
        rows = report(data, "pids,callers")
        new = {r["callers"]: int(r["rss"]) for r in rows
               if r["pids"].split()[0] == str(pid) and int(r["rss"])}
        check(sum(v for k, v in new.items() if k != "[no fault seen]"),
              f"new has pages it faulted in itself: {sorted(new)[:5]}")
        stale = {k: v for k, v in new.items()
                 if "old_main" in k or "deep_stack" in k}
        check(not stale,
              f"no page of new is charged to old's stacks: {stale}")
        check_growth(tmp)


main()
sys.exit(lib.finish())
