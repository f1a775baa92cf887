#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2324: `memsz dump` escapes the control bytes of the names a -G
recording holds, as it does those of images, mappings and commands: a
cgroup's path (the kernel refuses only '/' and newline in a cgroup's
name: a tab or an escape sequence is allowed, and whoever may make a
cgroup, a container manager or a user delegated a subtree, names it) and
the path of a file under --cache-paths (anyone's file name). CGROUP and
FILE_CACHE records were printed raw: ESC [31m reached the terminal.

As root, a memory cgroup (v1's memory hierarchy first, else cgroup2)
named memsz-t2324-PID<TAB>x<ESC>[31m is made with a python3 process in
it, and a file named a<ESC>]0;t<BEL>b is written under a directory of
the test's. `record -G CG --duration 0 --cache-paths DIR`, then `memsz
dump -v`: its output has no byte below 0x20 but newline, and the
CGROUP and FILE_CACHE records are there, naming the cgroup and the file
with their control bytes escaped.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WAITER = """import os, sys
open(os.path.join(sys.argv[1], "cgroup.procs"), "w").write(str(os.getpid()))
f = open(sys.argv[2], "rb")
f.read()
print("ready", flush=True)
sys.stdin.readline()
"""


PID = os.getpid()


def run(tmp, cg):
    cdir = os.path.join(tmp, "cache")
    os.mkdir(cdir)
    path = os.path.join(cdir, "a\x1b]0;t\x07b")
    with open(path, "wb") as f:
        f.write(os.urandom(64 * 1024))
    work = subprocess.Popen([sys.executable, "-c", WAITER, cg, path],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        check(work.stdout.readline().startswith("ready"),
              "the process is in the cgroup")
        data = os.path.join(tmp, "g.data")
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "--cache-paths", cdir, "-o", data],
                           capture_output=True)
    finally:
        work.kill()
        work.wait()
    check(r.returncode == 0, f"record exits 0 ({r.stderr!r})")
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                         capture_output=True).stdout
    bad = sorted({b for b in out if b < 0x20 and b != 0x0a})
    check(not bad, f"dump -v prints no control byte but newline "
          f"({[hex(b) for b in bad]})")
    text = out.decode("utf-8", "replace")
    cgl = [ln for ln in text.splitlines()
           if re.search(r"CGROUP pid \d+ .*memsz-t2324-", ln)]
    fcl = [ln for ln in text.splitlines() if "FILE_CACHE" in ln and
           "/cache/a" in ln]
    # util/escape.h: a C0 control byte is written \xHH
    check(cgl and all(ln.endswith("memsz-t2324-%d\\x09x\\x1b[31m" % PID)
                      for ln in cgl),
          f"the CGROUP records name the cgroup, escaped ({cgl[:2]})")
    check(len(fcl) == 1 and fcl[0].endswith("/cache/a\\x1b]0;t\\x07b"),
          f"the FILE_CACHE record names the file, escaped ({fcl})")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    base = lib.make_cgroup("t2324", v1_first=True)
    os.rmdir(base)
    cg = base + "\tx\x1b[31m"
    try:
        os.mkdir(cg)
    except OSError as e:
        lib.skip(f"cannot make a cgroup named with control bytes: {e}")
    try:
        if not os.path.exists(os.path.join(cg, "memory.stat")):
            lib.skip(f"{cg!r} has no memory controller")
        with tempfile.TemporaryDirectory(prefix="memsz-t2324-") as tmp:
            run(tmp, cg)
    finally:
        lib.remove_cgroup(cg, f"cgroup {cg!r} to be removed")
    check(not os.path.exists(cg), "the cgroup removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
