#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` (code-to-data references) on a .text of more than 1 MiB,
which memsz sweeps as several streams side by side and joins: the
references come out as from one sweep (position-independent code, and
position-dependent code whose movabs immediates name addresses too).

A program assembled here (x86-64, as a PIE, as a position-dependent
executable, and as a PIE with a section loaded 8 GiB up) has a .text of exactly 4 x 600 000 bytes: 48 functions that
each load the address of a string literal of their own, then filler
functions of movabs. memsz's streams start at the quarters of the
section, and there the filler has a movabs whose immediate starts at the
quarter: read from there, it is "mov 0x300000(%rip), %rax", into the
4 MiB of .rodata that no symbol or string covers. A stream that starts
there decodes that reference, which no instruction makes, before it falls
into step with the stream before it. Ground truth: binutils' objdump -d
(the address each literal function's operand names) and readelf -p / -SW
(where each string starts in .rodata and where the section ends):
  - each literal function owns, in VM, its string's bytes of .rodata:
    from the address its operand names to the next string or the
    section's end;
  - no filler function owns a byte of .rodata.
"""
import csv
import io
import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NFUNCS = 48
FUNCS = {"lit_%d" % i: "literal %d of the big text%s" % (i, "." * (i % 7))
         for i in range(NFUNCS)}
QUARTER = 600000
# its immediate, read from its first byte: mov 0x300000(%rip), %rax; nop
MOVABS = "\tmovabsq $0x9000300000058b48, %rax\n"


def fn(name, body):
    return ("\t.globl %s\n\t.type %s, @function\n%s:\n%s"
            "\t.size %s, . - %s\n" % (name, name, name, body, name, name))


def source(pie):
    """The assembler source; pie: strings addressed RIP-relative, else by
    an absolute immediate."""
    s = "\t.section .rodata\n\t.fill 4194304, 1, 0\n"
    s += "".join(".Ls%d:\n\t.string \"%s\"\n" % (i, FUNCS["lit_%d" % i])
                 for i in range(NFUNCS))
    s += "\t.text\n" + fn("_start", "\tret\n")
    for i in range(NFUNCS):
        load = ("\tleaq .Ls%d(%%rip), %%rax\n" if pie
                else "\tmovl $.Ls%d, %%eax\n") % i
        s += fn("lit_%d" % i, load + "\tret\n")
    for k in range(1, 5):
        # a movabs, its immediate at quarter k (the section's end: none)
        body = "\t.rept 1000\n" + MOVABS + "\t.endr\n"
        if k < 4:
            body += "\t.org %d, 0x90\n%s" % (QUARTER * k - 2, MOVABS)
        else:
            body += "\t.org %d, 0x90\n" % (QUARTER * k)
        s += fn("fill_%d" % k, body)
    return s


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def rodata_rows(path):
    """{symbol: VM bytes of .rodata} from size --by sections,symbols."""
    r = run([MEMSZ, "size", "--by", "sections,symbols", "-n", "0",
             "--format", "csv", path])
    if r.returncode:
        raise RuntimeError("memsz size failed: %s" % r.stderr)
    return {d["symbols"]: int(d["vm_size"])
            for d in csv.DictReader(io.StringIO(r.stdout))
            if d["sections"] == ".rodata"}


def check_prog(prog, variant):
    def ck(ok, what):
        check(ok, variant + ": " + what)

    secs = {name: (addr, size) for name, (addr, _, size, _)
            in lib.sections(prog).items()}
    ck(secs[".text"][1] == 4 * QUARTER,
       ".text holds %d bytes, 4 x %d" % (secs[".text"][1], QUARTER))
    ro_addr, ro_size = secs[".rodata"]
    starts = lib.section_strings(prog, ".rodata", ro_addr)
    targets = lib.lea_targets(prog, FUNCS)
    want = {}
    for fn, text in FUNCS.items():
        at = [a for a, s in starts if s == text]
        if not at or targets.get(fn) != at[0]:
            ck(False, "%s's operand names its string (objdump %s, "
               "readelf -p %s)" % (fn, hex(targets.get(fn, 0)),
                                   [hex(a) for a in at]))
            continue
        nxt = [a for a, _ in starts if a > at[0]]
        want[fn] = (min(nxt) if nxt else ro_addr + ro_size) - at[0]
    got = rodata_rows(prog)
    bad = {fn: (got.get(fn), n) for fn, n in want.items()
           if got.get(fn) != n}
    ck(len(want) == NFUNCS and not bad,
       "each of the %d literal functions owns its string's bytes of "
       ".rodata (wrong: %s)" % (NFUNCS, bad))
    fill = {s: n for s, n in got.items() if s.startswith("fill_")}
    ck(not fill, "no filler function owns .rodata (%s)" % fill)


def main():
    if platform.machine() != "x86_64":
        lib.skip("memsz decodes x86-64 code; this is %s"
                 % platform.machine())
    tmp = tempfile.mkdtemp(prefix="memsz-t1303-")
    try:
        # far: a PIE with a loaded section 8 GiB up, its data spanning
        # more than 32 bits of address (memsz keeps no compact copy of
        # the references then)
        for variant, flags in (
                ("pie", ["-pie"]), ("no-pie", ["-no-pie"]),
                ("far", ["-pie", "-Wl,--section-start=.far=0x200000000"])):
            src = os.path.join(tmp, "big-%s.s" % variant)
            with open(src, "w") as f:
                f.write(source(variant != "no-pie"))
                if variant == "far":
                    f.write("\t.section .far, \"a\", @progbits\n"
                            "\t.quad 1\n")
            prog = os.path.join(tmp, "big-" + variant)
            run(["gcc", "-nostdlib", *flags, "-o", prog, src], check=True)
            check_prog(prog, variant)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
