#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3240: files that are not on disk as they were mapped get a clear label.

A program built at test time links a small shared library built at test
time (libt3240.so, with a known resident table) and maps a data file
MAP_SHARED, as a JVM maps /tmp/hsperfdata_USER/PID. It is recorded while
stopped (`record -p PID --duration 0`), with the RSS smaps gives each of
the two mappings; a second data file is unlinked while mapped (maps says
"PATH (deleted)"). Then the data file is deleted and the library replaced
by another build (mv of a new file over the path: a package upgrade).
Checks, on `report --by files,sections`:
1. each data file's bytes are one row "[deleted] PATH", a leaf (no key
   below adds a level), with the RSS smaps gave its mapping; the library's
   "[changed since recording] PATH", with the RSS smaps gave its mappings;
   nothing is "[LOAD #?]" and the TOTAL RSS is what it was before;
2. one footer line for the two deleted files, and with -v one note each
   (not "cannot open ... cannot open") that says it was deleted; one
   for the library, naming the build-id that changed; the table prints
   them and the new labels;
3. a library replaced by a build with no build-id is found changed by its
   inode, size or mtime alike.
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

LIB_C = r"""
const char t3240_table[256 * 1024] = { [0] = %d, [200000] = 1 };
int t3240_touch(void)
{
	int s = 0;
	for (unsigned i = 0; i < sizeof(t3240_table); i += 4096)
		s += t3240_table[i];
	return s;
}
"""

PROG_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int t3240_touch(void);
/* Map path shared and touch touched bytes of it. */
static int map_file(const char *path, size_t touched)
{
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	char *p;

	if (fd < 0 || ftruncate(fd, 64 * 1024) < 0)
		return -1;
	p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	memset(p, 1, touched);
	return 0;
}
int main(int argc, char **argv)
{
	/* argv[2] is unlinked while mapped: maps says "(deleted)" */
	if (argc < 3 || map_file(argv[1], 32 * 1024) < 0 ||
	    map_file(argv[2], 16 * 1024) < 0 || unlink(argv[2]) < 0)
		return 1;
	printf("ready %d\n", t3240_touch());
	fflush(stdout);
	pause();
	return 0;
}
"""


def gcc(*args):
    subprocess.run(["gcc", "-O1", *args], check=True)


def build_lib(tmp, path, seed, *flags):
    src = os.path.join(tmp, f"lib{seed}.c")
    with open(src, "w") as f:
        f.write(LIB_C % seed)
    gcc("-shared", "-fPIC", *flags, "-o", path, src)


def memsz(*args):
    p = subprocess.run([MEMSZ, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"memsz {args}: exit {p.returncode}: {p.stderr}")
    return p.stdout, p.stderr


def rss_of(vmas, path):
    return sum(v.get("Rss", 0) for v in vmas if v["last"] == path)


def record(tmp, libflags):
    """Run the program, record it stopped; returns (data, libpath,
    datafile, smaps VMAs at the recording)."""
    libdir = os.path.join(tmp, "lib")
    os.makedirs(libdir, exist_ok=True)
    so = os.path.join(libdir, "libt3240.so")
    build_lib(tmp, so, 1, *libflags)
    prog = os.path.join(tmp, "prog")
    src = os.path.join(tmp, "prog.c")
    with open(src, "w") as f:
        f.write(PROG_C)
    gcc("-o", prog, src, "-L" + libdir, "-lt3240", "-Wl,-rpath," + libdir)
    datafile = os.path.join(tmp, "hsperfdata", "4242")
    os.makedirs(os.path.dirname(datafile), exist_ok=True)
    p = subprocess.Popen([prog, datafile, os.path.join(tmp, "gone")],
                         stdout=subprocess.PIPE, text=True)
    try:
        check(p.stdout.readline().startswith("ready"), "the program runs")
        lib.stopped(p.pid)
        vmas = lib.smaps_vmas(p.pid)
        data = os.path.join(tmp, "m.data")
        memsz("record", "-p", str(p.pid), "--duration", "0", "-o", data)
    finally:
        p.kill()
        p.wait()
    return data, so, datafile, vmas


def rows(data, *extra):
    out, err = memsz("report", "-i", data, "--by", "files,sections", "-n",
                     "0", "--format", "csv", *extra)
    return list(csv.DictReader(io.StringIO(out))), err


def total_rss(rs):
    return sum(int(r["rss"]) for r in rs)


def check_labels(tmp, libflags, what):
    data, so, datafile, vmas = record(tmp, libflags)
    before, _ = rows(data)
    # the data file goes (its process is gone: no map_files link left)
    # and the library is replaced by another build, as an upgrade does
    os.unlink(datafile)
    new = so + ".new"
    build_lib(tmp, new, 2, *libflags)
    os.rename(new, so)
    after, err = rows(data)
    deleted = [r for r in after if r["files"] == f"[deleted] {datafile}"]
    changed = [r for r in after
               if r["files"] == f"[changed since recording] {so}"]
    check(len(deleted) == 1 and deleted[0]["sections"] == "",
          f"{what}: the deleted file is one leaf row '[deleted] PATH' "
          f"({deleted})")
    check(deleted and int(deleted[0]["rss"]) == rss_of(vmas, datafile) > 0,
          f"{what}: its RSS is smaps' ({rss_of(vmas, datafile)})")
    check(len(changed) == 1 and changed[0]["sections"] == "",
          f"{what}: the replaced library is one leaf row '[changed since "
          f"recording] PATH' ({changed})")
    check(changed and int(changed[0]["rss"]) == rss_of(vmas, so) > 0,
          f"{what}: its RSS is smaps' ({rss_of(vmas, so)})")
    gone = os.path.join(tmp, "gone")
    g = [r for r in after if r["files"] == f"[deleted] {gone}"]
    check(len(g) == 1 and g[0]["sections"] == "" and
          int(g[0]["rss"]) == rss_of(vmas, "(deleted)") > 0,
          f"{what}: a file deleted while mapped ('{gone} (deleted)' in "
          f"maps) is '[deleted] PATH' with smaps' RSS ({g})")
    check(not any("LOAD #?" in v for r in after for v in r.values()),
          f"{what}: nothing is [LOAD #?]")
    check(total_rss(after) == total_rss(before) > 0,
          f"{what}: the TOTAL RSS is unchanged ({total_rss(before)})")
    notes = [ln for ln in err.splitlines() if ln.startswith("memsz: note:")]
    dn = [ln for ln in notes if "deleted" in ln]
    cn = [ln for ln in notes if so in ln]
    check(len(dn) == 1 and dn[0].startswith("memsz: note: 2 files were "
                                            "deleted") and
          "4242" in dn[0] and "gone" in dn[0],
          f"{what}: one footer line for the two deleted files ({dn})")
    _, err = rows(data, "-v")
    notes = [ln for ln in err.splitlines() if ln.startswith("memsz: note:")]
    for path in (datafile, gone):
        dn = [ln for ln in notes if path + ":" in ln]
        check(len(dn) == 1 and "deleted since it was mapped" in dn[0] and
              "cannot open" not in dn[0],
              f"{what}: -v: one note on {os.path.basename(path)} ({dn})")
    want = "build-id" if not libflags else "inode"
    check(len(cn) == 1 and want in cn[0] and "cannot open" not in cn[0],
          f"{what}: one note on the replaced library, naming the "
          f"{want} ({cn})")
    out, _ = memsz("report", "-i", data, "--by", "files", "--width", "0",
                   "-v")
    check(f"[deleted] {datafile}" in out and
          f"[changed since recording] {so}" in out and
          f"[deleted] {datafile}: deleted since it was mapped" in out,
          f"{what}: the table shows the labels and the notes")


def main():
    if not shutil.which("gcc"):
        lib.skip("gcc (gcc) is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t3240-")
    try:
        check_labels(os.path.join(tmp, "a"), (), "build-id")
        check_labels(os.path.join(tmp, "b"), ("-Wl,--build-id=none",),
                     "no build-id")
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
