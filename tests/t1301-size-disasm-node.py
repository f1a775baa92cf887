#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits,symbols --disasm` on /usr/bin/node: no
compile unit is charged data its code does not address.

node (nodesource's build: non-PIE, DWARF for c-ares only) once charged
37.7 MiB to c-ares' ares_dns_mapping.c, ICU's icudt78_dat among it: under
compileunits most of node's code has no unit, its references were not
collected, and one reference from c-ares ran to the end of .rodata.

Sampled ground truth (the whole of node's code is too slow to
disassemble in a test): every c-ares unit, its functions located with
nm -S and disassembled with objdump -d over their address ranges. Every
data symbol (nm: d, r, b, v) that --disasm puts under a unit (one it has
not without --disasm, where DWARF gives units their variables) must hold an
address that the unit's code names (a "# ADDR" RIP-relative comment, or,
node being non-PIE, an absolute 0x... operand); and ares_dns_mapping.c,
whose code is about 4 KiB, stays under 1 MiB.
"""
import bisect
import csv
import io
import os
import platform
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NODE = "/usr/bin/node"
UNITS = "cares/src"   # the units sampled
# Addresses at or above this in node's operands are taken for addresses
# (node is linked at 0x400000); below are small constants.
LOW = 0x400000


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        lib.fail("%s failed: %s" % (args[0], r.stderr[-500:]))
    return r.stdout


def nm_symbols():
    """{demangled name: [(addr, size, type)]} of node's defined symbols."""
    out = {}
    for line in run(["nm", "-C", "-S", "--defined-only", NODE]).splitlines():
        m = re.match(r"([0-9a-f]+) ([0-9a-f]+) (\w) (.*)$", line)
        if m:
            out.setdefault(m.group(4), []).append(
                (int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return out


def clusters(ranges, gap=1 << 16):
    """Merge sorted (start, end) ranges closer than gap: fewer objdumps."""
    merged = []
    for s, e in sorted(ranges):
        if merged and s - merged[-1][1] < gap:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def referenced(funcs):
    """Every address the code of funcs [(start, end)] names (objdump -d)."""
    inside = sorted(funcs)
    starts = [a for a, _ in inside]
    refs = set()
    for s, e in clusters(funcs):
        text = run(["objdump", "-d", "--no-show-raw-insn",
                    "--start-address=%#x" % s, "--stop-address=%#x" % e,
                    NODE])
        for line in text.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\t(.*)$", line)
            if not m:
                continue
            at = int(m.group(1), 16)
            k = bisect.bisect_right(starts, at) - 1
            if k < 0 or at >= inside[k][1]:
                continue
            for h in re.findall(r"(?:0x|# )([0-9a-f]+)", m.group(2)):
                v = int(h, 16)
                if v >= LOW:
                    refs.add(v)
    return sorted(refs)


def unit_rows(*opts):
    """memsz's rows of the sampled units by compileunits,symbols."""
    out = run([MEMSZ, "size", "--by", "compileunits,symbols", *opts,
               "-n", "0", "--format", "csv", "--filter",
               "compileunits=" + UNITS, NODE])
    return list(csv.DictReader(io.StringIO(out)))


def main():
    if platform.machine() != "x86_64":
        lib.skip("--disasm reads x86-64 code; this is %s"
                 % platform.machine())
    if not os.path.exists(NODE) or not shutil.which("objdump"):
        lib.skip("needs %s (nodejs) and objdump" % NODE)
    rows = unit_rows("--disasm")
    # what DWARF itself gives a unit (its variables) is not --disasm's
    own = {(r["compileunits"], r["symbols"]) for r in unit_rows()}
    if not rows:
        lib.skip("%s has no compile unit matching %s" % (NODE, UNITS))
    syms = nm_symbols()
    units = {}
    for r in rows:
        units.setdefault(r["compileunits"], []).append(r)

    mapping = [u for u in units if u.endswith("ares_dns_mapping.c")]
    check(mapping and sum(int(r["vm_size"]) for r in units[mapping[0]])
          < 1 << 20,
          "ares_dns_mapping.c is charged under 1 MiB of VM (was 37.7 MiB)")
    check(not any(r["symbols"] == "icudt78_dat" for r in rows),
          "no c-ares unit holds ICU's icudt78_dat")

    checked = bad = 0
    for unit, urows in sorted(units.items()):
        funcs, data = [], {}
        for r in urows:
            for a, s, t in syms.get(r["symbols"], []):
                if t in "tTiW" and s:
                    funcs.append((a, a + s))
                elif t in "dDrRbBvV" and s and int(r["vm_size"]) and \
                        (unit, r["symbols"]) not in own:
                    data.setdefault(r["symbols"], []).append((a, a + s))
        if not data:
            continue
        refs = referenced(funcs)
        # static symbols of one name (CSWTCH.1, hexbytes.0) share a
        # label: one of them must be addressed
        for name, where in sorted(data.items()):
            checked += 1
            if not any(a <= x < e for a, e in where for x in refs):
                bad += 1
                check(False, "%s: its code addresses data symbol %s "
                      "(%s)" % (unit, name, ", ".join(
                          "%#x" % a for a, _ in where)))
    check(bad == 0, "each of %d data symbols under a c-ares unit is "
          "addressed by that unit's code (objdump -d)" % checked)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
