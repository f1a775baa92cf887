#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --disasm`: string literals charged to the code using them.

A program built here (x86-64, -O2 -g, as a PIE and as a position-dependent
executable) returns three string literals from three functions; the
literals have no symbol. Ground truth: binutils' objdump -d (the
RIP-relative address each function's lea names, in its "# ADDR" comment,
or in the position-dependent build the immediate its mov loads) and
readelf -p / -SW (where each string starts in .rodata and where the
section ends):
  - with --no-disasm the functions own no .rodata byte;
  - by default (or --disasm), each function owns, in VM and file, its string's bytes: from
    the address its lea names to the next string or the section's end;
  - --by compileunits grows the unit by exactly those bytes;
  - I1 still holds for both keys.
And a C++ program whose vtable no compile unit describes (GCC emits no
DIE with its address): with --disasm the vtable (readelf -s: _ZTV5Shape
and its size) goes whole to the unit of the constructor code that loads
its address, and with it its RELATIVE relocations (readelf -r: the
entries whose offset lies in it, 24 bytes each).
"""
import csv
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, readelf, check  # noqa: E402

FUNCS = {"lit_one": "alpha literal number one, charged to lit_one",
         "lit_two": "beta literal two",
         "lit_three": "gamma literal three is the longest of the three"}

SOURCE = "#include <stdio.h>\n" + "".join(
    "__attribute__((noinline)) const char *%s(void) { return \"%s\"; }\n"
    % (f, s) for f, s in FUNCS.items()) + """
int main(void) { puts(lit_one()); puts(lit_two()); puts(lit_three());
                 return 0; }
"""


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def size_rows(path, key, extra=()):
    """Rows of size --by key: with extra, else with --no-disasm."""
    r = run([MEMSZ, "size", *(extra or ["--no-disasm"]), "--by", key,
             "-n", "0", "--format", "csv", path])
    if r.returncode:
        raise RuntimeError("memsz size failed: %s" % r.stderr)
    return list(csv.DictReader(io.StringIO(r.stdout)))


def main():
    if platform.machine() != "x86_64":
        lib.skip("--disasm reads x86-64 code; this is %s"
                 % platform.machine())
    tmp = tempfile.mkdtemp(prefix="memsz-t1300-")
    try:
        src = os.path.join(tmp, "lit.c")
        with open(src, "w") as f:
            f.write(SOURCE)
        for variant, flags in (("pie", ["-fPIE", "-pie"]),
                               ("no-pie", ["-fno-pie", "-no-pie"])):
            prog = os.path.join(tmp, "lit-" + variant)
            run(["gcc", "-O2", "-g", *flags, "-o", prog, src], check=True)
            check_prog(prog, src, variant)
        check_vtable(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_prog(prog, src, variant):
    """The checks on one build of the program."""
    def ck(ok, what):
        check(ok, variant + ": " + what)

    secs = {name: (addr, size) for name, (addr, _, size, _)
            in lib.sections(prog).items()}
    ro_addr, ro_size = secs[".rodata"]
    starts = lib.section_strings(prog, ".rodata", ro_addr)
    targets = lib.lea_targets(prog, FUNCS)
    ck(sorted(targets) == sorted(FUNCS),
       "objdump shows a data address in each function (%s)"
       % sorted(targets))
    want = {}
    for fn, text in FUNCS.items():
        at = [a for a, s in starts if s == text]
        ck(at and targets.get(fn) == at[0],
              "%s's operand names its string at %s (readelf -p: %s)"
              % (fn, hex(targets.get(fn, 0)),
                 [hex(a) for a in at]))
        if not at:
            continue
        nxt = [a for a, _ in starts if a > at[0]]
        want[fn] = (min(nxt) if nxt else ro_addr + ro_size) - at[0]

    def rodata_of(rows):
        got = {}
        for r in rows:
            if r["sections"] == ".rodata":
                got[r["symbols"]] = (int(r["file_size"]),
                                     int(r["vm_size"]))
        return got

    plain = rodata_of(size_rows(prog, "sections,symbols"))
    for fn in FUNCS:
        ck(fn not in plain, "without --disasm %s owns no .rodata "
              "(%s)" % (fn, plain.get(fn)))
    dis = rodata_of(size_rows(prog, "sections,symbols", ["--disasm"]))
    for fn, n in want.items():
        ck(dis.get(fn) == (n, n), "--disasm: %s owns %s bytes of "
              ".rodata (file, VM), its string's %d"
              % (fn, dis.get(fn), n))
    r = run([MEMSZ, "size", "--by", "sections,symbols", "-n", "0",
             "--format", "csv", prog])
    default = rodata_of(csv.DictReader(io.StringIO(r.stdout)))
    ck(r.returncode == 0 and default == dis,
       "size without an option is size --disasm (%s)" % default)
    r = run([MEMSZ, "diff", "--by", "symbols", "-n", "0", "--format",
             "csv", "/bin/true", prog])
    r2 = run([MEMSZ, "diff", "--disasm", "--by", "symbols", "-n", "0",
              "--format", "csv", "/bin/true", prog])
    ck(r.returncode == 0 and r.stdout == r2.stdout,
       "diff without an option is diff --disasm")

    # the footer note counts what moved: the bytes it names are the bytes
    # that left the "[section ...]" rows of --by symbols (but those of the
    # relocation tables, whose entries follow the data they patch)
    def section_vm(rows):
        return sum(int(r["vm_size"]) for r in rows
                   if r["symbols"].startswith("[section ") and
                   not r["symbols"].startswith("[section .rel"))
    r = run([MEMSZ, "size", "--disasm", "--by", "symbols", "--format",
             "json", prog])
    notes = json.loads(r.stdout).get("notes", []) if not r.returncode \
        else []
    m = [re.search(r"symbols: code-to-data references charged (\d+) "
                   r"data ranges "
                   r"\((\d+) bytes\)", n) for n in notes]
    m = [x for x in m if x]
    moved = section_vm(size_rows(prog, "symbols")) - \
        section_vm(size_rows(prog, "symbols", ["--disasm"]))
    ck(len(m) == 1 and int(m[0].group(2)) == moved and
       moved >= sum(want.values()),
       "--disasm note names the %d bytes that left [section ...] rows, "
       "the strings' %d among them (notes %s)"
       % (moved, sum(want.values()), notes))

    # diff takes --disasm too: its NEW side is what size --disasm counts
    r = run([MEMSZ, "diff", "--disasm", "--by", "symbols", "-n", "0",
             "--format", "csv", "/bin/true", prog])
    new = {d["symbols"]: int(d["vm_size_new"])
           for d in csv.DictReader(io.StringIO(r.stdout))}
    sized = {d["symbols"]: int(d["vm_size"])
             for d in size_rows(prog, "symbols", ["--disasm"])}
    ck(r.returncode == 0 and all(new.get(fn) == sized.get(fn)
                                 for fn in FUNCS),
       "diff --disasm: NEW side of %s as size --disasm (%s, %s)"
       % (sorted(FUNCS), {fn: new.get(fn) for fn in FUNCS},
          {fn: sized.get(fn) for fn in FUNCS}))

    size = os.stat(prog).st_size
    for key in ("symbols", "compileunits", "inlines"):
        rows = size_rows(prog, key, ["--disasm"])
        ck(sum(int(r["file_size"]) for r in rows) == size,
              "--disasm --by %s: FILE SIZE sums to the file size" % key)
    cu = {r["compileunits"]: int(r["vm_size"])
          for r in size_rows(prog, "compileunits")}
    cud = {r["compileunits"]: int(r["vm_size"])
           for r in size_rows(prog, "compileunits", ["--disasm"])}
    ck(cud.get(src, 0) - cu.get(src, 0) == sum(want.values()),
          "--disasm --by compileunits: %s grows by %d bytes (%d -> %d)"
          % (src, sum(want.values()), cu.get(src, 0), cud.get(src, 0)))


VTABLE_SOURCE = """
struct Shape {
    virtual ~Shape();
    virtual int area() const;
    int w = 3;
};
Shape::~Shape() {}
int Shape::area() const { return w * w; }
__attribute__((noinline)) Shape *make() { return new Shape; }
int main() { Shape *s = make(); int a = s->area(); delete s; return a; }
"""


def check_vtable(tmp):
    src = os.path.join(tmp, "vt.cc")
    with open(src, "w") as f:
        f.write(VTABLE_SOURCE)
    prog = os.path.join(tmp, "vt")
    run(["g++", "-O2", "-g", "-fPIE", "-pie", "-o", prog, src], check=True)
    vt = None
    for line in readelf(["-sW"], prog).splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == "_ZTV5Shape":
            vt = (int(f[1], 16), int(f[2], 0))
    check(vt is not None, "readelf -s: the vtable _ZTV5Shape %s" % (vt,))
    if vt is None:
        return
    nrel = 0
    for line in readelf(["-rW"], prog).splitlines():
        f = line.split()
        if len(f) >= 3 and f[2] == "R_X86_64_RELATIVE" and \
                vt[0] <= int(f[0], 16) < vt[0] + vt[1]:
            nrel += 1

    def unit_bytes(extra):
        got = {}
        for r in size_rows(prog, "sections,compileunits", extra):
            if r["compileunits"] == src:
                got[r["sections"]] = int(r["vm_size"])
        return got

    plain, dis = unit_bytes([]), unit_bytes(["--disasm"])
    check(plain.get(".data.rel.ro", 0) == 0,
          "vtable: no unit holds .data.rel.ro without --disasm (%s)"
          % plain.get(".data.rel.ro"))
    check(dis.get(".data.rel.ro") == vt[1],
          "vtable: --disasm gives vt.cc the %d bytes of _ZTV5Shape (%s)"
          % (vt[1], dis.get(".data.rel.ro")))
    grew = dis.get(".rela.dyn", 0) - plain.get(".rela.dyn", 0)
    check(nrel > 0 and grew == 24 * nrel,
          "vtable: and its %d RELATIVE relocations, %d bytes (%d)"
          % (nrel, 24 * nrel, grew))


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
