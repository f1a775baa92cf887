#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` of a Go program (go build: ET_EXEC, .gopclntab,
.go.buildinfo, no .eh_frame).

Go's compiler addresses data relative to RIP only: an immediate in its
code is a number, never an address. The program passes a constant chosen
(after a first build) to lie in the middle of .gopclntab, which no code
addresses; memsz once read that `mov $CONST, %eax` as a reference and gave
main.holdsNumber the rest of .gopclntab (147 KiB).

Ground truth: readelf -S and -l (section sizes, PT_LOAD memsz), nm (the
names, as Go stores them: nothing to demangle) and objdump -d (the
addresses each function's instructions name, its `# ADDR` comments).
Checked: I1 for sections, segments and symbols; each section's size;
each symbol label is a name nm prints; a function charged bytes of a data
section by the default code-to-data analysis addresses that section; and
`diff A A` is empty.

A C program linked with a Go c-archive (go build -buildmode=c-archive,
gcc -no-pie) has Go's build-id note too, but only the code between the
symbols runtime.text and runtime.etext is Go's: the C function say()
loads its format string with `mov $ADDR, %edi` (objdump -d), and memsz
once gave it none of .rodata, as if it were Go code. The Go function
main.holdsNumber there loads a constant inside runtime.pclntab (in
.data.rel.ro) and owns none of it.
"""
import csv
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
from memsz_testlib import MEMSZ, check, readelf  # noqa: E402

PROG = '''package main

import "os"

//go:noinline
func use(x uint32) {
	if x == 1 {
		os.Exit(3)
	}
}

//go:noinline
func holdsNumber() { use(%#x) }

func main() { holdsNumber() }
'''

LIB = '''package main

import "C"

//go:noinline
func use(x uint32) uint32 { return x * 3 }

//go:noinline
func holdsNumber() uint32 { return use(%#x) }

//export GoTwice
func GoTwice(x C.int) C.int { return C.int(use(uint32(x)) + holdsNumber()) }

func main() {}
'''

HOST = r'''#include <stdio.h>
#include "lib.h"
__attribute__((noinline)) void say(int v)
{
	printf("the Go function answered %d, which this C function prints "
	       "with a format string long enough to be seen\n", v);
}
int main(int c, char **v)
{
	say(GoTwice(c));
	return v[0][0] == 0;
}
'''

# sections whose bytes a symbol owns as its metadata, not as its code or
# data: the symbol tables and strings
META = (".symtab", ".strtab", ".dynsym", ".dynstr")


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode:
        lib.fail("%s failed: %s" % (" ".join(args), r.stderr[-400:]))
    return r.stdout


def build(tmp, env, const):
    with open(os.path.join(tmp, "main.go"), "w") as f:
        f.write(PROG % const)
    exe = os.path.join(tmp, "prog")
    run(["go", "build", "-o", exe, "."], cwd=tmp, env=env)
    return exe


def rows(path, key, *extra):
    """{(label, ...): (file, vm)} of memsz size --by key."""
    out = run([MEMSZ, "size", *extra, "--by", key, "-n", "0", "--format",
               "csv", path])
    got = {}
    for r in csv.DictReader(io.StringIO(out)):
        k = tuple(r[x] for x in key.split(","))
        got[k] = (int(r["file_size"]), int(r["vm_size"]))
    return got


def addressed(exe, secs):
    """{function: set of the sections its instructions name} (objdump)."""
    out, fn = {}, None
    dis = run(["objdump", "-d", "--no-show-raw-insn", exe])
    for line in dis.splitlines():
        m = re.match(r"[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            continue
        m = re.search(r"# ([0-9a-f]+)", line)
        if fn and m:
            t = int(m.group(1), 16)
            for name, (addr, _off, size, _fl) in secs.items():
                if addr <= t < addr + size:
                    out.setdefault(fn, set()).add(name)
    return out


def build_host(tmp, env, const):
    """The C program host.c linked with a c-archive of LIB (const)."""
    with open(os.path.join(tmp, "lib.go"), "w") as f:
        f.write(LIB % const)
    host = os.path.join(tmp, "h")
    os.makedirs(host, exist_ok=True)
    with open(os.path.join(host, "host.c"), "w") as f:
        f.write(HOST)
    run(["go", "build", "-buildmode=c-archive", "-o",
         os.path.join(host, "lib.a"), "."], cwd=tmp, env=env)
    run(["gcc", "-O1", "-fno-pie", "-no-pie", "-o", "host", "host.c",
         "lib.a", "-lpthread"], cwd=host)
    return os.path.join(host, "host")


def symval(exe, name):
    for line in run(["nm", exe]).splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    return None


def c_archive(top, env):
    """C code linked with Go's keeps its absolute references."""
    if not shutil.which("gcc"):
        lib.skip_part("no gcc for the c-archive host")
        return
    tmp = os.path.join(top, "carchive")
    os.makedirs(tmp)
    env = dict(env, CGO_ENABLED="1")
    with open(os.path.join(tmp, "go.mod"), "w") as f:
        f.write("module m\n\ngo 1.19\n")
    exe = build_host(tmp, env, 0x7fffffff)
    pcl, epcl = symval(exe, "runtime.pclntab"), symval(exe, "runtime.epclntab")
    text, etext = symval(exe, "runtime.text"), symval(exe, "runtime.etext")
    if None in (pcl, epcl, text, etext):
        lib.skip_part("the c-archive host has no runtime.pclntab, "
                      "runtime.text or runtime.etext")
        return
    exe = build_host(tmp, env, (pcl + epcl) // 2 & ~0xf)
    secs = lib.sections(exe)
    say = symval(exe, "say")
    check(say is not None and not text <= say < etext and
          symval(exe, "main.holdsNumber") is not None and
          text <= symval(exe, "main.holdsNumber") < etext and
          ".note.go.buildid" in secs,
          "host has Go's build-id note; say lies outside "
          "[runtime.text, runtime.etext), main.holdsNumber inside (nm)")
    dis = run(["objdump", "-d", "--no-show-raw-insn",
               "--disassemble=say", exe])
    m = re.search(r"mov\s+\$0x([0-9a-f]+),%edi", dis)
    ro = secs.get(".rodata")
    check(m and ro and ro[0] <= int(m.group(1), 16) < ro[0] + ro[2],
          "say loads an address in .rodata as an immediate (objdump -d)")
    dis = run(["objdump", "-d", "--no-show-raw-insn",
               "--disassemble=main.holdsNumber", exe])
    m = re.search(r"mov\s+\$0x([0-9a-f]+),", dis)
    pcl, epcl = symval(exe, "runtime.pclntab"), symval(exe, "runtime.epclntab")
    check(m and pcl <= int(m.group(1), 16) < epcl,
          "main.holdsNumber loads a constant inside runtime.pclntab "
          "(objdump -d, nm)")
    bysec = rows(exe, "symbols,sections")
    got = bysec.get(("say", ".rodata"), (0, 0))[1]
    check(got > 0, "c-archive host: say owns bytes of the .rodata it "
          "addresses (got %d)" % got)
    pclsec = [n for n, (a, _o, z, _f) in secs.items()
              if a <= pcl < a + z and z]
    hold = sum(v[1] for (sym, sec), v in bysec.items()
               if sym == "main.holdsNumber" and sec in pclsec)
    check(hold == 0, "c-archive host: main.holdsNumber owns no byte of "
          "%s, where runtime.pclntab lies (got %d)" % (pclsec, hold))
    size = os.path.getsize(exe)
    vm = sum(int(f[5], 16) for f in (
        line.split() for line in readelf(["-l"], exe).splitlines())
        if f and f[0] == "LOAD")
    got = rows(exe, "symbols")
    check((sum(v[0] for v in got.values()),
           sum(v[1] for v in got.values())) == (size, vm),
          "c-archive host: FILE SIZE and VM SIZE sum to the file's size "
          "and the PT_LOAD memsz (I1)")


def main():
    if not shutil.which("go"):
        lib.skip("go (golang-go) is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1304-") as tmp:
        env = dict(os.environ, HOME=tmp, GOCACHE=os.path.join(tmp, "c"),
                   GOPATH=os.path.join(tmp, "p"), GOFLAGS="-mod=mod",
                   GOPROXY="off", CGO_ENABLED="0")
        with open(os.path.join(tmp, "go.mod"), "w") as f:
            f.write("module m\n\ngo 1.19\n")
        # the constant has the same encoding (imm32) in both builds: the
        # layout is the same
        exe = build(tmp, env, 0x7fffffff)
        secs = lib.sections(exe)
        if ".gopclntab" not in secs:
            lib.skip("go build wrote no .gopclntab")
        pcl = secs[".gopclntab"]
        exe = build(tmp, env, pcl[0] + pcl[2] // 2 & ~0xf)
        secs = lib.sections(exe)
        pcl = secs[".gopclntab"]
        const = int(re.search(r"mov\s+\$0x([0-9a-f]+),", run(
            ["objdump", "-d", "--no-show-raw-insn",
             "--disassemble=main.holdsNumber", exe])).group(1), 16)
        check(pcl[0] <= const < pcl[0] + pcl[2],
              "main.holdsNumber loads %#x, inside .gopclntab [%#x, %#x)"
              % (const, pcl[0], pcl[0] + pcl[2]))

        size = os.path.getsize(exe)
        vm = sum(int(f[5], 16) for f in (
            line.split() for line in readelf(["-l"], exe).splitlines())
            if f and f[0] == "LOAD")
        for key in ("sections", "segments", "symbols"):
            got = rows(exe, key)
            check((sum(v[0] for v in got.values()),
                   sum(v[1] for v in got.values())) == (size, vm),
                  "%s: FILE SIZE sums to %d, VM SIZE to the PT_LOAD "
                  "memsz %d (I1)" % (key, size, vm))

        got = rows(exe, "sections")
        for name in (".gopclntab", ".go.buildinfo", ".noptrdata",
                     ".text", ".rodata"):
            if name in secs:
                check(got.get((name,), (0,))[0] == secs[name][2],
                      "%s: %d bytes, as readelf -S (got %s)"
                      % (name, secs[name][2], got.get((name,))))
        check(".eh_frame" not in got, "no .eh_frame row (Go writes none)")

        names, funcs = set(), set()
        for line in run(["nm", exe]).splitlines():
            f = line.split(None, 2)
            if len(f) == 3:
                names.add(f[2])
                if f[1] in "Tt":
                    funcs.add(f[2])
        refs = addressed(exe, secs)
        bysec = rows(exe, "symbols,sections")
        bad, wrong = [], []
        for (sym, sec), (fsz, vsz) in bysec.items():
            if sym.startswith("[") or sym.startswith("LOAD #"):
                continue
            if sym not in names:
                bad.append(sym)
            if sym in funcs and sec in secs and "X" not in secs[sec][3] \
                    and sec not in META and sec not in refs.get(sym, ()):
                wrong.append("%s: %d bytes of %s" % (sym, vsz, sec))
        check(not bad, "every symbol label is a name nm prints (not: %s)"
              % bad[:5])
        check(not wrong, "no function is charged data of a section its "
              "code does not address (objdump -d) (charged: %s)" % wrong[:5])
        hold = sum(v[1] for (sym, sec), v in bysec.items()
                   if sym == "main.holdsNumber" and sec == ".gopclntab")
        check(hold == 0, "main.holdsNumber owns no byte of .gopclntab "
              "(got %d)" % hold)

        out = run([MEMSZ, "diff", "--by", "sections,symbols", "--format",
                   "csv", "-n", "0", exe, exe])
        check(len(out.strip().splitlines()) == 1,
              "diff of the program with itself has no row (got %s)"
              % out.strip().splitlines()[1:4])
        c_archive(tmp, env)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
