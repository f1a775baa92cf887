#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz size --by compileunits: split DWARF whose types are in type units
(-fdebug-types-section), read from the .dwo files (no DWARF package), and
why a DWARF package has no unit for a skeleton unit.

libdw 0.188 follows no DW_FORM_ref_sig8 reference of a .dwo to its type
units: memsz looks the signature up among the .dwo's own units.

  - clang++ DWARF 5 (type units in .debug_info.dwo): each variable whose
    type is in a type unit is under its unit (llvm-dwarfdump's DW_AT_name
    of the .dwo) with nm -S's size, and no note;
  - g++ DWARF 4 (each type unit in a .debug_types.dwo section of its own,
    libdw reads the first; memsz reads the .dwo joined, t1114): each such
    variable is under its unit with nm -S's size, and no note;
  - a clang DWARF 5 unit and a gcc DWARF 4 one packed by binutils' dwp,
    which drops the DWARF 5 unit (its index is GNU's version 2): a note
    says so, if llvm-dwarfdump shows no unit of that DWO id in the package;
  - a package by llvm-dwp of DWARF 4 units, one of its index's ids
    patched to 0 (what binutils' dwp writes for an id it cannot read): a
    note names the unit of DWO id 0.
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
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
if os.sep in MEMSZ:  # the test changes directory
    MEMSZ = os.path.abspath(MEMSZ)

C_SOURCES = {
    "a.c": "int tab_a[10] = { 1 };\nint fa(int x) { return tab_a[x % 10]; }\n",
    "b.c": "int fa(int);\nint tab_b[20];\n"
           "int main(int c, char **v) { tab_b[c & 3]++;\n"
           "  return fa(c) + tab_b[1]; }\n",
}


LLVM_DWP = lib.llvm_tool("llvm-dwp")
DUMP = lib.llvm_tool("llvm-dwarfdump")


def one(err):
    """stderr's lines about split DWARF (else its last 300 characters) on
    one line."""
    lines = [x for x in err.splitlines()
             if "DWARF package" in x or ".dwo" in x or "exited" in x]
    return " | ".join(lines)[-600:] if lines else \
        err.strip()[-300:].replace("\n", " | ")


def size(path):
    """{(unit, symbol): VM size} of `memsz size --by compileunits,symbols`
    and its stderr; checks exit 0 and no sanitizer report."""
    r = subprocess.run([MEMSZ, "size", "--no-disasm", "--by",
                        "compileunits,symbols", "--format", "csv", "-n", "0",
                        path], capture_output=True, text=True)
    check("Sanitizer" not in r.stderr and "runtime error" not in r.stderr,
          f"{path}: no sanitizer report: {one(r.stderr)}")
    check(r.returncode == 0, f"{path}: exit 0 ({r.returncode}: "
          f"{one(r.stderr)})")
    vm = {}
    for x in csv.DictReader(r.stdout.splitlines()):
        key = (x["compileunits"], x["symbols"])
        vm[key] = vm.get(key, 0) + int(x["vm_size"])
    return vm, r.stderr


def dwo_vars(dwo):
    """(unit name, [variables with a DW_AT_location]) of the split compile
    unit of dwo, from llvm-dwarfdump."""
    out = subprocess.run([DUMP, "--debug-info", dwo], capture_output=True,
                         text=True, check=True).stdout
    unit, names, var = None, [], None
    for line in out.splitlines():
        if "DW_TAG_" in line:
            if "DW_TAG_compile_unit" in line:
                unit = ""
            var = {} if "DW_TAG_variable" in line else None
            continue
        m = re.search(r'DW_AT_name\s+\("([^"]*)"\)', line)
        if m and unit == "":
            unit = m.group(1)
        elif m and var is not None:
            var["name"] = m.group(1)
        if var is not None and "DW_AT_location" in line and "name" in var:
            names.append(var["name"])
            var = None
    return unit, names


def dwo_types(tmp, name, cxx, flags, all_sized):
    lib.type_unit_prog(os.path.join(tmp, name), cxx, flags)
    syms = lib.nm_sizes("prog")
    vm, err = size("prog")
    unsized = 0
    checked = 0
    for dwo in ("t.dwo", "u.dwo"):
        unit, names = dwo_vars(dwo)
        for v in names:
            if v not in syms:
                continue
            checked += 1
            got = vm.get((unit, v))
            if got is None and not all_sized:
                got = vm.get(("[section .bss]", v))
                unsized += got is not None
            check(got == syms[v],
                  f"{name}: {v} under {unit}"
                  f"{'' if all_sized else ' or [section .bss]'}: VM {got}, "
                  f"nm -S {syms[v]}")
    check(checked == 3, f"{name}: 3 variables checked ({checked})")
    m = re.search(r"(\d+) variables of \.dwo files not sized, their type "
                  r"in a type unit", err)
    check((int(m.group(1)) if m else 0) == unsized,
          f"{name}: the note counts the {unsized} variables left unsized: "
          f"{one(err)}")
    os.chdir("/")


def build_c(d, parts):
    """prog from a.c and b.c in d, each by (compiler, flags) in parts."""
    os.mkdir(d)
    os.chdir(d)
    for (src, text), (cc, flags) in zip(C_SOURCES.items(), parts):
        open(src, "w").write(text)
        subprocess.run([cc, "-O1", "-g", "-gsplit-dwarf"] + flags +
                       ["-c", src], check=True)
    subprocess.run(["gcc", "-o", "prog", "a.o", "b.o"], check=True)


def dwp_ids(dwp):
    """The DWO ids of the compile units llvm-dwarfdump shows in dwp."""
    out = subprocess.run([DUMP, "--debug-info", dwp], capture_output=True,
                         text=True).stdout
    return {int(x, 16) for x in
            re.findall(r"(?:DWO_id =|DW_AT_GNU_dwo_id\s*\()\s*(0x[0-9a-f]+)",
                       out)}


def skeleton_ids():
    """The DWO ids of prog's skeleton units (llvm-dwarfdump)."""
    return dwp_ids("prog")


def dwarf5_dropped(tmp):
    if not shutil.which("dwp") or not shutil.which("clang"):
        lib.skip_part("binutils' dwp or clang is not installed")
        return
    build_c(os.path.join(tmp, "mixed"), [("gcc", ["-gdwarf-4"]),
                                         ("clang", ["-gdwarf-5"])])
    try:
        subprocess.run(["dwp", "-o", "prog.dwp", "a.dwo", "b.dwo"],
                       check=True, timeout=120, capture_output=True)
    except (subprocess.SubprocessError, OSError) as e:
        lib.skip_part(f"binutils' dwp failed: {e}")
        os.chdir("/")
        return
    missing = skeleton_ids() - dwp_ids("prog.dwp")
    if ".debug_info.dwo" not in lib.sections("prog.dwp") or not missing:
        lib.skip_part("binutils' dwp packed no DWARF 4 unit or kept the "
                      "DWARF 5 one")
        os.chdir("/")
        return
    os.unlink("a.dwo")
    os.unlink("b.dwo")
    _, err = size("prog")
    check(f"DWARF package 'prog.dwp': {len(missing)} skeleton units have "
          "no unit of their DWO id in it: they are DWARF 5 and its index "
          "GNU's version 2" in err,
          f"binutils' dwp without the DWARF 5 unit: the note says why: "
          f"{one(err)}")
    os.chdir("/")


def id_zero(tmp):
    if not LLVM_DWP:
        lib.skip_part("llvm-dwp is not installed")
        return
    build_c(os.path.join(tmp, "id0"), [("gcc", ["-gdwarf-4"]),
                                       ("gcc", ["-gdwarf-4"])])
    subprocess.run([LLVM_DWP, "-o", "prog.dwp", "a.dwo", "b.dwo"],
                   check=True, timeout=120)
    os.unlink("a.dwo")
    os.unlink("b.dwo")
    _, err = size("prog")
    check("2 split DWARF units from DWARF package 'prog.dwp'" in err,
          f"llvm-dwp's package: both units read: {one(err)}")
    # the first used slot's id set to 0 (version 2 index: 16-byte header,
    # then the ids, then the rows)
    _, off, _, _ = lib.sections("prog.dwp")[".debug_cu_index"]
    b = bytearray(open("prog.dwp", "rb").read())
    nslots, = struct.unpack_from("<I", b, off + 12)
    rows = off + 16 + 8 * nslots
    slot = next(s for s in range(nslots)
                if struct.unpack_from("<I", b, rows + 4 * s)[0])
    struct.pack_into("<Q", b, off + 16 + 8 * slot, 0)
    open("prog.dwp", "wb").write(b)
    _, err = size("prog")
    check("1 split DWARF units from DWARF package 'prog.dwp'" in err and
          "DWARF package 'prog.dwp': 1 skeleton units have no unit of "
          "their DWO id in it: it has a unit of DWO id 0" in err,
          f"a package unit of id 0: one unit read, a note names id 0: "
          f"{one(err)}")
    os.chdir("/")


def main():
    if not DUMP or not shutil.which("nm") or not shutil.which("gcc"):
        lib.skip("llvm-dwarfdump, nm or gcc is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        for name, cxx, flags, all_sized in (
                ("clang++-dwarf5", "clang++", ["-gdwarf-5"], True),
                ("g++-dwarf4", "g++", ["-gdwarf-4"], True)):
            if shutil.which(cxx):
                dwo_types(tmp, name, cxx, flags, all_sized)
            else:
                lib.skip_part(f"{name}: {cxx} is not installed")
        dwarf5_dropped(tmp)
        id_zero(tmp)
        os.chdir("/")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
