#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3305: the default sample type of `--format pprof` when --sort names a
column --fields leaves out.

The profile's default sample type is the --sort column; with
`-F rss,pss --sort dirty` DIRTY is no sample type, and the profile named
none, so `go tool pprof` showed its last one (PSS), neither the sort
column nor the first field. It must then be the first of --fields, as
--format folded prints it. The profile's default_sample_type (field 14,
an index into its string table, field 6), unpacked here from the
gzipped protocol buffer with no go needed, must name that column; and,
where go is installed, `pprof -top` of a recording of
`sh -c 'sleep 0.1'` (made here) totals the json TOTAL's RSS, and with
`-F pss,rss --sort dirty` (PSS needs root) its PSS in whole bytes;
`--sort rss` with `-F pss,rss` keeps RSS the default.
"""
import gzip
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


def default_type(prof):
    """The type named by the profile's default_sample_type, or None."""
    with gzip.open(prof) as f:
        msg = lib.pb_fields(f.read())
    strs = [v for k, v in msg if k == 6]
    dflt = [v for k, v in msg if k == 14]
    return strs[dflt[-1]].decode() if dflt and dflt[-1] else None


def wholes(v):
    """The whole numbers of bytes a TOTAL v of the json may stand for:
    memsz rounds its fixed-point sum half up, and the json's two decimals
    cannot tell .495 from .504, so a fraction printed as .50 allows
    either neighbour (Python's round() makes 543278.5 543278)."""
    lo = math.floor(v)
    frac = round(v - lo, 2)
    if frac == 0.5:
        return [lo, lo + 1]
    return [lo + (frac > 0.5)]


def main():
    go = shutil.which("go")
    if not go:
        lib.skip_part("go (golang-go) is not installed: go tool pprof "
                      "not run")
    with tempfile.TemporaryDirectory(prefix="memsz-t3305-") as tmp:
        env = lib.go_env(tmp)
        data = os.path.join(tmp, "s.data")
        subprocess.run([MEMSZ, "record", "-o", data, "--", "sh", "-c",
                        "sleep 0.1"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=True)
        out = subprocess.run([MEMSZ, "report", "-i", data, "--format",
                              "json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, check=True).stdout
        total = json.loads(out)["total"]
        cases = [(["-F", "rss,pss", "--sort", "dirty"], "rss"),
                 (["-F", "pss,rss", "--sort", "rss"], "rss")]
        if "pss" in total:
            cases.append((["-F", "pss,rss", "--sort", "dirty"], "pss"))
        else:
            lib.skip_part("no PSS in the recording (not root)")
        prof = os.path.join(tmp, "s.pb.gz")
        for args, col in cases:
            with open(prof, "wb") as f:
                subprocess.run([MEMSZ, "report", "-i", data, *args,
                                "--format", "pprof"], stdout=f,
                               stderr=subprocess.PIPE, check=True)
            got = default_type(prof)
            check(got == col, "%s: the profile's default_sample_type is "
                  "%s (%s)" % (" ".join(args), col, got))
            if not go:
                continue
            top = subprocess.run(["go", "tool", "pprof", "-top", "-unit=B",
                                  prof], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=env).stdout
            m = re.search(r"of (\d+)B total", top)
            got = int(m.group(1)) if m else None
            want = wholes(total[col])
            check(got in want,
                  "%s: pprof -top shows %s (%s B; the TOTAL's %s is %s: %s)"
                  % (" ".join(args), col, got, col, total[col],
                     " or ".join(map(str, want))))


main()
sys.exit(lib.finish())
