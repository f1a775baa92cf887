#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3321: a diff of two recordings pairs a library upgraded since OLD was
recorded with the same library of NEW, under the files key.

"What did version 2 add?": a service is recorded, its library is rebuilt
in place (an upgrade), the service is run and recorded again. At report
time OLD's library is no longer the file on disk, so OLD labels its bytes
"[changed since recording] PATH" (what it held is unknown, its path and
its resident bytes are not); `memsz diff --by files` showed that row
[gone] and NEW's PATH [new], two rows for the one library. Now they are
one row with a note, and the columns stay each side's own:
 - `--by files`: one row whose label is the library's path, neither new
   nor gone, its OLD RSS the Rss smaps gave for the library's mappings of
   the first process (stopped while recorded), its NEW RSS the second's,
   its change NEW - OLD; no "[changed since recording]" row;
 - a footer note says which label of OLD was compared with which of NEW;
 - `--by files,symbols`: under the library, OLD's bytes are one row
   "[changed since recording] PATH" [gone] (its symbols are unknown) and
   the rows below it add up to its change;
 - when OLD has two such labels of the library (a process mapping a
   build replaced before the recording, "[deleted] PATH", and one a build
   replaced after it), only one is NEW's PATH: no row twice, and the
   library's rows hold the Rss smaps gave on each side;
 - a recording compared with itself pairs nothing.
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
from memsz_testlib import MEMSZ, check  # noqa: E402

LIB_SRC = r"""
int lib_table[%d] = { 1 };
int lib_touch(void)
{
	int s = 0;
	for (unsigned i = 0; i < sizeof(lib_table) / sizeof(*lib_table);
	     i += 1024)
		s += lib_table[i]++;
	return s;
}
"""

PROG_SRC = r"""
#include <stdio.h>
#include <unistd.h>
int lib_touch(void);
int main(void)
{
	int s = lib_touch();
	printf("ready %d %d\n", (int)getpid(), s);
	fflush(stdout);
	return getchar() == 'x' ? s : 0;
}
"""


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p


def lib_rss(pid, path):
    """smaps Rss of the mappings of path (or of "path (deleted)": a file
    replaced since it was mapped); the library has no .bss past its
    file's pages, so no anonymous mapping of its own."""
    rss, mine = 0, False
    with open(f"/proc/{pid}/smaps", errors="surrogateescape") as f:
        for line in f:
            p = line.split()
            if p and "-" in p[0] and not p[0].endswith(":"):
                mine = line.rstrip("\n").endswith(path) or \
                    line.rstrip("\n").endswith(path + " (deleted)")
            elif mine and p and p[0] == "Rss:":
                rss += int(p[1]) * 1024
    return rss


def start(exe):
    """Run exe until it has touched its library, and stop it; returns
    the process and its pid."""
    p = subprocess.Popen([exe], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().split()
    if not line or line[0] != "ready":
        p.kill()
        p.wait()
        raise RuntimeError(f"workload: {line}")
    pid = int(line[1])
    lib.stopped(pid)
    return p, pid


def record(tmp, procs, name):
    """Record the stopped processes procs ([(Popen, pid)]) into name."""
    data = os.path.join(tmp, name)
    run(MEMSZ, "record", "-p", ",".join(str(pid) for _, pid in procs),
        "-o", data, "--duration", "0.1")
    return data


def end(procs):
    for p, _ in procs:
        p.kill()
        p.wait()


def diff(*args):
    p = subprocess.run([MEMSZ, "diff", "-n", "0", "--width", "0",
                        "--format", "json", *args], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"diff {' '.join(args[:-2])} exits 0"
          + ("" if p.returncode == 0 else ": " + p.stderr.strip()[-200:]))
    return json.loads(p.stdout) if p.returncode == 0 else None


def main():
    if not shutil.which("gcc"):
        lib.skip("no gcc")
    with tempfile.TemporaryDirectory(prefix="memsz-t3321-") as tmp:
        libpath = os.path.join(tmp, "libt.so")
        exe = os.path.join(tmp, "prog")
        src = os.path.join(tmp, "lib.c")

        def build_lib(n):
            with open(src, "w") as f:
                f.write(LIB_SRC % n)
            new = libpath + ".new"
            run("gcc", "-shared", "-fPIC", "-O1", "-o", new, src)
            os.rename(new, libpath)     # as a package upgrade does

        build_lib(16 * 1024)
        with open(os.path.join(tmp, "prog.c"), "w") as f:
            f.write(PROG_SRC)
        run("gcc", "-O1", "-o", exe, os.path.join(tmp, "prog.c"),
            "-L" + tmp, "-lt", "-Wl,-rpath," + tmp)
        a = [start(exe)]
        try:
            rss_old = lib_rss(a[0][1], libpath)
            old = record(tmp, a, "old.data")
        finally:
            end(a)
        build_lib(64 * 1024)
        a = [start(exe)]
        try:
            rss_new = lib_rss(a[0][1], libpath)
            new = record(tmp, a, "new.data")
        finally:
            end(a)
        if not rss_old or not rss_new or rss_old == rss_new:
            lib.skip(f"smaps gave the library {rss_old} and {rss_new} "
                     "bytes of Rss")

        d = diff("--by", "files", old, new)
        if d is None:
            return
        rows = {r["name"]: r for r in d["rows"]}
        r = rows.get(libpath)
        check(r is not None and r["change"] == "changed",
              f"--by files: one row {libpath}, changed "
              f"({r and r['change']}; rows {sorted(rows)})")
        check(not any("[changed since recording]" in n for n in rows),
              "--by files: no '[changed since recording]' row")
        if r:
            check(r["rss"]["old"] == rss_old,
                  f"OLD RSS {r['rss']['old']} == smaps Rss {rss_old}")
            check(r["rss"]["new"] == rss_new,
                  f"NEW RSS {r['rss']['new']} == smaps Rss {rss_new}")
            check(r["rss"]["delta"] == rss_new - rss_old,
                  f"RSS change {r['rss']['delta']} == "
                  f"{rss_new - rss_old}")
        label = f"[changed since recording] {libpath}"
        check(any(label in n and "of OLD is compared with" in n
                  for n in d["notes"]),
              "a note says OLD's changed library is compared with NEW's")

        d = diff("--by", "files,symbols", old, new)
        if d is None:
            return
        r = {x["name"]: x for x in d["rows"]}.get(libpath)
        kids = {x["name"]: x for x in (r or {}).get("rows", [])}
        k = kids.get(label)
        check(k is not None and k["change"] == "gone" and
              k["rss"]["old"] == rss_old,
              f"--by files,symbols: OLD's bytes are '{label}' [gone] "
              f"with {rss_old} of RSS ({k and k['change']})")
        if r:
            s = sum(x["rss"]["delta"] for x in kids.values())
            check(s == r["rss"]["delta"],
                  f"--by files,symbols: the rows under the library add "
                  f"up to its change ({s}, {r['rss']['delta']})")

        # OLD of two processes: one maps a library replaced since it
        # mapped it ("[deleted] PATH"), the other the next build, replaced
        # after the recording ("[changed since recording] PATH"): one of
        # them is NEW's PATH, never two rows of one label
        procs = [start(exe)]
        try:
            build_lib(32 * 1024)
            procs.append(start(exe))
            both = [lib_rss(pid, libpath) for _, pid in procs]
            old2 = record(tmp, procs, "old2.data")
        finally:
            end(procs)
        build_lib(48 * 1024)
        procs = [start(exe)]
        try:
            rss3 = lib_rss(procs[0][1], libpath)
            new2 = record(tmp, procs, "new2.data")
        finally:
            end(procs)
        d = diff("--by", "files", old2, new2)
        if d is not None:
            names = [x["name"] for x in d["rows"]]
            check(len(names) == len(set(names)),
                  f"two OLD labels of the library: no row twice ({names})")
            mine = [x for x in d["rows"] if x["name"].endswith(libpath)]
            got_old = sum(x["rss"]["old"] for x in mine)
            got_new = sum(x["rss"]["new"] for x in mine)
            check(got_old == sum(both),
                  f"the library's rows' OLD RSS {got_old} == smaps Rss of "
                  f"the two processes {both}")
            check(got_new == rss3,
                  f"the library's rows' NEW RSS {got_new} == smaps Rss "
                  f"{rss3}")
            check(sum(1 for x in mine if x["name"] == libpath) == 1,
                  f"one row {libpath} ({[x['name'] for x in mine]})")

        d = diff("--by", "files", old, old)
        if d is not None:
            check(not any("of OLD is compared with" in n
                          for n in d["notes"]),
                  "a recording against itself pairs nothing")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
