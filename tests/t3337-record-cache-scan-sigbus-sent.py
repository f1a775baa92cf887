#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3337: a SIGBUS sent to `memsz record` while its page cache scan holds
the signal (t3335: a load past the end of a file cut short raises it) is
not swallowed: the handler takes only the faults of its own loads, and
gives any other SIGBUS to what the signal did before, for memsz the
default action. It reset the signal to the default and returned, so that
a SIGBUS that kill(2) sent was lost and memsz went on.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) holds a python3 process that writes a 1 MiB
file and waits on its stdin. A library built here (cc) and preloaded
into memsz wraps sigaction(2): once memsz has set a handler of SIGBUS it
raises SIGBUS (SI_TKILL, no fault). `record -G CG --cache-paths FILE
--duration 0` dies by SIGBUS, as a process with no handler of it does
(no core: RLIMIT_CORE 0; built with --enable-sanitizers, ASan's handler,
there before, reports it and fails); without the wrapper's signal it
exits 0.
"""
import os
import resource
import signal
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WRAP = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
/* sigaction(2), then, once a handler of SIGBUS is set and RAISE_BUS is
 * in the environment, SIGBUS raised (once) */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);
	static int done;
	int r;

	if (!real)
		real = (int (*)(int, const struct sigaction *,
				struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
	r = real(sig, act, old);
	if (!r && sig == SIGBUS && act && getenv("RAISE_BUS") && !done &&
	    ((act->sa_flags & SA_SIGINFO) ||
	     (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN))) {
		done = 1;
		raise(SIGBUS);
	}
	return r;
}
"""


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(tmp, cg):
    env = lib.build_preload(tmp, WRAP)
    path = os.path.join(tmp, "cached.bin")
    w = lib.start_in_cgroup(lib.FILE_WRITER, cg, path, 1)
    try:
        lib.workload_ready(w, "the writer")
        args = [MEMSZ, "record", "-G", cg, "--duration", "0",
                "--cache-paths", path, "-o"]
        calm = subprocess.run(args + [os.path.join(tmp, "calm.data")],
                              capture_output=True, text=True, env=env,
                              preexec_fn=no_core, cwd=tmp)
        sent = subprocess.run(args + [os.path.join(tmp, "sent.data")],
                              capture_output=True, text=True,
                              env=dict(env, RAISE_BUS="1"),
                              preexec_fn=no_core, cwd=tmp)
    finally:
        w.kill()
        w.wait()
    check(calm.returncode == 0, f"record exits 0 without the signal "
          f"({calm.returncode}, {calm.stderr.strip()})")
    # a sanitizer's build: its handler of SIGBUS was there before
    asan = "AddressSanitizer: BUS" in sent.stderr
    check(sent.returncode == -signal.SIGBUS or
          (asan and sent.returncode != 0),
          f"record dies by the SIGBUS sent to it during the scan (exit "
          f"{sent.returncode}, {sent.stderr.strip()})")


if __name__ == "__main__":
    lib.preload_test("t3337", run, "the sigaction(2) wrapper")
