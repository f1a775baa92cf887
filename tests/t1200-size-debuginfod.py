#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` fetches a stripped binary's debug file from debuginfod.

A program built here with -g is split with objcopy --only-keep-debug /
--strip-all (no .gnu_debuglink, so no local search can find it); elfutils'
own `debuginfod` server, started here on a free 127.0.0.1 port, serves the
directory holding the debug file. Ground truth: readelf -s of the debug
file (names and sizes of the program's functions and objects) and the
server's own /buildid/ID/debuginfo answer.
  - without DEBUGINFOD_URLS the static functions are not rows;
  - with it (and a private DEBUGINFOD_CACHE_PATH) --by symbols has every
    FUNC/OBJECT of the debug file's .symtab with its st_size as VM SIZE,
    --by compileunits names the source file, and the cache holds the file;
  - with the server stopped, the cache still answers;
  - libdebuginfod is loaded on use, not linked: readelf -d of memsz names
    neither it nor libcurl, and a stand-in libdebuginfod.so.1 without its
    functions (first on LD_LIBRARY_PATH) gives a note, exit 0 and the rows
    of a run without DEBUGINFOD_URLS.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, readelf, check  # noqa: E402

SOURCE = r"""
#include <stdio.h>
static int table_dbg[512] = { 1, 2, 3 };
static __attribute__((noinline)) int helper_dbg(int x)
{ return table_dbg[x & 511] * 3 + x; }
__attribute__((noinline)) int visible_dbg(int x)
{ return helper_dbg(x) + helper_dbg(x + 1); }
int main(int argc, char **argv)
{ (void)argv; printf("%d\n", visible_dbg(argc)); return 0; }
"""


def run(args, env=None, **kw):
    return subprocess.run(args, capture_output=True, text=True, env=env, **kw)


def size_rows(path, key, env):
    r = run([MEMSZ, "size", "--by", key, "-n", "0", "--format", "csv",
             path], env=env)
    if r.returncode:
        raise RuntimeError("memsz size failed: %s" % r.stderr)
    return {row[key]: row for row in csv.DictReader(io.StringIO(r.stdout))}


def symtab(path):
    """{name: st_size} of the FUNC and OBJECT symbols of path's .symtab."""
    out = {}
    for line in readelf(["-s"], path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] in ("FUNC",
                                                           "OBJECT") \
                and f[6] != "UND" and int(f[2], 0) > 0:
            out[f[7]] = int(f[2], 0)
    return out


def main():
    if not shutil.which("debuginfod"):
        lib.fail("debuginfod not installed (Debian package debuginfod)")
    tmp = tempfile.mkdtemp(prefix="memsz-t1200-")
    srv = None
    try:
        src = os.path.join(tmp, "prog.c")
        with open(src, "w") as f:
            f.write(SOURCE)
        prog = os.path.join(tmp, "prog")
        r = run(["gcc", "-g", "-O2", "-Wl,--build-id", "-o", prog, src])
        if r.returncode:
            lib.fail("gcc: %s" % r.stderr)
        served = os.path.join(tmp, "served")
        os.mkdir(served)
        dbg = os.path.join(served, "prog.debug")
        stripped = os.path.join(tmp, "prog.stripped")
        run(["objcopy", "--only-keep-debug", prog, dbg], check=True)
        run(["objcopy", "--strip-all", prog, stripped], check=True)
        bid = lib.build_id(stripped)
        check(bid is not None and bid == lib.build_id(dbg),
              "the stripped program and its debug file share build-id %s"
              % bid)
        want = symtab(dbg)
        check("helper_dbg" in want and "table_dbg" in want,
              "readelf -s of the debug file lists helper_dbg, table_dbg")

        env = dict(os.environ)
        env.pop("DEBUGINFOD_URLS", None)
        env["DEBUGINFOD_CACHE_PATH"] = os.path.join(tmp, "cache")
        rows = size_rows(stripped, "symbols", env)
        check("helper_dbg" not in rows,
              "without DEBUGINFOD_URLS the static function is not a row")

        port = lib.free_port()
        srv = subprocess.Popen(
            ["debuginfod", "-F", "-p", str(port), "-d",
             os.path.join(tmp, "db.sqlite"), served],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = "http://127.0.0.1:%d" % port
        ok = lib.wait_served(srv, "%s/buildid/%s/debuginfo" % (url, bid))
        check(ok, "debuginfod on %s serves build-id %s" % (url, bid))
        if not ok:
            return

        env["DEBUGINFOD_URLS"] = url
        rows = size_rows(stripped, "symbols", env)
        for name, size in sorted(want.items()):
            got = int(rows[name]["vm_size"]) if name in rows else None
            # metadata of the stripped file (its .eh_frame FDE) may add
            # to a function; never less than st_size
            check(got is not None and got >= size and
                  (name not in ("table_dbg",) or got == size),
                  "with debuginfod: %s VM SIZE %s, readelf st_size %d"
                  % (name, got, size))
        cus = size_rows(stripped, "compileunits", env)
        check(any(k.endswith("prog.c") for k in cus),
              "with debuginfod: --by compileunits has prog.c (%s)"
              % sorted(cus)[:5])
        cached = os.path.join(tmp, "cache", bid, "debuginfo")
        check(os.path.exists(cached),
              "the debug file is in DEBUGINFOD_CACHE_PATH (%s)" % cached)

        srv.terminate()
        srv.wait()
        srv = None
        rows = size_rows(stripped, "symbols", env)
        check("helper_dbg" in rows and
              int(rows["helper_dbg"]["vm_size"]) >= want["helper_dbg"],
              "with the server stopped, the cache still answers")

        needed = [line.split("[")[1].rstrip("]") for line in
                  readelf(["-d"], MEMSZ).splitlines() if "(NEEDED)" in line]
        check(needed and not any(n.startswith(("libdebuginfod", "libcurl"))
                                 for n in needed),
              "readelf -d: memsz needs neither libdebuginfod nor libcurl "
              "(%s)" % " ".join(needed))
        fake = os.path.join(tmp, "fakelib")
        os.mkdir(fake)
        fsrc = os.path.join(fake, "f.c")
        with open(fsrc, "w") as f:
            f.write("int not_debuginfod;\n")
        run(["gcc", "-shared", "-fPIC", "-Wl,-soname,libdebuginfod.so.1",
             "-o", os.path.join(fake, "libdebuginfod.so.1"), fsrc],
            check=True)
        fenv = dict(env)
        fenv["LD_LIBRARY_PATH"] = fake
        r = run([MEMSZ, "size", "--by", "symbols", "-n", "0", "--format",
                 "csv", stripped], env=fenv)
        names = {row["symbols"] for row in
                 csv.DictReader(io.StringIO(r.stdout))}
        check(r.returncode == 0 and "helper_dbg" not in names and
              "visible_dbg" not in names,
              "without a usable libdebuginfod: exit 0 (%d), no debug "
              "symbols" % r.returncode)
        check("looking for a debug file: shared library cannot be loaded"
              in r.stderr,
              "without a usable libdebuginfod: a note says so (%s)"
              % r.stderr.strip()[:200])
    finally:
        if srv is not None:
            srv.terminate()
            srv.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
