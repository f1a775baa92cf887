#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --disasm`: the bytes of a data symbol (STT_OBJECT) in an
executable section are not decoded; the sweep starts again at its end.

OpenSSL's assembly keeps its tables in .text (node: ecp_nistz256_
precomputed, 148 KiB, and _vpaes_consts); decoded as instructions, their
bytes named addresses of .rodata, and memsz gave the tables 912 KiB and
54 KiB of strings and blobs that no code refers to.

Built here from assembly (x86-64): an object "tab" in .text whose bytes
are instructions naming "blob" of .rodata (lea blob(%rip)) and end with
the first two bytes of a movabs, whose 8-byte immediate would swallow the
next function's one reference; functions before and after it each read an
object of .rodata. As a stripped shared library (.dynsym only) and as a
position-dependent static program whose data symbols alone are stripped.
Ground truth: nm -S before strip (each object's address and size),
objdump -d (what the functions name) and -D (what the bytes of tab name,
decoded as code):
  - tab owns its nm -S size of .text and no byte of .rodata;
  - f_before and f_after own their object's nm -S size of .rodata (the
    sweep starts again at tab's end, where f_after starts);
  - no symbol owns a byte of blob.
"""
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

# the data objects of .rodata, end to end: name, size (blob first: no
# range a function's reference starts runs over it)
DATA = [("blob", 256), ("d_before", 64), ("d_after", 128)]
# the function: the object it reads
FUNCS = {"f_before": "d_before", "f_after": "d_after"}
LEAS = 4  # the instructions tab's bytes make, each naming blob


def assembly():
    """f_before, tab (LEAS times lea blob(%rip), %rax, as data, and the
    first two bytes of a movabs), f_after, 256 bytes of NOPs (the entry
    point), then the objects of DATA in .rodata."""
    lea = "\t.byte 0x48, 0x8d, 0x05\n\t.long blob - (. + 4)"
    out = ["\t.text",
           *lib.asm_function("f_before", "lea d_before(%rip), %rax", "ret"),
           "\t.p2align 4", "\t.globl tab", "\t.type tab, @object", "tab:",
           *[lea] * LEAS, "\t.byte 0x48, 0xb8", "\t.size tab, .-tab",
           *lib.asm_function("f_after", "lea d_after(%rip), %rax", "ret"),
           *lib.asm_function("filler", ".fill 256, 1, 0x90", "ret"),
           "\t.section .rodata", "\t.p2align 6"]
    for k, (name, size) in enumerate(DATA):
        out += ["\t.type %s, @object" % name, "%s:" % name,
                "\t.fill %d, 1, %d" % (size, k + 1),
                "\t.size %s, %d" % (name, size)]
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


def tab_targets(prog):
    """The addresses the instructions of tab's bytes name, decoded as a
    sweep through them decodes them (objdump -D: objdump -d leaves an
    object of .text undecoded), from their "# ADDR" comments."""
    out, inside = [], False
    for line in lib.run_ok(["objdump", "-D", "-j", ".text",
                            "--no-show-raw-insn", prog]).stdout.splitlines():
        if line.endswith(">:"):
            inside = line.endswith("<tab>:")
        elif inside and "(%rip)" in line and "#" in line:
            out.append(int(line.split("#")[1].split()[0], 16))
    return out


def check_build(variant, full, stripped):
    def ck(ok, what):
        check(ok, variant + ": " + what)

    syms = lib.nm_defined(full)
    left = lib.run_ok(["nm", "-D" if variant == "library" else "-a",
                       stripped]).stdout.split()
    ck(not any(name in left for name, _ in DATA) and "tab" in left,
       "the stripped file names tab, and no data object")
    blob = syms.get("blob", (None, None))
    named = tab_targets(full)
    ck(len(named) == LEAS and set(named) == {blob[0]},
       "objdump -D: tab's bytes decode as %d references to blob at %s: %s"
       % (LEAS, blob[0] and hex(blob[0]), [hex(a) for a in named]))
    targets = lib.lea_targets(full, FUNCS)
    for fn, obj in FUNCS.items():
        ck(targets.get(fn) == syms.get(obj, (None,))[0],
           "objdump -d: %s names %s" % (fn, obj))
    text = lib.section_symbol_sizes(stripped, ".text", [])
    tab = syms.get("tab", (0, 0))[1]
    ck(text.get("tab") == (tab, tab),
       "tab owns its nm -S size of .text, %d: %s" % (tab, text.get("tab")))
    ro = lib.section_symbol_sizes(stripped, ".rodata", [])
    ck("tab" not in ro, "tab owns no byte of .rodata (%s)" % (ro.get("tab"),))
    for fn, obj in FUNCS.items():
        size = syms.get(obj, (0, 0))[1]
        ck(ro.get(fn) == (size, size),
           "%s owns %s's nm -S size of .rodata, %d: %s"
           % (fn, obj, size, ro.get(fn)))
    owned = sum(v[1] for k, v in ro.items() if not k.startswith("["))
    want = sum(syms.get(obj, (0, 0))[1] for obj in FUNCS.values())
    ck(owned == want, "no symbol owns a byte of blob: the symbols own %d "
       "bytes of .rodata, want %d" % (owned, want))


def main():
    lib.need_x86_tools("gcc", "as", "strip", "nm", "objdump")
    tmp = tempfile.mkdtemp(prefix="memsz-t1314-")
    try:
        src = os.path.join(tmp, "t.s")
        with open(src, "w") as f:
            f.write(assembly())
        for variant, flags in (
                ("library", ["-shared"]),
                ("static", ["-no-pie", "-static", "-Wl,-e,filler"])):
            full = os.path.join(tmp, variant + "-full")
            lib.build_asm(src, full, flags)
            stripped = os.path.join(tmp, variant)
            # the library keeps .dynsym only; the program loses its data
            # objects' symbols (it has no .dynsym)
            names = ["--strip-all"] if variant == "library" else \
                [a for name, _ in DATA for a in ("-N", name)]
            lib.run_ok(["strip", *names, "-o", stripped, full])
            check_build(variant, full, stripped)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
