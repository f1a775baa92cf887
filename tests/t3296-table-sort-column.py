#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3296: the table shows the column its rows are sorted by.

The table's default columns (FILE SIZE, VM SIZE, RSS, PSS, DIRTY; a diff's
non-zero ones) left out the --sort column when it was not one of them
(report --sort swap, --sort uss) or dropped it first to fit 120 columns
(diff --sort vm, --sort both: VM SIZE and FILE SIZE go first), so the rows
came in an order nothing shown explained. Two recordings of a shell
running ls, and two builds of a program, made here; at --width 120:
 - report --sort swap, --sort uss: the header has SWAP, USS;
 - diff --sort vm, --sort uss of the recordings: VM SIZE, USS;
 - diff --sort both: FILE SIZE and VM SIZE, of recordings and of ELF
   files;
 - --sort name and the default keep the default columns (no extra one);
 - --fields that leave out the --sort column get it after them in the
   table (perf adds its sort keys to -F the same way), not in csv;
 - diff's csv compares the columns report's csv has (not CHARGE outside
   -G: diff showed it where report leaves it out);
 - --sort charge of plain recordings (CHARGE is left out of their
   default columns) shows CHARGE, in report and diff, table and csv, the
   rows in its order: it was dropped from the columns before the sorted
   column was kept.
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


def header(*args):
    r = subprocess.run([MEMSZ, *args, "--width", "120", "-n", "3"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode:
        lib.fail(" ".join(args) + " exits 0: " + r.stderr.strip()[-200:])
    return r.stdout.splitlines()[0]


def main():
    if not shutil.which("gcc"):
        lib.skip("no gcc")
    with tempfile.TemporaryDirectory(prefix="memsz-t3296-") as tmp:
        recs = []
        for n in ("a", "b"):
            data = os.path.join(tmp, n + ".data")
            r = subprocess.run([MEMSZ, "record", "-o", data, "--", "sh",
                                "-c", "ls / >/dev/null"],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if r.returncode:
                lib.fail("record exits 0: " + r.stderr.strip()[-200:])
            recs.append(data)
        progs = []
        for n, size in (("p1", 1000), ("p2", 90000)):
            src, exe = os.path.join(tmp, n + ".c"), os.path.join(tmp, n)
            with open(src, "w") as f:
                f.write("static const char t[%d] = {1};\n"
                        "int main(int c, char **v) { (void)v; "
                        "return t[c]; }\n" % size)
            subprocess.run(["gcc", "-O1", "-o", exe, src], check=True)
            progs.append(exe)

        for sort, col in (("swap", "SWAP"), ("uss", "USS"),
                          ("charge", "CHARGE")):
            h = header("report", "-i", recs[0], "--sort", sort)
            check(col in h, f"report --sort {sort}: the header has {col}: "
                  f"{h.split()}")
        for sort, cols in (("vm", ["VM SIZE"]), ("uss", ["USS"]),
                           ("charge", ["CHARGE"]),
                           ("both", ["FILE SIZE", "VM SIZE"])):
            h = header("diff", "--sort", sort, *recs)
            check(all(c in h for c in cols),
                  f"diff --sort {sort} of recordings: the header has "
                  f"{cols}: {h.strip()}")
        h = header("diff", "--sort", "both", *progs)
        check("FILE SIZE" in h and "VM SIZE" in h,
              f"diff --sort both of ELF files: FILE SIZE and VM SIZE: "
              f"{h.strip()}")
        # --fields that leave the --sort column out: the table adds it
        # after them (as perf adds its sort keys to -F); csv keeps the
        # columns asked for
        for cmd in (["report", "-i", recs[0]], ["diff", *recs]):
            h = header(*cmd, "-F", "rss,pss", "--sort", "dirty")
            check(h.split() == ["RSS", "PSS", "DIRTY"],
                  f"{cmd[0]} -F rss,pss --sort dirty: RSS, PSS, then "
                  f"DIRTY: {h.split()}")
            h = header(*cmd, "-F", "rss,pss", "--sort", "name")
            check(h.split() == ["RSS", "PSS"],
                  f"{cmd[0]} -F rss,pss --sort name: RSS and PSS only: "
                  f"{h.split()}")
        h = header("report", "-i", recs[0], "-F", "rss", "--sort", "dirty",
                   "--format", "csv")
        check(h.split(",")[1:] == ["rss"],
              f"report -F rss --sort dirty --format csv: the rss column "
              f"only: {h}")
        dflt = header("report", "-i", recs[0])
        check(header("report", "-i", recs[0], "--sort", "name") == dflt,
              "report --sort name: the default columns")
        check("SWAP" not in dflt and "USS" not in dflt,
              f"report: the default columns only ({dflt.strip()})")
        rep = subprocess.run([MEMSZ, "report", "-i", recs[0], "--format",
                              "csv"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True).stdout
        dif = subprocess.run([MEMSZ, "diff", "--format", "csv", *recs],
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True).stdout
        rcols = set(rep.splitlines()[0].split(",")[1:]) - {
            "processes", "res_pct"}
        dcols = {c.rsplit("_", 1)[0] for c in
                 dif.splitlines()[0].split(",")[1:] if c != "change"}
        check(rcols == dcols, f"diff's csv columns {sorted(dcols)} are "
              f"report's {sorted(rcols)}")
        # a plain recording sorted by CHARGE (left out of its default
        # columns outside -G) has it, in csv too, in that order
        for cmd in (["report", "-i", recs[0]], ["diff", *recs]):
            out = subprocess.run([MEMSZ, *cmd, "--sort", "charge",
                                  "--format", "csv", "-n", "0"],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True).stdout
            lines = out.splitlines()
            hdr = lines[0].split(",") if lines else []
            col = "charge" if cmd[0] == "report" else "charge_delta"
            check(col in hdr, f"{cmd[0]} --sort charge --format csv: a "
                  f"{col} column: {hdr}")
            if col in hdr:
                i = hdr.index(col)
                v = [abs(float(ln.split(",")[i] or 0)) for ln in lines[1:]]
                check(v == sorted(v, reverse=True),
                      f"{cmd[0]} --sort charge: rows in its order {v}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
