#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz report --by files`: a data file (not ELF) that a process writes
to through a shared mapping keeps its path after the recording, though
its mtime moved, and so does one cut to another size (the same inode);
one replaced by another file (a new inode) is "[changed since recording]
PATH". A library without a build-id rewritten in place (not ELF now) is
"[changed since recording] PATH" too: the recording says it was ELF
(an IMAGE_KIND record). The same recording without its IMAGE_KIND
records, as memsz wrote it before them (t2478 has the other checks of
the kinds), reads as before, guessing: the library keeps its path, with
a note saying how it changed.

A process maps a 16-page file MAP_SHARED, writes every page and stops
itself; `memsz record -p PID --duration 0` records it. Then, as a database
or a cache writing its mapped file would, it writes to the pages again
(its mtime moves, the inode and size stay: os.stat says so). The report
must name the file's row by its path, with VM SIZE and RSS equal to the
kernel's smaps Size and Rss of the mapping read while it was stopped (the
build before labelled it "[changed since recording] PATH", which t3281
met as a flake: its target's writes could move the mtime after a
snapshot had seen it). The same recording, reported after the file was
replaced by another of the same size, has the row "[changed since
recording] PATH"; after the recorded file was cut to one page, the path.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

NPAGES = 16

# maps argv[1] shared, writes each page with the byte argv[2], writes
# them back (msync: their next write faults, and the kernel moves the
# file's mtime then) and stops itself; on SIGCONT writes each page again
# and says so
WRITER = r"""
import mmap, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, %d * mmap.PAGESIZE, mmap.MAP_SHARED)
b = int(sys.argv[2])
for i in range(0, len(m), mmap.PAGESIZE):
    m[i] = b
m.flush()
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
for i in range(0, len(m), mmap.PAGESIZE):
    m[i] = b + 1
m.flush()
print("wrote", flush=True)
sys.stdin.read()
""" % NPAGES


def files_rows(data):
    """{label: (vm, rss)} of `report --by files -F vm,rss` of data."""
    r = lib.run_ok([MEMSZ, "report", "-i", data, "--by", "files", "-n",
                    "0", "-F", "vm,rss", "--format", "csv"])
    rows = {}
    for ln in r.stdout.splitlines()[1:]:
        label, vm, rss = ln.rsplit(",", 2)
        rows[label] = (int(vm), int(rss))
    return rows


def elf_rewritten(tmp):
    """A library without a build-id, mapped executable (ctypes loads it),
    recorded, then rewritten in place at the same size with text: not
    ELF now, the same inode. The recording says it was ELF: its row is
    "[changed since recording] PATH", and the note says why. The same
    recording without IMAGE_KIND records does not say: its row keeps its
    path, and the note says it is not an ELF file now and how it changed
    (its mtime), as memsz before those reported it."""
    lib_c, so = os.path.join(tmp, "x.c"), os.path.join(tmp, "libx.so")
    with open(lib_c, "w") as f:
        f.write("int x_value(void) { return 42; }\n")
    lib.run_ok(["gcc", "-shared", "-fPIC", "-Wl,--build-id=none", "-o", so,
                lib_c])
    p = subprocess.Popen([sys.executable, "-c",
                          "import ctypes, sys; ctypes.CDLL(sys.argv[1]); "
                          "print('ready', flush=True); sys.stdin.read()",
                          so], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        check(p.stdout.readline().strip() == "ready", "libx.so loaded")
        data = os.path.join(tmp, "so.data")
        lib.run_ok([MEMSZ, "record", "-o", data, "-p", str(p.pid),
                    "--duration", "0"])
    finally:
        p.kill()
        p.wait()
    bare = os.path.join(tmp, "so-bare.data")
    with open(data, "rb") as f:
        raw = f.read()
    with open(bare, "wb") as f:
        f.write(lib.md_without_image_kinds(raw))
    before = os.stat(so)
    with open(so, "r+b") as f:
        f.write(b"text " * (before.st_size // 5))
    os.utime(so, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    changed = "[changed since recording] " + so
    for rec, note in ((data, "%s: not an ELF file now, an ELF file when "
                       "recorded" % changed),
                      (bare, "%s: not an ELF file (mapped executable or not "
                       "readable by all): labelled by its path; modified "
                       "since it was recorded (mtime)" % so)):
        rows = [k for k in files_rows(rec) if k.endswith(so)]
        want = [changed] if rec == data else [so]
        check(rows == want, "libx.so rewritten in place, %s: the row is "
              "%s (%r)" % (os.path.basename(rec), want[0], rows))
        out = lib.run_ok([MEMSZ, "report", "-i", rec, "--by",
                          "files"]).stdout
        check(note in out, "the note says: " + note)


def disk_dir():
    """A directory on a block device for the file: the temporary
    directory, else the current one (the build tree). A file on tmpfs
    (major 0) has no device, inode, size or mtime memsz checks, so there
    the test could not fail."""
    d = lib.block_device_dir(tempfile.gettempdir(), os.getcwd())
    return d or lib.skip("neither %s nor %s is on a block device" %
                         (tempfile.gettempdir(), os.getcwd()))


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2465-",
                                     dir=disk_dir()) as tmp:
        path = os.path.join(tmp, "data.bin")
        with open(path, "wb") as f:
            f.write(b"\0" * NPAGES * PAGE)
        p = subprocess.Popen([sys.executable, "-c", WRITER, path, "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        try:
            check(p.stdout.readline().strip() == "ready", "the writer runs")
            lib.wait_stopped(p.pid)
            start, end, smaps = lib.smaps_mapping(p.pid, path)
            data = os.path.join(tmp, "rec.data")
            lib.run_ok([MEMSZ, "record", "-o", data, "-p",
                        str(p.pid), "--duration", "0"])
            before = os.stat(path)
            os.kill(p.pid, signal.SIGCONT)
            check(p.stdout.readline().strip() == "wrote",
                  "the writer wrote its pages again")
            after = os.stat(path)
            if after.st_mtime_ns == before.st_mtime_ns:
                # the kernel's coarse clock had not ticked since the
                # first writes, or a file system (tmpfs) that moves no
                # mtime for writes through a mapping: moved as write(2)
                # would have
                os.utime(path, ns=(after.st_atime_ns,
                                   after.st_mtime_ns + 10**9))
                after = os.stat(path)
        finally:
            p.kill()
            p.wait()
        check(after.st_mtime_ns != before.st_mtime_ns and
              (after.st_ino, after.st_size) ==
              (before.st_ino, before.st_size),
              "os.stat: the writes moved the mtime (%d -> %d), not the "
              "inode or size" % (before.st_mtime_ns, after.st_mtime_ns))
        want = (end - start, smaps["Rss"])
        check(want == (NPAGES * PAGE, NPAGES * PAGE),
              "smaps: the mapping is 16 pages, all resident (%r)" % (want,))
        rows = files_rows(data)
        check(rows.get(path) == want,
              "written since the recording: the row %s is VM SIZE and RSS "
              "%r (smaps); rows %r" % (path, want, sorted(rows)))
        changed = "[changed since recording] " + path
        check(changed not in rows, "no row " + changed)

        # another file of the same size at the path: a new inode
        os.rename(path, path + ".old")
        with open(path, "wb") as f:
            f.write(b"\1" * NPAGES * PAGE)
        rows = files_rows(data)
        check(rows.get(changed) == want and path not in rows,
              "replaced (inode %d, was %d): the row is %s %r; rows %r" %
              (os.stat(path).st_ino, before.st_ino, changed, want,
               sorted(rows)))

        # the recorded file itself, cut to one page: still the file
        os.replace(path + ".old", path)
        os.truncate(path, PAGE)
        rows = files_rows(data)
        check(rows.get(path) == want and changed not in rows,
              "cut to one page (the same inode): the row is %s %r; rows %r"
              % (path, want, sorted(rows)))
        elf_rewritten(tmp)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
