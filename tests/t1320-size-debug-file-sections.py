#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1320: symbols of a separate debug file are placed in the image's
sections, not in the debug file's.

`objcopy --only-keep-debug` keeps a stripped image's section headers but
makes its loaded sections NOBITS (.tdata too) and moves every section to
other file offsets. A library built here holds a thread-local variable
in .tdata and a glibc-style link warning (an object in a non-loaded
.gnu.warning.* section); it is stripped and given its debug file with
--debug-file. Ground truth: the unstripped library's own symbols, as
`nm -S` and `readelf -S` give them.
 - the .tdata variable owns its nm -S size in .tdata (it was left to
   [section .tdata]: .tdata is NOBITS in the debug file);
 - the warning object owns its nm -S size of file bytes in its
   .gnu.warning.* section, as in the unstripped library (it was charged
   at the debug file's offset of that section: other bytes of the image,
   .gnu.hash here, libc.so.6's .hash with libc6-dbg);
 - every symbol of the unstripped library is charged the same bytes of
   its loaded and warning sections in both.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402
from memsz_testlib.elf import nm_sizes, section_symbol_sizes  # noqa: E402

SRC = r"""
__thread int t1320_tls[10] = {1, 2, 3};
__thread char t1320_tbss[1000];
__asm__(".section .gnu.warning.t1320_old,\"\",@progbits\n"
        ".globl t1320_warn\n.type t1320_warn,@object\n"
        ".size t1320_warn,24\n"
        "t1320_warn: .ascii \"t1320_old is deprecated\\0\"\n"
        ".previous");
int t1320_fn(int i) { return t1320_tls[i & 7] + t1320_tbss[i & 511]; }
"""

# the sections compared: loaded ones and the warning (not .symtab or
# .strtab, which the stripped library has no longer)
SECTIONS = (".text", ".tdata", ".gnu.warning.t1320_old")


def symbol_rows(obj, extra, name):
    """{section: (FILE SIZE, VM SIZE)} of symbol name in `memsz size
    EXTRA --by symbols,sections --format csv OBJ`, less .symtab and
    .strtab (the stripped library has none)."""
    r = subprocess.run([MEMSZ, "size", *extra, "--by", "symbols,sections",
                        "-n", "0", "--format", "csv", obj],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"size {' '.join(extra)} exits 0")
    return {x["sections"]: (int(x["file_size"]), int(x["vm_size"]))
            for x in csv.DictReader(r.stdout.splitlines())
            if x["symbols"] == name
            and x["sections"] not in (".symtab", ".strtab")}


def main():
    for tool in ("gcc", "objcopy", "strip", "nm", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t1320-")
    try:
        full = os.path.join(tmp, "libw.so")
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", full,
                        "-x", "c", "-"], input=SRC, text=True, check=True)
        dbg = os.path.join(tmp, "libw.debug")
        stripped = os.path.join(tmp, "libws.so")
        subprocess.run(["objcopy", "--only-keep-debug", full, dbg],
                       check=True)
        subprocess.run(["strip", "-o", stripped, full], check=True)
        nm = nm_sizes(full, ["t1320_tls", "t1320_warn"])
        if nm.get("t1320_tls") != 40 or nm.get("t1320_warn") != 24:
            lib.skip(f"the toolchain did not build the symbols: {nm}")

        want = {s: section_symbol_sizes(full, s) for s in SECTIONS}
        got = {s: section_symbol_sizes(stripped, s, ("--debug-file", dbg))
               for s in SECTIONS}
        check(got[".tdata"].get("t1320_tls") == (40, 40),
              "the .tdata variable owns its 40 bytes of .tdata "
              f"(nm -S): {got['.tdata']}")
        check(got[".gnu.warning.t1320_old"].get("t1320_warn") == (24, 0),
              "the warning owns its 24 file bytes of its section "
              f"(nm -S): {got['.gnu.warning.t1320_old']}")
        for s in SECTIONS:
            check(got[s] == want[s],
                  f"{s}: the same symbols as the unstripped library "
                  f"({got[s]} vs {want[s]})")
        # nowhere else: the same bytes of every section as unstripped
        for name in ("t1320_tls", "t1320_warn"):
            a = symbol_rows(full, (), name)
            b = symbol_rows(stripped, ("--debug-file", dbg), name)
            check(b == a, f"{name}: the same sections' bytes ({b} vs {a})")
    finally:
        shutil.rmtree(tmp)
    lib.finish()


if __name__ == "__main__":
    main()
