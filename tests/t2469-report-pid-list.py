#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2469: `report --pid` and `diff --pid` take a list, and add up when
given again, as `record -p` does (t2480): `--pid A --pid B` is
`--pid A,B`.

Each took one pid, and a second --pid replaced the first: `--pid A --pid
B` reported B alone, with nothing said. Three copies of cat, each reading
a pipe held here (so each runs until the test closes it), are stopped
and recorded with one one-shot `record -p A,B,C --duration 0`. Ground
truth: each one's smaps_rollup, read while it is stopped. `report --by
pids` has a row for A and for B, each with its RSS, and none for C; the
TOTAL's RSS (json) is A's plus B's; `diff --pid A --pid B` of the
recording with itself has A's plus B's as the TOTAL's OLD and NEW RSS.
A bad item in a list is a usage error (exit 129) naming the list; pids
none of which was recorded are named in the error.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NONE1, NONE2 = 2147483646, 2147483645  # past any pid_max (2^22)


def run(*args):
    return subprocess.run([MEMSZ, *args], capture_output=True, text=True,
                          timeout=300)


def total_rss(*args):
    """The TOTAL's RSS of `memsz ARGS --format json` (diff: old, new)."""
    r = run(*args, "--format", "json")
    if r.returncode:
        return None
    rss = json.loads(r.stdout)["total"]["rss"]
    return (rss["old"], rss["new"]) if isinstance(rss, dict) else rss


def pid_rows(data, *args):
    """lib.pid_rows, {} where report refuses the options."""
    try:
        return lib.pid_rows(data, *args)
    except subprocess.CalledProcessError:
        return {}


def main():
    procs = [subprocess.Popen(["cat"], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL) for _ in range(3)]
    try:
        pids = [p.pid for p in procs]
        for pid in pids:
            lib.stopped(pid)
        rss = {pid: lib.smaps_rollup(pid)["Rss"] for pid in pids}
        a, b, c = pids
        both = rss[a] + rss[b]
        with tempfile.TemporaryDirectory(prefix="memsz-t2469-") as tmp:
            data = os.path.join(tmp, "p.data")
            r = run("record", "-o", data, "--duration", "0",
                    "-p", "%d,%d,%d" % (a, b, c))
            if r.returncode:
                lib.fail("record: %d %s" % (r.returncode, r.stderr))
            for how, args in (("--pid A --pid B",
                               ["--pid", str(a), "--pid", str(b)]),
                              ("--pid A,B", ["--pid", "%d,%d" % (a, b)]),
                              ("--pid A --pid B,A",
                               ["--pid", str(a), "--pid", "%d,%d" % (b, a)])):
                rows = pid_rows(data, *args)
                check(sorted(rows) == sorted([a, b]),
                      "report %s: rows of A and B only (%r of %r)"
                      % (how, sorted(rows), pids))
                for pid in (a, b):
                    got = rows.get(pid, {}).get("rss")
                    check(got is not None and int(got) == rss[pid],
                          "report %s: pid %d's RSS %s as smaps_rollup's %d"
                          % (how, pid, got, rss[pid]))
                got = total_rss("report", "-i", data, "--by", "pids", *args)
                check(got == both,
                      "report %s: TOTAL RSS %s is A's + B's %d"
                      % (how, got, both))
                got = total_rss("diff", "--by", "pids", *args, data, data)
                check(got == (both, both),
                      "diff %s: TOTAL RSS OLD, NEW %s are A's + B's %d"
                      % (how, got, both))
            for cmd in (["report", "-i", data], ["diff", data, data]):
                r = run(*cmd, "--pid", str(a), "--pid", "%d,x" % b)
                check(r.returncode == 129 and
                      "--pid wants process ids (PID[,PID...]), not '%d,x'"
                      % b in r.stderr,
                      "%s --pid B,x: a usage error naming the list "
                      "(%d, %r)" % (cmd[0], r.returncode, r.stderr.strip()))
            r = run("report", "-i", data, "--pid", "%d,%d" % (NONE1, NONE2))
            check(r.returncode == 1 and
                  "no complete snapshot of pid %d or %d (pids %d and %d "
                  "were not recorded)" % (NONE1, NONE2, NONE1, NONE2)
                  in r.stderr,
                  "pids not recorded: named in the error (%d, %r)"
                  % (r.returncode, r.stderr.strip()))
            rows = pid_rows(data, "--pid", "%d,%d" % (a, NONE1))
            check(sorted(rows) == [a],
                  "--pid A,UNRECORDED: A's row (%r)" % sorted(rows))
    finally:
        for p in procs:
            os.kill(p.pid, signal.SIGCONT)
            p.stdin.close()
            p.wait()
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
