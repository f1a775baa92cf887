#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` of a program whose DWARF dwz compressed.

`dwz -m common p1 p2` of two equal programs moves their types into the
dwz file (`.gnu_debugaltlink`): each variable's DW_AT_type becomes a
DW_FORM_GNU_ref_alt into a partial unit there, which has no
DW_AT_language. libdw's dwarf_aggregate_size() then cannot size an array
(the default lower bound of a subrange comes from the language of the
type's unit), and memsz once left every global array of a dwz'd program
under fallback labels: 4 096 bytes of .bss, 400 of .data and 512 of
.data.rel.ro here.

q.c's arrays have bounds gcc writes as DW_FORM_data1 or data2 of an
unsigned type (sizetype), which must be read unsigned, as libdw's own
array_size() does: memsz once read an upper bound of 128 to 255 or
32 768 to 65 535 signed, negative, and dropped the variable (q.c's
161 913 bytes of .bss came to 128, d128's, and f's 1 200 of .data went
to fallbacks). prog.c and r.c use them too, so dwz moves their types
into the dwz file; --by compileunits,symbols checks each one alone.

Ground truth: nm -S (each variable's size and section letter, the
sections from readelf -S): the unit's bytes in .bss, .data and
.data.rel.ro are its variables', in p1 as in the program before dwz. I1
holds; diff of p1 and the program before dwz shows the debug sections
only.
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
from memsz_testlib import MEMSZ, check  # noqa: E402

HDR = r'''
extern char a200[200], a256[256], c129[129], d128[128], g[200][300];
extern int b40000[40000], f[2][150];
extern short e[3][200];
'''

# bounds 199, 255, 39 999, 128, 127 (data1 and data2 forms),
# multi-dimensional ones
QSRC = r'''#include "h.h"
char a200[200], a256[256], c129[129], d128[128], g[200][300];
int b40000[40000], f[2][150] = {{1}};
short e[3][200];
'''

RSRC = r'''#include "h.h"
int r(int c) { return a200[c] + b40000[c] + e[2][c] + g[c][c] + f[1][c]; }
'''

SRC = r'''#include "h.h"
struct pt { int x, y; };
char big[4096];
int table[100] = {1};
struct pt pts[2][3] = {{{1, 2}}};
static const char *const names[64] = {"a", "b"};
__attribute__((noinline)) const char *name(int i) { return names[i & 63]; }
int main(int c, char **v)
{
	big[c] = 1;
	return table[c] + pts[1][c].y + name(c)[0] + v[0][0] + a200[c] +
	       a256[c] + c129[c] + d128[c] + g[c][c] + b40000[c] + f[1][c] +
	       e[2][c];
}
'''

# the program's own variables: {name: (unit, section)}
VARS = {"big": ("prog.c", ".bss"), "table": ("prog.c", ".data"),
        "pts": ("prog.c", ".data"), "names": ("prog.c", ".data.rel.ro"),
        "a200": ("q.c", ".bss"), "a256": ("q.c", ".bss"),
        "b40000": ("q.c", ".bss"), "c129": ("q.c", ".bss"),
        "d128": ("q.c", ".bss"), "e": ("q.c", ".bss"),
        "f": ("q.c", ".data"), "g": ("q.c", ".bss")}


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def rows(path, key, *extra):
    """{(label, ...): (file, vm)} of memsz size --by key."""
    out = run([MEMSZ, "size", "--no-disasm", *extra, "--by", key, "-n",
               "0", "--format", "csv", path])
    got = {}
    for r in csv.DictReader(io.StringIO(out)):
        k = tuple(r[x] for x in key.split(","))
        got[k] = (int(r["file_size"]), int(r["vm_size"]))
    return got


def var_sizes(path):
    """{(unit, section): bytes of VARS there}, {name: size} from nm -S
    and readelf -S."""
    secs = lib.sections(path)
    out, each = {}, {}
    for line in run(["nm", "-S", path]).splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in VARS:
            addr, size = int(f[0], 16), int(f[1], 16)
            sec = [n for n, (a, _o, z, _f) in secs.items()
                   if a <= addr < a + z and "A" in _f]
            unit, want = VARS[f[3]]
            check(sec == [want], "nm: %s lies in %s (got %s)"
                  % (f[3], want, sec))
            out[unit, want] = out.get((unit, want), 0) + size
            each[f[3]] = size
    check(sorted(each) == sorted(VARS),
          "nm -S lists every variable (got %s)" % sorted(each))
    return out, each


def main():
    if not shutil.which("dwz"):
        lib.skip("dwz is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1305-") as tmp:
        src = os.path.join(tmp, "prog.c")
        with open(src, "w") as f:
            f.write(SRC)
        for name, text in (("h.h", HDR), ("q.c", QSRC), ("r.c", RSRC)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        plain = os.path.join(tmp, "plain")
        run(["gcc", "-O2", "-g", "-o", plain, "prog.c", "q.c", "r.c"],
            cwd=tmp)
        p1, p2 = os.path.join(tmp, "p1"), os.path.join(tmp, "p2")
        shutil.copy(plain, p1)
        shutil.copy(plain, p2)
        run(["dwz", "-m", "common", "p1", "p2"], cwd=tmp)
        # readelf prints "<alt 0x2e>" where it finds the dwz file, else
        # "(GNU_ref_alt) <0x2e>"
        alt = lib.readelf(["-wi"], p1)
        if not re.search(r"<alt |\(GNU_ref_alt\)", alt) or "DW_TAG_imported_unit" not in alt:
            lib.skip("dwz moved nothing into the dwz file")
        check(re.search(r"DW_AT_name\s*:[^\n]*\bbig\n(?:[^\n]*\n){0,6}?"
                        r"\s*<\w+>\s*DW_AT_type\s*: (?:<alt |\(GNU_ref_alt\))",
                        alt),
              "p1's variable big has its type in the dwz file "
              "(DW_FORM_GNU_ref_alt, readelf -wi)")

        common = lib.readelf(["-wi"], os.path.join(tmp, "common"))
        for form in ("data1) 199", "data1) 128", "data2) 39999"):
            check(re.search(r"DW_AT_upper_bound\s*: \(" + re.escape(form),
                            common),
                  "the dwz file has a subrange with upper bound (%s "
                  "(readelf -wi)" % form)
        want, each = var_sizes(plain)
        for path, what in ((plain, "before dwz"), (p1, "after dwz")):
            got = rows(path, "compileunits,sections")
            for (unit, sec), size in sorted(want.items()):
                have = got.get((unit, sec), (0, 0))[1]
                check(have == size,
                      "%s: %s owns the %d bytes of its variables in "
                      "%s (nm -S) (got %d)" % (what, unit, size, sec, have))
            syms = rows(path, "compileunits,symbols")
            for name in ("a200", "a256", "b40000", "c129", "d128", "e",
                         "f", "g"):
                have = syms.get(("q.c", name), (0, 0))[1]
                check(have == each[name],
                      "%s: q.c's %s is %d bytes of VM SIZE (nm -S) "
                      "(got %d)" % (what, name, each[name], have))
            vm = sum(int(f[5], 16) for f in (
                line.split() for line in
                lib.readelf(["-l"], path).splitlines())
                if f and f[0] == "LOAD")
            check((sum(v[0] for v in got.values()),
                   sum(v[1] for v in got.values())) ==
                  (os.path.getsize(path), vm),
                  "%s: FILE SIZE sums to the file's size, VM SIZE to "
                  "the PT_LOAD memsz (I1)" % what)

        out = run([MEMSZ, "diff", "--no-disasm", "--by",
                   "compileunits,sections", "--format", "csv", "-n", "0",
                   plain, p1])
        moved = [r for r in csv.DictReader(io.StringIO(out))
                 if r["vm_size_delta"] not in ("0", "+0")]
        check(not moved, "diff before/after dwz: no VM SIZE moved "
              "(got %s)" % [(r["compileunits"], r["sections"],
                             r["vm_size_delta"]) for r in moved[:5]])
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
