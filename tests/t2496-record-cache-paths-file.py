#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2496: `record -G --cache-paths PATH` names the page cache of the file
PATH when PATH is a regular file, and a PATH that does not exist (or is
neither a directory nor a regular file) is an error that names it. Both
were silently ignored: the recording said nothing, and the file's page
cache stayed under "[page cache, file unknown]".

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) holds a python3 process that writes a 16 MiB
file, closes it and waits on its stdin (ground truth: CG's memory.stat
page cache is at least 16 MiB; `fincore`, where installed, counts the
file's cached bytes). `record -G CG --duration 0 --cache-paths FILE`
exits 0 and `report --by files` has a row FILE whose CHARGE is the
file's cached bytes (fincore's; without fincore, more than 0).
`--cache-paths` of a missing path, and of /dev/null, exits 129 (a usage
error) with a line naming the path and why, and writes no recording.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 16 << 20
WRITER = """import os, sys
sys.stdin.readline()
with open(sys.argv[1], "wb") as f:
    for i in range(%d):
        f.write(os.urandom(1 << 20))
print("ready", flush=True)
sys.stdin.readline()
""" % (SIZE >> 20)


def cache_key(cg):
    """The memory.stat line of cg's page cache, its subtree's."""
    if os.path.exists(os.path.join(cg, "memory.current")):
        return "file"
    return "total_cache"


def fincore_bytes(path):
    """The cached bytes of path by fincore(1), or None without it."""
    if not shutil.which("fincore"):
        return None
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw",
                          "-o", "RES", path], capture_output=True,
                         text=True)
    return int(out.stdout.split()[0]) if out.returncode == 0 else None


def refused(cg, tmp, path, why):
    data = os.path.join(tmp, "bad.data")
    r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                        "--cache-paths", path, "-o", data],
                       capture_output=True, text=True)
    check(r.returncode == 129 and f"--cache-paths '{path}': {why}"
          in r.stderr, f"--cache-paths {path}: exit 129 saying "
          f"'{why}' (exit {r.returncode}, {r.stderr.strip()})")
    check(not os.path.exists(data), f"no recording with --cache-paths "
          f"{path}")


def run(tmp, cg):
    path = os.path.join(tmp, "written.bin")
    w = lib.start_in_cgroup(WRITER, cg, path)
    try:
        lib.workload_ready(w, "the writer")
        key = cache_key(cg)
        paid = lib.memcg_stat_until(cg, key, lambda v: v >= SIZE)
        check(paid >= SIZE, f"ground truth: CG's memory.stat {key} "
              f"{paid} >= {SIZE} (the file written)")
        data = os.path.join(tmp, "g.data")
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "--cache-paths", path, "-o", data],
                           capture_output=True, text=True)
        cached = fincore_bytes(path)
        check(r.returncode == 0, f"record -G --cache-paths FILE exits 0 "
              f"({r.stderr.strip()})")
        rows = {x["files"]: float(x["charge"])
                for x in lib.report(data, "files", "-F", "charge")}
        got = rows.get(path, 0)
        if cached is None:
            check(got > 0, f"a row {path} with its page cache ({got:.0f}; "
                  "no fincore to count it)")
        else:
            check(got == cached, f"the row {path} holds its page cache: "
                  f"{got:.0f}, fincore {cached}")
        refused(cg, tmp, os.path.join(tmp, "missing"),
                "No such file or directory")
        refused(cg, tmp, "/dev/null", "not a directory nor a regular file")
    finally:
        w.kill()
        w.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    with lib.memory_cgroups("t2496") as (cg,):
        with tempfile.TemporaryDirectory(prefix="memsz-t2496-") as tmp:
            run(tmp, cg)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
