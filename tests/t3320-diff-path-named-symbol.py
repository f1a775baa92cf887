#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3320: a diff of two ELF files pairs OLD's path with NEW's at the
files level only, not a symbol spelled as OLD's path.

`memsz diff OLD NEW` compares two builds that may have other names: under
the files key (and inputfiles, armembers) OLD's path stands for NEW's.
The labels of every key are one table, and the rename was made at every
level, so a symbol spelled as OLD's path (a program `keep` with an array
`keep`, a program `main`...) was compared with NEW's symbol spelled as
NEW's path: its row said [new], and OLD's bytes of it were the OLD of
another symbol, which then had two rows. Two programs are built here,
`keep` (OLD) and `grow` (NEW), each with arrays `keep` and `grow`, of the
sizes `nm -S` reads back; run in their directory, `memsz diff --by
symbols keep grow` must:
 - list no symbol twice (csv and json);
 - leave out `keep` (nm gives it the same size in both) or show it as
   changed, never [new] or [gone] (nm lists it in both files);
 - show `grow` as changed by the change of its nm size;
and, with `--by files,symbols`, give the one file row NEW's name.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = r"""
char keep[4096] = {1};
char grow[%d] = {2};
int main(int argc, char **argv)
{
	(void)argv;
	return keep[argc] + grow[argc];
}
"""


def diff(tmp, by, fmt):
    r = subprocess.run([MEMSZ, "diff", "--by", by, "-n", "0", "--width",
                        "0", "--format", fmt, "keep", "grow"], cwd=tmp,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(r.returncode == 0, f"diff --by {by} --format {fmt} exits 0"
          + ("" if r.returncode == 0 else ": " + r.stderr.strip()[-200:]))
    return r.stdout


def main():
    for tool in ("gcc", "nm"):
        if not shutil.which(tool):
            lib.skip(f"no {tool}")
    with tempfile.TemporaryDirectory(prefix="memsz-t3320-") as tmp:
        for name, size in (("keep", 1024), ("grow", 3072)):
            src = os.path.join(tmp, name + ".c")
            with open(src, "w") as f:
                f.write(SRC % size)
            subprocess.run(["gcc", "-O1", "-o", os.path.join(tmp, name),
                            src], check=True)
        a = lib.nm_sizes(os.path.join(tmp, "keep"))
        b = lib.nm_sizes(os.path.join(tmp, "grow"))
        if a.get("keep") != 4096 or b.get("keep") != 4096 or \
                a.get("grow") != 1024 or b.get("grow") != 3072:
            lib.skip(f"nm gives other sizes: {a}, {b}")

        rows = list(csv.DictReader(io.StringIO(diff(tmp, "symbols",
                                                    "csv"))))
        names = [r["symbols"] for r in rows]
        check(len(names) == len(set(names)),
              f"csv: no symbol twice ({sorted(names)})")
        by = {r["symbols"]: r for r in rows}
        k = by.get("keep")
        check(k is None or k["change"] == "changed",
              "csv: keep, in both files by nm, is left out or changed, "
              f"not {k and k['change']}")
        g = by.get("grow")
        check(g is not None and g["change"] == "changed",
              f"csv: grow is changed ({g and g['change']})")
        if g:
            d = int(g["vm_size_delta"])
            check(d == b["grow"] - a["grow"],
                  f"csv: grow's VM SIZE change {d} is nm's "
                  f"{b['grow'] - a['grow']}")
            check(int(g["vm_size_old"]) < int(g["vm_size_new"]),
                  f"csv: grow's OLD {g['vm_size_old']} is less than its "
                  f"NEW {g['vm_size_new']} (OLD's keep is not OLD's grow)")

        j = json.loads(diff(tmp, "symbols", "json"))
        names = [r["name"] for r in j["rows"]]
        check(len(names) == len(set(names)),
              f"json: no symbol twice ({sorted(names)})")
        check(all(r["change"] not in ("new", "gone") for r in j["rows"]
                  if r["name"] in ("keep", "grow")),
              "json: keep and grow are neither new nor gone")

        j = json.loads(diff(tmp, "files,symbols", "json"))
        files = [r["name"] for r in j["rows"]]
        check(files == ["grow"],
              f"json --by files,symbols: one file row, NEW's ({files})")
        if files == ["grow"]:
            syms = [r["name"] for r in j["rows"][0].get("rows", [])]
            check(len(syms) == len(set(syms)) and "grow" in syms,
                  f"json --by files,symbols: grow once ({syms})")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
