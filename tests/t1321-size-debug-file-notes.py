#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1321: a --debug-file that matches no input is named in a note; one
that an input takes is not noted for the others.

The manual: "A file that matches no input is refused with a note". Two
libraries are built here, one stripped with its debug file beside it
(found by its .gnu_debuglink), one not stripped; a third library's debug
file matches neither. Ground truth: the build-ids `readelf -n` prints.
 - `--debug-file OTHER LIB`, LIB's own debug file found beside it: a
   note names OTHER (it was dropped silently: the found file hid it);
 - `--debug-file DBG LIB PLAIN`: DBG is LIB's, so no note calls it
   rejected (one said PLAIN had rejected it: build-id does not match);
 - `--by sections` reads no debug file: no note.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402
from memsz_testlib.elf import build_id  # noqa: E402


def build(tmp, name, body):
    src = os.path.join(tmp, name + ".c")
    with open(src, "w") as f:
        f.write(body)
    out = os.path.join(tmp, "lib%s.so" % name)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-Wl,--build-id",
                    "-o", out, src], check=True)
    return out


def size_out(*args):
    """stdout and stderr of `memsz size ARGS` (the table's notes)."""
    r = subprocess.run([MEMSZ, "size", "--debug-root", "/nonexistent",
                        *args], capture_output=True, text=True)
    check_out(r.returncode == 0, f"size {' '.join(args[:2])} exits 0",
              r.stderr)
    return r.stdout + r.stderr


def check_out(ok, what, out):
    """check(), with the end of out when it fails."""
    check(ok, what if ok else f"{what}: {out[-400:]}")


def main():
    for tool in ("gcc", "objcopy", "strip", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t1321-")
    try:
        full = build(tmp, "a", "int t1321_a(int x) { return x + 1; }\n")
        plain = build(tmp, "b", "int t1321_b(int x) { return x + 2; }\n")
        third = build(tmp, "c", "int t1321_c(int x) { return x + 3; }\n")
        ids = {build_id(p) for p in (full, plain, third)}
        if len(ids) != 3 or None in ids:
            lib.skip(f"no three distinct build-ids: {ids}")
        dbg = os.path.join(tmp, "liba.debug")
        other = os.path.join(tmp, "libc3.debug")
        stripped = os.path.join(tmp, "liba-st.so")
        for so, keep in ((full, dbg), (third, other)):
            subprocess.run(["objcopy", "--only-keep-debug", so, keep],
                           check=True)
        subprocess.run(["strip", "-o", stripped, full], check=True)
        subprocess.run(["objcopy", "--add-gnu-debuglink=" + dbg, stripped],
                       check=True, cwd=tmp)

        out = size_out("--by", "symbols", "--debug-file", other, stripped)
        check_out(f"debug file '{dbg}'" in out,
                  "the debuglink's file is used", out)
        check_out(f"--debug-file '{other}' rejected" in out,
                  "the --debug-file of no input is named", out)

        out = size_out("--by", "symbols", "--debug-file", dbg, stripped,
                       plain)
        check_out(f"debug file '{dbg}'" in out,
                  "the --debug-file is used", out)
        check_out("rejected" not in out,
                  "one an input takes is no other's note", out)

        out = size_out("--by", "sections", "--debug-file", other, stripped)
        check_out("rejected" not in out,
                  "sections read no debug file: no note", out)
    finally:
        shutil.rmtree(tmp)
    lib.finish()


if __name__ == "__main__":
    main()
