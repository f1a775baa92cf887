#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1202: one failed debuginfod lookup does not switch debuginfod off for
the images after it, except when the one server named cannot answer at
all, and then libdebuginfod's cache still answers.

Three programs are built here with -g and split with objcopy
--only-keep-debug / --strip-all (no .gnu_debuglink: only debuginfod can
find their symbols); elfutils' own `debuginfod` serves the debug files of
p2 and p3 (not p1's). Ground truth: readelf -s of p2's debug file names
helper2, and the server's /buildid/ID/debuginfo answer.
  - cache behind a closed port: p2's file is fetched into a private
    DEBUGINFOD_CACHE_PATH; then, with DEBUGINFOD_URLS a closed port,
    `size --by symbols s1 s2 s3` has helper2 (from the cache), s1's note
    says the connection was refused and s3's that it was not asked;
  - a good server and a black hole (a socket that accepts and never
    answers): s1 (absent from the good server) waits for the hole, and s2
    is still fetched from the good server;
  - DEBUGINFOD_MAXSIZE below p3's debug file: s3 is refused as too big,
    and s2 after it is still fetched.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, readelf, check  # noqa: E402


def run(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, env=env,
                          timeout=600)


def program(tmp, i, nfuncs):
    """Builds p<i>, its stripped copy s<i> and its debug file; returns
    (stripped path, debug path)."""
    src = os.path.join(tmp, "p%d.c" % i)
    with open(src, "w") as f:
        f.write("static int tab%d[99] = {1};\n"
                "static __attribute__((noinline)) int helper%d(int x)\n"
                "{ return tab%d[x & 63] + %d; }\n" % (i, i, i, i))
        for k in range(nfuncs):
            f.write("__attribute__((noinline)) int big%d_%d(int x)"
                    "{ return x * %d + %d; }\n" % (i, k, k, k % 7))
        f.write("int main(int c, char **v)\n"
                "{ (void)v; return helper%d(c); }\n" % i)
    prog = os.path.join(tmp, "p%d" % i)
    r = run(["gcc", "-g", "-O0", "-Wl,--build-id", "-o", prog, src])
    if r.returncode:
        lib.fail("gcc: %s" % r.stderr)
    stripped = os.path.join(tmp, "s%d" % i)
    dbg = os.path.join(tmp, "served" if i > 1 else "", "p%d.debug" % i)
    run(["objcopy", "--only-keep-debug", prog, dbg])
    run(["objcopy", "--strip-all", prog, stripped])
    return stripped, dbg


def size(env, *files):
    r = run([MEMSZ, "size", "-v", "--by", "symbols", "-n", "0", "--format",
             "csv", *files], env=env)
    return r.returncode, r.stdout, r.stderr


def main():
    if not shutil.which("debuginfod"):
        lib.fail("debuginfod not installed (Debian package debuginfod)")
    tmp = tempfile.mkdtemp(prefix="memsz-t1202-")
    srv = None
    try:
        os.mkdir(os.path.join(tmp, "served"))
        s1, _ = program(tmp, 1, 0)
        s2, d2 = program(tmp, 2, 0)
        s3, d3 = program(tmp, 3, 3000)
        check("helper2" in readelf(["-s"], d2),
              "readelf -s of p2's debug file names helper2")
        port = lib.free_port()
        srv = subprocess.Popen(
            ["debuginfod", "-F", "-p", str(port), "-d",
             os.path.join(tmp, "db.sqlite"), os.path.join(tmp, "served")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        good = "http://127.0.0.1:%d" % port
        for s in (s2, s3):
            ok = lib.wait_served(srv, "%s/buildid/%s/debuginfo" %
                             (good, lib.build_id(s)))
            check(ok, "debuginfod serves %s's build-id" % s)
            if not ok:
                return
        base = dict(os.environ)
        base.pop("DEBUGINFOD_TIMEOUT", None)
        base.pop("DEBUGINFOD_MAXSIZE", None)

        # the cache, behind a closed port
        env = dict(base, DEBUGINFOD_URLS=good,
                   DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache-a"))
        rc, out, err = size(env, s2)
        if "shared library cannot be loaded" in err:
            lib.skip("libdebuginfod cannot be loaded")
        check(rc == 0 and "helper2" in out,
              "p2's debug file fetched into the cache (exit %d)" % rc)
        env["DEBUGINFOD_URLS"] = "http://127.0.0.1:%d" % lib.free_port()
        rc, out, err = size(env, s1, s2, s3)
        check(rc == 0 and "helper2" in out,
              "closed port, s1 s2 s3: s2's symbols come from the cache "
              "(exit %d)" % rc)
        check("s1: looking for a debug file on the debuginfod servers: "
              "Connection refused" in err,
              "closed port: s1's note says the connection was refused")
        check("s3: looking for a debug file: not asked: the debuginfod "
              "servers failed earlier (Connection refused)" in err,
              "closed port: s3's note says it was not asked, and why")
        check("s2: looking for a debug file" not in err,
              "closed port: no note for s2, found in the cache")

        # a good server and a black hole
        hole = lib.BlackHole()
        # (the black hole ends the look-up by DEBUGINFOD_TIMEOUT, which
        # the good server's quick answer does not come near)
        env = dict(base, DEBUGINFOD_URLS="%s http://127.0.0.1:%d" %
                   (good, hole.port), DEBUGINFOD_TIMEOUT="2",
                   DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache-b"))
        rc, out, err = size(env, s1, s2)
        check(rc == 0 and "helper2" in out,
              "good server + black hole, s1 s2: s2 is fetched from the "
              "good server (exit %d, %s)" % (rc, err.strip()[:300]))
        check(hole.conns, "the black hole was asked (%d connections)" %
              len(hole.conns))
        hole.sock.close()

        # a file over DEBUGINFOD_MAXSIZE. libdebuginfod 0.188 then writes
        # "using max size" to its verbose descriptor even when there is
        # none (`if (vfd)` for -1): glibc's dprintf to -1 leaks its 8 KiB
        # buffer (vdprintf called by libdebuginfod), which LeakSanitizer
        # is told to pass, and only that (the slow unwinder names it)
        supp = os.path.join(tmp, "lsan.supp")
        with open(supp, "w") as f:
            f.write("leak:vdprintf\n")

        def opts(name, more):
            old = os.environ.get(name)
            return (old + ":" if old else "") + more
        env = dict(base, DEBUGINFOD_URLS=good,
                   DEBUGINFOD_MAXSIZE=str(os.path.getsize(d2) * 2),
                   DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache-c"),
                   LSAN_OPTIONS=opts("LSAN_OPTIONS", "suppressions=" + supp),
                   ASAN_OPTIONS=opts("ASAN_OPTIONS",
                                     "fast_unwind_on_malloc=0"))
        check(os.path.getsize(d3) > os.path.getsize(d2) * 2,
              "p3's debug file (%d bytes) is over the limit (%d)" %
              (os.path.getsize(d3), os.path.getsize(d2) * 2))
        rc, out, err = size(env, s3, s2)
        check(rc == 0 and "helper2" in out and "helper3" not in out,
              "MAXSIZE, s3 s2: s3 is refused, s2 still fetched (exit %d)"
              % rc)
        check("s3: looking for a debug file on the debuginfod servers: "
              "File too large" in err,
              "MAXSIZE: s3's note says its file is too large")
    finally:
        if srv is not None:
            srv.terminate()
            srv.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
