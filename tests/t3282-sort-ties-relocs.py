#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3282: --sort relocs needs the relocs key; rows of equal value by name.

 - report and diff refuse --sort relocs without the relocs key in --by, as
   they refuse -F relocs ("needs the relocs key in --by", exit 129): it
   was accepted and sorted by a column no row had; with the key it sorts;
 - rows of an equal --sort value come in the documented order of their
   labels (byte order, as --sort name): --sort swap of a recording of a
   process that has no swap (smaps' Swap of every mapping 0, read while
   it is stopped: the ground truth) lists every row of each level by name,
   in report and in diff, in csv and in the table with -n.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def run(*args):
    return subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def names(out, col=0):
    """The labels of csv out's rows (column col)."""
    return [ln.split(",")[col] for ln in out.splitlines()[1:]]


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t3282-") as tmp:
        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--", "sh",
                                "-c", "echo ready; kill -STOP $$"],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        if rec.stdout.readline().strip() != "ready":
            rec.kill()
            lib.fail("workload started: " + rec.communicate()[1].strip())
        pid = lib.children(rec.pid)[0]
        lib.wait_stopped(pid)
        swap = sum(v.get("Swap", 0) for v in lib.smaps_vmas(pid))
        _, err = lib.resume(rec, pid)
        check(rec.returncode == 0, "record exits 0: " + err.strip()[-200:])
        if swap:
            lib.skip(f"the workload has {swap} bytes in swap")

        for cmd in (["report", "-i", data], ["diff", data, data]):
            for opt in (["--sort", "relocs"], ["-F", "relocs"]):
                r = run(*cmd, *opt)
                check(r.returncode == 129 and "needs the relocs key in --by"
                      in r.stderr, f"{cmd[0]} {' '.join(opt)} without the "
                      f"relocs key: refused ({r.returncode}, "
                      f"{r.stderr.strip()[:80]})")
        r = run("report", "-i", data, "--by", "files,relocs", "--sort",
                "relocs", "--format", "csv")
        check(r.returncode == 0, "report --by files,relocs --sort relocs "
              "exits 0: " + r.stderr.strip()[:100])

        for by in ("files", "sections", "pids,files"):
            r = run("report", "-i", data, "--by", by, "--sort", "swap",
                    "--format", "csv", "-F", "swap,rss")
            col = len(by.split(",")) - 1
            rows = [ln.split(",") for ln in r.stdout.splitlines()[1:]]
            check(rows and all(x[col + 1] == "0" for x in rows),
                  f"--by {by}: every row's SWAP is 0")
            got = [x[col] for x in rows]
            want = sorted(got, key=lambda s: s.encode())
            check(got == want, f"report --by {by} --sort swap: rows by "
                  f"name {got[:6]}")
        r = run("report", "-i", data, "--sort", "swap", "-n", "4",
                "--width", "0", "-F", "swap")
        got = [ln.split()[-1] for ln in r.stdout.splitlines()[2:6]]
        allrows = names(run("report", "-i", data, "--format", "csv",
                            "-F", "swap").stdout)
        want = sorted(allrows, key=lambda s: s.encode())[:3]
        check(got[:3] == want, f"table -n 4: the first 3 by name {got[:3]}"
              f" ({want})")
        r = run("diff", "--sort", "swap", "--format", "csv", "-F", "rss",
                data, data)
        check(r.returncode == 0, "diff --sort swap exits 0")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
