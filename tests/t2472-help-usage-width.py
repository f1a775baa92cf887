#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2472: every command's usage lines (`memsz CMD --help`, up to the
first blank line) fit in 80 columns, as the other long usage lines are
wrapped: `report --help` and `diff --help` had lines of 92 and 91 after
`--pid PID[,PID...]...` was added. The commands are those `memsz --help`
lists; each usage's first line names its command.
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def run(*args):
    return subprocess.run([MEMSZ, *args], capture_output=True, text=True,
                          timeout=300)


def main():
    top = run("--help").stdout
    cmds = sorted({m.group(1) for m in
                   re.finditer(r"^ {2,}([a-z]+)\s", top, re.M)})
    check({"record", "report", "diff", "size"} <= set(cmds),
          f"memsz --help lists the commands ({cmds})")
    for cmd in cmds:
        r = run(cmd, "--help")
        usage = r.stdout.split("\n\n", 1)[0].splitlines()
        if r.returncode or not usage or \
                not usage[0].startswith(f"usage: memsz {cmd}"):
            continue  # a word of the listing that is no command
        wide = [line for line in usage if len(line) > 80]
        check(not wide, f"{cmd} --help: the usage lines fit in 80 "
              f"columns ({[len(x) for x in wide]})")
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
