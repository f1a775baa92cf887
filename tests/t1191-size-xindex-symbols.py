#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by symbols` of a relocatable file with more than 0xff00
sections: a symbol in a section whose index is SHN_LORESERVE or more has
st_shndx SHN_XINDEX and its index in SHT_SYMTAB_SHNDX. memsz placed such
symbols' bytes, but not their metadata: their .symtab entries and names
stayed '[section .symtab]' / '[section .strtab]' (it looked them up by
address, and a .o's symbol values are offsets into their section).

Fixture: an assembler file of 65 300 one-byte objects, each in its own
section, built with as. Ground truth: readelf -sW gives each symbol's
section index (past 0xff00 for the last ones) and size (1); every
symbol's row is its byte, its 24-byte entry and its name with its NUL,
as `nm -S` and readelf count them, whatever its section index. And the
DWARF of `as -g` over 65 600 one-byte functions, each in its own section:
its relocations name section symbols by SHN_XINDEX (one section numbered
0xfff1, SHN_ABS's value), and the one unit must hold every byte.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
N = 65300
# more than 0xffff sections: some indexes past 0xffff, one at 0xfff1
NCODE = 65600
SHN_LORESERVE = 0xff00


def main():
    for tool in ("as", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "many.s")
        obj = os.path.join(tmp, "many.o")
        with open(src, "w") as f:
            for i in range(N):
                f.write(f'.section .s{i},"a"\n.globl x{i}\n'
                        f".type x{i},@object\nx{i}: .byte 1\n"
                        f".size x{i},1\n")
        subprocess.run(["as", "-o", obj, src], check=True)
        ndx = {}
        for line in lib.readelf(["-s"], obj).splitlines():
            m = re.match(r"\s*\d+:\s+[0-9a-f]+\s+(\d+)\s+OBJECT\s+GLOBAL\s+"
                         r"\S+\s+(\d+)\s+(x\d+)$", line)
            if m and m.group(1) == "1":
                ndx[m.group(3)] = int(m.group(2))
        high = [s for s, n in ndx.items() if n >= SHN_LORESERVE]
        check(len(ndx) == N and len(high) > 10,
              f"readelf -sW: {len(ndx)} one-byte objects, {len(high)} in "
              "sections past SHN_LORESERVE")
        r = subprocess.run([MEMSZ, "size", "--by", "symbols", "--format",
                            "csv", "-n", "0", obj],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"exit 0 ({r.returncode}: "
              f"{r.stderr.strip()[-200:]})")
        rows = {x["symbols"]: x for x in csv.DictReader(r.stdout.splitlines())}
        check(sum(int(x["file_size"]) for x in rows.values()) ==
              os.path.getsize(obj), "the rows' FILE SIZE sums to the size")
        wrong = [s for s in ndx if s not in rows or
                 int(rows[s]["file_size"]) != 1 + 24 + len(s) + 1 or
                 int(rows[s]["vm_size"]) != 1]
        check(not wrong, f"every symbol is its byte, entry and name "
              f"({len(wrong)} are not, e.g. "
              f"{[(s, ndx[s], rows.get(s)) for s in wrong[:3]]})")
        # the DWARF of as -g: its ranges are relocations against section
        # symbols past SHN_LORESERVE (one of them numbered 0xfff1, the
        # value of SHN_ABS): each is applied with the index from
        # SHT_SYMTAB_SHNDX, so the unit holds every function's byte
        code = os.path.join(tmp, "code.s")
        with open(code, "w") as f:
            for i in range(NCODE):
                f.write(f'.section .t{i},"ax"\n.globl f{i}\n'
                        f".type f{i},@function\nf{i}: nop\n.size f{i},1\n")
        subprocess.run(["as", "-g", "-o", obj, code], check=True)
        r = subprocess.run([MEMSZ, "size", "--by", "compileunits",
                            "--format", "csv", "-n", "0", obj],
                           capture_output=True, text=True)
        units = {x["compileunits"]: int(x["vm_size"]) for x in
                 csv.DictReader(r.stdout.splitlines())}
        check(units.get(code) == NCODE and sum(units.values()) == NCODE,
              f"as -g, {NCODE} sections: the unit {code} holds all "
              f"{NCODE} bytes of code "
              f"({[(u, v) for u, v in units.items() if v][:4]})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
