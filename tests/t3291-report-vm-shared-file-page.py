#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3291: VM SIZE of an image whose segments share a file page.

A small program linked the default way puts its RW segment at a file
offset inside the last page of the read-only segment before it (readelf:
LOAD at file offset 0x2db0, VM 0x3db0): the process maps that file page
twice, at two addresses, once for each segment (and the RELRO part of the
RW segment keeps it after mprotect). Both are its VM. The ground truth is
readelf's program headers: the pages each PT_LOAD segment occupies when
mapped, and the kernel's smaps Size of the program's mappings, read while
the program is stopped. Checked, for --by files and --by files,segments:
the program's VM SIZE is that, each segment's VM SIZE its pages, and no
row has more RSS than VM SIZE (one process). The build before counted the
shared file page once, so the image lost a page of VM SIZE and its RW
segment showed RSS above VM SIZE (RES% over 100).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

PROG = r"""
#include <signal.h>
#include <stdio.h>
int counter = 1;                 /* .data: dirtied below */
int *const ptr = &counter;       /* .data.rel.ro: RELRO */
int main(void)
{
	(*ptr)++;
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	return counter == 2 ? 0 : 1;
}
"""


def loads(path):
    """[(file offset, vaddr, memsz)] of path's PT_LOAD segments (readelf)."""
    out = subprocess.run(["readelf", "-lW", path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[5], 16)))
    return segs


def pages(va, size):
    """Bytes of the pages [va, va + size) touches."""
    return ((va + size + PAGE - 1) & ~(PAGE - 1)) - (va & ~(PAGE - 1))


def rep(data, by):
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n",
                          "0", "--format", "json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if out.returncode:
        lib.fail(f"report --by {by} exits 0: {out.stderr.strip()[:200]}")
    return json.loads(out.stdout)


def main():
    for tool in ("gcc", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"no {tool}")
    with tempfile.TemporaryDirectory(prefix="memsz-t3291-") as tmp:
        src, exe = os.path.join(tmp, "small.c"), os.path.join(tmp, "small")
        with open(src, "w") as f:
            f.write(PROG)
        subprocess.run(["gcc", "-O1", "-o", exe, src], check=True)
        segs = loads(exe)
        first_page = [off // PAGE for off, _, _ in segs]
        last_page = [(off + sz - 1) // PAGE if sz else off // PAGE
                     for off, _, sz in segs]
        shared = any(first_page[i] == last_page[i - 1]
                     for i in range(1, len(segs)))
        if not shared:
            lib.skip("this linker gives no two segments one file page")
        truth = sum(pages(va, sz) for _, va, sz in segs)

        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--", exe],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        if rec.stdout.readline().strip() != "ready":
            rec.kill()
            lib.fail("workload started: " + rec.communicate()[1].strip())
        kids = lib.children(rec.pid)
        check(len(kids) == 1, "one workload process")
        pid = kids[0]
        lib.wait_stopped(pid)
        size = sum(v["end"] - v["start"] for v in lib.smaps_vmas(pid)
                   if v["last"] == exe)
        out, err = lib.resume(rec, pid)
        check(rec.returncode == 0, "record exits 0: " + err.strip()[-200:])
        check(size == truth, f"smaps: the program maps {size} bytes, "
              f"readelf's PT_LOAD pages {truth}")

        files = rep(data, "files")
        row = [r for r in files["rows"] if r["name"] == exe]
        check(len(row) == 1, "one row for the program")
        if row:
            check(row[0]["vm_size"] == truth,
                  f"--by files: VM SIZE {row[0]['vm_size']} is the "
                  f"PT_LOAD pages {truth}")
        for r in files["rows"]:
            check(r["rss"] <= r["vm_size"],
                  f"--by files: {r['name']}: RSS {r['rss']} within VM "
                  f"SIZE {r['vm_size']}")

        fs = rep(data, "files,segments")
        row = [r for r in fs["rows"] if r["name"] == exe]
        kids = {c["name"]: c for c in row[0].get("rows", [])} if row else {}
        for name, c in kids.items():
            check(c["rss"] <= c["vm_size"],
                  f"--by files,segments: {name}: RSS {c['rss']} within "
                  f"VM SIZE {c['vm_size']}")
        check(row and row[0]["vm_size"] == truth,
              f"--by files,segments: the program's VM SIZE "
              f"{row[0]['vm_size'] if row else None} is {truth}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
