#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2444: a file whose name holds a newline, and one whose name holds the
four characters backslash-0-1-2, are named as they are, whether recorded
attached (`record -p PID`) or launched (`record -- CMD`).

/proc/PID/maps prints a newline of a name as the text "\\012" (the
kernel's seq_file_path escapes only '\\n' and leaves a backslash alone),
so both files print the same way. The attached recording kept that text as
the image's path: the report could not open it and labelled the file
"[deleted] .../nl\\012name" (its FILE SIZE unknown), while the launched
one (perf's MMAP2 records carry the name itself) labelled it right.

A Python workload maps both files (16 and 24 pages), reads every page,
says so and stops itself. The ground truth: the real names, stat's
(dev, ino) and size, smaps' Rss of each mapping. Checked for both ways of
recording, from the exact names of `report --format json` and the IMAGE
records of `dump`: each file has one row under its real name, not
"[deleted]", with its file size and smaps' Rss. Names maps prints as
they are are checked the same way: a live file really named
"x (deleted)", one ending in two spaces, one holding an ESC sequence, and
a path of about 4000 bytes (PATH_MAX is 4096).
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

NAMES = {"nl\nname": 16, "bs\\012name": 24,
         # names maps prints as they are, checked the same way
         "x (deleted)": 3, "trail  ": 5, "esc\x1b[31mred": 6}
# a path of nearly PATH_MAX (4096) bytes: directories of 200 bytes
LONG = 3900

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
os._exit(0)  # mapped until the end: the exit snapshot sees them
"""


def truth(pid, paths):
    """{real path: (dev, ino, size, smaps Rss)} while pid is stopped."""
    out = {}
    for p in paths:
        st = os.stat(p)
        out[p] = (st.st_dev, st.st_ino, st.st_size,
                  lib.smaps_inode_rss(pid, st.st_ino))
    return out


def checks(mode, data, gt):
    rep = subprocess.run([MEMSZ, "report", "-i", data, "--by", "files",
                          "-n", "0", "--format", "json"],
                         capture_output=True, check=True)
    rows = {r["name"]: r for r in json.loads(rep.stdout)["rows"]}
    dump = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")
    for path, (dev, ino, size, rss) in gt.items():
        what = "%s: %r" % (mode, os.path.basename(path))
        r = rows.get(path)
        check(r is not None, "%s has a row under its real name (rows: %s)"
              % (what, [n for n in rows if "memsz-t2444-oddname" in n]))
        check(not [n for n in rows if n.startswith("[deleted]") and
                   "memsz-t2444-oddname" in n],
              "%s: no file of the directory is labelled [deleted]" % what)
        if r is None:
            continue
        check(r["file_size"] == size, "%s: file size %s == stat's %d"
              % (what, r["file_size"], size))
        check(r["rss"] == rss, "%s: rss %s == smaps' Rss %s"
              % (what, r["rss"], rss))
        tag = " %02x:%02x %d " % (os.major(dev), os.minor(dev), ino)
        images = [ln for ln in dump.splitlines()
                  if " IMAGE " in ln and tag in ln]
        check(len(images) == 1, "%s: one IMAGE record of (dev, ino)%s (%d)"
              % (what, tag, len(images)))


def attached(tmp, paths):
    w = subprocess.Popen([sys.executable, "-c", WORKLOAD, *paths],
                         stdout=subprocess.PIPE, text=True)
    try:
        if w.stdout.readline().strip() != "ready":
            lib.fail("the workload did not map its files")
        lib.wait_stopped(w.pid)
        gt = truth(w.pid, paths)
        data = os.path.join(tmp, "p.data")
        rec = subprocess.run([MEMSZ, "record", "-p", str(w.pid), "-o", data,
                              "--duration", "0"],
                             capture_output=True, text=True)
        check(rec.returncode == 0, "record -p exits 0: " + rec.stderr.strip())
    finally:
        w.kill()
        w.wait()
    checks("record -p", data, gt)


def launched(tmp, paths):
    data = os.path.join(tmp, "c.data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--",
                            sys.executable, "-c", WORKLOAD, *paths],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if rec.stdout.readline().strip() != "ready":
        rec.kill()
        lib.fail("the workload did not map its files: " +
                 rec.communicate()[1].strip())
    pid = lib.stopped_child(rec.pid)
    gt = truth(pid, paths)
    err = lib.resume(rec, pid)[1]
    check(rec.returncode == 0, "record -- exits 0: " + err.strip())
    checks("record --", data, gt)


def main():
    if os.geteuid() != 0:
        lib.skip("record -p of another process needs root here")
    tmp = tempfile.mkdtemp(prefix="memsz-t2444-oddname-")
    try:
        paths = []
        for name, pages in NAMES.items():
            p = os.path.join(tmp, name)
            with open(p, "wb") as f:
                f.write(bytes([len(paths) + 1]) * (pages * PAGE))
            paths.append(p)
        deep = tmp
        while len(deep) < LONG:
            deep = os.path.join(deep, "L" * 200)
        os.makedirs(deep)
        paths.append(os.path.join(deep, "long"))
        with open(paths[-1], "wb") as f:
            f.write(b"l" * (9 * PAGE))
        attached(tmp, paths)
        launched(tmp, paths)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
