#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` of relocatable files (.o): their DWARF's
string offsets and addresses are in relocations with explicit addends
(SHT_RELA: x86-64, AArch64, POWER, s390x), 0 in the file's bytes, and
libdw does not apply them. memsz named every unit from the first string
of its string table (gcc: the comp_dir, clang: the end of its producer
string, or no name at all) and gave it no VM SIZE. It now applies them,
and refuses (with a note) DWARF whose relocations it does not apply
(a type no machine defines, patched into a RISC-V file) rather than
name units wrong; a relocation
against a symbol it lays out no section for (COMMON, of gcc -fcommon)
is left as it is, the unit still read (nm -S sizes its function).

Ground truth: readelf -wi, which applies the relocations, names each
unit; nm -S gives each of the source's functions' and objects' size, which the unit's
VM SIZE under --by compileunits,symbols must equal; RISC-V's R_RISCV_ADD32/SUB32 pairs
are applied too (t1195). gcc builds the
x86-64 file; clang, where it is installed, the foreign ones. A hostile
.o whose relocation writes over the end of .debug_line_str (readelf -p
shows the unit's name as its last string) has its DWARF refused; the
sanitizer build fails where its strings were checked before they were
relocated.
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
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
SOURCE = """static const char *const names[4] = {"a", "b", "c", "d"};
int table[100];
int init[10] = {1, 2, 3};
const char *name(int i) { return names[i & 3]; }
int twice(int x) { return 2 * x + table[x & 63] + init[x & 7]; }
"""
# s390x is big-endian; powerpc64le, not powerpc64, whose ELFv1 function
# symbols are descriptors in .opd, not code
CLANG = ("aarch64-linux-gnu", "powerpc64le-linux-gnu", "s390x-linux-gnu")
# the source's functions and objects (a compiler adds its own: clang's
# .L.str, reltable.* tables no DWARF variable describes)
NAMED = ("name", "twice", "init", "table")


def check_obj(obj):
    lib.check_unit_symbols(obj, os.path.basename(obj), NAMED)


def shdrs(b):
    """{name: (index, header offset, sh_offset, sh_size)} of ELF64 LE b."""
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
    strs = struct.unpack_from("<Q", b, shoff + shstrndx * shentsize + 0x18)[0]
    out = {}
    for i in range(shnum):
        h = shoff + i * shentsize
        name, = struct.unpack_from("<I", b, h)
        off, size = struct.unpack_from("<QQ", b, h + 0x18)
        n = bytes(b[strs + name:b.index(0, strs + name)]).decode()
        out[n] = (i, h, off, size)
    return out


def hostile(src, dst):
    """Writes dst: src (a gcc x86-64 .o) whose unit name is the last
    string of .debug_line_str, and whose .rela.debug_aranges is made to
    write 4 bytes of 'A' over that string's end (its NUL)."""
    b = bytearray(open(src, "rb").read())
    secs = shdrs(b)
    m = re.search(r"<([0-9a-f]+)>\s+DW_AT_name\s*:\s*"
                  r"\((?:indirect line string|line_strp)",
                  lib.readelf(["-wi"], src))
    strs = lib.section_strings(src, ".debug_line_str", 0)
    if not m or not strs or ".rela.debug_aranges" not in secs:
        return False
    last = strs[-1][0]
    _, _, info_rel, info_rel_size = secs[".rela.debug_info"]
    for o in range(info_rel, info_rel + info_rel_size, 24):
        if struct.unpack_from("<Q", b, o)[0] == int(m.group(1), 16):
            struct.pack_into("<q", b, o + 16, last)
    ls_index, _, _, ls_size = secs[".debug_line_str"]
    _, h, ar, ar_size = secs[".rela.debug_aranges"]
    struct.pack_into("<I", b, h + 44, ls_index)
    for o in range(ar, ar + ar_size, 24):
        info, = struct.unpack_from("<Q", b, o + 8)
        struct.pack_into("<QQq", b, o, 0, info & ~0xffffffff, 0)
    info, = struct.unpack_from("<Q", b, ar + 8)
    struct.pack_into("<QQq", b, ar, ls_size - 4, info | 10, 0x41414141)
    open(dst, "wb").write(b)
    return True


def main():
    for tool in ("gcc", "readelf", "nm"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        for flags in (["-gdwarf-5"], ["-gdwarf-4"], ["-gdwarf-5", "-gz"]):
            obj = os.path.join(tmp, "gcc%s.o" % "".join(flags))
            subprocess.run(["gcc", "-O1", "-c", *flags, "-o", obj, "a.c"],
                           cwd=tmp, check=True)
            check_obj(obj)
        # -fcommon: a COMMON symbol's relocation (no section laid out) is
        # left as it is; the unit is read, not refused for it
        common = os.path.join(tmp, "common.o")
        open(os.path.join(tmp, "c.c"), "w").write(
            "int common_var; int common_arr[50];\n"
            "int f(void) { return common_var + common_arr[3]; }\n")
        subprocess.run(["gcc", "-O2", "-g", "-fcommon", "-c", "-o", common,
                        "c.c"], cwd=tmp, check=True)
        want = lib.dwarf_unit_name(common)
        rows, _ = lib.size_rows(common, "compileunits,sections,symbols")
        f_vm = lib.unit_code_vm(rows, want).get("f")
        nm_f = subprocess.run(["nm", "-S", common], capture_output=True,
                              text=True, check=True).stdout
        f_size = [int(x.split()[1], 16) for x in nm_f.splitlines()
                  if x.split()[-1] == "f"]
        check(want == "c.c" and [f_vm] == f_size,
              f"-fcommon: unit {want} (readelf -wi) holds f at nm -S's size "
              f"({f_vm} vs {f_size})")
        # hostile: a relocation writing over a string section's last NUL
        # (none a toolchain makes): the strings are checked after the
        # relocations, never read past the section (the sanitizer build
        # fails on a read past it where they were checked before)
        bad = os.path.join(tmp, "overwrite.o")
        check(hostile(os.path.join(tmp, "gcc-gdwarf-5.o"), bad),
              "a .o whose .rela.debug_aranges writes over the unit name's "
              "NUL is made")
        for by in ("compileunits", "inlines"):
            r = subprocess.run([MEMSZ, "size", "--by", by, bad],
                               capture_output=True, text=True)
            # the table's footer holds the notes
            check(r.returncode == 0 and "Sanitizer" not in r.stderr and
                  "cannot read its DWARF" in r.stdout,
                  f"overwrite.o --by {by}: DWARF refused, nothing read past "
                  f"it ({r.returncode}: {r.stderr.strip()[-300:]})")
        if not shutil.which("clang"):
            lib.skip_part("clang is not installed: no foreign objects")
            sys.exit(lib.finish())
        for target in CLANG:
            obj = os.path.join(tmp, target + ".o")
            if subprocess.run(["clang", "--target=" + target, "-O1", "-g",
                               "-c", "-o", obj, "a.c"], cwd=tmp).returncode:
                lib.skip_part(f"clang cannot build for {target}")
                continue
            check_obj(obj)
        obj = os.path.join(tmp, "riscv64.o")
        if subprocess.run(["clang", "--target=riscv64-linux-gnu", "-O1",
                           "-g", "-c", "-o", obj, "a.c"],
                          cwd=tmp).returncode == 0:
            # its ADD/SUB pairs are applied now (t1195 checks them)
            check_obj(obj)
            # a type memsz does not apply (none RISC-V defines): refused
            b = bytearray(open(obj, "rb").read())
            _, _, off, _ = shdrs(b)[".rela.debug_info"]
            struct.pack_into("<I", b, off + 8, 250)
            bad = os.path.join(tmp, "unknown.o")
            open(bad, "wb").write(b)
            rows, err = lib.size_rows(bad, "compileunits")
            check("is of a type memsz does not apply" in err,
                  f"unknown.o: the DWARF is refused: {err[-300:]}")
            check(not [x for x in rows if not
                       x["compileunits"].startswith("[")],
                  "unknown.o: no unit is named")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
