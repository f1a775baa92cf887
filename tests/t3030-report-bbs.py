#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3030: `memsz report --by symbols,bbs` on a process whose basic blocks
lie on known pages (workloads/rep_bbs.c, built with clang
-fbasic-block-sections=labels).

Ground truth nobody here wrote: llvm-readobj --bb-addr-map (each block's
offset and size in bb_fn), nm (bb_fn's address) and the kernel's
/proc/PID/pagemap (which of bb_fn's pages are present). Checks:
  - the setup: bb_fn's first page is present, the three pages its cold
    block runs onto are not;
  - each block's RSS in the report equals its bytes on present pages: the
    hot blocks whole, the cold block only the part on the first page;
  - the blocks' RSS sums to the one present page.
"""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, SRCDIR, PAGE, check, report, stopped  # noqa


def readobj():
    for name in ("llvm-readobj-14", "llvm-readobj"):
        if shutil.which(name):
            return name
    return None


def blocks(tool, exe, fn):
    """[(offset, size)] of fn's blocks, in map order."""
    out = subprocess.run([tool, "--bb-addr-map", exe], capture_output=True,
                         text=True, check=True).stdout
    res, cur = [], None
    for line in out.splitlines():
        m = re.match(r"\s*Name: (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"\s*Offset: 0x([0-9A-Fa-f]+)", line)
        if m and cur == fn:
            off = int(m.group(1), 16)
        m = re.match(r"\s*Size: 0x([0-9A-Fa-f]+)", line)
        if m and cur == fn:
            res.append((off, int(m.group(1), 16)))
    return res


def present(pid, addr, npages):
    """Present bit (pagemap bit 63) of npages pages from addr."""
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(addr // PAGE * 8)
        data = f.read(8 * npages)
    return [bool(struct.unpack_from("<Q", data, 8 * i)[0] >> 63)
            for i in range(npages)]


def main():
    tool = readobj()
    if not tool or not shutil.which("clang"):
        lib.fail("needs clang and llvm-readobj-14 (Debian clang, llvm-14)")
    tmp = tempfile.mkdtemp(prefix="memsz-t3030-")
    exe = os.path.join(tmp, "rep_bbs")
    src = os.path.join(SRCDIR, "tests", "workloads", "rep_bbs.c")
    subprocess.run(["clang", "-O1", "-fbasic-block-sections=labels",
                    "-fPIE", "-pie", "-o", exe, src], check=True)
    bbs = blocks(tool, exe, "bb_fn")
    check(len(bbs) >= 3 and bbs[-1][0] + bbs[-1][1] > 3 * PAGE,
          "llvm-readobj: bb_fn has %d blocks, the last running past 3 "
          "pages (%s)" % (len(bbs), bbs))
    p = None
    try:
        p = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
        f = p.stdout.readline().split()
        pid, at = int(f[1]), int(f[2].split("=")[1], 16)
        stopped(pid)
        end = max(o + s for o, s in bbs)
        npages = (end + PAGE - 1) // PAGE
        pres = present(pid, at, npages)
        check(pres[0] and not any(pres[1:]),
              "pagemap: bb_fn's first page present, the %d after it not "
              "(%s)" % (npages - 1, pres))
        data = os.path.join(tmp, "b.data")
        subprocess.run([MEMSZ, "record", "-p", str(pid), "-o", data,
                        "--duration", "0.1"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=120)
        rows = {r["bbs"]: r for r in report(data, "symbols,bbs")
                if r["symbols"] == "bb_fn"}
        total = 0
        for i, (off, size) in enumerate(bbs):
            want = sum(max(0, min(off + size, (pg + 1) * PAGE) -
                           max(off, pg * PAGE))
                       for pg in range(npages) if pres[pg])
            total += want
            label = "bb_fn#%d" % i
            got = int(rows[label]["rss"]) if label in rows else None
            check(got == want, "block %s [%#x, +%#x): RSS %s == its bytes "
                  "on present pages %d" % (label, off, size, got, want))
        # (its other rows are metadata elsewhere: its .eh_frame FDE, ...)
        fn_rss = sum(int(r["rss"]) for k, r in rows.items()
                     if k.startswith("bb_fn#"))
        check(fn_rss == total == PAGE, "bb_fn: RSS of its blocks %d == %d "
              "== the one present page" % (fn_rss, total))
        # report decodes code as size does (--no-disasm: not): bytes move
        # between labels, the resident total stays, and a note says what
        # moved in exe
        plain = report(data, "symbols", "--no-disasm")
        dis = report(data, "symbols", "--disasm")
        rss = [sum(int(r["rss"]) for r in rs) for rs in (plain, dis)]
        check(rss[0] == rss[1] > 0, "report --disasm: RSS total %d == %d "
              "without it" % (rss[1], rss[0]))
        out = subprocess.run([MEMSZ, "report", "-i", data, "--by",
                              "symbols", "--disasm", "-v", "--format",
                              "json"], stdout=subprocess.PIPE, text=True)
        notes = json.loads(out.stdout).get("notes", []) \
            if out.returncode == 0 else []
        check(any(exe + ": symbols: code-to-data references charged " in n
                  for n in notes),
              "report --disasm: a note counts what it charged in %s (%s)"
              % (exe, [n for n in notes if "references" in n]))
        os.kill(pid, signal.SIGKILL)
    finally:
        if p:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
