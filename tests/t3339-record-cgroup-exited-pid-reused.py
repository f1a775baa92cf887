#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3339: a process of a -G cgroup that exits after the last round of
snapshots, and whose pid another user's process holds by the final
round, has an EXIT record (t2498: the same with the pid free). The final
round asked whether the pid could be read: memsz run by a user may not
read another's process, so the target was marked gone without an EXIT,
and the default report went on counting its last snapshot.

As root, a memory cgroup CG holds two python3 processes run as nobody
(setpriv): a keeper, and a burst that touches 8 MiB and exits when told.
`record -G CG --interval 600000`, run as nobody too, writes the start
snapshots of both; the burst exits and is reaped (waitpid), then a
helper built here (cc) forks, as root, a process with the burst's pid
(clone3(2) set_tid, Linux 5.5+; else a skip) and the recording is
stopped (SIGINT). The recording has an EXIT record of the burst (`memsz
dump`) and the default report no row of its pid.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402
from memsz_testlib.cgroup import CC  # noqa: E402

SIZE = 8 << 20
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
# argv[1]: a pid. A child with that pid that prints "ready PID" and
# exits at the end of its stdin; "clone3: ERROR" if it cannot be made.
HOLD_PID = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	pid_t want = argc > 1 ? atoi(argv[1]) : 0;
	struct clone_args ca;
	long r;
	char c;

	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.set_tid = (uintptr_t)&want;
	ca.set_tid_size = 1;
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r < 0) {
		printf("clone3: %s\n", strerror(errno));
		return 1;
	}
	if (r == 0) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		_exit(0);
	}
	waitpid((pid_t)r, NULL, 0);
	return 0;
}
"""


def run(tmp, cg):
    if not CC:
        lib.skip("no C compiler to build the pid holder")
    src = os.path.join(tmp, "holdpid.c")
    exe = os.path.join(tmp, "holdpid")
    with open(src, "w") as f:
        f.write(HOLD_PID)
    lib.run_ok([CC.split()[0], "-O2", "-o", exe, src])
    os.chmod(tmp, 0o777)
    data = os.path.join(tmp, "g.data")
    held, burst = [], []

    def reuse(d):
        with open(os.path.join(cg, "cgroup.procs")) as f:
            left = {int(x) for x in f.read().split()}
        burst.extend(set(snap_pids(lib.recording(d))) - left)
        if len(burst) != 1:
            lib.fail(f"the burst's pid not found ({burst})")
        h = subprocess.Popen([exe, str(burst[0])], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        held.append(h)
        line = h.stdout.readline().split()
        if line[:1] != ["ready"]:
            lib.skip(f"the burst's pid not taken again: {' '.join(line)}")

    try:
        pid, _, _ = lib.exit_recorded(
            cg, data, 600000, SIZE,
            lambda d: check(lib.wait_snaps(d, 2) >= 2,
                            "the start snapshots of both"),
            reuse, prefix=NOBODY)
    finally:
        for h in held:
            h.stdin.close()
            h.wait()
    check(burst == [pid], f"the burst's pid {pid} taken again")
    lib.check_exit_dropped(data, pid)


def snap_pids(data):
    """The pids of data's SNAP_BEGIN records, in file order."""
    out = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                         capture_output=True).stdout
    return [int(ln.split(" pid ")[1].split()[0]) for ln in out.splitlines()
            if " SNAP_BEGIN pid " in ln]


if __name__ == "__main__":
    lib.cgroup_test("t3339", run, tmpdir="/var/tmp")
    sys.exit(lib.finish())
