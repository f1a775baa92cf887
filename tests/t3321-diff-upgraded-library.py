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
   replaced after it), the "[changed since recording] PATH" one is NEW's
   PATH: its OLD RSS is the smaps Rss of the process mapping the build
   replaced after the recording, "[deleted] PATH" is [gone] with the
   other's, whatever the order of `record -p`; under `--by pids,files`
   a process gone from NEW keeps its stale label (never plain PATH);
 - a process that keeps running on its build while the library is
   replaced and a second process starts on the new one (both recorded
   in NEW): OLD's library of the first process is compared with its
   own still-mapped build in NEW ("PATH (deleted)", or "[deleted] PATH"
   once it has exited), found by build-id, never with the second's new
   build: PATH is [new] with the smaps Rss of the second process, no row
   of the library [gone] (under `--by files` and `--by pids,files`);
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


def recorded(tmp, exe, libpath, name):
    """Run exe once, record it into name and end it; returns the
    recording and the smaps Rss of its library."""
    procs = [start(exe)]
    try:
        rss = lib_rss(procs[0][1], libpath)
        return record(tmp, procs, name), rss
    finally:
        end(procs)


def diff(*args):
    p = subprocess.run([MEMSZ, "diff", "-n", "0", "--width", "0",
                        "--format", "json", *args], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"diff {' '.join(args[:-2])} exits 0"
          + ("" if p.returncode == 0 else ": " + p.stderr.strip()[-200:]))
    return json.loads(p.stdout) if p.returncode == 0 else None


def lib_rows(d, libpath):
    """{name: row} of the rows of d naming the library."""
    return {x["name"]: x for x in d["rows"] if libpath in x["name"]}


def two_labels(tmp, exe, libpath, build_lib):
    """OLD of two processes: one maps a library replaced since it mapped
    it ("[deleted] PATH"), the other the next build, replaced after the
    recording ("[changed since recording] PATH"): the second is NEW's
    PATH, whatever the order of -p."""
    procs = [start(exe)]
    try:
        build_lib(32 * 1024)
        procs.append(start(exe))
        both = [lib_rss(pid, libpath) for _, pid in procs]
        olds = [record(tmp, procs, "old2.data"),
                record(tmp, procs[::-1], "old2r.data")]
    finally:
        end(procs)
    build_lib(48 * 1024)
    new, rss3 = recorded(tmp, exe, libpath, "new2.data")
    changed = f"[changed since recording] {libpath}"
    deleted = f"[deleted] {libpath}"
    for old, order in zip(olds, ("A,B", "B,A")):
        d = diff("--by", "files", old, new)
        if d is None:
            continue
        names = [x["name"] for x in d["rows"]]
        check(len(names) == len(set(names)),
              f"-p {order}: no row twice ({names})")
        mine = lib_rows(d, libpath)
        r, g = mine.get(libpath), mine.get(deleted)
        check(r is not None and r["rss"]["old"] == both[1] and
              r["rss"]["new"] == rss3,
              f"-p {order}: {libpath} is the replaced-after build: "
              f"RSS {r and r['rss']['old']} -> {r and r['rss']['new']}, "
              f"smaps {both[1]} -> {rss3}")
        check(g is not None and g["change"] == "gone" and
              g["rss"]["old"] == both[0],
              f"-p {order}: '{deleted}' is [gone] with the smaps Rss "
              f"{both[0]} of the first process "
              f"({g and (g['change'], g['rss']['old'])})")
        check(any(changed in n and "of OLD is compared with" in n
                  for n in d["notes"]),
              f"-p {order}: the note names '{changed}'")
    d = diff("--by", "pids,files", olds[0], new)
    if d is None:
        return
    gone = [c["name"] for p in d["rows"] if p["change"] == "gone"
            for c in p.get("rows", []) if libpath in c["name"]]
    check(len(gone) == 2 and libpath not in gone and changed in gone,
          f"--by pids,files: the processes gone keep their labels of the "
          f"library ({gone})")


def kept_running(tmp, exe, libpath, build_lib):
    """X runs on its build while the library is replaced and Y starts on
    the new one; OLD records X, NEW records X and Y."""
    x = [start(exe)]
    try:
        old = record(tmp, x, "old3.data")
        build_lib(80 * 1024)
        y = [start(exe)]
        try:
            rss_y = lib_rss(y[0][1], libpath)
            new = record(tmp, x + y, "new3.data")
            kept_checks(old, new, libpath, x[0][1], rss_y, "running")
        finally:
            end(y)
    finally:
        end(x)
    kept_checks(old, new, libpath, x[0][1], rss_y, "exited")


def kept_checks(old, new, libpath, xpid, rss_y, when):
    """The checks of kept_running(), X having `when` at diff time."""
    d = diff("--by", "files", old, new)
    if d is None:
        return
    mine = lib_rows(d, libpath)
    r = mine.get(libpath)
    check(r is not None and r["change"] == "new" and
          r["rss"]["new"] == rss_y,
          f"X {when}: {libpath} is [new] with Y's smaps Rss {rss_y} "
          f"({r and r['change']}, {r and r['rss']})")
    check(not any(x["change"] in ("gone", "new") for n, x in mine.items()
                  if n != libpath),
          f"X {when}: X's build is one row, neither gone nor new "
          f"({[(n, x['change']) for n, x in mine.items()]})")
    check(any("of OLD is compared with" in n and f"'{libpath}' of NEW"
              not in n for n in d["notes"]),
          f"X {when}: a note pairs X's build with NEW's stale label")
    d = diff("--by", "pids,files", old, new)
    if d is None:
        return
    kids = [(c["name"], c["change"]) for p in d["rows"]
            if p["name"].split()[0] == str(xpid)
            for c in p.get("rows", []) if libpath in c["name"]]
    check(not any(c in ("gone", "new") for _, c in kids),
          f"X {when}: --by pids,files: X's library is neither gone nor "
          f"new ({kids})")


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
        old, rss_old = recorded(tmp, exe, libpath, "old.data")
        build_lib(64 * 1024)
        new, rss_new = recorded(tmp, exe, libpath, "new.data")
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

        two_labels(tmp, exe, libpath, build_lib)
        kept_running(tmp, exe, libpath, build_lib)

        d = diff("--by", "files", old, old)
        if d is not None:
            check(not any("of OLD is compared with" in n
                          for n in d["notes"]),
                  "a recording against itself pairs nothing")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
