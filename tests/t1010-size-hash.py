#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols`: the words of .hash and .gnu.hash
that name one symbol are charged to that symbol.

A shared library built here with -Wl,--hash-style=both exports functions
and objects. Ground truth: readelf --dyn-syms (symbol indices, sizes) and
the tables' own bytes (readelf -SW gives where they are; the layouts are
the gABI's .hash and GNU's .gnu.hash):
  - .hash: each symbol owns its chain word and the bucket words whose
    chain starts with it;
  - .gnu.hash: each symbol from symoffset on owns its hash-value word and
    the buckets that start with it;
  - compileunits charge the same bytes to the library's unit.
"""
import csv
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, readelf, check  # noqa: E402

SOURCE = "".join("int fn_%d(int x) { return x * %d + 1; }\n"
                 "int obj_%d[%d] = { %d };\n" % (i, i + 2, i, i + 1, i)
                 for i in range(24))


def rows(path, key):
    r = subprocess.run([MEMSZ, "size", "--by", key, "-n", "0", "--format",
                        "csv", path], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr)
    return list(csv.DictReader(io.StringIO(r.stdout)))


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t1010-")
    try:
        src = os.path.join(tmp, "h.c")
        with open(src, "w") as f:
            f.write(SOURCE)
        lib_so = os.path.join(tmp, "libh.so")
        subprocess.run(["gcc", "-O2", "-g", "-shared", "-fPIC",
                        "-Wl,--hash-style=both", "-o", lib_so, src],
                       check=True)
        secs = {}
        for line in readelf(["-SW"], lib_so).splitlines():
            m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+"
                         r"([0-9a-f]+)\s+([0-9a-f]+)", line)
            if m:
                secs[m.group(1)] = (int(m.group(2), 16),
                                    int(m.group(3), 16))
        names = {}
        for line in readelf(["--dyn-syms"], lib_so).splitlines():
            f = line.split()
            if len(f) >= 8 and f[0].endswith(":") and \
                    f[3] in ("FUNC", "OBJECT") and f[6] != "UND" and \
                    int(f[2], 0) > 0:
                names[int(f[0][:-1])] = f[7]
        with open(lib_so, "rb") as f:
            blob = f.read()
        want = {".hash": {}, ".gnu.hash": {}}
        off, _ = secs[".hash"]
        nb, nc = struct.unpack_from("<II", blob, off)
        for b in range(nb):
            y = struct.unpack_from("<I", blob, off + 8 + 4 * b)[0]
            if y in names:
                want[".hash"][names[y]] = want[".hash"].get(names[y], 0) + 4
        for i in range(1, nc):
            if i in names:
                want[".hash"][names[i]] = want[".hash"].get(names[i], 0) + 4
        off, _ = secs[".gnu.hash"]
        nb, symoff, nbloom, _ = struct.unpack_from("<IIII", blob, off)
        hdr = off + 16 + 8 * nbloom
        for b in range(nb):
            y = struct.unpack_from("<I", blob, hdr + 4 * b)[0]
            if y in names:
                w = want[".gnu.hash"]
                w[names[y]] = w.get(names[y], 0) + 4
        for i in names:
            if i >= symoff:
                w = want[".gnu.hash"]
                w[names[i]] = w.get(names[i], 0) + 4
        check(len(names) >= 48, "readelf --dyn-syms: %d defined symbols"
              % len(names))

        got = {".hash": {}, ".gnu.hash": {}}
        for r in rows(lib_so, "sections,symbols"):
            if r["sections"] in got and not r["symbols"].startswith("["):
                got[r["sections"]][r["symbols"]] = int(r["file_size"])
        for sec in got:
            check(got[sec] == want[sec], "%s: per-symbol bytes equal the "
                  "words naming each symbol (%d symbols, %d bytes)"
                  % (sec, len(want[sec]), sum(want[sec].values())))
        cu = {}
        for r in rows(lib_so, "sections,compileunits"):
            if r["compileunits"] == src:
                cu[r["sections"]] = int(r["file_size"])
        for sec in got:
            check(cu.get(sec) == sum(want[sec].values()),
                  "%s: the unit h.c holds its symbols' words (%s == %d)"
                  % (sec, cu.get(sec), sum(want[sec].values())))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
