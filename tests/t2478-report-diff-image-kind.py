#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A recording says whether each mapped file was ELF when recorded (an
IMAGE_KIND record after its IMAGE record), and `memsz diff` and `memsz
report` go by it instead of guessing from a missing build-id.

A process maps a 16-page data file (on a block device, mode 0600: a note
names a file not readable by all) MAP_SHARED, writes its first half,
loads a library linked without a build-id (readelf -n shows none) and
stops itself: `memsz record -p PID --duration 0` records OLD. Then the
data file grows to 32 pages (os.truncate, the same inode), the library
is rewritten in place with text (not ELF now, the same inode and size),
and the process writes the second half of its mapping and stops again:
NEW is recorded.

- dump: OLD's IMAGE_KIND of the data file says "elf no", of the library
  "elf yes" (its first bytes were "\\x7fELF"); NEW's of the library "elf
  no". Of a 23-byte file (shorter than an ELF header: not opened) "elf
  no", of a 56-byte file with an ELF64 header's magic, class and byte
  order cut short "elf yes".
- diff OLD NEW: the footer says "'DATA' (not ELF) changed: size A -> B
  bytes" (A, B and whether the mtime moved from os.stat at each
  recording), never "it may be another build", and "'LIB' was ELF in OLD
  and is not ELF in NEW"; the data file's row is its path with OLD and
  NEW RSS equal to smaps' Rss at each recording.
- report of OLD: the library, ELF when recorded and not now, is the row
  "[changed since recording] LIB" with VM SIZE and RSS equal to smaps'
  Size and Rss of its mappings at OLD, with a note saying why (-v: one
  note each); the data file written and grown since keeps its path with
  smaps' numbers, and its note says it was not ELF when recorded either.

- OLD and NEW as memsz wrote them before IMAGE_KIND records (those cut
  out: lib.md_without_image_kinds) read as before: dump prints no kind,
  and diff says of the data file "it may be another build" (it cannot
  tell a data file from a library without a build-id).
- A second library without a build-id, ELF at both recordings, its mtime
  a second later at NEW (os.utime): diff still says "it may be another
  build" of it.

- A third data file, mapped read-only, rewritten in place at its size
  between the recordings (its mtime a second later): diff says "'PATH'
  (not ELF) changed: new mtime, same size (N bytes)".
- A second data file, mapped read-only, rewritten in place after OLD with
  the library's bytes at the same size and mtime (os.utime): report of
  OLD gives "[changed since recording] PATH" with smaps' Size and Rss,
  never the ELF file's segments, and diff says "was not ELF in OLD and is
  ELF in NEW".

The build before said of the data file "it may be another build", left
the rewritten library under its path ("modified since it was recorded"),
labelled the second data file as the ELF file it is now, and printed no
kind.
"""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

NPAGES = 16

# maps argv[1] shared, writes its first half, maps argv[4:] read-only and
# reads them, loads the libraries argv[2] and argv[3] and stops itself;
# on SIGCONT writes the second half and stops again
TARGET = r"""
import ctypes, mmap, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, %d * mmap.PAGESIZE, mmap.MAP_SHARED)
half = len(m) // 2
for i in range(0, half, mmap.PAGESIZE):
    m[i] = 1
m.flush()
ro = [mmap.mmap(os.open(f, os.O_RDONLY), 0, mmap.MAP_SHARED,
                mmap.PROT_READ) for f in sys.argv[4:]]
sum(r[i] for r in ro for i in range(0, len(r), mmap.PAGESIZE))
ctypes.CDLL(sys.argv[2])
ctypes.CDLL(sys.argv[3])
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
for i in range(half, len(m), mmap.PAGESIZE):
    m[i] = 2
m.flush()
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
sys.stdin.read()
""" % NPAGES


def smaps_of(pid, path):
    """(Size, Rss) of pid's mappings of path, summed (smaps)."""
    vmas = [v for v in lib.smaps_vmas(pid) if v["last"] == path]
    return (sum(v["Size"] for v in vmas), sum(v["Rss"] for v in vmas))


def record(pid, data, paths):
    """Records pid into data; returns {path: (os.stat, smaps_of)} of
    paths at that moment (pid is stopped)."""
    lib.run_ok([MEMSZ, "record", "-o", data, "-p", str(pid),
                "--duration", "0"])
    return {p: (os.stat(p), smaps_of(pid, p)) for p in paths}


def image_kinds(data):
    """{path: the word after "elf" on the IMAGE_KIND line of its IMAGE
    record's id, or None} of `dump`."""
    out = lib.run_ok([MEMSZ, "dump", "-i", data]).stdout
    paths, kinds = {}, {}
    for ln in out.splitlines():
        w = ln.split()
        if len(w) > 3 and w[2] == "IMAGE":
            paths[w[3]] = w[-1]
            kinds[w[-1]] = None
        elif len(w) == 6 and w[2] == "IMAGE_KIND" and w[4] == "elf":
            kinds[paths[w[3]]] = w[5]
    return kinds


def files_rows(data):
    """{label: (vm, rss)} of `report --by files -F vm,rss` of data."""
    return {r["files"]: (int(r["vm_size"]), int(r["rss"]))
            for r in lib.report(data, "files", "-F", "vm,rss")}


def check_dump(old, new, path, so, tiny, trunc):
    k_old, k_new = image_kinds(old), image_kinds(new)
    check(k_old.get(tiny) == "no",
          "dump: the 23-byte file was not ELF (%r)" % k_old.get(tiny))
    check(k_old.get(trunc) == "yes",
          "dump: the ELF header cut short was ELF (%r)" % k_old.get(trunc))
    check(k_old.get(path) == "no" and k_new.get(path) == "no",
          "dump: the data file was not ELF (OLD %r, NEW %r)" %
          (k_old.get(path), k_new.get(path)))
    check(k_old.get(so) == "yes" and k_new.get(so) == "no",
          "dump: the library was ELF in OLD, not in NEW (%r, %r)" %
          (k_old.get(so), k_new.get(so)))


def another_build(path, a, b):
    """diff's note on path, without a build-id, changed between a and b."""
    return ("'%s' has no build-id on either side and its size or mtime "
            "changed (%d -> %d bytes): it may be another build" %
            (path, a[path][0].st_size, b[path][0].st_size))


def check_diff(old, new, path, so, so2, a, b):
    (sa, ma), (sb, mb) = a[path], b[path]
    out = lib.run_ok([MEMSZ, "diff", old, new]).stdout
    note = another_build(so2, a, b)
    check(note in out, "diff: the footer says " + note)
    note = "'%s' (not ELF) changed: size %d -> %d bytes%s" % (
        path, sa.st_size, sb.st_size,
        "" if sa.st_mtime_ns == sb.st_mtime_ns else ", new mtime")
    check(note in out, "diff: the footer says " + note)
    check(not [ln for ln in out.splitlines()
               if path in ln and "another build" in ln],
          "diff: no note calls the data file another build")
    note = "'%s' was ELF in OLD and is not ELF in NEW (size %d -> %d " \
           "bytes)" % (so, a[so][0].st_size, b[so][0].st_size)
    check(note in out, "diff: the footer says " + note)
    # with the file's size, which changed: a row the same in the columns
    # compared is left out, and its RSS may be
    r = lib.run_ok([MEMSZ, "diff", old, new, "--by", "files", "-F",
                    "rss,file", "--format", "csv"])
    rows = {}
    for ln in r.stdout.splitlines()[1:]:
        f = ln.rsplit(",", 7)
        rows[f[0]] = (int(f[1]), int(f[2]))
    check(rows.get(path) == (ma[1], mb[1]),
          "diff: the row %s has RSS %r (smaps); got %r" %
          (path, (ma[1], mb[1]), rows.get(path)))


def check_elf_now(old, new, db, a):
    """db.bin, a data file when recorded, holds an ELF file now, of the
    same size and mtime: its sections must not label the data mapped."""
    changed = "[changed since recording] " + db
    rows = files_rows(old)
    check(rows.get(changed) == a[db][1] and db not in rows,
          "report: db.bin, ELF now, is the row %s %r (smaps); got %r, %r"
          % (changed, a[db][1], rows.get(changed), rows.get(db)))
    out = lib.run_ok([MEMSZ, "report", "-i", old, "--by", "files",
                      "-v"]).stdout
    note = "%s: an ELF file now, not an ELF file when recorded" % changed
    check(note in out, "report: the note says " + note)
    out = lib.run_ok([MEMSZ, "diff", old, new]).stdout
    note = "'%s' was not ELF in OLD and is ELF in NEW (size %d -> %d " \
           "bytes)" % (db, a[db][0].st_size, a[db][0].st_size)
    check(note in out, "diff: the footer says " + note)


def check_same_size(old, new, log, a, b):
    """log.bin, rewritten in place between the recordings at its size, a
    second later (os.stat): a data file's new mtime."""
    (sa, _), (sb, _) = a[log], b[log]
    check(sa.st_size == sb.st_size and sa.st_mtime_ns != sb.st_mtime_ns,
          "os.stat: log.bin kept its size (%d), not its mtime" % sb.st_size)
    out = lib.run_ok([MEMSZ, "diff", old, new]).stdout
    note = "'%s' (not ELF) changed: new mtime, same size (%d bytes)" % (
        log, sa.st_size)
    check(note in out, "diff: the footer says " + note)


def check_without_kinds(old, new, path, so, a, b):
    """OLD and NEW without IMAGE_KIND records read as memsz read them
    before those."""
    bare = []
    for rec in (old, new):
        with open(rec, "rb") as f:
            raw = f.read()
        bare.append(rec[:-len(".data")] + "-bare.data")
        with open(bare[-1], "wb") as f:
            f.write(lib.md_without_image_kinds(raw))
    kinds = image_kinds(bare[0])
    check(path in kinds and so in kinds and kinds[path] is kinds[so] is None,
          "dump without IMAGE_KIND: no kind (%r, %r)" % (kinds.get(path),
                                                        kinds.get(so)))
    out = lib.run_ok([MEMSZ, "diff"] + bare).stdout
    note = another_build(path, a, b)
    check(note in out, "diff without IMAGE_KIND: the footer says " + note)


def check_ignored_kinds(old):
    """OLD with every IMAGE_KIND record's kind made 3 (no kind memsz
    knows: a later memsz's, or damage): the kind is advisory, so report
    reads on, with a note, and its rows are those of OLD without
    IMAGE_KIND records (every image of unknown kind)."""
    with open(old, "rb") as f:
        raw = f.read()
    odd = bytearray(raw)
    n = 0
    for off, rtype, _ in lib.md_records(raw):
        if rtype == 21:  # IMAGE_KIND: header, id, kind
            struct.pack_into("<I", odd, off + 20, 3)
            n += 1
    odd_path, bare_path = (old[:-len(".data")] + s for s in
                           ("-odd.data", "-bare2.data"))
    with open(odd_path, "wb") as f:
        f.write(lib.md_fix_checksums(odd))
    with open(bare_path, "wb") as f:
        f.write(lib.md_without_image_kinds(raw))
    r = subprocess.run([MEMSZ, "report", "-i", odd_path, "--by", "files"],
                       capture_output=True, text=True)
    note = ("%d IMAGE_KIND records ignored (the first: image kind unknown)"
            % n)
    check(r.returncode == 0 and note in r.stdout,
          "report of kinds unknown to it: exit 0, the note %r (%d, %r)" %
          (note, r.returncode, r.stderr.strip()))
    check(files_rows(odd_path) == files_rows(bare_path),
          "report of kinds unknown to it: the rows of no kinds")


def check_report(old, path, so, a):
    tmp = os.path.dirname(path)
    rows = {k: v for k, v in files_rows(old).items() if tmp in k}
    changed = "[changed since recording] " + so
    check(rows.get(changed) == a[so][1] and so not in rows,
          "report: the library rewritten is the row %s %r (smaps); rows "
          "of %s %r" % (changed, a[so][1], tmp, rows))
    check(rows.get(path) == a[path][1] and
          "[changed since recording] " + path not in rows,
          "report: the data file written keeps its path %r (smaps); rows "
          "of %s %r" % (a[path][1], tmp, rows))
    out = lib.run_ok([MEMSZ, "report", "-i", old, "--by", "files",
                      "-v"]).stdout
    note = ("%s: not an ELF file now, an ELF file when recorded, so what "
            "it holds is unknown" % changed)
    check(note in out, "report: the note says " + note)
    note = ("%s: not an ELF file (mapped executable or not readable by "
            "all): labelled by its path; not ELF when recorded either" %
            path)
    check(note in out, "report: the note says " + note)


def main():
    d = lib.block_device_dir(tempfile.gettempdir(), os.getcwd())
    if not d:
        lib.skip("neither %s nor %s is on a block device (a file on tmpfs "
                 "has no device and inode memsz checks)" %
                 (tempfile.gettempdir(), os.getcwd()))
    with tempfile.TemporaryDirectory(prefix="memsz-t2478-", dir=d) as tmp:
        path = os.path.join(tmp, "data.bin")
        with open(path, "wb") as f:
            f.write(b"\0" * NPAGES * PAGE)
        os.chmod(path, 0o600)
        src, so = os.path.join(tmp, "x.c"), os.path.join(tmp, "libx.so")
        with open(src, "w") as f:
            f.write("int x_value(void) { return 42; }\n")
        lib.run_ok(["gcc", "-shared", "-fPIC", "-Wl,--build-id=none", "-o",
                    so, src])
        with open(so, "rb") as f:
            check(f.read(4) == b"\x7fELF" and lib.build_id(so) is None,
                  "libx.so is ELF without a build-id (readelf -n)")
        # a second library without a build-id, its mtime moved at NEW
        so2 = os.path.join(tmp, "liby.so")
        shutil.copyfile(so, so2)
        # shorter than an ELF header; an ELF64 header cut short
        tiny, trunc = os.path.join(tmp, "tiny"), os.path.join(tmp, "trunc")
        with open(tiny, "wb") as f:
            f.write(b"\x7fELF" + b"t" * 19)
        with open(trunc, "wb") as f:
            f.write(b"\x7fELF\x02\x01\x01" + b"\0" * 49)
        check((os.stat(tiny).st_size, os.stat(trunc).st_size) == (23, 56),
              "os.stat: the short files are of 23 and 56 bytes")
        old, new = os.path.join(tmp, "old.data"), os.path.join(tmp,
                                                               "new.data")
        # a data file of the library's size, rewritten into its bytes
        db = os.path.join(tmp, "db.bin")
        with open(db, "wb") as f:
            f.write(b"x" * os.stat(so).st_size)
        # a data file rewritten in place between the recordings
        log = os.path.join(tmp, "log.bin")
        with open(log, "wb") as f:
            f.write(b"y" * PAGE)
        files = (path, so, so2, db, log, tiny, trunc)
        p = subprocess.Popen([sys.executable, "-c", TARGET, *files],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        try:
            lib.workload_stopped(p, "the target")
            a = record(p.pid, old, files)
            os.truncate(path, 2 * NPAGES * PAGE)
            with open(so, "rb") as f:
                elf = f.read()
            with open(so, "r+b") as f:
                f.write(b"text " * (a[so][0].st_size // 5))
            with open(db, "r+b") as f:
                f.write(elf)
            st = a[db][0]
            os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
            with open(log, "r+b") as f:
                f.write(b"z")
            st = a[log][0]
            os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
            st = a[so2][0]
            os.utime(so2, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
            os.kill(p.pid, signal.SIGCONT)
            lib.workload_stopped(p, "the target writing the second half")
            b = record(p.pid, new, files)
        finally:
            p.kill()
            p.wait()
        check((b[path][0].st_ino, b[so][0].st_ino, b[so][0].st_size) ==
              (a[path][0].st_ino, a[so][0].st_ino, a[so][0].st_size) and
              b[path][0].st_size == 2 * a[path][0].st_size and
              (b[db][0].st_ino, b[db][0].st_size, b[db][0].st_mtime_ns) ==
              (a[db][0].st_ino, a[db][0].st_size, a[db][0].st_mtime_ns),
              "os.stat: the same inodes; the data file grew, the library "
              "kept its size, db.bin its size and mtime")
        check(a[path][1][0] == b[path][1][0] == NPAGES * PAGE and
              0 < a[path][1][1] <= b[path][1][1],
              "smaps: the data mapping is 16 pages, resident at both "
              "recordings (%r, %r)" % (a[path][1], b[path][1]))
        check_dump(old, new, path, so, tiny, trunc)
        check_diff(old, new, path, so, so2, a, b)
        check_report(old, path, so, a)
        check_ignored_kinds(old)
        check_elf_now(old, new, db, a)
        check_same_size(old, new, log, a, b)
        check_without_kinds(old, new, path, so, a, b)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
