#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` of names longer than a label holds (LABEL_LEN_MAX, 1 MiB):
a symbol of 2 MiB, and a compile unit whose DW_AT_name is 2 MiB in a
compressed .debug_str (a hostile file makes such a name gigabytes long
from a few megabytes: a label of 4 GiB ended memsz, one of 2 GiB ended it
in printf). Each is shown as its first 1 MiB and "... [cut: N bytes,
hash XXXXXXXX]", N the name's length and XXXXXXXX its CRC-32 (Python's
zlib.crc32()); the sizes still sum to the file's size (I1).

Fixtures, built here: a C file with a 2 MiB identifier (gcc takes it; nm
gives its length); a small program built with -gdwarf-4 whose unit name
is pointed (DW_FORM_strp) at a 2 MiB string appended to .debug_str, then
compressed with objcopy --compress-debug-sections=zlib (readelf -wi and
-S confirm the name and SHF_COMPRESSED); a function named by 1 MiB - 1
bytes built by clang with -fbasic-block-sections=labels, whose blocks
(llvm-readobj --bb-addr-map gives them) are labelled NAME#N: the name
cut to leave room for "#N", which is kept, and the label no longer than
1 MiB and 128 bytes, in csv and in pprof's string table alike (which cut
the labels again, "#N" with them).
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
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
csv.field_size_limit(16 << 20)  # labels of 1 MiB and more
LABEL_LEN_MAX = 1 << 20
LONG = 2 << 20


def rows(path, key):
    """(exit status, [(label, file size)], stderr) of size --by key, csv."""
    p = subprocess.run([MEMSZ, "size", "--by", key, "--format", "csv",
                        "-n", "0", path], capture_output=True, text=True)
    out = list(csv.DictReader(io.StringIO(p.stdout)))
    return p.returncode, [(r[key], int(r["file_size"])) for r in out], \
        p.stderr


def cut(name):
    return name[:LABEL_LEN_MAX] + "... [cut: %d bytes, hash %08x]" % (
        len(name), zlib.crc32(name.encode()))


def checks(what, path, key, name):
    rc, got, err = rows(path, key)
    labels = [r[0] for r in got if r[0] != "TOTAL"]
    check(rc == 0 and cut(name) in labels,
          "%s: the name shown cut after 1 MiB, with its length (exit %d, "
          "%r, labels of %s bytes)" % (what, rc, err[-300:],
                                       [len(x) for x in labels]))
    check(name not in labels and
          all(len(x) <= LABEL_LEN_MAX + 40 for x in labels),
          "%s: no label longer than 1 MiB and its mark" % what)
    check(sum(r[1] for r in got if r[0] != "TOTAL") ==
          os.path.getsize(path),
          "%s: FILE SIZE sums to the file's size (I1)" % what)


def long_symbol(tmp):
    name = "A" * LONG
    src = os.path.join(tmp, "sym.c")
    exe = os.path.join(tmp, "sym")
    with open(src, "w") as f:
        f.write("int %s = 1;\nint main(void) { return %s; }\n" % (name, name))
    subprocess.run(["gcc", "-O0", "-o", exe, src], check=True)
    nm = subprocess.run(["nm", exe], capture_output=True, text=True,
                        check=True).stdout
    check(any(line.endswith(" " + name) for line in nm.splitlines()),
          "nm: the binary has the 2 MiB symbol")
    checks("a 2 MiB symbol", exe, "symbols", name)


def long_unit(tmp):
    """A unit named by a 2 MiB string appended to .debug_str, compressed."""
    name = "B" * LONG
    # a name long enough for gcc to put in .debug_str (DW_FORM_strp)
    src = os.path.join(tmp, "a_unit_with_a_name_in_debug_str.c")
    exe = os.path.join(tmp, "unit")
    patched = os.path.join(tmp, "unit.patched")
    packed = os.path.join(tmp, "unit.z")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-gdwarf-4", "-O0", "-o", exe, src], check=True)
    info = lib.readelf(["-wi"], exe)
    m = re.search(r"DW_TAG_compile_unit.*?\n\s*<([0-9a-f]+)>\s+DW_AT_name\s*:"
                  r"\s*\((?:indirect string, offset|strp\) \(offset): "
                  r"(0|0x[0-9a-f]+)\): "  # readelf prints offset 0 as "0"
                  r"\S*a_unit_with_a_name_in_debug_str\.c",
                  info, re.S)
    if not m:
        lib.fail("readelf -wi: the unit's DW_AT_name is no strp")
    secs = lib.sections(exe)
    info_off = secs[".debug_info"][1]
    str_off, str_len = secs[".debug_str"][1:3]
    b = bytearray(open(exe, "rb").read())
    # the name's strp at the new string, .debug_str moved to the end of
    # the file with the string appended (objcopy lays the file out anew)
    at = info_off + int(m.group(1), 16)
    b[at:at + 4] = struct.pack("<I", str_len)
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
    new = bytes(b[str_off:str_off + str_len]) + name.encode() + b"\0"
    end = (len(b) + 7) & ~7
    for i in range(shnum):
        h = shoff + i * shentsize
        off, size = struct.unpack_from("<QQ", b, h + 0x18)
        if (off, size) == (str_off, str_len):
            struct.pack_into("<QQ", b, h + 0x18, end, len(new))
    b += bytes(end - len(b)) + new
    open(patched, "wb").write(b)
    subprocess.run(["objcopy", "--compress-debug-sections=zlib", patched,
                    packed], check=True)
    check("C" in lib.sections(packed).get(".debug_str", (0, 0, 0, ""))[3],
          "objcopy: .debug_str is SHF_COMPRESSED")
    check(re.search(r"DW_AT_name\s*: \((?:indirect string, offset|strp\) "
                    r"\(offset): 0x%x\): B{%d}\n" % (str_len, LONG),
                    lib.readelf(["-wi"], packed)),
          "readelf -wi: the unit is named by the 2 MiB string")
    checks("a unit named by 2 MiB of compressed .debug_str", packed,
           "compileunits", name)


def pprof_strings(data):
    """The string table (field 6) of a pprof Profile, gzipped or not."""
    if data[:2] == b"\x1f\x8b":
        data = zlib.decompress(data, 16 + zlib.MAX_WBITS)
    out, i = [], 0

    def varint():
        nonlocal i
        v = sh = 0
        while True:
            b = data[i]
            i += 1
            v |= (b & 0x7f) << sh
            sh += 7
            if not b & 0x80:
                return v

    while i < len(data):
        key = varint()
        kind = key & 7
        if kind == 0:
            varint()
        elif kind == 1:
            i += 8
        elif kind == 5:
            i += 4
        elif kind == 2:
            n = varint()
            if key >> 3 == 6:
                out.append(data[i:i + n].decode("utf-8", "replace"))
            i += n
        else:
            lib.fail("pprof: wire type %d" % kind)
    return out


def long_blocks(tmp):
    """Basic blocks of a function named by LABEL_LEN_MAX - 1 bytes."""
    cc = shutil.which("clang-14") or shutil.which("clang")
    ro = shutil.which("llvm-readobj-14") or shutil.which("llvm-readobj")
    if not cc or not ro:
        lib.skip_part("clang and llvm-readobj needed for --by bbs")
        return
    name = "C" * (LABEL_LEN_MAX - 1)
    src = os.path.join(tmp, "bbs.c")
    exe = os.path.join(tmp, "bbs")
    with open(src, "w") as f:
        f.write("__attribute__((noinline)) int %s(int x)\n{\n"
                "\tint g = 0;\n\tif (x > 3)\n\t\treturn x * 2;\n"
                "\tfor (int i = 0; i < x; i++)\n"
                "\t\tg += i * (i & 1 ? 3 : 5);\n\treturn g;\n}\n"
                "int main(int c, char **v) { return %s(c); }\n"
                % (name, name))
    if subprocess.run([cc, "-O2", "-fbasic-block-sections=labels", "-o",
                       exe, src]).returncode:
        lib.skip_part("clang cannot build -fbasic-block-sections=labels")
        return
    bbmap = subprocess.run([ro, "--bb-addr-map", exe], capture_output=True,
                           text=True, check=True).stdout
    fn = bbmap[bbmap.index("Name: " + name):]
    fn = fn[:fn.index("\n  }")]
    nblocks = len(re.findall(r"Size: 0x[0-9A-F]*[1-9A-F]", fn))
    check(nblocks >= 2, "llvm-readobj: the function has %d blocks with "
          "bytes" % nblocks)
    p = subprocess.run([MEMSZ, "size", "--by", "bbs", "--format", "csv",
                        "-n", "0", exe], capture_output=True, text=True)
    got = [r["bbs"] for r in csv.DictReader(io.StringIO(p.stdout))
           if r["bbs"].startswith("CCCC")]
    check(p.returncode == 0 and len(set(got)) == nblocks and
          all(re.fullmatch(r"C+\.\.\. \[cut: %d bytes, hash %08x\]#\d+"
                           % (len(name), zlib.crc32(name.encode())), g)
              for g in got),
          "bbs, csv: each block of the 1 MiB name its own label, cut with "
          "its mark, #N kept (exit %d, %d labels of %d blocks)"
          % (p.returncode, len(set(got)), nblocks))
    check(all(len(g) <= LABEL_LEN_MAX + 128 for g in got),
          "bbs, csv: no label over 1 MiB and 128 bytes")
    p = subprocess.run([MEMSZ, "size", "--by", "bbs", "--format", "pprof",
                        "-n", "0", exe], capture_output=True)
    strs = [x for x in pprof_strings(p.stdout) if x.startswith("CCCC")]
    check(p.returncode == 0 and set(strs) == set(got),
          "bbs, pprof: the string table holds the same labels, #N kept "
          "(%d of %d)" % (len(set(strs) & set(got)), len(set(got))))


def main():
    for tool in ("gcc", "nm", "readelf", "objcopy"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        long_symbol(tmp)
        long_unit(tmp)
        long_blocks(tmp)
    sys.exit(lib.finish())


main()
