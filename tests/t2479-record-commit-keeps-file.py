#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2479: FILE names a readable recording all through the commit that
replaces it, even if memsz is killed in the middle.

The commit moved the previous recording away first, renameat(FILE,
FILE.old), then renamed the new one over FILE: a memsz killed (SIGKILL,
the OOM killer, a power cut) between the two left FILE.old and
FILE.tmp.XXXXXX but no FILE, and `memsz report` said "cannot read". Now
FILE.old is made a hard link of FILE (a link under a free name renamed
over FILE.old, which it replaces), then the new recording is renamed
over FILE; where the file system makes no hard link, the old order.

Ground truth: the files on disk (their bytes, their inodes) and strace's
log of memsz's linkat/renameat calls. strace kills memsz deterministically
at the entry of its second renameat (inject=renameat:signal=KILL:when=2):
the test checks from the log that this is the rename of the temporary
file over FILE, and then that FILE still holds the previous recording
(its bytes unchanged, `memsz report` reads it) and FILE.old is the same
file. Without the kill: FILE.old holds what FILE held (replacing an older
FILE.old), FILE the new recording, no link left under another name. With
linkat failing EPERM (strace inject=linkat:error=EPERM, as on a file
system without hard links) the commit falls back to renaming FILE to
FILE.old, with the same result.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

CALLS = "trace=link,linkat,rename,renameat,renameat2"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def record(out, *prefix):
    """memsz record -o out -- true, behind the command prefix (strace);
    returns the CompletedProcess."""
    env = None
    if prefix:
        # LeakSanitizer cannot run under ptrace (the sanitizer build)
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get(
            "ASAN_OPTIONS", "") + ":detect_leaks=0")
    return subprocess.run([*prefix, MEMSZ, "record", "-o", out, "--",
                           "true"], capture_output=True, text=True,
                          timeout=300, env=env)


def reads(out):
    """Whether `memsz report -i out` reads it (exit 0)."""
    return subprocess.run([MEMSZ, "report", "-i", out],
                          capture_output=True, timeout=300).returncode == 0


def strays(d):
    """Names in d other than the recording, FILE.old and strace's log."""
    return sorted(set(os.listdir(d)) - {"x.data", "x.data.old", "log"})


def calls(log):
    """The link and rename calls of strace's log, as (name, args, result)."""
    got = []
    with open(log) as f:
        for line in f:
            m = re.match(r"(?:\d+ +)?(\w+)\((.*)\) += (.*)", line)
            if m and ("link" in m[1] or "rename" in m[1]):
                got.append((m[1], re.findall(r'"([^"]*)"', m[2]), m[3]))
    return got


def main():
    if not shutil.which("true"):
        lib.skip("no true(1)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2479-") as d:
        out = os.path.join(d, "x.data")
        # three recordings: FILE.old made, then replaced
        for n in range(3):
            before = read(out) if n else None
            r = record(out)
            if r.returncode:
                lib.fail(f"memsz record -- true: exit {r.returncode}: "
                         f"{r.stderr.strip()}")
            if n:
                check(read(out + ".old") == before and reads(out)
                      and read(out) != before,
                      f"run {n + 1}: FILE.old holds what FILE held, FILE "
                      f"the new recording")
        check(not strays(d), f"no file left beside them: {strays(d)}")

        strace = shutil.which("strace")
        if not strace:
            lib.skip("no strace: the commit cannot be cut in the middle")
        log = os.path.join(d, "log")

        # killed at the entry of the second rename
        before = read(out)
        r = record(out, strace, "-o", log, "-e", CALLS, "-e",
                   "inject=renameat:signal=KILL:when=2")
        seen = calls(log)
        last = seen[-1] if seen else None
        if not last or last[2] != "?" or last[0] != "renameat" or \
                last[1][1:] != ["x.data"] or \
                not last[1][0].startswith("x.data.tmp."):
            check(False, f"strace killed memsz at the rename of its "
                  f"temporary file over FILE (exit {r.returncode}; the "
                  f"calls: {seen})")
        else:
            check(os.path.exists(out) and read(out) == before
                  and reads(out),
                  "killed before the new recording was renamed over "
                  "FILE: FILE holds the previous recording, which "
                  "memsz report reads")
            check(os.path.exists(out + ".old") and os.path.exists(out)
                  and os.stat(out + ".old").st_ino == os.stat(out).st_ino,
                  "FILE.old is the same file (a hard link of FILE)")
        for name in strays(d):
            os.remove(os.path.join(d, name))

        # no hard links: the old order, the same outcome (from a FILE
        # made afresh if the kill above lost it)
        if not os.path.exists(out):
            record(out)
        before = read(out)
        r = record(out, strace, "-o", log, "-e", CALLS, "-e",
                   "inject=linkat:error=EPERM")
        seen = [(c[0], c[1]) for c in calls(log)]
        check(r.returncode == 0 and read(out + ".old") == before
              and reads(out) and read(out) != before and not strays(d),
              f"linkat refused (EPERM): FILE.old holds what FILE held, "
              f"FILE the new recording, nothing left beside them (exit "
              f"{r.returncode}, {r.stderr.strip()!r}, {strays(d)})")
        check(len(seen) >= 3 and seen[0][0] == "linkat"
              and seen[-2] == ("renameat", ["x.data", "x.data.old"])
              and seen[-1][1][1:] == ["x.data"],
              f"linkat tried, then FILE renamed to FILE.old and the new "
              f"recording over FILE: {seen}")
    sys.exit(lib.finish())


main()
