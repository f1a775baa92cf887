#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of a .dynsym-only shared library:
the relocation entries of data no symbol holds go, with that data, to the
function whose code refers to it (--disasm, the default).

The library built here has two static tables of pointers to strings
(R_X86_64_RELATIVE relocations, in .data.rel.ro), 5 and 11 entries, each
read by one exported function; stripped, nothing names the tables. Their
entries find no label when the relocations are first walked: the second
walk, after the code was given its data, labels them (elf/elfmeta.c:
elfmeta_add_relocs()).

Ground truth: nm -S of the library before strip (each table's address and
size, each function's) and readelf -r (the entries whose offset lies in
a table, 24 bytes each): each function's row of .rela.dyn is 24 bytes for
each relocation in its table, in file and VM; with --no-disasm it has none.
"""
import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check, readelf  # noqa: E402

TABLES = {"pick_a": ("tab_a", 5), "pick_b": ("tab_b", 11)}


def source():
    out = []
    for fn, (tab, n) in TABLES.items():
        out.append("static const char *const %s[] = {%s};" % (
            tab, ", ".join('"%s %d"' % (tab, k) for k in range(n))))
        out.append("__attribute__((noinline)) const char *%s(unsigned i)"
                   " { return %s[i %% %d]; }" % (fn, tab, n))
    return "\n".join(out) + "\n"


def main():
    if platform.machine() != "x86_64":
        lib.skip("--disasm reads x86-64 code; this is %s"
                 % platform.machine())
    for tool in ("gcc", "strip", "nm", "readelf"):
        if not shutil.which(tool):
            lib.skip("%s is not installed" % tool)
    tmp = tempfile.mkdtemp(prefix="memsz-t2464-")
    try:
        src = os.path.join(tmp, "tabs.c")
        with open(src, "w") as f:
            f.write(source())
        full = os.path.join(tmp, "libtabs-full.so")
        subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-o", full, src],
                       check=True)
        stripped = os.path.join(tmp, "libtabs.so")
        subprocess.run(["strip", "-o", stripped, full], check=True)
        check_lib(full, stripped)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_lib(full, stripped):
    nm = subprocess.run(["nm", "-S", full], capture_output=True, text=True,
                        check=True).stdout
    syms = {f[3]: (int(f[0], 16), int(f[1], 16))
            for f in (x.split() for x in nm.splitlines()) if len(f) == 4}
    check(not any(t in subprocess.run(["nm", "-D", stripped],
                                      capture_output=True,
                                      text=True).stdout
                  for t, _ in TABLES.values()),
          "no symbol of the stripped library names a table")
    rel = [int(f[0], 16) for f in (x.split() for x in
                                   readelf(["-r"], full).splitlines())
           if len(f) >= 3 and f[2] == "R_X86_64_RELATIVE"]
    want = {}
    for fn, (tab, n) in TABLES.items():
        if tab not in syms:
            check(False, "nm -S: %s has an address and size" % tab)
            continue
        a, s = syms[tab]
        k = sum(1 for off in rel if a <= off < a + s)
        check(k == n, "readelf -r: %s's %d entries are relocated (%d)"
              % (tab, n, k))
        want[fn] = (24 * k, 24 * k)
    plain = lib.section_symbol_sizes(stripped, ".rela.dyn",
                                     ["--no-disasm"])
    for fn in TABLES:
        check(fn not in plain, "--no-disasm: %s owns no .rela.dyn byte "
              "(%s)" % (fn, plain.get(fn)))
    dis = lib.section_symbol_sizes(stripped, ".rela.dyn", [])
    for fn, w in want.items():
        check(dis.get(fn) == w, "%s owns the relocations of its table: "
              "%s bytes of .rela.dyn (file, VM), want %s"
              % (fn, dis.get(fn), w))


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
