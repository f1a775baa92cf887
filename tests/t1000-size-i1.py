#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""I1 on real ELF files: `memsz size` against readelf's own numbers.

For every ELF file below (test fixtures built here, memsz itself, and the
large system libraries and programs of the machine when present):
  - for every key, FILE SIZE sums to the file's size (stat) and VM SIZE to
    the sum of the PT_LOAD MemSiz that `readelf -lW` prints;
  - --by sections: every section's FILE SIZE equals readelf -SW's size (not
    NOBITS) and its VM SIZE equals that size for SHF_ALLOC sections (.tbss,
    a per-thread template, is not mapped and has no VM);
  - --by segments: every LOAD row plus the TLS bytes and the header tables
    inside it equals readelf -lW's FileSiz and MemSiz;
  - --by segments and --by sections: "[ELF Header]", "[ELF Program
    Headers]" and "[ELF Section Headers]" are rows of the sizes readelf -h
    gives (e_ehsize, e_phnum * e_phentsize, e_shnum * e_shentsize), in VM
    too when a LOAD maps them.
Ground truth is binutils' readelf, which shares no code with memsz.
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import readelf, check_quiet as check  # noqa: E402


MEMSZ = os.environ.get("MEMSZ", "./memsz")


def memsz_csv(path, key):
    out = subprocess.run([MEMSZ, "size", "--by", key, "-n", "0",
                          "--format", "csv", path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("memsz size %s failed: %s" % (path, out.stderr))
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    return rows


SEC_RE = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+"
                    r"([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\S*)\s+")


def sections(path):
    secs = []
    for line in readelf(["-S"], path).splitlines():
        # Index 0 (the null section) has an empty name; the regex copes.
        line = line.replace("[ 0]", "[0]")
        m = SEC_RE.match(line)
        if not m or m.group(1) == "0":
            continue
        secs.append(dict(name=m.group(2), type=m.group(3),
                         addr=int(m.group(4), 16), off=int(m.group(5), 16),
                         size=int(m.group(6), 16), flags=m.group(8)))
    return secs


def segments(path):
    segs = []
    idx = 0
    in_table = False
    for line in readelf(["-l"], path).splitlines():
        if line.strip().startswith("Type") and "Offset" in line:
            in_table = True
            continue
        if not in_table:
            continue
        f = line.split()
        if not f:
            if segs or idx:
                break
            continue
        if f[0].startswith("[Requesting"):
            continue
        if not f[0].isupper() and not f[0].startswith("LOOS") and \
           not f[0].startswith("0x"):
            continue
        if len(f) < 7 or not f[1].startswith("0x"):
            continue
        segs.append(dict(index=idx, type=f[0], off=int(f[1], 16),
                         vaddr=int(f[2], 16), filesz=int(f[4], 16),
                         memsz=int(f[5], 16)))
        idx += 1
    return segs


def headers(path, segs):
    """The three header tables as readelf -h places them: a list of
    (label, offset, size, mapped) with mapped true when a PT_LOAD holds
    the whole table."""
    h = {}
    for line in readelf(["-h"], path).splitlines():
        k, _, v = line.strip().partition(":")
        m = re.match(r"\s*(\d+)", v)
        if m:
            h[k] = int(m.group(1))
    out = []
    for label, off, size in (
            ("[ELF Header]", 0, h["Size of this header"]),
            ("[ELF Program Headers]", h["Start of program headers"],
             h["Number of program headers"] * h["Size of program headers"]),
            ("[ELF Section Headers]", h["Start of section headers"],
             h["Number of section headers"] * h["Size of section headers"])):
        if not size:
            continue
        mapped = any(s["type"] == "LOAD" and s["off"] <= off and
                     off + size <= s["off"] + s["filesz"] for s in segs)
        out.append((label, off, size, mapped))
    return out


def check_headers(name, key, rows, hdrs):
    for label, off, size, mapped in hdrs:
        got_f = int(rows[label]["file_size"]) if label in rows else 0
        got_v = int(rows[label]["vm_size"]) if label in rows else 0
        check(got_f == size, "%s --by %s %s: FILE SIZE %d, readelf -h "
              "says %d" % (name, key, label, got_f, size))
        check(got_v == (size if mapped else 0), "%s --by %s %s: VM SIZE "
              "%d, readelf -h says %d%s" % (name, key, label, got_v, size,
                                           "" if mapped else " unmapped"))


def check_file(path):
    size = os.stat(path).st_size
    segs = segments(path)
    vm_total = sum(s["memsz"] for s in segs if s["type"] == "LOAD")
    name = os.path.basename(path)
    for key in ("segments", "sections", "symbols", "sections,symbols",
                "bbs", "symbols,bbs", "relocs",
                "files,segments",
                "compileunits", "inlines", "sections,compileunits"):
        rows = memsz_csv(path, key)
        fsum = sum(int(r["file_size"]) for r in rows)
        vsum = sum(int(r["vm_size"]) for r in rows)
        check(fsum == size, "%s --by %s: FILE SIZE sums to %d, file is %d"
              % (name, key, fsum, size))
        check(vsum == vm_total, "%s --by %s: VM SIZE sums to %d, PT_LOAD "
              "MemSiz sum to %d" % (name, key, vsum, vm_total))

    hdrs = headers(path, segs)
    rows = {r["sections"]: r for r in memsz_csv(path, "sections")}
    check_headers(name, "sections", rows, hdrs)
    want_file, want_vm = {}, {}
    for s in sections(path):
        if not s["name"]:
            continue
        tls_nobits = s["type"] == "NOBITS" and "T" in s["flags"]
        if s["type"] != "NOBITS":
            want_file[s["name"]] = want_file.get(s["name"], 0) + s["size"]
        if "A" in s["flags"] and not tls_nobits:
            want_vm[s["name"]] = want_vm.get(s["name"], 0) + s["size"]
    for sec, n in want_file.items():
        got = int(rows[sec]["file_size"]) if sec in rows else 0
        check(got == n, "%s section %s: FILE SIZE %d, readelf says %d"
              % (name, sec, got, n))
    for sec, n in want_vm.items():
        got = int(rows[sec]["vm_size"]) if sec in rows else 0
        check(got == n, "%s section %s: VM SIZE %d, readelf says %d"
              % (name, sec, got, n))

    rows = {r["segments"]: r for r in memsz_csv(path, "segments")}
    check_headers(name, "segments", rows, hdrs)
    tls = [s for s in segs if s["type"] == "TLS"]
    for s in segs:
        if s["type"] != "LOAD":
            continue
        label = [k for k in rows
                 if re.match(r"LOAD #%d \[" % s["index"], k)]
        check(len(label) == 1, "%s: one row for LOAD #%d (rows: %s)"
              % (name, s["index"], sorted(rows)))
        if len(label) != 1:
            continue
        got_f = int(rows[label[0]]["file_size"])
        got_v = int(rows[label[0]]["vm_size"])
        for t in tls:  # TLS bytes inside this LOAD are labelled TLS
            lo, hi = max(t["off"], s["off"]), min(t["off"] + t["filesz"],
                                                  s["off"] + s["filesz"])
            got_f += max(0, hi - lo)
            lo = max(t["vaddr"], s["vaddr"])
            hi = min(t["vaddr"] + t["filesz"], s["vaddr"] + s["memsz"])
            got_v += max(0, hi - lo)
        for label, off, size, mapped in hdrs:  # header rows of its own
            if mapped and s["off"] <= off and \
               off + size <= s["off"] + s["filesz"]:
                got_f += size
                got_v += size
        check(got_f == s["filesz"], "%s LOAD #%d: FILE SIZE %d, readelf "
              "FileSiz %d" % (name, s["index"], got_f, s["filesz"]))
        check(got_v == s["memsz"], "%s LOAD #%d: VM SIZE %d, readelf "
              "MemSiz %d" % (name, s["index"], got_v, s["memsz"]))


def build_fixtures(tmp):
    src = os.path.join(tmp, "fx.c")
    with open(src, "w") as f:
        f.write("""
#include <stdio.h>
__thread int tls_counter = 3;
__thread char tls_buf[4096];
static char big_bss[1 << 20];
const char table[100000] = { 1, 2, 3 };
int data_val = 42;
void *ptrs[] = { (void *)&data_val, (void *)table, (void *)big_bss };
int main(void) { printf("%d %p\\n", tls_counter + tls_buf[0], ptrs[1]); return 0; }
""")
    out = []
    for name, flags in (("fx-pie", ["-O2", "-g"]),
                        ("fx-nopie", ["-O0", "-no-pie"]),
                        ("fx-static", ["-O2", "-static"]),
                        ("fx-m32", ["-m32", "-O2"]),
                        ("fx-relr", ["-O2", "-Wl,-z,pack-relative-relocs"])):
        dst = os.path.join(tmp, name)
        r = subprocess.run(["gcc", src, "-o", dst] + flags,
                           capture_output=True)
        if r.returncode == 0:
            out.append(dst)
        else:
            lib.skip_part("fixture %s: gcc %s failed (%s)"
                          % (name, " ".join(flags),
                             "gcc-multilib" if "-m32" in flags else "gcc"))
    stripped = os.path.join(tmp, "fx-stripped")
    if subprocess.run(["strip", "-o", stripped, out[0]]).returncode == 0:
        out.append(stripped)
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        files = build_fixtures(tmp)
        if not files:
            lib.fail("cannot build any fixture with gcc")
        files.append(os.path.realpath(MEMSZ))
        for p in ("/usr/lib/x86_64-linux-gnu/libc.so.6",
                  "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                  "/usr/bin/python3.11", "/usr/bin/node",
                  "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"):
            if os.path.exists(p):
                files.append(os.path.realpath(p))
            else:
                lib.skip_part("not on this machine: %s" % p)
        for p in files:
            try:
                check_file(p)
            except Exception as e:  # a crash or error is a failure
                check(False, "%s: %s" % (p, e))
        print("%d checks on %d files, %d failed" % (lib.checks, len(files),
                                                    lib.failures))
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
