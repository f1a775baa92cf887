#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` and `inlines` of DWARF compressed with
zstd (ELFCOMPRESS_ZSTD: objcopy --compress-debug-sections=zstd, gcc 13's
-gz=zstd).

libelf 0.188 (Debian 12) inflates zlib only, so libdw alone cannot read
such DWARF; memsz, which inflates what libdw reads itself, once inflated
zlib only too, and left every byte of such a program under fallback
labels with a note that its DWARF (or its units) could not be read.

Ground truth: readelf -t (the sections are ZSTD-compressed), nm -S (the
sizes of the unit's variables in .bss and .data), and the same program
with its DWARF not compressed: each unit's and line's VM SIZE per section
is the same. I1 holds.
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = r'''
char zbig[8192];
int ztable[200] = {1};
__attribute__((noinline)) int zget(int i) { return ztable[i % 200]; }
int main(int c, char **v) { zbig[c] = 1; return zget(c) + v[0][0]; }
'''


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout, r.stderr


def rows(path, key):
    """({(label, section): vm}, file total, vm total, stderr)."""
    out, err = run([MEMSZ, "size", "--no-disasm", "--by", key + ",sections",
                    "-n", "0", "--format", "csv", path])
    got, ft, vt = {}, 0, 0
    for r in csv.DictReader(io.StringIO(out)):
        got[(r[key], r["sections"])] = int(r["vm_size"])
        ft += int(r["file_size"])
        vt += int(r["vm_size"])
    return got, ft, vt, err


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t1308-") as tmp:
        with open(os.path.join(tmp, "z.c"), "w") as f:
            f.write(SRC)
        plain = os.path.join(tmp, "plain")
        packed = os.path.join(tmp, "packed")
        run(["gcc", "-O1", "-g", "-o", plain, "z.c"], cwd=tmp)
        r = subprocess.run(["objcopy", "--compress-debug-sections=zstd",
                            plain, packed], capture_output=True, text=True)
        if r.returncode:
            lib.skip("objcopy cannot compress with zstd: " + r.stderr[-200:])
        hdrs = lib.readelf(["-t"], packed)
        check("ZSTD" in hdrs and "ZLIB" not in hdrs,
              "readelf -t: the debug sections are ZSTD-compressed")

        want = {}
        for line in run(["nm", "-S", plain])[0].splitlines():
            f = line.split()
            if len(f) == 4 and f[3] in ("zbig", "ztable"):
                want[".bss" if f[3] == "zbig" else ".data"] = int(f[1], 16)
        vm = sum(int(f[5], 16) for f in (
            line.split() for line in lib.readelf(["-l"], packed).splitlines())
            if f and f[0] == "LOAD")
        for key in ("compileunits", "inlines"):
            base, _ft, _vt, _err = rows(plain, key)
            got, ft, vt, err = rows(packed, key)
            check((ft, vt) == (os.path.getsize(packed), vm),
                  "%s: FILE SIZE sums to the file's size, VM SIZE to the "
                  "PT_LOAD memsz (I1)" % key)
            bad = [n for n in err.splitlines() if "DWARF" in n]
            check(not bad, "%s: no note that the DWARF cannot be read "
                  "(got %s)" % (key, bad[:2]))
            diff = sorted((k, base.get(k, 0), got.get(k, 0))
                          for k in set(base) | set(got)
                          if base.get(k, 0) != got.get(k, 0) and
                          not k[1].startswith(".debug"))
            check(not diff, "%s: each label's VM SIZE per section is the "
                  "one without compression (differ: %s)" % (key, diff[:4]))
            if key == "compileunits":
                for sec, size in sorted(want.items()):
                    check(got.get(("z.c", sec)) == size,
                          "z.c owns its %d bytes of %s (nm -S) (got %s)"
                          % (size, sec, got.get(("z.c", sec))))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
