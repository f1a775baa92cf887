#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols`: each function owns the LSDA its
FDE points to in .gcc_except_table (the call-site, action and type
tables __gxx_personality_v0 and __gcc_personality_v0 read), as it owns
the FDE. memsz left the whole section under "[section
.gcc_except_table]".

Ground truth: the compilers' own assembly (g++ -S, clang++ -S, gcc -S of
C with cleanups and -fexceptions). Each `.cfi_lsda ENC, LABEL` names the
LSDA of the function whose CFI region holds it; the LSDA's bytes are the
data directives the compiler wrote from LABEL on, up to the last one
before it leaves the section (the alignment after it is not the LSDA's).
A copy of the assembly gets a local symbol at both ends of each LSDA; it
assembles (and links) to the same section bytes (checked), and nm reads
the LSDAs' places off it. memsz reads the file without the markers: each
function must own exactly its LSDA's bytes, and the section's other bytes
(the padding between LSDAs) stay under the section label; the section's
rows sum to its size (readelf -S).

A hostile copy of the shared object (its FDEs located by readelf
--debug-dump=frames): an LSDA pointer into .text, an LSDA whose
call-site table runs past the section, one with an unknown LPStart
encoding, an action record linked to itself (a loop), and two FDEs
pointing to one LSDA. memsz must not crash nor hang; the LSDAs it cannot
read stay under the section label, a note counts them, the shared one is
the first FDE's.

A shared object built with -fvisibility=hidden, cleanup()'s symbols
stripped (objcopy): its LSDAs still end the LSDA before them, whose TType
offset is raised past them (catch_int.cold's): that one must not take
cleanup's bytes, which stay under the section label.
"""
import csv
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

CXX = r'''
struct S { ~S(); int x; };
struct E { virtual ~E(); };
int thrower(int x);
int catch_int(int x) { try { return thrower(x); } catch (int e) { return e; } }
int cleanup(int x) { S s; return thrower(x) + 1; }
int many(int x)
{
	try { S s; return thrower(x); }
	catch (E &e) { return 2; } catch (int) { return 3; }
	catch (long) { return 5; } catch (...) { return 4; }
}
int spec(int x) throw(int, long) { return thrower(x); }
int nothrow(int x) noexcept { return thrower(x); }
int nested(int x)
{
	try { S a; try { S b; return thrower(x); } catch (long) { throw; } }
	catch (E &) { return 7; }
}
int plain(int x) { return x + 1; }
'''
C = r'''
extern void done(int *p);
extern int work(int x);
int with_cleanup(int x)
{
	int v __attribute__((cleanup(done))) = x;
	return work(v) + work(v + 1);
}
'''
DATA = re.compile(r"\s*\.(byte|value|short|long|quad|[248]byte|uleb128|"
                  r"sleb128|word|hword|int)\b")
SWITCH = re.compile(r"\s*\.(section|text|data|bss|previous|pushsection|"
                    r"popsection|fnend)\b")


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def lsda_labels(lines):
    """{LSDA label: function} of the assembly: the label `.cfi_lsda`
    names (or, for ARM EHABI, the first label after `.handlerdata`), and
    the function whose region it is in: the one whose label starts it
    (the last `.type NAME,@function` label before `.cfi_startproc` /
    `.fnstart` with no instruction between, else the first after)."""
    region, pending, after_start, handler = [], None, False, False
    where = {}
    types = set()
    for ln in lines:
        m = re.match(r"\s*\.type\s+([^,\s]+),\s*[@%]function", ln)
        if m:
            types.add(m.group(1))
    for ln in lines:
        s = ln.split("#")[0].split("@ ")[0].strip()
        m = re.match(r"([^\s:]+):$", s)
        if m and m.group(1) in types:
            if after_start:
                region[-1], after_start = m.group(1), False
            else:
                pending = m.group(1)
            continue
        if s in (".cfi_startproc", ".fnstart"):
            region.append(pending)
            after_start = pending is None
            continue
        if m and handler:
            where[m.group(1)] = len(region) - 1
            handler = False
            continue
        if s.startswith(".cfi_lsda"):
            where[s.split(",")[-1].strip()] = len(region) - 1
        elif s == ".handlerdata":
            handler = True
        elif s and not s.startswith(".") and not m:
            pending = None  # an instruction
    return {lab: region[r] for lab, r in where.items()}


def mark(src, dst, tag):
    """Write src's assembly with `memsz_lsda_TAG_N_b:` at the start and
    `memsz_lsda_TAG_N_e:` after the last data directive of each LSDA;
    return {"memsz_lsda_TAG_N": function}"""
    with open(src) as f:
        lines = f.read().splitlines()
    labels = lsda_labels(lines)
    out, funcs, cur, last = [], {}, None, None

    def close():
        if cur is not None and last is not None:
            out.insert(last + 1, cur + "_e:")

    for ln in lines:
        s = ln.split("#")[0].strip()
        m = re.match(r"([^\s:]+):", s)
        if SWITCH.match(ln) or (m and m.group(1) in labels):
            close()
            cur = last = None
        out.append(ln)
        if m and m.group(1) in labels:
            cur = "memsz_lsda_%s_%d" % (tag, len(funcs))
            funcs[cur] = labels[m.group(1)]
            out.append(cur + "_b:")
            last = len(out) - 1
        elif cur is not None and DATA.match(ln):
            last = len(out) - 1
    close()
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
    return funcs


def marker_syms(path):
    """{marker: (section index, value)} of the markers (readelf -s)"""
    out = {}
    for line in readelf(["-s"], path).splitlines():
        f = line.split()
        if len(f) == 8 and f[6].isdigit() and f[7].startswith("memsz_"):
            out[f[7]] = (int(f[6]), int(f[1], 16))
    return out


def shdr_names(path):
    """{index: (name, address, offset, size)} of readelf -S"""
    out = {}
    for line in readelf(["-S"], path).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            out[int(m.group(1))] = (m.group(2), int(m.group(3), 16),
                                    int(m.group(4), 16),
                                    int(m.group(5), 16))
    return out


def lsdas(marked, funcs):
    """[(section name, section-relative start, end, function)] of the
    LSDAs in marked (a file built from mark()'s assembly)"""
    syms, secs = marker_syms(marked), shdr_names(marked)
    out = []
    linked = " DYN " in readelf(["-h"], marked) or \
        " EXEC " in readelf(["-h"], marked)
    for n, fn in sorted(funcs.items()):
        if n + "_b" not in syms or n + "_e" not in syms:
            lib.fail("%s: marker %s not in readelf -s" % (marked, n))
        (si, b), e = syms[n + "_b"], syms[n + "_e"][1]
        name, addr = secs[si][0], secs[si][1]
        # a .o's values are section offsets, a linked file's addresses
        base = addr if linked else 0
        out.append((name, b - base, e - base, fn))
    return out


def same_bytes(a, b, names):
    """Do the sections names of a and b hold the same bytes?"""
    sa = {v[0]: v for v in shdr_names(a).values()}
    sb = {v[0]: v for v in shdr_names(b).values()}
    da, db = open(a, "rb").read(), open(b, "rb").read()
    for n in names:
        if n not in sa or n not in sb or sa[n][3] != sb[n][3]:
            return False
        if da[sa[n][2]:sa[n][2] + sa[n][3]] != db[sb[n][2]:sb[n][2] +
                                                   sb[n][3]]:
            return False
    return True


def memsz_rows(path):
    r = subprocess.run([MEMSZ, "size", "--no-disasm", "--demangle", "none",
                        "--by", "sections,symbols", "-n", "0", "--format",
                        "csv", path], capture_output=True, text=True)
    name = os.path.basename(path)
    ok = r.returncode == 0 and "Sanitizer" not in r.stderr
    check(ok, "%s: exit 0 (%d%s)" % (name, r.returncode,
                                      "" if ok else ": " + r.stderr[-300:]))
    rows = csv.DictReader(r.stdout.splitlines())
    got = {}
    total = 0
    for x in rows:
        got[(x["sections"], x["symbols"])] = (int(x["file_size"]),
                                              int(x["vm_size"]))
        total += int(x["file_size"])
        for a in filter(None, x["aliases"].split(";")):
            got[(x["sections"], a)] = got[(x["sections"], x["symbols"])]
    check(total == os.path.getsize(path),
          "%s: FILE SIZE sums to the file's size (I1)" % name)
    return got, r.stderr


def check_lsdas(path, ranges, least):
    """memsz's rows of path against ranges (lsdas()): each function its
    LSDAs' bytes, each section's rest under its label"""
    name = os.path.basename(path)
    got, _err = memsz_rows(path)
    secs = {v[0]: v for v in shdr_names(path).values()}
    want = {}
    for sec, b, e, fn in ranges:
        want[(sec, fn)] = want.get((sec, fn), 0) + e - b
    check(len(ranges) >= least,
          "%s: the assembly has %d LSDAs (want >= %d)"
          % (name, len(ranges), least))
    alloc = {s for s, _b, _e, _f in ranges}
    for (sec, fn), n in sorted(want.items()):
        g = got.get((sec, fn))
        check(g is not None and g[0] == n and g[1] == n,
              "%s: %s owns %d bytes of %s (got %s)" % (name, fn, n, sec, g))
    data = open(path, "rb").read()
    for sec in sorted(alloc):
        size = secs[sec][3]
        mine = sum(e - b for s, b, e, _f in ranges if s == sec)
        rest = got.get((sec, "[section %s]" % sec), (0, 0))[0]
        check(rest == size - mine,
              "%s: %s's %d other bytes (of %d) stay under its label "
              "(got %d)" % (name, sec, size - mine, size, rest))
        # and they are the padding: zeros between LSDAs
        cover = bytearray(size)
        for s, b, e, _f in ranges:
            if s == sec:
                cover[b:e] = b"\1" * (e - b)
        off = secs[sec][2]
        gaps = [data[off + i] for i in range(size) if not cover[i]]
        check(not any(gaps),
              "%s: %s's bytes outside every LSDA are zeros (%d)"
              % (name, sec, len(gaps)))


def build(tmp, tag, cc, flags, src, suffix):
    """src compiled by cc to assembly, marked, and both assembled; the
    plain .o, the marked .o, {N: function}"""
    path = os.path.join(tmp, tag + suffix)
    with open(path, "w") as f:
        f.write(src)
    s = os.path.join(tmp, tag + ".s")
    ms = os.path.join(tmp, tag + "-marked.s")
    run([cc] + flags + ["-S", "-o", s, path])
    funcs = mark(s, ms, tag.replace("-", "_"))
    o, mo = os.path.join(tmp, tag + ".o"), os.path.join(tmp, tag + "-m.o")
    run([cc] + flags + ["-c", "-o", o, s])
    run([cc] + flags + ["-c", "-o", mo, ms])
    return o, mo, funcs


def except_secs(path):
    return [v[0] for v in shdr_names(path).values()
            if v[0].startswith(".gcc_except_table")]


def fdes(path):
    """[(FDE offset in .eh_frame, pc_begin, LSDA field offset in it)]
    of readelf --debug-dump=frames: the FDEs of zPLR CIEs whose pointers
    are pcrel sdata4 (0x1b), LSDA field 17 bytes in"""
    out, cies = [], {}
    cur = None
    for line in readelf(["--debug-dump=frames"], path).splitlines():
        m = re.match(r"([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE$", line)
        if m:
            cur = ("cie", int(m.group(1), 16))
            continue
        m = re.match(r"([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=([0-9a-f]+) "
                     r"pc=([0-9a-f]+)", line)
        if m:
            cur = ("fde", int(m.group(1), 16), int(m.group(2), 16),
                   int(m.group(3), 16))
            continue
        m = re.match(r"\s+Augmentation:\s+\"(\S*)\"", line)
        if m and cur and cur[0] == "cie":
            cies[cur[1]] = [m.group(1)]
        m = re.match(r"\s+Augmentation data:\s+([0-9a-f ]+)$", line)
        if m and cur:
            b = bytes.fromhex(m.group(1).replace(" ", ""))
            if cur[0] == "cie" and cur[1] in cies:
                cies[cur[1]].append(b)
            elif cur[0] == "fde":
                aug = cies.get(cur[2], [""])
                if (aug[0] == "zPLR" and len(aug) > 1 and
                        aug[1][-2:] == b"\x1b\x1b" and len(b) == 4):
                    out.append((cur[1], cur[3], cur[1] + 17))
    return out


def hostile(so, ranges, tmp):
    """so with its LSDAs' FDEs and LSDAs broken (see the docstring)"""
    secs = {v[0]: v for v in shdr_names(so).values()}
    ehaddr, ehoff = secs[".eh_frame"][1], secs[".eh_frame"][2]
    gaddr, goff, gsize = secs[".gcc_except_table"][1:4]
    taddr = secs[".text"][1]
    syms = {}
    for line in readelf(["-s"], so).splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[6].isdigit():
            syms.setdefault(int(f[1], 16), f[7])
    data = bytearray(open(so, "rb").read())
    lsda_of = {}
    for off, pc, field in fdes(so):
        v = struct.unpack_from("<i", data, ehoff + field)[0]
        lsda_of[syms.get(pc)] = (off, field, ehaddr + field + v - gaddr)
    byfn = {fn: (b, e) for _s, b, e, fn in ranges}
    need = ("_Z9catch_inti", "_Z7cleanupi", "_Z4manyi", "_Z4speci",
            "_Z6nestedi")
    if not all(n in lsda_of and n in byfn and lsda_of[n][2] == byfn[n][0]
               for n in need):
        lib.skip_part("readelf --debug-dump=frames: not every FDE's LSDA "
                      "pointer found (%s)" % sorted(lsda_of))
        return

    def point(fn, to_addr):
        _o, field, _l = lsda_of[fn]
        struct.pack_into("<i", data, ehoff + field,
                         to_addr - (ehaddr + field))
    # catch_int's pointer into .text
    point("_Z9catch_inti", taddr)
    # cleanup's call-site table length (ULEB at byte 3: no TType) huge
    b = byfn["_Z7cleanupi"][0]
    check(data[goff + b + 1] == 0xff,
          "cleanup's LSDA has no type table (TType encoding omit)")
    data[goff + b + 3:goff + b + 5] = b"\xff\x7f"
    # many's LPStart encoding unknown (0x0d)
    data[goff + byfn["_Z4manyi"][0]] = 0x0d
    # nested's first action record links to itself: the record after the
    # call-site table, its second byte (disp) -1 back to its filter
    b = byfn["_Z6nestedi"][0]
    # header: LPStart omit, TType enc, ULEB, cs enc, ULEB cs length
    p = goff + b + 2
    while data[p] & 0x80:
        p += 1
    p += 2
    cslen, shift = 0, 0
    while True:
        cslen |= (data[p] & 0x7f) << shift
        shift += 7
        p += 1
        if not data[p - 1] & 0x80:
            break
    act = p + cslen
    check(data[act] < 0x40 and data[act + 1] < 0x80,
          "nested's first action record: two one-byte SLEB128s")
    data[act + 1] = 0x7f  # -1: back to its own filter
    # spec's FDE points to nested's LSDA too; which is first in
    # .eh_frame owns it
    point("_Z4speci", gaddr + byfn["_Z6nestedi"][0])
    first = min(("_Z4speci", "_Z6nestedi"), key=lambda n: lsda_of[n][0])
    bad = os.path.join(tmp, "hostile.so")
    with open(bad, "wb") as f:
        f.write(data)
    got, err = memsz_rows(bad)
    sec = ".gcc_except_table"
    own = {k[1]: v[0] for k, v in got.items() if k[0] == sec}
    for fn in ("_Z9catch_inti", "_Z7cleanupi", "_Z4manyi"):
        check(fn not in own, "hostile.so: %s owns no %s byte (%s)"
              % (fn, sec, own.get(fn)))
    nb, ne = byfn["_Z6nestedi"]
    other = "_Z4speci" if first == "_Z6nestedi" else "_Z6nestedi"
    check(own.get(first) == ne - nb and other not in own,
          "hostile.so: nested's LSDA (its action loop read once) is %s's, "
          "the first FDE's: %d bytes (%s: %s, %s: %s)"
          % (first, ne - nb, first, own.get(first), other, own.get(other)))
    kept = sum(e - b for _s, b, e, fn in ranges
               if fn not in ("_Z9catch_inti", "_Z7cleanupi", "_Z4manyi",
                             "_Z4speci", "_Z6nestedi"))
    check(own.get("[section %s]" % sec, 0) == gsize - kept - (ne - nb),
          "hostile.so: every other byte under [section %s] (%d, got %s)"
          % (sec, gsize - kept - (ne - nb),
             own.get("[section %s]" % sec)))
    m = re.search(r"(\d+) LSDAs? .*could not be decoded", err)
    check(m and int(m.group(1)) == 2,
          "hostile.so: a note counts the 2 LSDAs of .gcc_except_table "
          "memsz could not decode (%s)" % err.strip()[-300:])


def unowned(tmp, flags):
    """A shared object whose cleanup() (both parts) has no symbol left:
    its LSDAs, which no function owns, still end the LSDA before them.
    catch_int.cold's LSDA, its TType offset raised by 16 bytes, reads
    past its end into cleanup's: memsz must not give it those bytes."""
    o, mo, funcs = build(tmp, "hid", "g++", flags + ["-fvisibility=hidden"],
                         CXX, ".cpp")
    so, mso = os.path.join(tmp, "hid.so"), os.path.join(tmp, "hid-m.so")
    run(["g++", "-shared", "-o", so, o])
    run(["g++", "-shared", "-o", mso, mo])
    for f in (so, mso):
        run(["objcopy", "--strip-symbol=_Z7cleanupi",
             "--strip-symbol=_Z7cleanupi.cold", f])
    ranges = lsdas(mso, funcs)
    byfn = {fn: (b, e) for _s, b, e, fn in ranges}
    cold = "_Z9catch_inti.cold"
    mine = [(b, e) for _s, b, e, fn in ranges if fn.startswith("_Z7clean")]
    if cold not in byfn or not mine:
        lib.skip_part("g++ made no catch_int.cold or no cleanup LSDA "
                      "(%s)" % sorted(byfn))
        return
    secs = {v[0]: v for v in shdr_names(so).values()}
    goff = secs[".gcc_except_table"][2]
    b, e = byfn[cold]
    nxt = min([x for _s, x, _e, _f in ranges if x > b],
              default=secs[".gcc_except_table"][3])
    data = bytearray(open(so, "rb").read())
    check(data[goff + b] == 0xff and data[goff + b + 1] != 0xff and
          data[goff + b + 2] < 0x70,
          "hid.so: catch_int.cold's LSDA has a type table, a one-byte "
          "TType offset")
    data[goff + b + 2] += 16
    bad = os.path.join(tmp, "hid-bad.so")
    with open(bad, "wb") as f:
        f.write(data)
    got, err = memsz_rows(bad)
    sec = ".gcc_except_table"
    own = {k[1]: v[0] for k, v in got.items() if k[0] == sec}
    check(own.get(cold, 0) <= nxt - b,
          "hid-bad.so: %s owns at most the %d bytes before the next LSDA "
          "(cleanup's, no symbol's) (got %s)" % (cold, nxt - b,
                                                 own.get(cold)))
    left = own.get("[section %s]" % sec, 0)
    check(left >= sum(y - x for x, y in mine),
          "hid-bad.so: cleanup's %d LSDA bytes stay under [section %s] "
          "(got %d there)" % (sum(y - x for x, y in mine), sec, left))
    for fn, (x, y) in sorted(byfn.items()):
        if fn != cold and not fn.startswith("_Z7clean"):
            check(own.get(fn) == y - x, "hid-bad.so: %s owns its %d bytes "
                  "(got %s)" % (fn, y - x, own.get(fn)))


def main():
    if not shutil.which("g++") or not shutil.which("gcc"):
        lib.skip("g++ is not installed")
    compilers = [("g++", "gcc", ["-O2", "-fPIC", "-std=c++14",
                                 "-Wno-deprecated"])]
    if shutil.which("clang++") and shutil.which("clang"):
        compilers.append(("clang++", "clang",
                          ["-O2", "-fPIC", "-std=c++14",
                           "-Wno-deprecated", "-Wno-dynamic-exception-spec"]))
    else:
        print("# clang++ is not installed: g++'s files only")
    with tempfile.TemporaryDirectory(prefix="memsz-t1112-") as tmp:
        for cxx, cc, flags in compilers:
            tag = cxx.replace("+", "x")
            o, mo, funcs = build(tmp, tag, cxx, flags, CXX, ".cpp")
            co, cmo, cfuncs = build(tmp, tag + "-c", cc,
                                    ["-O2", "-fPIC", "-fexceptions"], C,
                                    ".c")
            fo, fmo, ffuncs = build(tmp, tag + "-fs", cxx,
                                    flags + ["-ffunction-sections"], CXX,
                                    ".cpp")
            so, mso = (os.path.join(tmp, tag + ".so"),
                       os.path.join(tmp, tag + "-m.so"))
            run([cxx, "-shared", "-o", so, o, co])
            run([cxx, "-shared", "-o", mso, mo, cmo])
            for plain, marked, fn, least in ((o, mo, funcs, 6),
                                             (co, cmo, cfuncs, 1),
                                             (fo, fmo, ffuncs, 6),
                                             (so, mso, None, 7)):
                secs = except_secs(plain)
                check(secs and same_bytes(plain, marked, secs),
                      "%s: the markers changed no byte of %s"
                      % (os.path.basename(plain), secs))
                if fn is None:  # the .so's: both objects'
                    fn = dict(funcs)
                    fn.update(cfuncs)
                check_lsdas(plain, lsdas(marked, fn), least)
            if cxx == "g++":
                hostile(so, lsdas(mso, dict(funcs, **cfuncs)), tmp)
                unowned(tmp, flags)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
