#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3292: folded and pprof output add up to the report's PSS.

PSS is fractional (a page's bytes over the processes mapping it); the
report keeps it in fixed point, so its rows add up to its TOTAL, and json
and csv print two decimals. folded and pprof print whole bytes per leaf:
rounding each leaf on its own loses (folded: truncating, up to a byte a
row) or gains a fraction per row, and the flame graph's or pprof's total
was not the report's. A shell that runs ls twice (the C library's pages
shared by three processes) is recorded; for --by files,symbols and --by
files,sections, which cut pages into many rows:
 - the folded lines of -F pss add up to the json TOTAL's PSS, rounded;
 - so do the pss samples `go tool pprof -raw` reads from --format pprof
   (where go is installed), and the rss samples to the TOTAL's RSS.
"""
import json
import math
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


def run(*args, binary=False):
    r = subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=not binary)
    if r.returncode:
        lib.fail(" ".join(args) + " exits 0: " + str(r.stderr)[-200:])
    return r.stdout


def pprof_sums(path, env):
    """{sample type: sum of its values} of the profile at path, as
    `go tool pprof -raw` reads it."""
    out = subprocess.run(["go", "tool", "pprof", "-raw", path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, check=True).stdout
    lines = out.splitlines()
    i = lines.index("Samples:")
    types = [t.split("/")[0] for t in lines[i + 1].split()]
    sums = dict.fromkeys(types, 0)
    for line in lines[i + 2:]:
        if not line.startswith(" ") and line.strip():
            break  # Locations
        m = re.match(r"^\s+([-\d ]+):", line)
        if m:
            vals = [int(x) for x in m.group(1).split()]
            if len(vals) == len(types):
                for t, v in zip(types, vals):
                    sums[t] += v
    return sums


def rounded(pss):
    """The whole numbers the TOTAL PSS pss (json: two decimals) rounds
    to. memsz rounds its fixed-point value half up; json's ".50" may stand
    for a value just under or at the half (three sharers' thirds, cut to
    fixed point, add up to a hair under a whole), so both neighbours are
    right then. Python's round() would round a half to even."""
    low = math.floor(pss)
    if abs(pss - low - 0.5) < 0.006:
        return {low, low + 1}
    return {math.floor(pss + 0.5)}


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t3292-") as tmp:
        data = os.path.join(tmp, "memsz.data")
        run("record", "-o", data, "--", "sh", "-c",
            "ls / >/dev/null; ls / >/dev/null")
        go = shutil.which("go")
        env = dict(os.environ, HOME=tmp, GOCACHE=os.path.join(tmp, "gc"),
                   PPROF_TMPDIR=tmp)
        if not go:
            lib.skip_part("pprof sums: no go (golang-go)")
        for by in ("files,symbols", "files,sections"):
            d = json.loads(run("report", "-i", data, "--by", by,
                               "--format", "json"))
            pss = d["total"]["pss"]
            rss = d["total"]["rss"]
            # a TOTAL of whole bytes (every page's sharers in the
            # recording, at its snapshots' moments) has no fraction to
            # lose: the sums must still be it
            if pss == int(pss):
                print(f"# --by {by}: the TOTAL PSS {pss} is whole bytes")
            folded = run("report", "-i", data, "--by", by, "-F", "pss",
                         "--format", "folded")
            lines = folded.splitlines()
            fsum = sum(int(x.rsplit(" ", 1)[1]) for x in lines)
            check(fsum in rounded(pss),
                  f"--by {by}: {len(lines)} folded lines add up to "
                  f"{fsum}, the TOTAL PSS {pss} rounded")
            if not go:
                continue
            prof = os.path.join(tmp, "p.pb.gz")
            with open(prof, "wb") as f:
                f.write(run("report", "-i", data, "--by", by, "--format",
                            "pprof", binary=True))
            sums = pprof_sums(prof, env)
            check(sums.get("pss") in rounded(pss),
                  f"--by {by}: pprof's pss samples add up to "
                  f"{sums.get('pss')}, the TOTAL PSS {pss} rounded")
            check(sums.get("rss") == rss,
                  f"--by {by}: pprof's rss samples add up to "
                  f"{sums.get('rss')}, the TOTAL RSS {rss}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
