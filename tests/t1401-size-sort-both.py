#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`--sort both`: rows by the larger of FILE SIZE and VM SIZE (Bloaty's
-s both), in `memsz size` and `memsz diff`.

Ground truth is readelf -SW (binutils), which shares no code with memsz:
  - size --by sections --sort both lists the sections in the order of
    max(file size, VM size) that readelf's sizes give (NOBITS: no file
    size; not SHF_ALLOC: no VM size; .tbss none), largest first, ties by
    name; a 1 MiB .bss comes first, where --sort file puts it last;
  - it is an order of values: the table folds rows past -n (default 20);
  - diff --sort both orders sections by the larger change of the two,
    from the two files' readelf sizes: the .bss that grew comes first;
  - where Bloaty is built, its -s both -d sections orders the sections
    both tools size alike the same way (else skipped, saying so).
"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check, readelf  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")

SRC = r"""
static char pool[%d];
const char table[%d] = {1};
char *use(int i) { pool[i] = table[i]; return pool; }
int main(int argc, char **argv) { return *use(argc) + (argv != 0); }
"""


def build(tmp, name, bss, ro):
    src = os.path.join(tmp, name + ".c")
    with open(src, "w") as f:
        f.write(SRC % (bss, ro))
    out = os.path.join(tmp, name)
    subprocess.run(["gcc", "-O1", "-o", out, src], check=True)
    return out


def readelf_sizes(path):
    """{section: (file, vm)} from readelf -SW."""
    got = {}
    for line in readelf(["-SW"], path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)\s", line)
        if not m or m.group(2) == "NULL":
            continue
        size, flags = int(m.group(3), 16), m.group(4)
        tbss = m.group(2) == "NOBITS" and "T" in flags
        got[m.group(1)] = (0 if m.group(2) == "NOBITS" else size,
                           size if "A" in flags and not tbss else 0)
    return got


def memsz_rows(*args):
    out = subprocess.run([MEMSZ, *args], capture_output=True, text=True)
    if out.returncode:
        lib.fail("memsz %s: %s" % (" ".join(args), out.stderr))
    return out.stdout


def order(sizes, names):
    return sorted(names, key=lambda n: (-max(sizes[n]), n.encode()))


def check_size(prog):
    truth = readelf_sizes(prog)
    out = memsz_rows("size", "--by", "sections", "--sort", "both", "-n", "0",
                     "--format", "csv", prog)
    got = [r["sections"] for r in csv.DictReader(io.StringIO(out))]
    mine = [n for n in got if n in truth and max(truth[n])]
    check(mine == order(truth, mine),
          "--sort both: sections in readelf's max(file, vm) order: %s"
          % mine[:6])
    check(mine and mine[0] == ".bss",
          "--sort both: the 1 MiB .bss first (%s)" % mine[:1])
    out = memsz_rows("size", "--by", "sections", "--sort", "file", "-n", "0",
                     "--format", "csv", prog)
    byfile = [(r["sections"], int(r["file_size"]))
              for r in csv.DictReader(io.StringIO(out))]
    at = [n for n, _ in byfile].index(".bss")
    check(not any(f for _, f in byfile[at:]),
          "--sort file: .bss (no file bytes) after every row with some")
    out = memsz_rows("size", "--by", "sections", "--sort", "both", "-n", "3",
                     prog)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    check(re.search(r"\[\d+ others\]", out) and ".bss" in lines[2],
          "--sort both -n 3: three rows, .bss first, the rest folded")
    return got


def check_diff(tmp, old):
    new = build(tmp, "new", 4 << 20, 8192)
    a, b = readelf_sizes(old), readelf_sizes(new)
    change = {n: max(abs(b[n][0] - a[n][0]), abs(b[n][1] - a[n][1]))
              for n in a if n in b}
    out = memsz_rows("diff", "--by", "sections", "--sort", "both", "-n",
                     "0", "--format", "csv", old, new)
    got = [r["sections"] for r in csv.DictReader(io.StringIO(out))
           if r["sections"] in change and change[r["sections"]]]
    want = sorted(got, key=lambda n: (-change[n], n.encode()))
    check(got and got == want and got[0] == ".bss",
          "diff --sort both: by the larger change of the two (%s)" % got)


def check_bloaty(prog, got):
    bloaty = lib.bloaty_path()
    if not bloaty:
        # Bloaty is not in Debian: the comparison with it is an extra
        # beside the binutils checks above, which always run
        print("# Bloaty is not built here (set BLOATY=PATH): "
              "--sort both not compared with bloaty -s both")
        return
    out = subprocess.run([bloaty, "--csv", "-s", "both", "-d", "sections",
                          "-n", "0", prog], capture_output=True, text=True,
                         check=True).stdout
    theirs = {r["sections"]: (int(r["filesize"]), int(r["vmsize"]))
              for r in csv.DictReader(io.StringIO(out))}
    csvout = memsz_rows("size", "--by", "sections", "--format", "csv",
                        "-n", "0", prog)
    ours = {r["sections"]: (int(r["file_size"]), int(r["vm_size"]))
            for r in csv.DictReader(io.StringIO(csvout))}
    same = [n for n in theirs if ours.get(n) == theirs[n] and max(ours[n])]
    # ties: Bloaty's order among equal sizes is not by name
    def ranks(seq):
        return [max(ours[n]) for n in seq]
    mine = [n for n in got if n in same]
    check(len(same) > 4 and ranks(mine) == ranks(same),
          "bloaty -s both orders the %d sections sized alike as memsz "
          "does" % len(same))


def main():
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            lib.skip("%s not installed" % tool)
    with tempfile.TemporaryDirectory() as tmp:
        prog = build(tmp, "old", 1 << 20, 4096)
        got = check_size(prog)
        check_diff(tmp, prog)
        check_bloaty(prog, got)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
