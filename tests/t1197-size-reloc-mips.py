#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` of MIPS relocatable files (.o), from clang: 64-bit (n64,
little- and big-endian), whose r_info packs a symbol and three types
(libelf reads it as one word), and 32-bit (o32, SHT_REL). memsz refused
their DWARF ("a relocation ... of a type memsz does not apply"); it now
applies R_MIPS_32/64 and, for a __thread variable's DW_AT_location,
R_MIPS_TLS_DTPREL32/64 (a second or third type other than R_MIPS_NONE is
still refused: a file patched to have one, readelf -r shows it) and,
in .eh_frame, R_MIPS_PC32.

Ground truth: readelf -wi names the unit; nm -S gives each function's and
object's size, which the unit's VM SIZE under --by compileunits,sections,
symbols must equal outside .eh_frame; llvm-dwarfdump --eh-frame (LLVM
applies n64's R_MIPS_PC32; readelf does not) gives each FDE's length and
pc_begin, the address in .text of the function (readelf -sW) whose row
under --by sections,symbols holds the FDE in .eh_frame.
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
__thread int tv = 3;
const char *name(int i) { return names[i & 3]; }
int twice(int x) { return 2 * x + table[x & 63] + init[x & 7] + tv; }
int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i); return s; }
"""
NAMED = ("name", "twice", "sum", "init", "table")
TARGETS = ("mips64el-linux-gnuabi64", "mips64-linux-gnuabi64",
           "mipsel-linux-gnu", "mips-linux-gnu")


def fde_truth(dump, obj):
    """{function: bytes of its FDEs} from llvm-dwarfdump --eh-frame, the
    functions of .text (readelf -sW) by address."""
    text = re.search(r"\[\s*(\d+)\]\s+\.text\s", lib.readelf(["-SW"], obj))
    funcs = {}
    for line in lib.readelf(["-sW"], obj).splitlines():
        f = line.split()
        if (len(f) == 8 and f[3] == "FUNC" and text and
                f[6] == text.group(1)):
            funcs[int(f[1], 16)] = f[7]
    out = subprocess.run([dump, "--eh-frame", obj], capture_output=True,
                         text=True, check=True).stdout
    got = {}
    for m in re.finditer(r"^[0-9a-f]+ ([0-9a-f]+) [0-9a-f]+ FDE cie=\S+ "
                         r"pc=([0-9a-f]+)\.\.\.", out, re.M):
        fn = funcs.get(int(m.group(2), 16))
        got[fn] = got.get(fn, 0) + int(m.group(1), 16) + 4
    return got


def main():
    for tool in ("clang", "readelf", "nm"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    dump = shutil.which("llvm-dwarfdump-14") or shutil.which("llvm-dwarfdump")
    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        built = 0
        for t in TARGETS:
            obj = os.path.join(tmp, t + ".o")
            if subprocess.run(["clang", "--target=" + t, "-O1", "-g", "-c",
                               "-funwind-tables", "-o", obj, "a.c"], cwd=tmp,
                              capture_output=True).returncode:
                lib.skip_part(f"clang cannot build for {t}")
                continue
            built += 1
            lib.check_unit_symbols(obj, t, NAMED, dwarf_read=True)
            if "64" not in t:
                continue  # LLVM 14 does not apply o32's R_MIPS_PC32
            if not dump:
                lib.skip_part("llvm-dwarfdump is not installed")
                continue
            fdes = fde_truth(dump, obj)
            rows, _ = lib.size_rows(obj, "sections,symbols")
            eh = {x["symbols"]: int(x["vm_size"]) for x in rows
                  if x["sections"] == ".eh_frame" and
                  not x["symbols"].startswith("[")}
            check(len(fdes) == 3 and None not in fdes and eh == fdes,
                  f"{t}: each FDE under its function (llvm-dwarfdump "
                  f"--eh-frame): {eh} vs {fdes}")
        if not built:
            lib.skip("clang cannot build for MIPS")
        # a second type (R_MIPS_64 in byte 6 of a little-endian n64
        # r_info, after the symbol's 4 bytes, r_ssym and r_type3):
        # refused, not applied as its first type alone
        src = os.path.join(tmp, TARGETS[0] + ".o")
        m = re.search(r"\.rela\.debug_info\s+RELA\s+[0-9a-f]+\s+"
                      r"([0-9a-f]+)", lib.readelf(["-SW"], src)) \
            if os.path.exists(src) else None
        if m:
            b = bytearray(open(src, "rb").read())
            b[int(m.group(1), 16) + 8 + 6] = 18
            bad = os.path.join(tmp, "type2.o")
            open(bad, "wb").write(b)
            check("Type2: R_MIPS_64" in lib.readelf(["-r"], bad),
                  "type2.o: readelf -r shows the second type")
            _, err = lib.size_rows(bad, "compileunits")
            check("is of a type memsz does not apply" in err,
                  f"type2.o: the DWARF is refused ({err.strip()[-200:]})")
            # a symbol index one past the symbol table (n64's r_sym, the
            # first 4 bytes of r_info; readelf -sW counts the symbols):
            # refused, not read as another symbol
            n = re.search(r"'\.symtab' contains (\d+) entr",
                          lib.readelf(["-sW"], src))
            b = bytearray(open(src, "rb").read())
            struct.pack_into("<I", b, int(m.group(1), 16) + 8,
                             int(n.group(1)))
            bad = os.path.join(tmp, "sym.o")
            open(bad, "wb").write(b)
            _, err = lib.size_rows(bad, "compileunits")
            check("DWARF not read" in err, f"sym.o: the DWARF is refused "
                  f"({err.strip()[-200:]})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
