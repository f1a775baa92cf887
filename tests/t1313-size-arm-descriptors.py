#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by sections,symbols` of 32-bit ARM files: an
.ARM.extab entry of ARM's compact models (__aeabi_unwind_cpp_pr0, pr1,
pr2) belongs whole to its function: its personality word, the unwind
data words it counts, and the descriptor list after them (the ARM
EHABI's exception-handling table: a scope of two halfwords, pr2's two
words, then a cleanup's landing pad, a catch's landing pad and type, or
an exception specification's count word, types and landing pad; the list
ended by a zero word, which the assemblers write alone for a function
without handler data). memsz left the list, zero word included, under
"[section .ARM.extab]".

Ground truth: hand-written assembly (.fnstart, .personalityindex 0/1/2,
.handlerdata with descriptors of each kind, .fnend), assembled by clang
for armv7 with labels at both ends of each handler data and again
without them (same .ARM.extab bytes, checked), as a .o and linked by
ld.lld -shared, and as a big-endian .o (ld.lld 14 cannot link
big-endian ARM); readelf -u gives each function's extab entry (where it
starts), readelf -s the labels (where the handler data starts and ends)
or, without handler data, the next entry's start (or the section's end):
the entry's bytes, all of them its function's. One handler data has a
word after its list's zero word (an extab entry no exidx entry points
to), labelled: its list ends before the next entry, and the word stays
under the section's label. t1310's model of an entry (its words and
list by the EHABI's rules) must give the labels' lengths. Also a C
function clang gives a pr1 entry (t1310's framed(): a frame of 4 KiB,
8 registers saved and 8 VFP ones: more unwind opcodes than pr0 holds),
.o and .so. Hostile copies: a list whose end word is a scope (the list
runs past the next entry), a count of 2^31-1 types, the reserved
descriptor kind, and (a .o, both byte orders) a scope word a relocation
patches, 0 in the .o, and a scope whose offset halfword an R_ARM_ABS16
patches (readelf -r): each keeps its words, not the list, and a note
counts them.
"""
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
from memsz_testlib import check, readelf  # noqa: E402

T1310 = lib.sibling_test("t1310-size-arm-exidx")

# .LM_ labels mark the handler data: kept (M_) in the marked build
ASM = r'''
	.syntax unified
	.arch armv7-a
	.fpu vfpv3
	.section .data.rel.ro,"aw",%progbits
	.p2align 2
	.type tinfo_a,%object
tinfo_a: .word 1
	.size tinfo_a, 4
	.type tinfo_b,%object
tinfo_b: .word 2
	.size tinfo_b, 4
	.text
	.arm
	.p2align 2
	.globl pr1_plain
	.type pr1_plain,%function
pr1_plain:
	.fnstart
	.personalityindex 1
	.save {r4-r11, lr}
	push {r4-r11, lr}
	.vsave {d8-d15}
	vpush {d8-d15}
	.pad #4096
	sub sp, sp, #4096
	add sp, sp, #4096
	vpop {d8-d15}
	pop {r4-r11, pc}
	.fnend
	.size pr1_plain, .-pr1_plain

	.globl pr2_plain
	.type pr2_plain,%function
pr2_plain:
	.fnstart
	.personalityindex 2
	.save {r4, lr}
	push {r4, lr}
	pop {r4, pc}
	.fnend
	.size pr2_plain, .-pr2_plain

	@ a Thumb function (its exidx entry's address has bit 0 set)
	.thumb
	.globl pr1_desc
	.type pr1_desc,%function
	.thumb_func
pr1_desc:
	.fnstart
	.personalityindex 1
	.save {r4-r11, lr}
	push {r4-r11, lr}
	.pad #4096
	sub sp, sp, #4096
.L1s1:	bl pr1_plain
.L1s2:	bl pr2_plain
.L1e:	add sp, sp, #4096
	pop {r4-r11, pc}
.L1lp1:	bl pr1_plain
.L1lp2:	bl pr2_plain
	.handlerdata
.LM_pr1_desc_b:
	@ a cleanup
	.short .L1e-.L1s1, .L1s1-pr1_desc
	.word .L1lp1(prel31)
	@ a catch (the length's low bit)
	.short .L1e-.L1s1+1, .L1s1-pr1_desc
	.word .L1lp2(prel31)
	.word tinfo_a(target2)
	@ an exception specification with a landing pad (bit 31), 2 types
	.short .L1e-.L1s2, .L1s2-pr1_desc+1
	.word 0x80000002
	.word tinfo_a(target2)
	.word tinfo_b(target2)
	.word .L1lp2(prel31)
	@ throw(): no types, no landing pad
	.short .L1e-.L1s1, .L1s1-pr1_desc+1
	.word 0
.LM_pr1_desc_z:
	.word 0
.LM_pr1_desc_e:
	.fnend
	.size pr1_desc, .-pr1_desc
	.arm

	.globl pr2_desc
	.type pr2_desc,%function
pr2_desc:
	.fnstart
	.personalityindex 2
	.save {r4, lr}
	push {r4, lr}
.L2s1:	bl pr1_plain
.L2e:	pop {r4, pc}
.L2lp:	bl pr1_plain
	.handlerdata
.LM_pr2_desc_b:
	@ a catch (...) and a cleanup, 32-bit scopes
	.word .L2e-.L2s1+1, .L2s1-pr2_desc
	.word .L2lp(prel31)
	.word 0xffffffff
	.word .L2e-.L2s1, .L2s1-pr2_desc
	.word .L2lp(prel31)
	.word .L2e-.L2s1, .L2s1-pr2_desc+1
.LM_pr2_desc_n:
	.word 0x80000001
	.word tinfo_b(target2)
	.word .L2lp(prel31)
	.word 0
.LM_pr2_desc_e:
	.fnend
	.size pr2_desc, .-pr2_desc

	.globl pr0_desc
	.type pr0_desc,%function
pr0_desc:
	.fnstart
	.personalityindex 0
	.save {r4, lr}
	push {r4, lr}
.L0s1:	bl pr1_plain
.L0e:	pop {r4, pc}
.L0lp:	bl pr1_plain
	.handlerdata
.LM_pr0_desc_b:
	.short .L0e-.L0s1, .L0s1-pr0_desc
	.word .L0lp(prel31)
	.word 0
.LM_pr0_desc_e:
	.fnend
	.size pr0_desc, .-pr0_desc

	.globl pr1_stray
	.type pr1_stray,%function
pr1_stray:
	.fnstart
	.personalityindex 1
	.save {r4, lr}
	push {r4, lr}
.L3s1:	bl pr2_plain
	bl pr2_plain
.L3e:	pop {r4, pc}
	.handlerdata
.LM_pr1_stray_b:
	@ a catch (...), landing where the scope ends
	.short .L3e-.L3s1+1, .L3s1-pr1_stray
	.word .L3e(prel31)
	.word 0xffffffff
	.word 0
.LM_pr1_stray_e:
	@ after the list's end, before the next entry: an extab entry no
	@ exidx entry points to (pr0's, "finish")
	.word 0x80b0b0b0
.LM_pr1_stray_x:
	.fnend
	.size pr1_stray, .-pr1_stray

	.globl pr1_last
	.type pr1_last,%function
pr1_last:
	.fnstart
	.personalityindex 1
	.save {r4, lr}
	push {r4, lr}
	pop {r4, pc}
	.fnend
	.size pr1_last, .-pr1_last
'''

# A scope word a relocation patches (0 in the .o; pr1), a scope whose
# offset halfword an R_ARM_ABS16 patches (1 in the .o: read, an
# exception specification of no types, 12 bytes with the end word; pr0):
# their values are unknown
RELOC_ASM = r'''
	.syntax unified
	.arch armv7-a
	.text
	.arm
	.globl rel_scope
	.type rel_scope,%function
rel_scope:
	.fnstart
	.personalityindex 1
	.save {r4, lr}
	push {r4, lr}
	pop {r4, pc}
	.handlerdata
	.word ext_scope
	.word 0x10
	.word 0
	.fnend
	.size rel_scope, .-rel_scope

	.globl rel_half
	.type rel_half,%function
rel_half:
	.fnstart
	.personalityindex 0
	bx lr
	.handlerdata
	.short 0x10, ext16+1
	.word 0
	.word 0
	.fnend
	.size rel_half, .-rel_half
'''

C = T1310.C  # framed(): a pr1 entry of a C function

FUNCS = ("pr1_plain", "pr2_plain", "pr1_desc", "pr2_desc", "pr0_desc",
         "pr1_stray", "pr1_last")
BE = "--target=armebv7-linux-gnueabihf"


def build(tmp, name, src, ext, *flags, target=T1310.TARGET):
    """tmp/NAME.o of src (a file NAME.ext) by clang for armv7 (target:
    BE for big-endian)"""
    path = os.path.join(tmp, name + ext)
    o = os.path.join(tmp, name + ".o")
    with open(path, "w") as f:
        f.write(src)
    T1310.run(["clang", target] + list(flags) + ["-c", "-o", o, path])
    return o


def marks(path):
    """{label: value} of the M_ labels of readelf -s"""
    out = {}
    for line in readelf(["-s"], path).splitlines():
        f = line.split()
        if len(f) == 8 and f[7].startswith("M_"):
            out[f[7][2:]] = int(f[1], 16)
    return out


def extab_bytes(path):
    secs = T1310.shdrs(path)
    _i, _t, _a, off, size, _l = secs[".ARM.extab"]
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(size)


def entries(path):
    """{function: (start, end)} of its .ARM.extab entry, offsets in the
    section: where readelf -u says it starts; where the marked handler
    data ends (ends: {function: address}), else where the next entry
    starts or the section ends"""
    secs, syms = T1310.shdrs(path), T1310.funcs(path)
    base, size = secs[".ARM.extab"][2], secs[".ARM.extab"][4]
    starts = {}
    for sec, addr, what in T1310.unwind(path):
        if isinstance(what, int):
            starts[syms.get((secs[sec][5], addr & ~1))] = what - base
    edges = sorted(starts.values()) + [size]
    return {fn: (s, edges[edges.index(s) + 1]) for fn, s in starts.items()}


def truth(marked, plain, be=False):
    """{function: (start, end)} of plain's extab entries, checked against
    marked's labels: an entry ends where its handler data does (_e), or,
    with words after its list (up to _x), where the list does; and the
    label offsets (entry-relative) of marked. t1310's model of an entry
    (its words and descriptor list by the EHABI's rules, be: big-endian)
    must give the same lengths."""
    name = os.path.basename(plain)
    data = extab_bytes(plain)
    check(extab_bytes(marked) == data,
          "%s: .ARM.extab's bytes are those of the marked build" % name)
    secs = T1310.shdrs(marked)
    base = secs[".ARM.extab"][2]
    m = {k: v - base for k, v in marks(marked).items()}
    got, rel = entries(plain), {}
    room = dict(got)  # to the next entry or the section's end
    want = entries(marked)
    for fn, (s, e) in want.items():
        if fn + "_x" in m:
            check(m[fn + "_e"] < m[fn + "_x"] == e,
                  "%s: %s's list ends at %#x, %d bytes before the next "
                  "entry (%#x)" % (name, fn, m[fn + "_e"],
                                   m[fn + "_x"] - m[fn + "_e"], e))
            got[fn] = (got[fn][0], got[fn][0] + m[fn + "_e"] - s)
        elif fn + "_e" in m:
            check(m[fn + "_e"] == e,
                  "%s: %s's handler data ends where the next entry "
                  "starts or the section ends (%#x, %#x)"
                  % (name, fn, m[fn + "_e"], e))
        rel.update({k[len(fn) + 1:] + "@" + fn: v - s
                    for k, v in m.items() if k.startswith(fn + "_")})
    check(sorted(got) == sorted(want) and
          all(f in got for f in FUNCS),
          "%s: readelf -u: an extab entry for each of %s (%s)"
          % (name, ", ".join(FUNCS), sorted(f for f in got if f)))
    model = {fn: T1310.extab_len(data, s, e, be)
             for fn, (s, e) in room.items()}
    bad = {fn: (model[fn], e - s) for fn, (s, e) in got.items()
           if model.get(fn) != e - s}
    check(not bad, "%s: t1310's model gives each entry's length (%d "
          "entries; wrong, model and labels: %s)" % (name, len(got), bad))
    return got, rel


def owns(path, want, what=""):
    """memsz's rows: each function owns the bytes of want (function:
    bytes); the rest of .ARM.extab stays under its label. The note's
    count of lists not decoded, or None."""
    name = os.path.basename(path)
    r = subprocess.run([lib.MEMSZ, "size", "--no-disasm", "--demangle",
                        "none", "--by", "sections,symbols", "-n", "0",
                        "--format", "csv", path], capture_output=True,
                       text=True)
    got = T1310.memsz_rows(path)
    for fn, n in sorted(want.items()):
        check(got.get((".ARM.extab", fn)) == (n, n),
              "%s: %s owns %d bytes of .ARM.extab%s (got %s)"
              % (name, fn, n, what, got.get((".ARM.extab", fn))))
    size = T1310.shdrs(path)[".ARM.extab"][4]
    rest = got.get((".ARM.extab", "[section .ARM.extab]"), (0, 0))[0]
    check(rest == size - sum(want.values()),
          "%s: .ARM.extab's other %d bytes stay under its label (got %d)"
          % (name, size - sum(want.values()), rest))
    m = re.search(r"(\d+) LSDAs? .*could not be decoded", r.stderr)
    return int(m.group(1)) if m else None


def whole(path, ent):
    """each function of ent owns its whole extab entry; no note"""
    n = owns(path, {fn: e - s for fn, (s, e) in ent.items() if fn})
    check(n is None, "%s: no note of lists not decoded (%s)"
          % (os.path.basename(path), n))


def hostile(so, ent, rel, tmp):
    """so with pr1_desc's end word made a cleanup scope (its list runs
    into pr2_desc's entry), pr2_desc's exception specification counting
    2^31-1 types, pr0_desc's scope of the reserved kind: each function
    keeps its words only; a note counts the 3 lists"""
    off = T1310.shdrs(so)[".ARM.extab"][3]
    data = bytearray(open(so, "rb").read())

    def at(fn, label):
        return off + ent[fn][0] + rel[label + "@" + fn]
    check(struct.unpack_from("<I", data, at("pr1_desc", "z"))[0] == 0 and
          struct.unpack_from("<I", data, at("pr2_desc", "n"))[0] ==
          0x80000001,
          "hostile: pr1_desc's end word is 0, pr2_desc's count 0x80000001")
    struct.pack_into("<I", data, at("pr1_desc", "z"), 0x00040004)
    struct.pack_into("<I", data, at("pr2_desc", "n"), 0x7fffffff)
    struct.pack_into("<I", data, at("pr0_desc", "b"),
                     struct.unpack_from("<I", data, at("pr0_desc", "b"))[0]
                     | 0x00010001)
    bad = os.path.join(tmp, "hostile.so")
    with open(bad, "wb") as f:
        f.write(data)
    want = {fn: e - s for fn, (s, e) in ent.items() if fn}
    for fn in ("pr1_desc", "pr2_desc", "pr0_desc"):
        want[fn] = rel["b@" + fn]
    n = owns(bad, want, " (its words only)")
    check(n == 3, "hostile.so: a note counts the 3 lists memsz could not "
          "decode (%s)" % n)


def extab_relocs(path):
    """{offset: type} of readelf -r's relocations of .ARM.extab"""
    out, sec = {}, None
    for line in readelf(["-r"], path).splitlines():
        m = re.match(r"Relocation section '(\S+)'", line)
        if m:
            sec = m.group(1)
            continue
        f = line.split()
        if sec == ".rel.ARM.extab" and len(f) >= 3 and f[2].startswith(
                "R_ARM_"):
            out[int(f[0], 16)] = f[2]
    return out


def reloc_scope(tmp, target=T1310.TARGET, tag=""):
    """a .o whose lists start with a scope word a relocation patches, 0
    there, and with a scope whose offset halfword one patches (an
    R_ARM_ABS16 2 bytes into the word): neither the list's end nor read"""
    o = build(tmp, "rel" + tag, RELOC_ASM, ".s", target=target)
    name = os.path.basename(o)
    ent, relocs = entries(o), extab_relocs(o)
    scope = ent.get("rel_scope", (-1, 0))[0] + 4
    half = ent.get("rel_half", (-1, 0))[0] + 4 + 2
    check(relocs.get(scope) == "R_ARM_ABS32" and
          relocs.get(half) == "R_ARM_ABS16",
          "%s: readelf -r: R_ARM_ABS32 at rel_scope's scope word (%#x), "
          "R_ARM_ABS16 at rel_half's offset halfword (%#x): %s"
          % (name, scope, half, relocs))
    n = owns(o, {"rel_scope": 4, "rel_half": 4})
    check(sorted(e - s for s, e in ent.values()) == [16, 16] and n == 2,
          "%s: rel_scope and rel_half own their word of their 16-byte "
          "entries; a note counts their 2 lists (%s, %s)" % (name, ent, n))


def compiled(tmp):
    """clang's pr1 entry of a C function, with the zero word it writes"""
    o = build(tmp, "c", C, ".c", "-O2", "-funwind-tables")
    so = os.path.join(tmp, "c.so")
    T1310.run(["ld.lld", "-shared", "-o", so, o])
    if "Compact model index: 1" not in readelf(["-u"], o):
        lib.skip_part("clang wrote no pr1 entry for framed()")
        return
    for path in (o, so):
        ent = entries(path)
        check(ent.get("framed", (0, 0))[1] - ent.get("framed", (0, 0))[0]
              >= 8, "%s: framed()'s extab entry: %s"
              % (os.path.basename(path), ent))
        whole(path, ent)


def big_endian(tmp):
    """the marked and plain .o assembled big-endian (ld.lld 14 cannot
    link big-endian ARM): the same entries and checks"""
    o = {}
    for kind, src in (("m", ASM.replace(".LM_", "M_")), ("p", ASM)):
        o[kind] = build(tmp, kind + "-be", src, ".s", target=BE)
    check("big endian" in readelf(["-h"], o["p"]),
          "p-be.o: readelf -h: big endian")
    ent, _rel = truth(o["m"], o["p"], be=True)
    whole(o["p"], ent)


def main():
    for tool in ("clang", "ld.lld"):
        if not shutil.which(tool):
            lib.skip("%s is not installed" % tool)
    with tempfile.TemporaryDirectory(prefix="memsz-t1313-") as tmp:
        built = {}
        for kind, src in (("m", ASM.replace(".LM_", "M_")), ("p", ASM)):
            o = build(tmp, kind, src, ".s")
            so = os.path.join(tmp, kind + ".so")
            T1310.run(["ld.lld", "-shared", "-o", so, o])
            built[kind] = (o, so)
        for i in (0, 1):
            ent, rel = truth(built["m"][i], built["p"][i])
            whole(built["p"][i], ent)
        hostile(built["p"][1], ent, rel, tmp)
        big_endian(tmp)
        reloc_scope(tmp)
        reloc_scope(tmp, BE, "-be")
        compiled(tmp)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
