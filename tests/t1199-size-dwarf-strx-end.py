#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` of a relocatable file (.o) whose
.debug_str_offsets entries point at the end of .debug_str.

clang -gdwarf-5 names a unit and its directory through DW_FORM_strx:
an entry of .debug_str_offsets, filled in by a relocation of the .o.
With each relocation's addend set to .debug_str's size, every entry
points just past the section, and libdw (0.188) hands out that pointer:
memsz read the byte after the section (fuzz_dwarf found it; the ASan
build of this test fails there). Every entry must now lie inside
.debug_str or the DWARF is not read, with a note, as for a string
section without its final NUL.

Ground truth: readelf -SW gives .debug_str's size; readelf -wi names the
unit of the unmodified file, which memsz names too; the rows' FILE SIZE
sums to the file's size, patched or not.
"""
import csv
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SOURCE = "int table[100];\nint twice(int x) { return 2 * x + table[x & 63]; }\n"


def size(obj):
    """Rows and stderr of --by compileunits (checked: exit 0, FILE SIZE
    sums to the file's size)."""
    r = subprocess.run([MEMSZ, "size", "--by", "compileunits", "--format",
                        "csv", "-n", "0", obj], capture_output=True,
                       text=True)
    name = os.path.basename(obj)
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
          f"{r.stderr.strip()[-300:]})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(obj),
          f"{name}: FILE SIZE sums to the file's size")
    return rows, r.stderr


def sections(data):
    """{name: (offset, size)} of a little-endian ELF64 file's sections."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
             for i in range(shnum)]
    strs = heads[shstrndx][4]
    out = {}
    for h in heads:
        end = data.index(b"\0", strs + h[0])
        out[data[strs + h[0]:end].decode()] = (h[4], h[5])
    return out


def main():
    if not shutil.which("clang"):
        lib.skip("clang (clang) is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1199-") as tmp:
        src, good, bad = (os.path.join(tmp, n) for n in
                          ("unit.c", "good.o", "bad.o"))
        with open(src, "w") as f:
            f.write(SOURCE)
        subprocess.run(["clang", "-gdwarf-5", "-O1", "-c", src, "-o", good],
                       check=True, cwd=tmp)
        unit = lib.dwarf_unit_name(good)
        rows, _ = size(good)
        check(any(r["compileunits"] == unit for r in rows),
              f"unmodified: the unit is named as readelf names it ({unit})")
        data = bytearray(open(good, "rb").read())
        secs = sections(data)
        if ".rela.debug_str_offsets" not in secs:
            lib.fail("clang -gdwarf-5 -c made no .rela.debug_str_offsets")
        strsize = secs[".debug_str"][1]
        off, n = secs[".rela.debug_str_offsets"]
        for e in range(off, off + n, 24):
            struct.pack_into("<q", data, e + 16, strsize)
        with open(bad, "wb") as f:
            f.write(data)
        rows, err = size(bad)
        check(not any(r["compileunits"] == unit for r in rows),
              "patched: no unit named from past .debug_str")
        check("cannot read its DWARF" in err,
              f"patched: a note says the DWARF is not read ({err.strip()})")
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
