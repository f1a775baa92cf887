#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3280: a file mapped again after rounds without it is one image.

A shell that runs a program, waits for several snapshots, and runs it
again (a pyenv shim running readlink again and again did so, each process
reaching the file through its own /proc/PID/root): the recorder forgot
the image no snapshot had mapped for two rounds and wrote a new IMAGE
record with the same dev, inode, size, mtime, build-id and path. It now
keeps a named file's identity and writes one IMAGE record (the data file
does not grow at each run); the reader also takes records of one file for
one image (older recordings). Counted as two images, the file's FILE SIZE
and VM SIZE were doubled (readlink 104224 bytes, readelf 52112) and each
of its LOAD segments twice its size. Ground truth: the file's st_size and
readelf's PT_LOAD pages (DESIGN I1), under --by files and files,segments.

A program renamed between its runs (mv prog prog.old; a new prog put in
its place; the shell runs prog.old) keeps dev, inode, size and mtime but
has another path: the recorder wrote no record of it, so both runs were
labelled by the first path, then "[changed since recording] prog". The
second run's file (its inode: os.stat) has an IMAGE record of its own
path, and --by files names it.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

PROG = "int main(void) { return 0; }\n"


def loads(path):
    """{LOAD index: bytes of the pages the segment occupies} (readelf)."""
    out = subprocess.run(["readelf", "-lW", path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            va, sz = int(f[2], 16), int(f[5], 16)
            segs.append(((va + sz + PAGE - 1) & ~(PAGE - 1)) -
                        (va & ~(PAGE - 1)))
    return segs


def main():
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"no {tool}")
    with tempfile.TemporaryDirectory(prefix="memsz-t3280-") as tmp:
        src, exe = os.path.join(tmp, "prog.c"), os.path.join(tmp, "prog")
        go = os.path.join(tmp, "go")
        with open(src, "w") as f:
            f.write(PROG)
        subprocess.run(["gcc", "-O1", "-o", exe, src], check=True)
        data = os.path.join(tmp, "memsz.data")
        # the shell runs the program, waits for the test's go (a line in a
        # FIFO; the test lets several snapshots of the shell pass: rounds
        # without the program), and runs it again
        os.mkfifo(go)
        script = f"{exe}; echo ran; read line < {go}; {exe}"
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--interval",
                                "10", "--", "sh", "-c", script],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        if rec.stdout.readline().strip() != "ran":
            rec.kill()
            lib.fail("workload started: " + rec.communicate()[1].strip())
        lib.wait_snaps(data, lib.snap_ends(data) + 8)
        with open(go, "w") as f:  # the shell reads it: a FIFO
            f.write("go\n")
        _, err = rec.communicate()
        check(rec.returncode == 0, "record exits 0: " + err.strip()[-200:])

        dump = subprocess.run([MEMSZ, "dump", "-i", data],
                              stdout=subprocess.PIPE, text=True).stdout
        images = [ln for ln in dump.splitlines()
                  if " IMAGE #" in ln and ln.endswith(" " + exe)]
        pids = {m.group(1) for m in
                (re.search(r" MMAP2 (\d+)/", ln) for ln in dump.splitlines()
                 if ln.endswith(" " + exe)) if m}
        if len(pids) < 2:
            lib.skip(f"the program's mappings are of {len(pids)} process "
                     "(two runs wanted)")
        check(len(images) == 1,
              f"{len(images)} IMAGE record(s) of the program, one wanted")
        # every file of the recording (shell, libc, ld.so, its cache...):
        # one IMAGE record per device and inode
        seen = {}
        for ln in dump.splitlines():
            m = re.search(r" IMAGE #\d+ (\S+) (\d+) .* (\S+)$", ln)
            if m:
                seen.setdefault((m.group(1), m.group(2)), []).append(
                    m.group(3))
        twice = {k: v for k, v in seen.items() if len(v) > 1}
        check(seen and not twice,
              f"one IMAGE record for each of the {len(seen)} files: "
              f"{twice}")

        size, segs = os.stat(exe).st_size, loads(exe)
        for by in ("files", "files,segments"):
            out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by,
                                  "-n", "0", "--format", "json"],
                                 stdout=subprocess.PIPE, text=True,
                                 check=True).stdout
            top = [r for r in json.loads(out)["rows"] if r["name"] == exe]
            check(len(top) == 1, f"--by {by}: one row for the program")
            if not top:
                continue
            check(top[0]["file_size"] == size,
                  f"--by {by}: FILE SIZE {top[0]['file_size']} is the "
                  f"file's size {size}")
            check(top[0]["vm_size"] == sum(segs),
                  f"--by {by}: VM SIZE {top[0]['vm_size']} is readelf's "
                  f"PT_LOAD pages {sum(segs)}")
            kids = top[0].get("rows", [])
            if kids:
                check(sum(k["file_size"] for k in kids) == size and
                      sum(k["vm_size"] for k in kids) == sum(segs),
                      f"--by {by}: the segments' FILE SIZE and VM SIZE add "
                      f"up to {size} and {sum(segs)}")
        renamed(tmp)


def renamed(tmp):
    """The program renamed and replaced between two runs."""
    exe, old = os.path.join(tmp, "prog"), os.path.join(tmp, "prog.old")
    go, data = os.path.join(tmp, "go2"), os.path.join(tmp, "renamed.data")
    os.mkfifo(go)
    script = f"{exe}; echo ran; read line < {go}; exec {old}"
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--interval", "10",
                            "--", "sh", "-c", script],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if rec.stdout.readline().strip() != "ran":
        rec.kill()
        lib.fail("renamed: workload started: " +
                 rec.communicate()[1].strip())
    lib.wait_snaps(data, lib.snap_ends(data) + 8)
    os.rename(exe, old)
    with open(os.path.join(tmp, "prog.c"), "w") as f:
        f.write(PROG.replace("return 0", "return 2 - 2"))
    subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(tmp, "prog.c")],
                   check=True)
    with open(go, "w") as f:
        f.write("go\n")
    _, err = rec.communicate()
    check(rec.returncode == 0,
          "renamed: record exits 0: " + err.strip()[-200:])
    dump = subprocess.run([MEMSZ, "dump", "-i", data],
                          stdout=subprocess.PIPE, text=True).stdout
    ino = os.stat(old).st_ino
    recs = [ln for ln in dump.splitlines()
            if re.search(rf" IMAGE #\d+ \S+ {ino} .* {re.escape(old)}$", ln)]
    check(len(recs) == 1,
          f"renamed: one IMAGE record of inode {ino} named {old}: {recs}")
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", "files",
                          "-n", "0", "--format", "json"],
                         stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    names = [r["name"] for r in json.loads(out)["rows"]]
    check(old in names, f"renamed: --by files has a row {old}: {names}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
