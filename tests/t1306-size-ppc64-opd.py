#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of a big-endian powerpc64 (ELFv1)
object: a function's symbol names its descriptor in .opd.

In the ELFv1 ABI a function symbol's value is the address of its
function descriptor in .opd (entry address, TOC pointer, environment: 3
doublewords, 24 bytes), while its st_size is the size of its code. memsz
once charged st_size bytes of .opd from the descriptor on, to the next
symbol: name (32 bytes of code) took 8 bytes of main's descriptor, vfoo
(20) left 4 of its own to [padding].

Ground truth: readelf -s (each function's value in .opd), readelf -S
(.opd's size), the ABI's 24-byte descriptor: every function owns its own
24 bytes of .opd, in file and VM, and I1 holds.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, readelf  # noqa: E402

SRC = r'''
static int impl1(void) { return 1; }
static int (*resolve(void))(void) { return impl1; }
int vfoo(void) { return 7; }
const char *name(int i) { static const char *n[4] = {"a"}; return n[i & 3]; }
int main(int c, char **v)
{
	return vfoo() + name(c)[0] + v[0][0] + resolve()() + c * 3 + c / 7;
}
'''

DESC = 24  # ELFv1 function descriptor: entry, TOC, environment


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def main():
    if not shutil.which("clang"):
        lib.skip("clang is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1306-") as tmp:
        src = os.path.join(tmp, "f.c")
        obj = os.path.join(tmp, "f.o")
        with open(src, "w") as f:
            f.write(SRC)
        run(["clang", "--target=powerpc64-linux-gnu", "-O1", "-c", "-o",
             obj, src])
        secs = lib.sections(obj)
        if ".opd" not in secs:
            lib.skip("clang wrote no .opd (not ELFv1)")
        opd_ndx = None
        for line in readelf(["-S"], obj).splitlines():
            f = line.replace("[ ", "[").split()
            if len(f) > 1 and f[1] == ".opd":
                opd_ndx = f[0].strip("[]")
        funcs = {}
        for line in readelf(["-s"], obj).splitlines():
            f = line.split()
            if len(f) == 8 and f[3] == "FUNC" and f[6] == opd_ndx:
                funcs[f[7]] = (int(f[1], 16), int(f[2]))
        check(any(size > DESC for _v, size in funcs.values()),
              "a function's st_size is its code's, over %d (readelf -s: "
              "%s)" % (DESC, funcs))
        out = run([MEMSZ, "size", "--no-disasm", "--demangle", "none",
                   "--by", "sections,symbols", "-n", "0", "--format", "csv",
                   obj])
        got = {}
        for r in csv.DictReader(io.StringIO(out)):
            if r["sections"] == ".opd":
                got[r["symbols"]] = (int(r["file_size"]), int(r["vm_size"]))
                for a in filter(None, r["aliases"].split(";")):
                    got[a] = got[r["symbols"]]
        for name, (value, _size) in sorted(funcs.items()):
            check(got.get(name) == (DESC, DESC),
                  "%s owns its descriptor, %d bytes of .opd at %#x "
                  "(got %s)" % (name, DESC, value, got.get(name)))
        rows = [r for r in csv.DictReader(io.StringIO(out))]
        check(sum(int(r["file_size"]) for r in rows) ==
              os.path.getsize(obj),
              "FILE SIZE sums to the file's size (I1)")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
