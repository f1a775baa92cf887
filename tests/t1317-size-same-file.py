#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1317: `memsz size` reads a file given twice, or under two names, once.

FILE SIZE is the bytes of the files on disk (invariant I1), so a file
named twice on the command line must not count twice. A shared library
built here is given as FILE FILE, through a symbolic link and through a
hard link, beside a second library. Ground truth: os.stat() sizes and
readelf's PT_LOAD p_memsz sums.
 - the TOTAL's FILE SIZE is the sum of the two distinct files' sizes, its
   VM SIZE the sum of their PT_LOAD p_memsz;
 - `--by files` shows each file once, under the name given first;
 - a note names each argument left out and the one it repeats;
 - two different files keep their own rows (a copy is no link).
"""
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
from memsz_testlib import MEMSZ, readelf, check  # noqa: E402


def vm_size(path):
    """The sum of the PT_LOAD p_memsz of path, from readelf -lW."""
    total = 0
    for line in readelf(["-lW"], path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            total += int(f[5], 16)
    return total


def size_json(*paths):
    r = subprocess.run([MEMSZ, "size", "--by", "files", "-n", "0",
                        "--format", "json"] + list(paths),
                       capture_output=True, text=True)
    check(r.returncode == 0, "size exits 0: " + r.stderr.strip())
    return json.loads(r.stdout) if r.returncode == 0 else None


def main():
    if not shutil.which("gcc") or not shutil.which("readelf"):
        lib.skip("gcc or readelf (binutils) is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t1317-")
    try:
        src = os.path.join(tmp, "a.c")
        with open(src, "w") as f:
            f.write("int a_fn(int x) { return x + 1; }\n"
                    "int a_obj[64] = { 1 };\n")
        a = os.path.join(tmp, "liba.so")
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", a, src],
                       check=True)
        b = os.path.join(tmp, "libb.so")
        shutil.copyfile(a, b)  # the same bytes, another file
        sym = os.path.join(tmp, "sym.so")
        os.symlink(a, sym)
        hard = os.path.join(tmp, "hard.so")
        os.link(a, hard)
        want_file = os.stat(a).st_size + os.stat(b).st_size
        want_vm = vm_size(a) + vm_size(b)

        d = size_json(a, a, sym, b, hard)
        if d is None:
            return
        check(d["total"]["file_size"] == want_file,
              "TOTAL FILE SIZE is the two distinct files' sizes "
              f"({d['total']['file_size']} vs {want_file})")
        check(d["total"]["vm_size"] == want_vm,
              "TOTAL VM SIZE is their PT_LOAD p_memsz "
              f"({d['total']['vm_size']} vs {want_vm})")
        rows = {r["name"]: r["file_size"] for r in d["rows"]}
        check(rows == {a: os.stat(a).st_size, b: os.stat(b).st_size},
              f"one row each, under the name given first: {rows}")
        notes = d.get("notes", [])
        for other in (a, sym, hard):
            said = [n for n in notes if re.search(
                "'%s' is the same file as '%s'" % (re.escape(other),
                                                   re.escape(a)), n)]
            check(len(said) == 1,
                  f"a note names {os.path.basename(other)} as {a}'s "
                  f"repeat: {notes}")

        # the repeat alone: the total is the file's size
        d = size_json(sym, a)
        if d is not None:
            check(d["total"]["file_size"] == os.stat(a).st_size,
                  "a link and its file: one file's size "
                  f"({d['total']['file_size']})")
    finally:
        shutil.rmtree(tmp)
    lib.finish()


if __name__ == "__main__":
    main()
