#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3338: `record -G` run by the root of a user namespace does not read
in a file whose owner that namespace does not map. Root there has no
CAP_FOWNER over such a file (nor may it write it), so mincore(2) says
every page of it is cached (can_do_mincore()); memsz took root for one
who is told, loaded a byte of every page and read the whole file in.

As root, a memory cgroup CG; a file of 8 MiB owned by root, mode 0644,
dropped from the page cache (POSIX_FADV_DONTNEED; ground truth: fincore
says none of it is cached, else a skip). A process makes a user
namespace whose root is uid 200000 outside (ids 0-65535 mapped to
200000-265535: root's file shows as owned by the overflow uid), forks a
holder that keeps the file open, moved into CG, and runs `memsz record
-G CG --duration 0` as that root. It exits 0 and warns that the page
cache of such files is not named; fincore says none of the file is
cached after it. A skip without user namespaces.
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
OUTER = 200000
# argv: path cgroup memsz data. Lines on stdout: "unshared", "holder
# PID", then "rc N" and record's stderr; or "skip WHY". Each step after
# a line waits for one on stdin.
INNER = r"""import ctypes, os, subprocess, sys
path, cg, memsz, data = sys.argv[1:5]
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
    print("skip no user namespace:", os.strerror(ctypes.get_errno()),
          flush=True)
    sys.exit(0)
print("unshared", flush=True)
sys.stdin.readline()  # its ids are mapped
os.setgid(0)
os.setuid(0)
libc.prctl(4, 1)  # PR_SET_DUMPABLE: the id change cleared it
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w)
    f = open(path, "rb")
    os.write(1, b"holder %d\n" % os.getpid())
    os.read(r, 1)
    os._exit(0)
os.close(r)
sys.stdin.readline()  # the holder is in cg
try:
    rec = subprocess.run([memsz, "record", "-G", cg, "--duration", "0",
                          "-o", data], capture_output=True, text=True,
                         timeout=300)
except PermissionError as e:
    print("skip memsz not run by the namespace's root:", e, flush=True)
    rec = None
os.close(w)
os.waitpid(pid, 0)
if rec:
    print("rc", rec.returncode, flush=True)
    print(rec.stderr, flush=True)
"""


def run(tmp, cg):
    out, path = lib.roots_file(tmp, SIZE)
    p = subprocess.Popen([sys.executable, "-c", INNER, path, cg, MEMSZ,
                          os.path.join(out, "g.data")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        line = p.stdout.readline()
        if line.startswith("skip"):
            lib.skip(line[5:].strip())
        check(line.strip() == "unshared", f"a user namespace ({line!r})")
        maps = f"0 {OUTER} 65536\n"
        try:
            for name, text in (("uid_map", maps), ("setgroups", "deny"),
                               ("gid_map", maps)):
                with open(f"/proc/{p.pid}/{name}", "w") as f:
                    f.write(text)
        except OSError as e:
            lib.skip(f"cannot map the user namespace's ids: {e}")
        p.stdin.write("mapped\n")
        p.stdin.flush()
        line = p.stdout.readline().split()
        if len(line) != 2 or line[0] != "holder":
            lib.fail(f"the holder did not start ({line})")
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(line[1])
        p.stdin.write("moved\n")
        p.stdin.flush()
        rest = p.communicate(timeout=300)[0]
        after = lib.fincore_bytes(path)
    finally:
        if p.returncode is None:
            p.kill()
        p.wait()
    if rest.startswith("skip"):
        lib.skip(rest[5:].strip())
    check(rest.startswith("rc 0"), f"record exits 0 ({rest.strip()})")
    check("neither owns nor may write" in rest,
          "a warning says the page cache of files it neither owns nor "
          "may write is not named")
    check(after == 0, f"fincore: none of the file is cached after the "
          f"recording ({after} bytes read in)")


if __name__ == "__main__":
    if not shutil.which("fincore"):
        lib.skip("no fincore(1)")
    lib.cgroup_test("t3338", run, tmpdir="/var/tmp")
    sys.exit(lib.finish())
