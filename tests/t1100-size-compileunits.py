#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by compileunits / inlines` against binutils' readelf.

Fixtures: three C files built here with -g (DWARF 5), -gdwarf-4 and
-gsplit-dwarf, -O2, -ffunction-sections -fdata-sections. Ground truth:
  - per CU, VM SIZE = the sum of st_size of the FUNC and OBJECT symbols
    its object file defines (readelf -s on the .o), plus the metadata
    --by symbols charges to them: each function's .eh_frame FDE (readelf
    -wf: length + 4, found by its pc) and its 8-byte .eh_frame_hdr entry;
  - per CU, the .debug_info bytes = the unit's "Length:" + 4 (readelf
    --debug-dump=info), and its .debug_line bytes = the "Length:" + 4 of
    the line program its DW_AT_stmt_list names (readelf -wl);
  - inlines: for every FILE:LINE, the .text bytes of the decoded line
    table rows (readelf -wL: [row address, next row address) in a
    sequence); the FDE and .eh_frame_hdr bytes of the fixture's functions
    go to FILE:LINE labels too;
  - I1: FILE SIZE sums to the file size, VM SIZE to the PT_LOAD MemSiz.
And on libc.so.6 with its libc6-dbg debug file (when installed): at least
95 % of .text is under a compile unit, so is 95 % of .eh_frame,
.eh_frame_hdr, .dynsym and .dynstr, and the footer says how much is under
fallback labels.
"""
import csv
import json
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import readelf, check_quiet as check  # noqa: E402


MEMSZ = os.environ.get("MEMSZ", "./memsz")
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"

SOURCES = {
    "a.c": """
int table_a[100] = { 1 };
static int counter_a;
int fa1(int x) { static int calls; calls++; counter_a += x;
                 return table_a[x % 100] + calls + counter_a; }
int fa2(int x) { int s = 0; for (int i = 0; i < x; i++) s += fa1(i);
                 return s; }
int fa3(int x) { if (x > 1) { static char blk[7]; blk[x % 7]++;
                              return blk[1]; }
                 return 0; }
""",
    "b.c": """
const char msg_b[64] = "hello";
double vals_b[33];
static inline int sq(int x) { return x * x; }
int fb1(int x) { vals_b[x & 31] += 1.5; return sq(x) + msg_b[x & 7]; }
long fb2(long x) { return x * 3 + (long)vals_b[x & 31]; }
""",
    "m.c": """
int fa2(int); int fa3(int); int fb1(int); long fb2(long);
int main(int argc, char **argv) { (void)argv;
    return fa2(argc) + fa3(argc) + fb1(argc) + (int)fb2(argc); }
""",
}


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def memsz(path, key, fmt="csv"):
    # the ground truth here is DWARF's own: without the data code refers
    # to (on by default; t1300 checks it)
    out = run([MEMSZ, "size", "--no-disasm", "--by", key, "-n", "0",
               "--format", fmt, path])
    if out.returncode != 0:
        raise RuntimeError("memsz size %s failed: %s" % (path, out.stderr))
    if fmt != "csv":
        return out.stdout
    return list(csv.DictReader(io.StringIO(out.stdout))), out.stderr


def defined_sizes(obj):
    """Sum of st_size of FUNC and OBJECT symbols defined in obj."""
    total = 0
    for line in readelf(["-s"], obj).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] in ("FUNC",
                                                           "OBJECT") \
                and f[6] != "UND":
            total += int(f[2], 0)
    return total


def functions(obj):
    """Names of the FUNC symbols obj defines."""
    names = set()
    for line in readelf(["-s"], obj).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" \
                and f[6] != "UND":
            names.add(f[7])
    return names


def fde_bytes(prog, names):
    """Bytes of the .eh_frame FDEs (length + 4, readelf -wf) of the
    functions of prog named in names, plus 8 for each one's .eh_frame_hdr
    search table entry when prog has that section."""
    addr = {}
    for line in readelf(["-s"], prog).splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" \
                and f[7] in names:
            addr[int(f[1], 16)] = f[7]
    hdr = ".eh_frame_hdr" in readelf(["-SW"], prog)
    total = 0
    for line in readelf(["-wf"], prog).splitlines():
        m = re.match(r"\s*[0-9a-f]+ ([0-9a-f]+) [0-9a-f]+ FDE .*pc=([0-9a-f]+)",
                     line)
        if m and int(m.group(2), 16) in addr:
            total += int(m.group(1), 16) + 4 + (8 if hdr else 0)
    return total


def load_vm(path):
    total = 0
    for line in readelf(["-l"], path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            total += int(f[5], 16)
    return total


def units(path):
    """[(cu label: DW_AT_name as stored, unit length incl. initial length,
    stmt_list, the name joined to DW_AT_comp_dir)]"""
    out = []
    cur = None
    for line in readelf(["--debug-dump=info", "--debug-dump=no-follow-links"],
                        path).splitlines():
        m = re.match(r"\s*Length:\s+(0x[0-9a-f]+) \((32|64)-bit\)", line)
        if m:
            cur = dict(len=int(m.group(1), 16) +
                       (4 if m.group(2) == "32" else 12),
                       name=None, dir=None, stmt=None, top=True)
            out.append(cur)
            continue
        if cur is None:
            continue
        if re.match(r"\s*<1>", line):
            cur["top"] = False
        if not cur["top"]:
            continue
        m = re.search(r"DW_AT_(name|comp_dir|stmt_list)\s*:\s*(.*)$", line)
        if m:
            val = m.group(2).strip()
            # "(line_strp) (offset: 0x9): a.c", "(sec_offset) 0", "(string) x"
            if "): " in val:
                val = val.rsplit("): ", 1)[1]
            val = re.sub(r"^\((?:[a-z_0-9]+)\) ", "", val)
            if m.group(1) == "name":
                cur["name"] = val
            elif m.group(1) == "comp_dir":
                cur["dir"] = val
            else:
                cur["stmt"] = int(val.split()[-1], 16)
    res = []
    for u in out:
        if u["name"] is None:
            continue
        path = os.path.normpath(os.path.join(u["dir"] or "", u["name"]))
        res.append((u["name"], u["len"], u["stmt"], path))
    return res


def line_programs(path):
    """{offset: length incl. initial length} of .debug_line programs."""
    progs = {}
    off = None
    for line in readelf(["-wl"], path).splitlines():
        m = re.match(r"\s*Offset:\s+(0x[0-9a-f]+)", line)
        if m:
            off = int(m.group(1), 16)
            continue
        m = re.match(r"\s*Length:\s+(\d+)", line)
        if m and off is not None:
            progs[off] = int(m.group(1)) + 4
            off = None
    return progs


def decoded_lines(path):
    """{(basename, line): bytes} from readelf -wL."""
    want = {}
    prev = None
    for line in readelf(["-wL"], path).splitlines():
        f = line.split()
        if len(f) < 3 or not f[2].startswith("0x"):
            if not f:
                prev = None
            continue
        addr = int(f[2], 16)
        if prev is not None and addr > prev[2]:
            key = (prev[0], prev[1])
            want[key] = want.get(key, 0) + addr - prev[2]
        prev = None if f[1] == "-" else (os.path.basename(f[0]), f[1],
                                          addr)
    return want


def build(tmp, variant, flags):
    d = os.path.join(tmp, variant)
    os.mkdir(d)
    objs = []
    for name, text in SOURCES.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        r = run(["gcc", "-c", "-O2", "-ffunction-sections", "-fdata-sections",
                 name] + flags, cwd=d)
        if r.returncode:
            lib.skip_part("%s: gcc %s failed: %s" % (variant, " ".join(flags),
                                                    r.stderr))
            return None, None
        objs.append(name[:-2] + ".o")
    r = run(["gcc", "-o", "prog"] + objs + flags, cwd=d)
    if r.returncode:
        lib.skip_part("%s: link failed: %s" % (variant, r.stderr))
        return None, None
    return d, os.path.join(d, "prog")


def check_i1(path, key, tag):
    rows, _ = memsz(path, key)
    fsum = sum(int(r["file_size"]) for r in rows)
    vsum = sum(int(r["vm_size"]) for r in rows)
    check(fsum == os.stat(path).st_size, "%s --by %s: FILE SIZE %d == "
          "file size %d" % (tag, key, fsum, os.stat(path).st_size))
    check(vsum == load_vm(path), "%s --by %s: VM SIZE %d == PT_LOAD "
          "MemSiz %d" % (tag, key, vsum, load_vm(path)))
    return rows


def check_fixture(d, prog, variant, compressed=False):
    rows = check_i1(prog, "compileunits", variant)
    cu_vm = {r["compileunits"]: int(r["vm_size"]) for r in rows}
    # the label is DW_AT_name as the unit stores it (gcc ran in d on
    # "a.c"); json lists the path joined to DW_AT_comp_dir as its alias
    js = json.loads(memsz(prog, "compileunits", fmt="json"))
    aliases = {r["name"]: r.get("aliases", []) for r in js["rows"]}
    for name in SOURCES:
        check(aliases.get(name) == [os.path.join(d, name)],
              "%s: CU %s labelled as stored, json alias %s" %
              (variant, name, aliases.get(name)))
    for name in SOURCES:
        label = name
        obj = os.path.join(d, name[:-2] + ".o")
        want = defined_sizes(obj) + fde_bytes(prog, functions(obj))
        check(cu_vm.get(label) == want, "%s: CU %s VM SIZE %s == its "
              "symbols' sizes and their FDEs %d" % (variant, name,
                                                    cu_vm.get(label), want))

    # .debug_info and .debug_line bytes per CU (compressed sections are
    # left whole, to their [section ...] labels)
    srows, _ = memsz(prog, "sections,compileunits")
    if compressed:
        for sec in (".debug_info", ".debug_line"):
            labels = {r["compileunits"] for r in srows
                      if r["sections"] == sec}
            check(labels == {"[section %s]" % sec}, "%s: compressed %s "
                  "under its section label: %s" % (variant, sec, labels))
    got = {}
    for r in srows:
        got[(r["sections"], r["compileunits"])] = int(r["file_size"])
    progs = line_programs(prog)
    for label, length, stmt, path in units(prog):
        if compressed or not path.startswith(d):
            continue  # crt objects of the toolchain, if they have DWARF
        check(got.get((".debug_info", label)) == length,
              "%s: .debug_info of %s: %s == unit length %d"
              % (variant, label, got.get((".debug_info", label)), length))
        if stmt is not None and stmt in progs:
            check(got.get((".debug_line", label)) == progs[stmt],
                  "%s: .debug_line of %s: %s == program length %d"
                  % (variant, label, got.get((".debug_line", label)),
                     progs[stmt]))

    # inlines: every FILE:LINE of the fixture's own files
    check_i1(prog, "inlines", variant)
    rows, _ = memsz(prog, "sections,inlines")
    have = {}
    meta = 0
    for r in rows:
        m = re.match(r"(.*):(\d+)$", r["inlines"])
        if not m or not m.group(1).startswith(d):
            continue
        if r["sections"] in (".eh_frame", ".eh_frame_hdr"):
            meta += int(r["vm_size"])
        if r["sections"] != ".text":
            continue
        key = (os.path.basename(m.group(1)), m.group(2))
        have[key] = have.get(key, 0) + int(r["vm_size"])
    fns = set()
    for name in SOURCES:
        fns |= functions(os.path.join(d, name[:-2] + ".o"))
    want_meta = fde_bytes(prog, fns)
    check(meta == want_meta, "%s: inlines: FDE and .eh_frame_hdr bytes of "
          "the fixture's functions under its lines %d == %d"
          % (variant, meta, want_meta))
    want = {k: v for k, v in decoded_lines(prog).items()
            if k[0] in SOURCES}
    check(want and have == want, "%s: inlines rows of a.c, b.c, m.c equal "
          "readelf -wL's rows (%s vs %s)" % (variant, sorted(have.items()),
                                             sorted(want.items())))


def check_split(d, prog):
    """Without the .dwo files the code stays attributed (skeleton ranges,
    to the .dwo name as the skeleton has no DW_AT_name) and the footer says
    the split units are missing."""
    rows, _ = memsz(prog, "compileunits")
    before = {r["compileunits"]: int(r["vm_size"]) for r in rows}
    for name in SOURCES:
        dwo = os.path.join(d, name[:-2] + ".dwo")
        if os.path.exists(dwo):
            os.rename(dwo, dwo + ".away")
    rows, err = memsz(prog, "compileunits")
    after = {r["compileunits"]: int(r["vm_size"]) for r in rows}
    text = memsz(prog, "compileunits", fmt="table")
    check("split DWARF units (.dwo) not found" in text,
          "split: a missing .dwo is in the footer")
    for name in SOURCES:
        label = name  # DW_AT_name and DW_AT_dwo_name as stored
        dwo = name[:-2] + ".dwo"
        check(0 < after.get(dwo, 0) <= before.get(label, 0),
              "split: CU %s keeps its code without its .dwo (%s, %s)"
              % (name, after.get(label), before.get(label)))


def check_libc():
    if not os.path.exists(LIBC):
        lib.skip_part("libc acceptance: no %s" % LIBC)
        return
    text = memsz(LIBC, "compileunits", fmt="table")
    if "compileunits from debug file" not in text:
        lib.skip_part("libc acceptance: no debug file for libc (libc6-dbg)")
        return
    m = re.search(r"compileunits: (\d+) bytes \(([\d.]+)%\) of FILE SIZE, "
                  r"(\d+) \(([\d.]+)%\) of VM SIZE under fallback labels",
                  text)
    check(m is not None, "libc: footer gives the fallback fraction")
    rows = check_i1(LIBC, "sections,compileunits", "libc")
    text_total = sum(int(r["vm_size"]) for r in rows
                     if r["sections"] == ".text")
    fallback = sum(int(r["vm_size"]) for r in rows
                   if r["sections"] == ".text" and
                   (r["compileunits"].startswith("[") or
                    r["compileunits"].startswith("LOAD #")))
    cover = 100.0 * (text_total - fallback) / text_total
    print("# libc: %.2f%% of .text (%d bytes) under compile units"
          % (cover, text_total))
    check(cover >= 95.0, "libc: compile units cover %.2f%% >= 95%% of .text"
          % cover)
    # metadata --by symbols charges per symbol is charged per unit too
    for sec in (".eh_frame", ".eh_frame_hdr", ".dynsym", ".dynstr"):
        total = sum(int(r["file_size"]) for r in rows
                    if r["sections"] == sec)
        under = sum(int(r["file_size"]) for r in rows
                    if r["sections"] == sec and
                    not r["compileunits"].startswith("[") and
                    not r["compileunits"].startswith("LOAD #"))
        print("# libc: %s: %d of %d bytes under compile units"
              % (sec, under, total))
        check(total and under >= 0.95 * total, "libc: %s %d of %d bytes "
              "under compile units (>= 95%%)" % (sec, under, total))
    check_i1(LIBC, "inlines", "libc")
    for p in ("/usr/bin/python3.11",):
        if os.path.exists(p):
            check_i1(p, "compileunits", p)
            check_i1(p, "inlines", p)
        else:
            lib.skip_part("not on this machine: %s (python3)" % p)


def main():
    if not shutil.which("readelf") or not shutil.which("gcc"):
        lib.skip("readelf (binutils) and gcc (gcc) are needed")
    with tempfile.TemporaryDirectory() as tmp:
        # DWARF 2 and 3 size a reference to another unit differently;
        # compressed: libdw reads (and inflates) only what a key needs
        for variant, flags in (("dwarf5", ["-g"]),
                               ("dwarf4", ["-gdwarf-4"]),
                               ("dwarf3", ["-gdwarf-3"]),
                               ("dwarf2", ["-gdwarf-2"]),
                               ("dwarf5z", ["-g", "-gz=zlib"]),
                               ("split5", ["-g", "-gsplit-dwarf"]),
                               ("split4", ["-gdwarf-4", "-gsplit-dwarf"])):
            d, prog = build(tmp, variant, flags)
            if not prog:
                continue
            check_fixture(d, prog, variant, variant.endswith("z"))
            if variant.startswith("split"):
                check_split(d, prog)
        nodebug, prog = build(tmp, "nodebug", [])
        if prog:
            rows = check_i1(prog, "compileunits", "nodebug")
            check(all(r["compileunits"].startswith(("[", "LOAD #"))
                      for r in rows), "no -g: everything is fallback")
            text = memsz(prog, "compileunits", fmt="table")
            check("no DWARF in the file" in text, "no -g: footer says so")
    check_libc()
    print("%d checks, %d failed" % (lib.checks, lib.failures))
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
