#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2499: `record -G` run by a user who neither owns a file its
processes hold open nor may write it does not read that file in. To such
a caller mincore(2) says every page of the file is cached (the kernel's
can_do_mincore(), a side channel otherwise); the page cache scan then
loaded a byte of every page, reading the whole file from disk (a file
of gigabytes, or one on a server that does not answer, held memsz that
long), and named pages it had read in itself as cached.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller); a file of 8 MiB owned by root, mode 0644,
dropped from the page cache (POSIX_FADV_DONTNEED; ground truth: fincore
says none of it is cached, else a skip); a python3 process run as nobody
(setpriv) in CG holds it open. `memsz record -G CG --duration 0`, run as
nobody too, exits 0 and warns that the page cache of files it neither
owns nor may write is not named; fincore says none of the file is cached
after it.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 8 << 20
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
HOLDER = """import sys
f = open(sys.argv[1], "rb")
print("ready", flush=True)
sys.stdin.readline()
"""


def run(tmp, cg):
    out, path = lib.roots_file(tmp, SIZE)
    h = subprocess.Popen([*NOBODY, sys.executable, "-c", HOLDER, path],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(h.pid))
        lib.workload_ready(h, "the holder (nobody)")
        rec = subprocess.run([*NOBODY, MEMSZ, "record", "-G", cg,
                              "--duration", "0", "-o",
                              os.path.join(out, "g.data")],
                             capture_output=True, text=True, timeout=300)
        after = lib.fincore_bytes(path)
    finally:
        h.kill()
        h.wait()
    check(rec.returncode == 0, f"record exits 0 ({rec.stderr.strip()})")
    check("neither owns nor may write" in rec.stderr,
          "a warning says the page cache of files it neither owns nor "
          "may write is not named")
    check(after == 0, f"fincore: none of the file is cached after the "
          f"recording ({after} bytes read in)")


if __name__ == "__main__":
    if not shutil.which("fincore") or not shutil.which("setpriv"):
        lib.skip("no fincore(1) or setpriv(1)")
    lib.cgroup_test("t2499", run, tmpdir="/var/tmp")
    sys.exit(lib.finish())
