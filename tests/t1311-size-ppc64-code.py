#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of big-endian powerpc64 (ELFv1)
files: a function's code carries its name, as its descriptor does.

In the ELFv1 ABI a function symbol's value is its descriptor in .opd
(entry address, TOC pointer, environment); its st_size is the size of
its code, at the entry address, in .text. memsz charged the 24-byte
descriptor to the function (t1306) but left the code "[section .text]":
no symbol's value points there (clang writes no dot-symbols).

Ground truth: readelf -s (each function's descriptor address and
st_size), and the entry address each kind of file keeps: a .o's
R_PPC64_ADDR64 relocation of the descriptor (.text + addend: readelf
-r), a shared object's R_PPC64_RELATIVE one (ld.lld leaves the .opd
bytes 0: readelf -r), an executable's .opd bytes (readelf -x .opd).
A stripped copy of the shared object is named by .dynsym alike.
Each function must own exactly st_size bytes of .text from its entry
address, file and VM, and FILE SIZE sum to the file's size (I1).
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


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def opd_funcs(path):
    """{name: (descriptor address, st_size)} of the FUNC symbols in .opd"""
    ndx = None
    for line in readelf(["-S"], path).splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 1 and f[1] == ".opd":
            ndx = f[0].strip("[]")
    out = {}
    for line in readelf(["-s"], path).splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[6] == ndx:
            out[f[7]] = (int(f[1], 16), int(f[2]))
    return out


def entries(path, kind):
    """{descriptor address: entry address} of readelf's view of path"""
    out = {}
    secs = lib.sections(path)
    if kind == "exe":
        addr = None
        for line in readelf(["-x", ".opd"], path).splitlines():
            m = re.match(r"\s*0x([0-9a-f]+)((?: [0-9a-f]{8}){1,4})", line)
            if m:
                base = int(m.group(1), 16)
                if addr is None:
                    addr, raw = base, ""
                raw += m.group(2).replace(" ", "")
        for off in range(0, len(raw) // 2 - 7, 24):
            out[addr + off] = int(raw[2 * off:2 * off + 16], 16)
        return out
    text = secs[".text"][0]
    for line in readelf(["-r"], path).splitlines():
        f = line.split()
        if kind == "so" and len(f) == 4 and f[2] == "R_PPC64_RELATIVE":
            out[int(f[0], 16)] = int(f[3], 16)
        if (kind == "o" and len(f) == 7 and f[2] == "R_PPC64_ADDR64" and
                f[4] == ".text"):
            out[secs[".opd"][0] + int(f[0], 16)] = text + int(f[6], 16)
    return out


def check_file(path, kind):
    name = os.path.basename(path)
    funcs = opd_funcs(path)
    ent = entries(path, kind)
    text, _off, tsize, _fl = lib.sections(path)[".text"]
    want = {}
    for fn, (desc, size) in funcs.items():
        e = ent.get(desc)
        if e is not None and text <= e < text + tsize:
            want[fn] = size
    check(len(want) == 3 and len(want) == len(funcs),
          "%s: readelf finds the code of %s (of %s)"
          % (name, sorted(want), sorted(funcs)))
    out = run([MEMSZ, "size", "--no-disasm", "--demangle", "none", "--by",
               "sections,symbols", "-n", "0", "--format", "csv", path])
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {}
    for r in rows:
        if r["sections"] == ".text":
            got[r["symbols"]] = (int(r["file_size"]), int(r["vm_size"]))
    for fn, size in sorted(want.items()):
        check(got.get(fn) == (size, size),
              "%s: %s owns its %d bytes of code in .text (got %s)"
              % (name, fn, size, got.get(fn)))
    check(sum(int(r["file_size"]) for r in rows) == os.path.getsize(path),
          "%s: FILE SIZE sums to the file's size (I1)" % name)


def main():
    for tool in ("clang", "ld.lld"):
        if not shutil.which(tool):
            lib.skip("%s is not installed" % tool)
    with tempfile.TemporaryDirectory(prefix="memsz-t1311-") as tmp:
        src = os.path.join(tmp, "f.c")
        obj = os.path.join(tmp, "f.o")
        with open(src, "w") as f:
            f.write(SRC)
        run(["clang", "--target=powerpc64-linux-gnu", "-O1", "-c", "-o",
             obj, src])
        if ".opd" not in lib.sections(obj):
            lib.skip("clang wrote no .opd (not ELFv1)")
        check_file(obj, "o")
        so = os.path.join(tmp, "f.so")
        exe = os.path.join(tmp, "f")
        r = subprocess.run(["ld.lld", "-shared", "-o", so, obj],
                           capture_output=True, text=True)
        if r.returncode:
            lib.skip_part("ld.lld does not link ELFv1: %s" % r.stderr[-200:])
        else:
            check_file(so, "so")
            # stripped: the names of .dynsym
            if shutil.which("llvm-strip"):
                stripped = os.path.join(tmp, "f-stripped.so")
                run(["llvm-strip", "-o", stripped, so])
                check(".symtab" not in lib.sections(stripped),
                      "llvm-strip left no .symtab")
                check_file(stripped, "so")
        r = subprocess.run(["ld.lld", "-e", "main", "-o", exe, obj],
                           capture_output=True, text=True)
        if r.returncode:
            lib.skip_part("ld.lld does not link ELFv1: %s" % r.stderr[-200:])
        else:
            check_file(exe, "exe")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
