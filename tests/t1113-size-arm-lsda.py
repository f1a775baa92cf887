#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of 32-bit ARM EHABI files: a
function whose .ARM.exidx entry points to an .ARM.extab entry of a
generic personality routine (__gxx_personality_v0) owns the LSDA that
follows the entry's unwind data words, as well as those words. memsz
left the LSDA under "[section .ARM.extab]" (it has no length there: its
tables must be read through, and ARM's exception specification lists
are words, not ULEB128).

Ground truth: clang's assembly for armv7 (t1112's markers: the data
directives from the LSDA's label after `.handlerdata` to the last one
before `.fnend`), assembled with and without the markers (same
.ARM.extab bytes, checked), and linked by ld.lld; readelf -u for the
extab entry each function's exidx entry points to and the EHABI rule
for its words (t1310's helpers). Each function must own its words and,
right after them, its LSDA; the section's other bytes (alignment) are
zeros under the section label. A hostile copy whose LSDA has an unknown
call-site encoding keeps the words but not the LSDA, and a note counts it.
In a copy of hidden functions whose cleanup() symbol is stripped
(llvm-objcopy), cleanup's extab entry, no function's, still ends the
one before it: that one's LSDA, its TType offset raised so that it
reads into cleanup's entry, takes none of cleanup's bytes.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

T1112 = lib.sibling_test("t1112-size-lsda")
T1310 = lib.sibling_test("t1310-size-arm-exidx")

CXX = T1112.CXX  # the same C++ source as t1112's
FLAGS = [T1310.TARGET, "-O2", "-std=c++14", "-Wno-deprecated",
         "-Wno-dynamic-exception-spec"]


def expected(path, ranges):
    """{(section, function): bytes} of .ARM.extab: the words readelf -u
    and the EHABI give each entry, and the LSDA starting right after
    them (ranges: t1112.lsdas()); and the LSDAs found there"""
    secs = T1310.shdrs(path)
    syms = T1310.funcs(path)
    data = open(path, "rb").read()
    start = {(s, b): (e, fn) for s, b, e, fn in ranges}
    want, seen, found = {}, set(), []
    for sec, addr, what in T1310.unwind(path):
        name = syms.get((secs[sec][5], addr & ~1))
        if name is None or not isinstance(what, int):
            continue
        xsec = ".ARM.extab" + sec[len(".ARM.exidx"):]
        if xsec not in secs:
            xsec = ".ARM.extab"
        off = what - secs[xsec][2]  # a linked file's offset is an address
        if (xsec, off) in seen:
            continue
        seen.add((xsec, off))
        base, size = secs[xsec][3], secs[xsec][4]
        n = T1310.extab_len(data, base + off, base + size)
        if (xsec, off + n) in start:
            e, fn = start[(xsec, off + n)]
            check(fn == name, "%s: the LSDA after %s's unwind words is "
                  "the one its assembly wrote (%s)"
                  % (os.path.basename(path), name, fn))
            found.append((xsec, off + n, e))
            n = e - off
        want[(xsec, name)] = want.get((xsec, name), 0) + n
    return want, found


def check_file(path, ranges, least):
    name = os.path.basename(path)
    want, found = expected(path, ranges)
    check(len(found) >= least and len(found) == len(ranges),
          "%s: every LSDA of the assembly (%d) follows an extab entry's "
          "words (%d found, want >= %d)"
          % (name, len(ranges), len(found), least))
    got = T1310.memsz_rows(path)
    for (sec, fn), n in sorted(want.items()):
        check(got.get((sec, fn)) == (n, n),
              "%s: %s owns %d bytes of %s (got %s)"
              % (name, fn, n, sec, got.get((sec, fn))))
    secs = T1310.shdrs(path)
    for sec in {s for s, _f in want}:
        size = secs[sec][4]
        mine = sum(n for (s, _f), n in want.items() if s == sec)
        rest = got.get((sec, "[section %s]" % sec), (0, 0))[0]
        check(rest + mine == size,
              "%s: %s's other bytes (%d) stay under its section label "
              "(got %d)" % (name, sec, size - mine, rest))
    return want


def hostile(so, ranges, want, tmp):
    """so with the call-site encoding of catch_int's LSDA unknown"""
    secs = T1310.shdrs(so)
    off = secs[".ARM.extab"][3]
    b, e = [(b, e) for _s, b, e, fn in ranges if fn == "_Z9catch_inti"][0]
    data = bytearray(open(so, "rb").read())
    # LPStart omit, TType enc, its ULEB offset, then the call-site enc
    p = off + b + 2
    if data[off + b + 1] != 0xff:
        while data[p] & 0x80:
            p += 1
        p += 1
    check(data[p] == 1, "catch_int's LSDA: call sites in ULEB128 (%#x)"
          % data[p])
    data[p] = 0x0e  # no such format
    bad = os.path.join(tmp, "hostile.so")
    with open(bad, "wb") as f:
        f.write(data)
    r = subprocess.run([lib.MEMSZ, "size", "--no-disasm", "--demangle",
                        "none", "--by", "sections,symbols", "-n", "0",
                        "--format", "csv", bad], capture_output=True,
                       text=True)
    check(r.returncode == 0 and "Sanitizer" not in r.stderr,
          "hostile.so: exit 0 (%d)" % r.returncode)
    got = T1310.memsz_rows(bad)
    n = want[(".ARM.extab", "_Z9catch_inti")] - (e - b)
    check(got.get((".ARM.extab", "_Z9catch_inti")) == (n, n),
          "hostile.so: catch_int keeps its %d words, not the LSDA (got %s)"
          % (n, got.get((".ARM.extab", "_Z9catch_inti"))))
    m = re.search(r"(\d+) LSDAs? .*could not be decoded", r.stderr)
    check(m and int(m.group(1)) == 1,
          "hostile.so: a note counts the LSDA memsz could not decode (%s)"
          % r.stderr.strip()[-300:])


def extab_entries(so):
    """[(offset in .ARM.extab, function)] of readelf -u, by offset"""
    secs, syms = T1310.shdrs(so), T1310.funcs(so)
    base = secs[".ARM.extab"][2]
    return sorted((what - base, syms.get((secs[sec][5], addr & ~1)))
                  for sec, addr, what in T1310.unwind(so)
                  if isinstance(what, int) and sec == ".ARM.exidx")


def owns(path, want, skip=()):
    """memsz's rows of path: each function of want (but skip) owns its
    bytes of .ARM.extab; {function: bytes} of that section"""
    name = os.path.basename(path)
    got = T1310.memsz_rows(path)
    for (sec, fn), n in sorted(want.items()):
        if fn not in skip:
            check(got.get((sec, fn)) == (n, n),
                  "%s: %s owns %d bytes of %s (got %s)"
                  % (name, fn, n, sec, got.get((sec, fn))))
    return {k[1]: v[0] for k, v in got.items() if k[0] == ".ARM.extab"}


def unowned(tmp):
    """A shared object of hidden functions whose cleanup() has no symbol
    left: its extab entry, which no function owns, still ends the entry
    before it. That entry's LSDA, its TType offset raised by 16 bytes,
    reads past its end into cleanup's: memsz must not give it those
    bytes (as t1112's unowned() for .gcc_except_table)."""
    o, mo, funcs = T1112.build(tmp, "hid", "clang",
                               FLAGS + ["-fvisibility=hidden"], CXX, ".cpp")
    so, mso = os.path.join(tmp, "hid.so"), os.path.join(tmp, "hid-m.so")
    T1310.run(["ld.lld", "-shared", "-o", so, o])
    T1310.run(["ld.lld", "-shared", "-o", mso, mo])
    ranges = T1112.lsdas(mso, funcs)
    byfn = {fn: (b, e) for _s, b, e, fn in ranges}
    ents = extab_entries(so)
    at = [i for i, (_o, fn) in enumerate(ents) if fn == "_Z7cleanupi"]
    if not at or not at[0] or "_Z7cleanupi" not in byfn:
        lib.skip_part("no extab entry of cleanup after another (%s)" % ents)
        return
    (poff, prev), coff = ents[at[0] - 1], ents[at[0]][0]
    secs = T1310.shdrs(so)
    nxt = ents[at[0] + 1][0] if at[0] + 1 < len(ents) else \
        secs[".ARM.extab"][4]
    # GNU objcopy may not know ARM: llvm-objcopy's is the same edit
    strip = shutil.which("llvm-objcopy") or "objcopy"
    for f in (so, mso):
        T1310.run([strip, "--strip-symbol=_Z7cleanupi", f])
    check("_Z7cleanupi" not in T1310.funcs(so).values(),
          "hid.so: cleanup's symbol stripped")
    want, _found = expected(so, ranges)
    mine = byfn["_Z7cleanupi"][1] - coff  # its words and its LSDA
    check(want.get((".ARM.extab", prev)) == byfn[prev][1] - poff and
          coff >= byfn[prev][1],
          "hid.so: %s's entry (%d bytes, readelf -u and its assembly) "
          "ends before cleanup's" % (prev, byfn[prev][1] - poff))
    own = owns(so, want)
    check(own.get("[section .ARM.extab]") ==
          secs[".ARM.extab"][4] - sum(want.values()),
          "hid.so: cleanup's %d bytes and the padding stay under "
          "[section .ARM.extab] (got %s)"
          % (mine, own.get("[section .ARM.extab]")))
    b = byfn[prev][0]
    p = secs[".ARM.extab"][3] + b
    data = bytearray(open(so, "rb").read())
    check(data[p] == 0xff and data[p + 1] != 0xff and data[p + 2] < 0x70,
          "hid.so: %s's LSDA has a type table, a one-byte TType offset"
          % prev)
    data[p + 2] += 16
    tt = b + 3 + data[p + 2]
    check(coff < tt <= nxt, "hid-bad.so: %s's TType base (%#x) lies in "
          "cleanup's entry [%#x, %#x)" % (prev, tt, coff, nxt))
    bad = os.path.join(tmp, "hid-bad.so")
    with open(bad, "wb") as f:
        f.write(data)
    own = owns(bad, want, (prev,))
    check(own.get(prev, 0) <= want[(".ARM.extab", prev)],
          "hid-bad.so: %s owns at most its entry's %d bytes, up to "
          "cleanup's (no symbol's) (got %s)"
          % (prev, want[(".ARM.extab", prev)], own.get(prev)))
    left = own.get("[section .ARM.extab]", 0)
    check(left >= mine,
          "hid-bad.so: cleanup's %d bytes stay under [section .ARM.extab] "
          "(got %d there)" % (mine, left))


def main():
    for tool in ("clang", "ld.lld"):
        if not shutil.which(tool):
            lib.skip("%s is not installed" % tool)
    with tempfile.TemporaryDirectory(prefix="memsz-t1113-") as tmp:
        o, mo, funcs = T1112.build(tmp, "a", "clang", FLAGS, CXX, ".cpp")
        fo, fmo, ffuncs = T1112.build(tmp, "af", "clang",
                                      FLAGS + ["-ffunction-sections"], CXX,
                                      ".cpp")
        if ".ARM.extab" not in T1310.shdrs(o):
            lib.skip("clang wrote no .ARM.extab")
        so, mso = os.path.join(tmp, "a.so"), os.path.join(tmp, "a-m.so")
        T1310.run(["ld.lld", "-shared", "-o", so, o])
        T1310.run(["ld.lld", "-shared", "-o", mso, mo])
        want = None
        for plain, marked, fn in ((o, mo, funcs), (fo, fmo, ffuncs),
                                  (so, mso, funcs)):
            secs = [s for s in T1310.shdrs(plain)
                    if s.startswith(".ARM.extab")]
            check(secs and T1112.same_bytes(plain, marked, secs),
                  "%s: the markers changed no byte of %s"
                  % (os.path.basename(plain), secs))
            ranges = T1112.lsdas(marked, fn)
            want = check_file(plain, ranges, 6)
        hostile(so, T1112.lsdas(mso, funcs), want, tmp)
        unowned(tmp)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
