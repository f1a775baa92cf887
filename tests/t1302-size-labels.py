#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by symbols`: symbols that once got a wrong label or none.

Fixtures built here (gcc), ground truth from readelf and nm:
  - a symbol in a non-loaded section (glibc's link warnings:
    .gnu.warning.foo) owns its file bytes there, no VM, and the ELF
    header keeps all of its bytes (it once took the symbol: value 0);
  - TLS symbols: tls_a's .tdata initialiser (readelf -s size) in file
    and VM, and both their .symtab and .dynsym entries (24 bytes each);
    tls_b (.tbss) owns no VM;
  - with --disasm, a table whose symbol was stripped goes to the function
    that loads it, and so do its RELATIVE relocations in .rela.dyn (24
    bytes for each readelf -r entry whose offset lies in the table);
  - names that share a suffix in .dynstr and .strtab (ld merges "cc"
    into "aa_bb_cc"): each byte goes to the first symbol table entry
    (readelf -s Num) whose name holds it, names placed by readelf -p.
I1 holds for each file. The footer's fallback share says what it leaves
out: the [padding] bytes, equal to the [padding] row (libc.so.6).
"""
import csv
import json
import io
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

WARN = r'''
__asm__(".section .gnu.warning.foo,\"\",@progbits\n"
        ".type __evoke_link_warning_foo,@object\n"
        "__evoke_link_warning_foo: .string \"foo is deprecated\"\n"
        ".size __evoke_link_warning_foo, .-__evoke_link_warning_foo\n"
        ".previous");
int foo(void) { return 1; }
__thread long tls_a[8] = {1};
__thread long tls_b[16];
long get(int i) { return tls_a[i] + tls_b[i]; }
'''

NAMES = ("static const char *const names[64] = {%s};\n"
         "__attribute__((noinline)) const char *name(int i)\n"
         "{ return names[i & 63]; }\n"
         % ",".join('"n%d"' % i for i in range(64)))


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def rows(path, key, *extra):
    """{(label, ...): (file, vm)} of memsz size --by key."""
    out = run([MEMSZ, "size", *extra, "--by", key, "-n", "0", "--format",
               "csv", path])
    got = {}
    for r in csv.DictReader(io.StringIO(out)):
        k = tuple(r[x] for x in key.split(","))
        got[k] = (int(r["file_size"]), int(r["vm_size"]))
    return got


def sym_sizes(path):
    """{name: (value, size, Ndx)} from readelf -sW (.symtab wins)."""
    out = {}
    for line in readelf(["-sW"], path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0] != "Num:":
            out.setdefault(f[7], (int(f[1], 16), int(f[2]), f[6]))
    return out


def i1(path, what):
    tot = rows(path, "symbols")
    check(sum(v[0] for v in tot.values()) == os.path.getsize(path),
          "%s: FILE SIZE sums to the file's size (I1)" % what)


def check_warn(tmp):
    so = os.path.join(tmp, "libwarn.so")
    src = os.path.join(tmp, "warn.c")
    with open(src, "w") as f:
        f.write(WARN)
    run(["gcc", "-O1", "-shared", "-fPIC", "-o", so, src])
    syms = sym_sizes(so)
    got = rows(so, "symbols,sections")
    ev = "__evoke_link_warning_foo"
    check(got.get((ev, ".gnu.warning.foo")) == (syms[ev][1], 0),
          "%s owns its %d bytes of .gnu.warning.foo, file only (got %s)"
          % (ev, syms[ev][1], got.get((ev, ".gnu.warning.foo"))))
    ehsize = int(re.search(r"Size of this header:\s+(\d+)",
                           readelf(["-h"], so)).group(1))
    hdr = rows(so, "symbols").get(("[ELF Header]",))
    check(hdr == (ehsize, ehsize),
          "[ELF Header] keeps its %d bytes in file and VM (got %s)"
          % (ehsize, hdr))
    check(got.get(("tls_a", ".tdata")) == (syms["tls_a"][1],) * 2,
          "tls_a owns its %d-byte .tdata initialiser (got %s)"
          % (syms["tls_a"][1], got.get(("tls_a", ".tdata"))))
    for name in ("tls_a", "tls_b"):
        for tab in (".symtab", ".dynsym"):
            check(got.get((name, tab), (0,))[0] == 24,
                  "%s owns its %s entry (got %s)"
                  % (name, tab, got.get((name, tab))))
    check(sum(v[1] for k, v in got.items() if k[0] == "tls_b") ==
          sum(v[1] for k, v in got.items()
              if k[0] == "tls_b" and k[1] == ".dynsym") +
          sum(v[1] for k, v in got.items()
              if k[0] == "tls_b" and k[1] in (".gnu.hash", ".dynstr",
                                              ".gnu.version")),
          "tls_b (.tbss) owns VM only of its loaded .dynsym metadata")
    i1(so, "libwarn.so")


def check_names(tmp):
    so = os.path.join(tmp, "libnames.so")
    stripped = os.path.join(tmp, "libnames-s.so")
    src = os.path.join(tmp, "names.c")
    with open(src, "w") as f:
        f.write(NAMES)
    run(["gcc", "-O2", "-shared", "-fPIC", "-o", so, src])
    table = sym_sizes(so).get("names")
    if not table:
        lib.skip_part("gcc did not name the table 'names'")
        return
    run(["objcopy", "--strip-symbol=names", so, stripped])
    start, size = table[0], table[1]
    want = 0
    for line in readelf(["-rW"], stripped).splitlines():
        m = re.match(r"([0-9a-f]{8,})\s+[0-9a-f]+\s+R_X86_64_RELATIVE",
                     line)
        if m and start <= int(m.group(1), 16) < start + size:
            want += 24
    got = rows(stripped, "symbols,sections", "--disasm")
    check(got.get(("name", ".data.rel.ro"), (0,))[0] == size,
          "--disasm gives name() the stripped table's %d bytes (got %s)"
          % (size, got.get(("name", ".data.rel.ro"))))
    check(want == 64 * 24 and got.get(("name", ".rela.dyn")) ==
          (want, want),
          "and its %d bytes of .rela.dyn entries (got %s)"
          % (want, got.get(("name", ".rela.dyn"))))
    i1(stripped, "libnames-s.so")

SUFFIX = ("aa_bb_cc", "bb_cc", "cc", "xtail0", "tail0", "ytail1", "tail1",
          "zz_q", "q")


def symtabs(path):
    """{symbol table: [(Num, name)]} of readelf -sW's defined functions
    and objects of non-zero size."""
    out, tab = {}, None
    for line in readelf(["-sW"], path).splitlines():
        m = re.match(r"Symbol table '(\S+)'", line)
        if m:
            tab = out.setdefault(m.group(1), [])
            continue
        f = line.split()
        if (tab is not None and len(f) >= 8 and f[0].endswith(":") and
                f[3] in ("FUNC", "OBJECT") and int(f[2]) and f[6] != "UND"):
            tab.append((int(f[0][:-1]), f[7].split("@")[0]))
    return out


def name_owners(path, tab, strs):
    """{name: bytes of string table strs it owns}: each name placed at the
    end of the one string readelf -p lists that ends with it, each byte
    to the lowest Num among the names holding it; None if a name has no
    one such string."""
    strings = []
    for line in readelf(["-p", strs], path).splitlines():
        m = re.match(r"\s*\[\s*([0-9a-f]+)\]  (.*)$", line)
        if m:
            strings.append((int(m.group(1), 16), m.group(2)))
    owner = {}
    for num, name in symtabs(path).get(tab, []):
        at = [o + len(s) - len(name) for o, s in strings
              if s.endswith(name)]
        if len(at) != 1:
            return None
        for b in range(at[0], at[0] + len(name) + 1):
            if b not in owner or num < owner[b][0]:
                owner[b] = (num, name)
    got = {}
    for _, name in owner.values():
        got[name] = got.get(name, 0) + 1
    return got


def check_suffix(tmp):
    so, src = os.path.join(tmp, "libsfx.so"), os.path.join(tmp, "sfx.c")
    with open(src, "w") as f:
        for i, n in enumerate(SUFFIX):
            f.write("int %s(void) { return %d; }\n" % (n, i))
    run(["gcc", "-O0", "-shared", "-fPIC", "-o", so, src])
    got = rows(so, "symbols,sections")
    for tab, strs in ((".dynsym", ".dynstr"), (".symtab", ".strtab")):
        want = name_owners(so, tab, strs)
        if want is None or "cc" not in want or want.get("bb_cc"):
            lib.skip_part("ld did not merge the names of %s as expected "
                          "(%s)" % (strs, want))
            continue
        for n in SUFFIX:
            check(got.get((n, strs), (0,))[0] == want.get(n, 0),
                  "%s owns %d bytes of %s (got %s)"
                  % (n, want.get(n, 0), strs, got.get((n, strs))))
    i1(so, "libsfx.so")


def check_padding_note():
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    if not os.path.exists(libc):
        lib.skip_part("no %s" % libc)
        return
    pad = rows(libc, "symbols").get(("[padding]",))
    out = json.loads(run([MEMSZ, "size", "--by", "symbols", "--format",
                          "json", libc]))
    notes = [n for n in out.get("notes", []) if "[padding]" in n]
    m = notes and re.search(r"under fallback labels; \[padding\], not "
                            r"counted: (\d+) bytes of FILE SIZE, (\d+) of "
                            r"VM SIZE", notes[0])
    check(pad and m and (int(m.group(1)), int(m.group(2))) == pad,
          "the footer names the [padding] bytes it leaves out: %s (row %s)"
          % (notes, pad))


def check_not_x86_64(tmp):
    """A 32-bit x86 file: nothing decoded, the footer says so, and the
    rows are those of --no-disasm."""
    src = os.path.join(tmp, "m32.c")
    prog = os.path.join(tmp, "m32")
    with open(src, "w") as f:
        f.write('const char *s(void) { return "abc"; }\n'
                'int main(void) { return !s(); }\n')
    r = subprocess.run(["gcc", "-m32", "-O1", "-o", prog, src],
                       capture_output=True)
    if r.returncode:
        lib.skip_part("gcc -m32 cannot link (gcc-multilib)")
        return
    out = run([MEMSZ, "size", "--by", "symbols", "-n", "0", prog])
    check("symbols: code-to-data references are read in x86-64 code "
          "only" in out, "an i386 file: the footer says its code is not "
          "decoded")
    check(rows(prog, "symbols") == rows(prog, "symbols", "--no-disasm"),
          "an i386 file: the rows are those of --no-disasm")


def check_relocatable(tmp):
    """A .o: VM SIZE is the sum of its loaded sections (size -A's sizes of
    the sections readelf flags A, but .tbss, which has no place in the
    image as in a linked file); each symbol owns its nm -S size in VM."""
    src = os.path.join(tmp, "warn.c")
    obj = os.path.join(tmp, "w.o")
    run(["gcc", "-O2", "-c", "-ffunction-sections", "-o", obj, src])
    sizes = {}
    for line in run(["size", "-A", obj]).splitlines()[2:]:
        f = line.split()
        if len(f) == 3 and f[0] != "Total":
            sizes[f[0]] = int(f[1])
    want = 0
    for line in readelf(["-SW"], obj).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(\S*A\S*)\s", line)
        if m and not (m.group(2) == "NOBITS" and "T" in m.group(3)):
            want += sizes.get(m.group(1), 0)
    got = rows(obj, "sections")
    check(want > 0 and sum(v[1] for v in got.values()) == want,
          "w.o: VM SIZE %d == size -A of its loaded sections %d"
          % (sum(v[1] for v in got.values()), want))
    syms = rows(obj, "symbols,sections")
    for line in run(["nm", "-S", obj]).splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "TtDdRr" and f[3] in ("foo", "get",
                                                          "tls_a"):
            size = int(f[1], 16)
            vm = sum(v[1] for k, v in syms.items()
                     if k[0] == f[3] and k[1].startswith((".text", ".tdata")))
            check(vm == size, "w.o: %s owns its %d bytes (nm -S) in VM "
                  "(got %d)" % (f[3], size, vm))
    i1(obj, "w.o")


def check_debug_file(tmp):
    """--debug-file: a stripped library takes its .symtab from the file
    named (the static table 'names' gets its nm -S size), the first that
    matches; one of another build is refused and said so."""
    so, dbg = os.path.join(tmp, "libnames.so"), os.path.join(tmp, "n.dbg")
    stripped = os.path.join(tmp, "libnames-st.so")
    other, odbg = os.path.join(tmp, "libwarn.so"), os.path.join(tmp,
                                                                "w.dbg")
    run(["objcopy", "--only-keep-debug", so, dbg])
    run(["objcopy", "--only-keep-debug", other, odbg])
    run(["strip", "--strip-all", "-o", stripped, so])
    size = sym_sizes(so)["names"][1]
    root = ["--debug-root", os.path.join(tmp, "none")]
    plain = rows(stripped, "symbols", *root)
    check(("names",) not in plain, "stripped: no row for the static table")
    got = rows(stripped, "symbols,sections", *root, "--debug-file", odbg,
               "--debug-file", dbg)
    check(got.get(("names", ".data.rel.ro"), (0, 0))[1] == size,
          "--debug-file: names owns its %d bytes (got %s)"
          % (size, got.get(("names", ".data.rel.ro"))))
    out = run([MEMSZ, "size", "--by", "symbols", *root, "--debug-file",
               odbg, stripped])
    check(f"--debug-file '{odbg}' rejected: its build-id (or debuglink "
          "CRC) matches no input" in out and
          not re.search(r" names$", out, re.M),
          "--debug-file of another build: refused, and said so")


CXX = """namespace ns { template <class T> struct Box { T v; };
__attribute__((noinline)) int f(int x, Box<long> *b) { return x + (int)b->v; }
}
int main() { ns::Box<long> b{1}; return ns::f(1, &b); }
"""


def check_demangle(tmp):
    """--demangle full|short|none: the C++ function's row is named as
    c++filt, c++filt -p and nm (no demangling) name it."""
    src, prog = os.path.join(tmp, "cx.cc"), os.path.join(tmp, "cx")
    with open(src, "w") as f:
        f.write(CXX)
    if subprocess.run(["g++", "-O1", "-o", prog, src]).returncode:
        lib.skip_part("g++ cannot build the C++ fixture")
        return
    raw = [ln.split()[-1] for ln in run(["nm", prog]).splitlines()
           if ln.split()[-1].startswith("_ZN2ns1f")]
    if len(raw) != 1:
        lib.skip_part("nm shows no one ns::f (%s)" % raw)
        return
    want = {"none": raw[0],
            "full": run(["c++filt", raw[0]]).strip(),
            "short": run(["c++filt", "-p", raw[0]]).strip()}
    sizes = {}
    for how, name in want.items():
        got = rows(prog, "symbols", "--demangle", how)
        sizes[how] = got.get((name,))
        check(sizes[how] is not None and sizes[how][1] > 0,
              "--demangle %s: the row is %r (%s)" % (how, name,
                                                     sizes[how]))
    check(rows(prog, "symbols").get((want["full"],)) == sizes["full"],
          "--demangle full is the default")
    r = subprocess.run([MEMSZ, "size", "--demangle", "bad", prog],
                       capture_output=True, text=True)
    check(r.returncode == 129, "--demangle bad: a usage error (129)")


def main():
    if platform.machine() != "x86_64":
        lib.skip("the fixtures are x86-64 assembly and --disasm; this is "
                 "%s" % platform.machine())
    tmp = tempfile.mkdtemp(prefix="memsz-t1302-")
    try:
        check_warn(tmp)
        check_names(tmp)
        check_suffix(tmp)
        check_padding_note()
        check_not_x86_64(tmp)
        check_relocatable(tmp)
        check_debug_file(tmp)
        check_demangle(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
