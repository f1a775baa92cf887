#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1201: a debuginfod server that accepts connections and never answers
(a black hole: a proxy, a firewall, a hung server) is asked once per run,
not once per image, and a note says the search failed. Each image used to
wait $DEBUGINFOD_TIMEOUT (90 s by default) per try and retry, in silence:
a report of 30 images sat for over an hour, then named no cause.

The server is a socket here that accepts and never reads; what is counted
is its connections: `memsz size` of three images (copies of system
programs, with build-ids and an empty --debug-root) must connect no more
often than `memsz size` of one (DEBUGINFOD_TIMEOUT=1 keeps each wait
short), and each run's footer must say the servers failed (for the
first image) or were not asked (the later ones; t1202 checks that other
failures do not stop the lookups). The same server listed twice in
DEBUGINFOD_URLS (`U U/`, which libdebuginfod asks once) is one server.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402


progs = [shutil.which(p) for p in ("true", "false", "sleep")]
if not all(progs):
    lib.skip("no true, false or sleep to copy")
with tempfile.TemporaryDirectory() as tmp:
    imgs = []
    for i, p in enumerate(progs):
        imgs.append(os.path.join(tmp, "img%d" % i))
        shutil.copy(p, imgs[-1])
    os.mkdir(os.path.join(tmp, "debug"))
    hole = lib.BlackHole()
    env = dict(os.environ, DEBUGINFOD_URLS="http://127.0.0.1:%d" % hole.port,
               DEBUGINFOD_TIMEOUT="1",
               DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache"))

    def size(*files):
        """Connections `memsz size -v --by symbols files` made, its
        output and exit status."""
        before = hole.count()
        p = subprocess.run([lib.MEMSZ, "size", "-v", "--by", "symbols",
                            "--debug-root", os.path.join(tmp, "debug"),
                            *files], capture_output=True, text=True,
                           env=env, timeout=600)
        return hole.count() - before, p.stdout + p.stderr, p.returncode

    one, out1, rc1 = size(imgs[0])
    if "shared library cannot be loaded" in out1:
        lib.skip("libdebuginfod cannot be loaded")
    lib.check(rc1 == 0 and one >= 1,
              "one image: the server is asked (%d connections, exit %d)" %
              (one, rc1))
    lib.check("img0: looking for a debug file on the debuginfod servers:"
              in out1, "one image: a note says the servers failed")
    three, out3, rc3 = size(*imgs)
    lib.check(rc3 == 0 and three <= one,
              "three images: the server is asked no more often than for "
              "one (%d connections, one image: %d)" % (three, one))
    lib.check("img0: looking for a debug file on the debuginfod servers:"
              in out3, "three images: img0's note says the servers failed")
    lib.check(all("img%d: looking for a debug file: not asked: the "
                  "debuginfod servers failed earlier (" % i in out3
                  for i in (1, 2)),
              "three images: img1's and img2's notes say they were not "
              "asked, and why")
    # the one server listed twice (libdebuginfod asks it once): still one
    url = "http://127.0.0.1:%d" % hole.port
    env["DEBUGINFOD_URLS"] = "%s %s/" % (url, url)
    twice, out2, rc2 = size(*imgs)
    lib.check(rc2 == 0 and twice <= one,
              "the server listed twice, three images: asked no more often "
              "than for one (%d connections, one image: %d)" % (twice, one))
    hole.sock.close()

sys.exit(lib.finish())
