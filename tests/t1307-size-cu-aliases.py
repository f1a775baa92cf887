#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits --format csv|tsv`: the aliases column.

memsz-size(1) and README: a unit is labelled by its DW_AT_name as stored;
when that name is relative, the path joined to DW_AT_comp_dir is its alias,
listed by json under "aliases" and by csv and tsv in the aliases column.
csv and tsv once had no aliases column under compileunits (only json
listed them). Checked on a program built in its directory from "u.c"
(DWARF 4 and 5), and on a copy whose DW_AT_comp_dir dwz moved into the
dwz file (DW_FORM_GNU_strp_alt).

Ground truth: readelf -wi (DW_AT_name, DW_AT_comp_dir of the unit).
"""
import csv
import io
import json
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

SRC = "int u_table[64] = {1};\nint main(int c, char **v)\n" \
      "{ return u_table[c] + v[0][0]; }\n"


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def comp_dir(path, cwd):
    """The unit's DW_AT_comp_dir as readelf -wi prints it (run in cwd,
    where it finds the dwz file)."""
    out = run(["readelf", "-wi", path], cwd=cwd)
    m = re.search(r"DW_AT_comp_dir\s*:\s*(?:\([^)]*\):?\s*)*(\S+)\s*$",
                  out, re.M)
    return m.group(1) if m else None


def aliases(path, fmt):
    """{label: aliases} of --by compileunits in fmt (csv, tsv, json)."""
    out = run([MEMSZ, "size", "--no-disasm", "--by", "compileunits", "-n",
               "0", "--format", fmt, path])
    if fmt == "json":
        return {r["name"]: r.get("aliases", [])
                for r in json.loads(out)["rows"]}
    rows = csv.DictReader(io.StringIO(out),
                          delimiter="\t" if fmt == "tsv" else ",")
    if "aliases" not in (rows.fieldnames or []):
        return None
    return {r["compileunits"]: list(filter(None, r["aliases"].split(";")))
            for r in rows}


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t1307-") as tmp:
        with open(os.path.join(tmp, "u.c"), "w") as f:
            f.write(SRC)
        progs = []
        for v in ("4", "5"):
            name = "p%s" % v
            run(["gcc", "-O1", "-g", "-gdwarf-" + v, "-o", name, "u.c"],
                cwd=tmp)
            progs.append(name)
        if shutil.which("dwz"):
            shutil.copy(os.path.join(tmp, "p4"), os.path.join(tmp, "z1"))
            shutil.copy(os.path.join(tmp, "p4"), os.path.join(tmp, "z2"))
            run(["dwz", "-m", "zcommon", "z1", "z2"], cwd=tmp)
            progs.append("z1")
        else:
            lib.skip_part("dwz is not installed: no DW_FORM_GNU_strp_alt")
        for name in progs:
            path = os.path.join(tmp, name)
            d = comp_dir(path, tmp)
            check(d == tmp, "%s: readelf: DW_AT_comp_dir is %s (got %s)"
                  % (name, tmp, d))
            want = [os.path.join(tmp, "u.c")]
            for fmt in ("json", "csv", "tsv"):
                got = aliases(path, fmt)
                check(got is not None and got.get("u.c") == want,
                      "%s: %s lists unit u.c with the alias %s (got %s)"
                      % (name, fmt, want[0],
                         "no aliases column" if got is None
                         else got.get("u.c")))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
