#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2447: names that /proc/PID/maps prints with "\\012" are told apart by
an unprivileged `record -p` of a process of its own user (nobody).

/proc/PID/maps prints a newline of a name as the text "\\012" and a
backslash as it is. memsz takes the name from the mapping's
/proc/PID/map_files link where it may read it (here, on Linux 6.18,
the process's own user may; elsewhere the name stays as maps prints it:
memsz looks up no candidate path the target controls). Three files: one with a newline, one with the text "\\012", one
with both ("two\\n\\\\012x"), mapped by a workload running as nobody and
recorded by memsz running as nobody. Ground truth: the real names and
smaps' Rss (read by root). Each must have a row under its real name in
`report --format json`, with that Rss, and none "[deleted]".
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

NAMES = {"nl\nname": 4, "bs\\012name": 6, "two\n\\012x": 7}
NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534",
          "--clear-groups"]

WORKLOAD = r"""
import mmap, os, signal, sys
maps = []
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    sum(m[i] for i in range(0, len(m), mmap.PAGESIZE))
    maps.append(m)
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
os._exit(0)
"""


def main():
    if os.geteuid() != 0:
        lib.skip("running the workload and memsz as nobody needs root")
    if not shutil.which("setpriv"):
        lib.skip("setpriv (util-linux) is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t2447-")
    os.chmod(tmp, 0o777)
    paths = []
    for i, (name, pages) in enumerate(NAMES.items()):
        paths.append(os.path.join(tmp, name))
        with open(paths[-1], "wb") as f:
            f.write(bytes([i + 1]) * (pages * PAGE))
    w = subprocess.Popen(NOBODY + [sys.executable, "-c", WORKLOAD, *paths],
                         stdout=subprocess.PIPE, text=True)
    try:
        if w.stdout.readline().strip() != "ready":
            lib.fail("the workload did not map its files")
        lib.wait_stopped(w.pid)
        gt = {p: lib.smaps_inode_rss(w.pid, os.stat(p).st_ino)
              for p in paths}
        data = os.path.join(tmp, "u.data")
        rec = subprocess.run(NOBODY + [MEMSZ, "record", "-p", str(w.pid),
                                       "-o", data, "--duration", "0"],
                             capture_output=True, text=True)
        if rec.returncode:
            lib.skip("memsz cannot record as nobody here: " +
                     rec.stderr.strip())
        with open(f"/proc/{w.pid}/maps") as f:
            printed = f.read()
        check(printed.count("\\012") == 4, "maps prints 4 \\012 (%d)"
              % printed.count("\\012"))
    finally:
        w.kill()
        w.wait()
    try:
        rep = subprocess.run([MEMSZ, "report", "-i", data, "--by", "files",
                              "-n", "0", "--format", "json"],
                             capture_output=True, check=True)
        rows = {r["name"]: r for r in json.loads(rep.stdout)["rows"]}
        ours = [n for n in rows if "memsz-t2447-" in n]
        for p, rss in gt.items():
            what = repr(os.path.basename(p))
            r = rows.get(p)
            check(r is not None, "%s has a row under its real name (%s)"
                  % (what, ours))
            check(r is not None and r["rss"] == rss,
                  "%s: rss %s == smaps' Rss %s"
                  % (what, r and r["rss"], rss))
        check(not [n for n in ours if n.startswith("[deleted]")],
              "no file is labelled [deleted] (%s)" % ours)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
