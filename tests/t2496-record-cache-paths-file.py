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
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SIZE = 16 << 20


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
    w = lib.start_in_cgroup(lib.FILE_WRITER, cg, path, SIZE >> 20)
    try:
        lib.workload_ready(w, "the writer")
        key = lib.memcg_stat_key(cg, "cache")
        paid = lib.memcg_stat_until(cg, key, lambda v: v >= SIZE)
        check(paid >= SIZE, f"ground truth: CG's memory.stat {key} "
              f"{paid} >= {SIZE} (the file written)")
        data = os.path.join(tmp, "g.data")
        r = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                            "--cache-paths", path, "-o", data],
                           capture_output=True, text=True)
        cached = lib.fincore_bytes(path)
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


if __name__ == "__main__":
    lib.cgroup_test("t2496", run)
    sys.exit(lib.finish())
