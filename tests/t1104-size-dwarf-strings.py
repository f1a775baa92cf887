#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` on DWARF whose unit name runs off the end
of .debug_str, plain and compressed (SHF_COMPRESSED, inflated by libdw),
and on compressed DWARF whose headers lie.

Fixture: a C file built here with -gdwarf-5, then patched: the unit DIE's
DW_AT_name is made DW_FORM_strp (from line_strp) pointing at the last byte
of .debug_str, and that byte (the section's final NUL) made 'X', so the
string has no end inside its section. readelf -wi confirms the patch. A
copy is compressed with objcopy --compress-debug-sections=zlib.
Ground truth: both files are refused the same way ("cannot read its
DWARF", exit 0, the file still sized); nothing reads past the section
(the sanitizer build of this test fails on a read past the inflated
buffer, as memsz did before it checked the strings libdw inflates).

Lying headers, made from a zlib-compressed copy of the good file: every
.debug_* section pointed at one region of zeros whose compression header
claims 3 GiB or 6 GiB (within zlib's 1032:1 bound of the region's size:
libelf would try it), and .debug_info flagged SHF_ALLOC (which libelf's
elf_compress() refuses). Ground truth: libelf refuses each, so memsz says
it cannot read the DWARF, exits 0 and sizes the whole file (TOTAL equals
its size: I1). memsz inflated such sections itself into one buffer of
the claimed sizes' sum and ended on its allocation (abort), and inflated
the SHF_ALLOC one libelf refuses. The claims of 3 and 6 GiB are now
refused before anything is inflated, with a note (past memsz's bound on
what one image may inflate: t1106).
"""
import csv
import os
import re
import struct
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
# enough long names that .debug_str shrinks when compressed (objcopy
# leaves a section that would not as it is)
SOURCE = "".join(f"int a_rather_long_variable_name_number_{i} = {i};\n"
                 for i in range(64)) + \
    "int main(void) { return a_rather_long_variable_name_number_7; }\n"


def section(path, name):
    """(file offset, size) of section name (lib.sections: readelf -SW)."""
    secs = lib.sections(path)
    if name not in secs:
        lib.fail(f"readelf -SW {path}: no {name}")
    return secs[name][1:3]


def patch(src, dst):
    """Writes dst: src with the unit's name a strp off the end of .debug_str."""
    out = subprocess.run(["readelf", "-wi", src], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"DW_TAG_compile_unit.*?\n\s*<([0-9a-f]+)>\s+DW_AT_name\s*:"
                  r"\s*\(indirect line string", out, re.S)
    if not m:
        lib.fail("readelf -wi: the unit's DW_AT_name is no line_strp")
    info_off, _ = section(src, ".debug_info")
    abbrev_off, abbrev_len = section(src, ".debug_abbrev")
    str_off, str_len = section(src, ".debug_str")
    b = bytearray(open(src, "rb").read())
    abbrev = bytes(b[abbrev_off:abbrev_off + abbrev_len])
    # GCC numbers the unit DIE's abbreviation last; its name/line_strp pair
    at = abbrev.rfind(b"\x03\x1f")
    if at < 0:
        lib.fail(".debug_abbrev: no DW_AT_name DW_FORM_line_strp pair")
    b[abbrev_off + at + 1] = 0x0e  # DW_FORM_strp, same 4-byte size
    val = info_off + int(m.group(1), 16)
    b[val:val + 4] = (str_len - 1).to_bytes(4, "little")
    if b[str_off + str_len - 1] != 0:
        lib.fail(".debug_str does not end with a NUL")
    b[str_off + str_len - 1] = ord("X")
    open(dst, "wb").write(b)


def lie(src, dst, gib=0, alloc=False):
    """Writes dst: src (ELF64, compressed DWARF) with every .debug_*
    section at one region of zeros whose Elf64_Chdr claims gib GiB, or
    with .debug_info flagged SHF_ALLOC."""
    b = bytearray(open(src, "rb").read())
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
    secs = lib.sections(src)
    region = len(b)
    if gib:
        size = (gib << 30) // 1000 + 24
        b += struct.pack("<IIQQ", 1, 0, gib << 30, 1)
        b += bytes(size - 24)
    for i in range(shnum):
        h = shoff + i * shentsize
        off, = struct.unpack_from("<Q", b, h + 0x18)
        name = next((n for n, v in secs.items() if v[1] == off), "")
        if not name.startswith(".debug_"):
            continue
        flags, = struct.unpack_from("<Q", b, h + 8)
        if gib:
            struct.pack_into("<QQQ", b, h + 8, flags | 0x800, 0, 0)
            struct.pack_into("<QQ", b, h + 0x18, region, size)
        elif name == ".debug_info" and alloc:
            struct.pack_into("<Q", b, h + 8, flags | 0x2)
    open(dst, "wb").write(b)


def main():
    for tool in ("gcc", "readelf", "objcopy"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "prog.c")
        good = os.path.join(tmp, "prog")
        bad = os.path.join(tmp, "unterm")
        badz = os.path.join(tmp, "unterm.z")
        open(src, "w").write(SOURCE)
        subprocess.run(["gcc", "-gdwarf-5", "-O0", "-o", good, src],
                       check=True)
        patch(good, bad)
        subprocess.run(["objcopy", "--compress-debug-sections=zlib", bad,
                        badz], check=True)
        info = subprocess.run(["readelf", "-wi", bad], capture_output=True,
                              text=True).stdout
        check("(indirect string, offset: " in info.split("DW_TAG_compile_unit",
                                                        1)[-1][:600],
              "readelf: the patched unit's name is a strp")
        check("C" in lib.sections(badz).get(".debug_str", (0, 0, 0, ""))[3],
              "objcopy: .debug_str of the copy is SHF_COMPRESSED")
        ok = subprocess.run([MEMSZ, "size", "--by", "compileunits", good],
                            capture_output=True, text=True)
        check(ok.returncode == 0 and "prog.c" in ok.stdout,
              "the unpatched file's unit is named prog.c")
        for path in (bad, badz):
            r = subprocess.run([MEMSZ, "size", "--by", "compileunits", path],
                               capture_output=True, text=True)
            name = os.path.basename(path)
            check(r.returncode == 0, f"{name}: exit 0 ({r.returncode})")
            check("Sanitizer" not in r.stderr and "runtime error" not in
                  r.stderr, f"{name}: no sanitizer report")
            said = r.stdout + r.stderr
            check("cannot read its DWARF" in said,
                  f"{name}: the DWARF is refused: {said.strip()[-200:]}")
            check("TOTAL" in r.stdout, f"{name}: the file is still sized")
        goodz = os.path.join(tmp, "prog.z")
        subprocess.run(["objcopy", "--compress-debug-sections=zlib", good,
                        goodz], check=True)
        for name, kw in (("claims3g", {"gib": 3}), ("claims6g", {"gib": 6}),
                         ("alloc", {"alloc": True})):
            path = os.path.join(tmp, name)
            lie(goodz, path, **kw)
            r = subprocess.run([MEMSZ, "size", "--by", "compileunits",
                                "--format", "csv", path],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
                  f"{r.stderr.strip()[-200:]})")
            said = r.stdout + r.stderr
            if "gib" in kw:
                # thousands of times their size, GiBs: past memsz's bound
                check(": compileunits: DWARF not read: its compressed "
                      "sections claim " in said,
                      f"{name}: the DWARF is refused before anything "
                      "is inflated")
            else:
                check("cannot read its DWARF" in said or
                      "could not be read" in said,
                      f"{name}: the DWARF is refused, as libelf refuses it")
            check("prog.c" not in r.stdout,
                  f"{name}: no unit is named from a section libelf refuses")
            rows = list(csv.reader(r.stdout.splitlines()))[1:]
            check(rows and sum(int(x[1]) for x in rows) ==
                  os.path.getsize(path),
                  f"{name}: the rows' FILE SIZE sums to the file's size")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
