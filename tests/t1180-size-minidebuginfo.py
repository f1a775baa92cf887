#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""MiniDebugInfo: a stripped binary whose .gnu_debugdata section holds an
xz-compressed ELF file whose .symtab names the functions stripped from it
(Fedora ships every binary so; gdb, perf and libdwfl read it). memsz read
only .dynsym, so those functions stayed '[section .text]' under `size`,
`report` and `diff`.

Fixture: a program of static and global functions, built with -g, made
into a stripped binary with a .gnu_debugdata section exactly as Fedora's
find-debuginfo.sh does it (memsz_testlib.FEDORA_MINIDEBUG: nm -D, nm of
the debug file's functions, comm, objcopy --only-keep-debug, objcopy -S
--keep-symbols, xz, objcopy --add-section). Ground truth: `nm -S
--defined-only` of the unstripped program gives each kept function's
address and size; `readelf -wf` the FDE whose pc_begin is that address.
 - size --by sections,symbols: each kept function's .text row is its nm
   size, its .eh_frame row the FDE starting at its nm address (so the
   address is the one nm gives); FILE SIZE sums to the file's size; the
   same for the unstripped program given the payload too (its .symtab
   read, the payload not);
 - the same with every function kept (-rdynamic: main, g_delta and
   g_epsilon are in .dynsym too): each one row, once, no alias, and the
   note counts only the functions .dynsym does not name;
 - diff of two builds (s_beta grown): s_beta's .text row is OLD and NEW
   nm sizes;
 - report of `record -- BIN` (all functions ran, so their page is
   resident): each function's .text row has RSS equal to its nm size.
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

PROG = r"""
#include <stdio.h>
#ifndef BIG
#define BIG 16
#endif
static int __attribute__((noinline)) s_alpha(int x) { return x * 3 + 1; }
static int __attribute__((noinline)) s_beta(int x)
{
	volatile int a[BIG];
	for (int i = 0; i < BIG; i++)
		a[i] = x + i;
	return a[x & (BIG - 1)];
}
static long __attribute__((noinline)) s_gamma(long x)
{
	return x > 0 ? s_gamma(x - 1) + x : 0;
}
int __attribute__((noinline)) g_delta(int x) { return s_alpha(x) + s_beta(x); }
int __attribute__((noinline)) g_epsilon(int x)
{
	return (int)s_gamma(x) ^ g_delta(x);
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", g_epsilon(argc));
	return 0;
}
"""
STATIC = ("s_alpha", "s_beta", "s_gamma")


def csv_rows(args):
    r = subprocess.run([MEMSZ] + args, capture_output=True, text=True)
    check(r.returncode == 0, f"memsz {' '.join(args[:3])}: exit 0 "
          f"({r.returncode}: {r.stderr.strip()[-300:]})")
    return list(csv.DictReader(io.StringIO(r.stdout))), r.stderr


def build(tmp, name, *flags):
    src = os.path.join(tmp, "prog.c")
    with open(src, "w") as f:
        f.write(PROG)
    orig = os.path.join(tmp, name + ".orig")
    subprocess.run(["gcc", "-O1", "-g", "-o", orig, src] + list(flags),
                   check=True)
    out = os.path.join(tmp, name)
    kept = lib.fedora_minidebug(orig, out, keep_all="-rdynamic" in flags)
    truth = {s: v for s, v in lib.nm_defined(orig).items()
             if s in kept and v[1]}
    return orig, out, truth


def text_rows(rows, col="vm_size"):
    return {r["symbols"]: int(r[col]) for r in rows
            if r["sections"] == ".text"}


def check_size(path, truth, fdes, what):
    rows, err = csv_rows(["size", "--by", "sections,symbols", "--format",
                          "csv", "-n", "0", path])
    text = text_rows(rows)
    eh = {r["symbols"]: int(r["file_size"]) for r in rows
          if r["sections"] == ".eh_frame"}
    wrong = [(s, text.get(s), v[1]) for s, v in truth.items()
             if text.get(s) != v[1]]
    check(not wrong, f"{what}: each kept function's .text row is its nm "
          f"size ({len(truth)} functions; wrong: {wrong})")
    named = [s for s in text if not s.startswith("[")]
    check(sorted(named) == sorted(truth),
          f"{what}: the .text rows are those functions ({sorted(named)})")
    bad = [(s, eh.get(s), fdes[v[0]]) for s, v in truth.items()
           if v[0] in fdes and eh.get(s) != fdes[v[0]]]
    check(not bad and sum(v[0] in fdes for v in truth.values()) >= 5,
          f"{what}: each function's .eh_frame row is the FDE at its nm "
          f"address, readelf -wf (wrong: {bad})")
    check(sum(int(r["file_size"]) for r in rows) == os.path.getsize(path),
          f"{what}: FILE SIZE sums to the file's size")
    aliases = [r for r in rows if r.get("aliases")]
    check(not aliases, f"{what}: no aliases ({aliases[:3]})")
    return err


def main():
    for tool in ("gcc", "nm", "objcopy", "strip", "xz", "comm", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1180-") as tmp:
        orig, mdi, truth = build(tmp, "prog")
        check(all(s in truth for s in STATIC + ("g_delta", "main")),
              f"fixture: the kept functions with a size, nm -S: "
              f"{sorted(truth)}")
        fdes = lib.eh_frame_fdes(orig)
        err = check_size(mdi, truth, fdes, "size")
        check("MiniDebugInfo" in err and "only the dynamic" not in err,
              f"size: the note says where the names came from ({err!r})")

        # a file with its .symtab: the payload is not read
        both = os.path.join(tmp, "both")
        subprocess.run(["objcopy", "--add-section",
                        f".gnu_debugdata={mdi}.mini.xz", orig, both],
                       check=True)
        err = check_size(both, truth, fdes, "size, .symtab and payload")
        check("MiniDebugInfo" not in err,
              f"size, .symtab and payload: .symtab alone is read ({err!r})")

        # every function kept: the payload names what .dynsym names too
        orig_all, mdi_all, truth_all = build(tmp, "dyn", "-rdynamic")
        dyn = [line.split()[-1] for line in subprocess.run(
            ["nm", "-D", "--defined-only", mdi_all], capture_output=True,
            text=True, check=True).stdout.splitlines()]
        both = [s for s in truth_all if s in dyn]
        check(all(s in both for s in ("g_delta", "g_epsilon", "main")),
              f"fixture: -rdynamic puts the global functions in .dynsym "
              f"({both})")
        err = check_size(mdi_all, truth_all, lib.eh_frame_fdes(orig_all),
                         "size, .dynsym and payload naming the same "
                         "functions")
        only = len([s for s in truth_all if s not in both])
        check(f"no .symtab: {only} symbols of its MiniDebugInfo" in err,
              f"size: the note counts the {only} functions only the "
              f"payload names, each of the others once ({err!r})")

        # diff: two builds, s_beta grown
        orig2, mdi2, truth2 = build(tmp, "big", "-DBIG=256")
        rows, _ = csv_rows(["diff", "--by", "sections,symbols", "--format",
                            "csv", "-n", "0", mdi, mdi2])
        beta = [r for r in rows if r["sections"] == ".text" and
                r["symbols"] == "s_beta"]
        old, new = truth["s_beta"][1], truth2["s_beta"][1]
        check(len(beta) == 1 and int(beta[0]["vm_size_old"]) == old and
              int(beta[0]["vm_size_new"]) == new and old != new,
              f"diff: s_beta's .text row is {old} -> {new} bytes "
              f"(nm -S; got {beta})")

        # report of a recording of the program: it ran every function
        data = os.path.join(tmp, "r.data")
        r = subprocess.run([MEMSZ, "record", "-o", data, "--", mdi],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"record -- BIN: exit 0 ({r.stderr})")
        rows = [x for x in lib.report(data, "files,sections,symbols")
                if x["files"] == mdi]
        rss = text_rows(rows, "rss")
        wrong = [(s, rss.get(s), v[1]) for s, v in truth.items()
                 if rss.get(s) != v[1]]
        check(not wrong, f"report: each function's .text row has RSS its "
              f"nm size ({wrong})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
