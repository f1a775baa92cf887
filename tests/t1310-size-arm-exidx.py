#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of 32-bit ARM files: each
.ARM.exidx entry, and the words of the .ARM.extab entry it points to,
belong to the function whose code the entry covers, as an FDE of
.eh_frame does on x86-64.

An .ARM.exidx entry (ARM EHABI) is 8 bytes: a prel31 offset to the
start of a function, then EXIDX_CANTUNWIND (1), the unwind data inline
(bit 31 set), or a prel31 offset to its .ARM.extab entry. That entry
starts with a personality word: ARM's compact models (bit 31 set; pr1
and pr2 count their further words in bits 23-16), or a prel31 to a
generic routine (__gxx_personality_v0) followed by a word whose top byte
counts the further words of unwind data. The LSDA that follows goes to
the function too (its length read through its tables: t1113 checks
those; here its bounds come from t1112's markers in clang's assembly,
the C++ objects being built through it), and so does a compact model's
descriptor list, ended by a zero word (desc_len(), the EHABI's rules,
which t1313 checks against the assembler's labels; clang writes the
zero word alone for a C function's pr1 entry: framed()). memsz left both
sections whole under their section labels.

Ground truth: readelf -u (binutils decodes the EHABI tables: each
entry's function address, cantunwind / inline / the extab offset),
readelf -s (the function at that address, in the section the exidx
section links to: readelf -S), the extab words read from the file at
the offset readelf -u gives, by the EHABI's rules. Built with clang 14
for armv7 (C++ with exceptions; C with -funwind-tables; one object a
function section with -ffunction-sections), as .o and linked by ld.lld
-shared (the C one too). A hostile copy (entries pointing anywhere, one
extab entry pointed to twice, an odd section size) must be read without
a crash, every byte once (I1), no extab byte to two functions. A .o whose
.rodata has an sh_addr (0x10) is laid out from 4 GiB, not 2 GiB: its
entries must be read there too.
"""
import csv
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, readelf  # noqa: E402

T1112 = lib.sibling_test("t1112-size-lsda")

CXX = r'''
extern "C" int leaf(int x) { return x * 3 + 1; }
extern "C" __attribute__((noinline)) int calls(int x);
int thrower(int x) { if (x) throw 5; return x; }
int catcher(int x) { try { return thrower(x); } catch (int e) { return e; } }
struct S { ~S(); };
int withdtor(int x) { S s; return calls(x) + thrower(x); }
extern "C" int calls(int x) { return leaf(x) + leaf(x + 1); }
'''
C = r'''
int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int big(int *p, int n)
{ int s = 0; for (int i = 0; i < n; i++) s += p[i] * leaf(i); return s; }
int callee(int x) { int a[32]; for (int i = 0; i < 32; i++) a[i] = i * x;
  return big(a, 32); }
/* a frame of 4 KiB, 8 registers saved and 8 VFP ones: more unwind
   opcodes than pr0 holds, a pr1 entry in .ARM.extab */
extern void use(char *, double *);
double framed(double a, double b, double c, int n)
{
	char buf[4000];
	double d[8];
	double x = a, y = b, z = c, w = a * b, v = b * c, u = a * c,
	       t = a + b + c, s = 1;
	for (int i = 0; i < n; i++) {
		use(buf, d);
		x += y * z; y += z * w; z += w * v; w += v * u;
		v += u * t; u += t * s; t += s * x; s += x * y;
	}
	return x + y + z + w + v + u + t + s;
}
'''
TARGET = "--target=armv7-linux-gnueabihf"
# a .rodata to give an sh_addr
RODATA = "extern const int table[4] = {1, 2, 3, 4};\n"


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def shdrs(path):
    """{name: (index, type, addr, offset, size, link)} of readelf -S"""
    out = {}
    for line in readelf(["-S"], path).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+[A-Za-z]*\s+"
                     r"(\d+)\s+\d+\s+\d+", line)
        if m:
            out[m.group(2)] = (int(m.group(1)), m.group(3),
                               int(m.group(4), 16), int(m.group(5), 16),
                               int(m.group(6), 16), int(m.group(7)))
    return out


def funcs(path):
    """{(section index, address without the Thumb bit): name} of the
    FUNC symbols of readelf -s"""
    out = {}
    for line in readelf(["-s"], path).splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[6].isdigit():
            out.setdefault((int(f[6]), int(f[1], 16) & ~1), f[7])
    return out


def unwind(path):
    """[(exidx section, function address, what)] of readelf -u: what is
    "cantunwind", "inline" or the extab offset (an int)"""
    out, sec = [], None
    for line in readelf(["-u"], path).splitlines():
        m = re.match(r"Unwind section '(\S+)'", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"(0x[0-9a-f]+)(?: <[^>]*>)?: (\S+)", line)
        if not m:
            continue
        w = m.group(2)
        what = ("cantunwind" if line.endswith("[cantunwind]") else
                int(w[1:], 16) if w.startswith("@") else "inline")
        out.append((sec, int(m.group(1), 16), what))
    return out


# The words after a descriptor's scope by its kind (the low bits of its
# length and offset): a cleanup's landing pad, a catch's landing pad and
# type; an exception specification's count word says (None); the fourth
# kind is reserved
DESC_TAIL = (1, 2, None, 0)


def desc_len(data, off, end, idx, be=False):
    """The length of the descriptor list at off of an extab entry of
    ARM's compact model idx (the EHABI's "Personality routine
    exception-handling table entries", after the unwind data words):
    scopes of two halfwords (pr2: two words), each followed by the words
    of its kind, the list ended by a zero word before end; 0 if it does
    not end there or cannot be read (a scope of length 0 or of the
    reserved kind, a count past end)"""
    order = ">" if be else "<"
    scope = "II" if idx == 2 else "HH"
    pos = off
    while end - pos >= 4:
        if struct.unpack_from(order + "I", data, pos)[0] == 0:
            return pos + 4 - off
        if end - pos < struct.calcsize(scope):
            return 0
        length, at = struct.unpack_from(order + scope, data, pos)
        tail = DESC_TAIL[(at & 1) << 1 | (length & 1)]
        if not length or tail == 0:
            return 0
        pos += struct.calcsize(scope)
        if tail is None:  # the count word, its types, a landing pad
            if end - pos < 4:
                return 0
            c = struct.unpack_from(order + "I", data, pos)[0]
            tail = 1 + (c & 0x7fffffff) + (c >> 31)
        if 4 * tail > end - pos:
            return 0
        pos += 4 * tail
    return 0


def extab_len(data, off, end, be=False):
    """The extab entry at off the EHABI bounds (end: the next entry or
    the section's end): its words, and for ARM's compact models pr0-pr2
    the descriptor list after them (desc_len(); none if it cannot be
    read). A generic routine's LSDA is not counted."""
    order = ">" if be else "<"
    if end - off < 4:
        return 0
    w = struct.unpack_from(order + "I", data, off)[0]
    if w & 0x80000000:
        idx = (w >> 24) & 0x7f
        n = 4 + 4 * ((w >> 16) & 0xff) if idx in (1, 2) else 4
        if idx <= 2 and n < end - off:
            n += desc_len(data, off + n, end, idx, be)
    elif end - off < 8:
        n = 4
    else:
        n = 8 + 4 * (struct.unpack_from(order + "I", data, off + 4)[0] >> 24)
    return min(n, end - off)


def expected(path, ranges=()):
    """{(section, function): bytes} readelf says each function owns, and
    the number of extab entries; an LSDA of ranges (t1112.lsdas()) that
    starts right after an entry's words is its function's too"""
    secs = shdrs(path)
    syms = funcs(path)
    with open(path, "rb") as f:
        data = f.read()
    want, seen, refs = {}, set(), []
    for sec, addr, what in unwind(path):
        link = secs[sec][5]
        name = syms.get((link, addr & ~1))
        if name is None:
            continue  # a linker's sentinel past the code
        want[(sec, name)] = want.get((sec, name), 0) + 8
        if isinstance(what, int):
            xsec = ".ARM.extab" + sec[len(".ARM.exidx"):]
            if xsec not in secs:
                xsec = ".ARM.extab"
            refs.append((xsec, what, name))
    # a linked file's offset is an address
    refs = [(x, o - secs[x][2], n) for x, o, n in refs]
    for xsec, off, name in refs:
        if (xsec, off) in seen:
            continue
        seen.add((xsec, off))
        base, size = secs[xsec][3], secs[xsec][4]
        end = min([size] + [o for s, o, _n in refs if s == xsec and o > off])
        n = extab_len(data, base + off, base + end)
        n += sum(e - b for s, b, e, _f in ranges
                 if s == xsec and b == off + n)
        want[(xsec, name)] = want.get((xsec, name), 0) + n
    return want, len(seen)


def memsz_rows(path):
    r = subprocess.run([MEMSZ, "size", "--no-disasm", "--demangle", "none",
                        "--by", "sections,symbols", "-n", "0", "--format",
                        "csv", path], capture_output=True, text=True)
    name = os.path.basename(path)
    ok = r.returncode == 0 and "Sanitizer" not in r.stderr
    check(ok, "%s: exit 0 (%d%s)" % (name, r.returncode,
                                      "" if ok else ": " + r.stderr[-300:]))
    got = {}
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    for x in rows:
        got[(x["sections"], x["symbols"])] = (int(x["file_size"]),
                                              int(x["vm_size"]))
        for a in filter(None, x["aliases"].split(";")):
            got[(x["sections"], a)] = got[(x["sections"], x["symbols"])]
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(path),
          "%s: FILE SIZE sums to the file's size (I1)" % name)
    return got


def check_file(path, least_extab, ranges=()):
    name = os.path.basename(path)
    want, nextab = expected(path, ranges)
    check(nextab >= least_extab and want,
          "%s: readelf -u lists %d extab entries (want >= %d), %d "
          "function rows" % (name, nextab, least_extab, len(want)))
    got = memsz_rows(path)
    for (sec, fn), n in sorted(want.items()):
        check(got.get((sec, fn)) == (n, n),
              "%s: %s owns %d bytes of %s (got %s)"
              % (name, fn, n, sec, got.get((sec, fn))))
    for sec in {s for s, _f in want}:
        rest = got.get((sec, "[section %s]" % sec), (0, 0))[0]
        mine = sum(n for (s, _f), n in want.items() if s == sec)
        check(rest + mine == shdrs(path)[sec][4],
              "%s: %s's other bytes (%d) stay under its section label"
              % (name, sec, shdrs(path)[sec][4] - mine))


def placed(tmp):
    """A .o of CXX with a .rodata whose sh_addr is 0x10 (no toolchain
    writes one; memsz then lays the other sections out from 4 GiB), and
    its LSDAs"""
    built, marked, funcs = T1112.build(tmp, "r", "clang", [TARGET, "-O1"],
                                       CXX + RODATA, ".cpp")
    obj = os.path.join(tmp, "rodata-at-0x10.o")
    shutil.copy(built, obj)
    idx = shdrs(obj)[".rodata"][0]
    with open(obj, "r+b") as f:
        data = f.read()
        e_shoff = struct.unpack_from("<I", data, 0x20)[0]
        f.seek(e_shoff + 40 * idx + 12)  # sh_addr
        f.write(struct.pack("<I", 0x10))
    check(shdrs(obj)[".rodata"][2] == 0x10,
          "readelf -S: .rodata's sh_addr patched to 0x10")
    return obj, T1112.lsdas(marked, funcs)


def hostile(so, tmp, ranges):
    """A copy of so whose exidx entries point anywhere: read without a
    crash, every byte once (I1); an extab entry pointed to twice is the
    first pointer's; a function far away, an extab entry in .ARM.exidx or
    2 bytes from its section's end are nobody's."""
    secs = shdrs(so)
    _i, _t, xaddr, xoff, xsize, link = secs[".ARM.exidx"]
    eaddr, _o, esize = secs[".ARM.extab"][2:5]
    syms = funcs(so)
    data = bytearray(open(so, "rb").read())
    entries = unwind(so)
    slot = {syms.get((link, a)): xoff + 8 * k
            for k, (_s, a, _w) in enumerate(entries)}
    first = {syms.get((link, a)): what for _s, a, what in entries}
    check(all(n in slot for n in ("leaf", "_Z7throweri", "calls",
                                   "_Z8withdtori", "_Z7catcheri")) and
          isinstance(first["_Z7catcheri"], int) and
          isinstance(first["_Z8withdtori"], int),
          "readelf -u: the functions' entries, two with extab entries")

    def prel31(off, to):
        return (to - (xaddr + off - xoff)) & 0x7fffffff
    # leaf's entry, before catcher's, points to catcher's extab entry
    struct.pack_into("<I", data, slot["leaf"] + 4,
                     prel31(slot["leaf"] + 4, first["_Z7catcheri"]))
    # thrower's function lies far away; calls' extab entry is .ARM.exidx
    struct.pack_into("<I", data, slot["_Z7throweri"], 0x3ffffff0)
    struct.pack_into("<I", data, slot["calls"] + 4,
                     prel31(slot["calls"] + 4, xaddr))
    # withdtor's: 2 bytes from .ARM.extab's end
    struct.pack_into("<I", data, slot["_Z8withdtori"] + 4,
                     prel31(slot["_Z8withdtori"] + 4, eaddr + esize - 2))
    bad = os.path.join(tmp, "hostile.so")
    with open(bad, "wb") as f:
        f.write(data)
    # and an odd size: 5 bytes past the last whole entry
    e_shoff = struct.unpack_from("<I", data, 0x20)[0]
    struct.pack_into("<I", data, e_shoff + 40 * _i + 20, xsize - 3)
    odd = os.path.join(tmp, "odd.so")
    with open(odd, "wb") as f:
        f.write(data)
    for path in (bad, odd):
        name = os.path.basename(path)
        got = memsz_rows(path)
        ext = {k[1]: v[0] for k, v in got.items() if k[0] == ".ARM.extab"}
        lsda = sum(e - b for _s, b, e, f in ranges if f == "_Z7catcheri")
        check(lsda and ext.get("leaf") == 8 + lsda and
              "_Z7catcheri" not in ext,
              "%s: catcher's extab entry (8 bytes of words, its LSDA %d) "
              "is leaf's, pointed to first (%s)" % (name, lsda, ext))
        check("_Z8withdtori" not in ext and
              got.get((".ARM.exidx", "_Z7throweri")) is None and
              got.get((".ARM.exidx", "leaf")) == (8, 8),
              "%s: nothing to thrower (its function far away) nor to "
              "withdtor (2 bytes of extab)" % name)
    check(got.get((".ARM.exidx", "[section .ARM.exidx]"), (0, 0))[0] ==
          8 + 5,
          "odd.so: thrower's entry and the 5 odd bytes (of the linker's "
          "sentinel) stay "
          "[section .ARM.exidx] (%s)"
          % (got.get((".ARM.exidx", "[section .ARM.exidx]")),))


def main():
    for tool in ("clang", "ld.lld"):
        if not shutil.which(tool):
            lib.skip("%s is not installed" % tool)
    with tempfile.TemporaryDirectory(prefix="memsz-t1310-") as tmp:
        c = os.path.join(tmp, "b.c")
        with open(c, "w") as f:
            f.write(C)
        b = os.path.join(tmp, "b.o")
        bso = os.path.join(tmp, "b.so")
        so = os.path.join(tmp, "a.so")
        mso = os.path.join(tmp, "a-m.so")
        # the C++ objects through their assembly: t1112's markers give
        # their LSDAs
        a, ma, funcs = T1112.build(tmp, "a", "clang", [TARGET, "-O1"], CXX,
                                   ".cpp")
        af, maf, ffuncs = T1112.build(tmp, "af", "clang",
                                      [TARGET, "-O1", "-ffunction-sections"],
                                      CXX, ".cpp")
        run(["clang", TARGET, "-O1", "-funwind-tables", "-c", "-o", b, c])
        run(["ld.lld", "-shared", "-o", so, a])
        run(["ld.lld", "-shared", "-o", mso, ma])
        if ".ARM.extab" not in shdrs(a):
            lib.skip("clang wrote no .ARM.extab")
        check_file(a, 1, T1112.lsdas(ma, funcs))
        check_file(af, 1, T1112.lsdas(maf, ffuncs))
        if "Compact model index: 1" not in readelf(["-u"], b):
            lib.skip_part("clang wrote no pr1 entry for framed(): no "
                          "descriptor list to count")
        run(["ld.lld", "-shared", "-o", bso, b])
        check_file(b, 0)
        check_file(bso, 0)
        check_file(so, 1, T1112.lsdas(mso, funcs))
        p, pranges = placed(tmp)
        check_file(p, 1, pranges)
        hostile(so, tmp, T1112.lsdas(mso, funcs))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
