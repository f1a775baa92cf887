#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits` on DWARF whose unit name runs off the end
of .debug_str, plain and compressed (SHF_COMPRESSED, inflated by libdw).

Fixture: a C file built here with -gdwarf-5, then patched: the unit DIE's
DW_AT_name is made DW_FORM_strp (from line_strp) pointing at the last byte
of .debug_str, and that byte (the section's final NUL) made 'X', so the
string has no end inside its section. readelf -wi confirms the patch. A
copy is compressed with objcopy --compress-debug-sections=zlib.
Ground truth: both files are refused the same way ("cannot read its
DWARF", exit 0, the file still sized); nothing reads past the section
(the sanitizer build of this test fails on a read past the inflated
buffer, as memsz did before it checked the strings libdw inflates).
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
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
