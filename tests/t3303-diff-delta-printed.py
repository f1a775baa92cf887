#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3303: in `memsz diff`'s csv and json, each change is NEW - OLD of the
numbers printed beside it.

PSS is printed with two decimals. The change was the exact change
rounded on its own, so a row could read OLD 9527209.19, NEW 20299512.47,
change +10772303.29, one cent off what anyone subtracting the two gets.
Two recordings of `sh -c 'sleep 0.1'` (made here; PSS needs the page
frames, so root) are compared --by files,symbols, a few thousand rows
of PSS in hundredths: in csv (pss_old, pss_new, pss_delta) and json
({"old", "new", "delta"}, rows and TOTAL), every column of every row
must have delta == new - old, in exact decimal arithmetic.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def out(*args):
    return subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          check=True).stdout


def main():
    if os.geteuid() != 0:
        lib.skip("PSS needs the page frame numbers: run as root")
    with tempfile.TemporaryDirectory(prefix="memsz-t3303-") as tmp:
        data = []
        for n in ("a", "b"):
            data.append(os.path.join(tmp, n + ".data"))
            subprocess.run([MEMSZ, "record", "-o", data[-1], "--", "sh",
                            "-c", "sleep 0.1"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=True)
        by = ["--by", "files,symbols", "-n", "0"]
        rows = list(csv.DictReader(io.StringIO(out(
            "diff", *data, *by, "--format", "csv"))))
        if "pss_delta" not in (rows[0] if rows else {}):
            lib.skip("the recordings have no PSS")
        cols = [k[:-6] for k in rows[0] if k.endswith("_delta")]
        bad, frac = [], 0
        for r in rows:
            for c in cols:
                o, n, d = (Decimal(r[c + s]) for s in
                           ("_old", "_new", "_delta"))
                frac += c == "pss" and o != int(o)
                if n - o != d:
                    bad.append((r["symbols"], c, r[c + "_old"],
                                r[c + "_new"], r[c + "_delta"]))
        check(frac > 10, "csv: PSS has fractions (%d rows)" % frac)
        check(not bad, "csv: every delta is new - old as printed (%d of "
              "%d rows not: %r)" % (len(bad), len(rows), bad[:2]))

        doc = json.loads(out("diff", *data, *by, "--format", "json"),
                         parse_float=Decimal)
        bad, seen = [], 0

        def walk(name, r):
            nonlocal seen
            for c, v in r.items():
                if isinstance(v, dict) and "delta" in v:
                    seen += 1
                    if Decimal(v["new"]) - Decimal(v["old"]) != \
                            Decimal(v["delta"]):
                        bad.append((name, c, v))
            for ch in r.get("rows", []):
                walk(ch.get("name"), ch)
        walk("TOTAL", doc["total"])
        for r in doc["rows"]:
            walk(r.get("name"), r)
        check(seen > len(rows) and not bad,
              "json: every delta is new - old as printed (%d of %d not: "
              "%r)" % (len(bad), seen, bad[:2]))


main()
sys.exit(lib.finish())
