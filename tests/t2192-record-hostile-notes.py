#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2192: the build-id of an image is looked for in a bounded amount of
note data, however many note areas its headers name. Any user can map a
file that looks like ELF; root's `memsz record` reads its build-id. Each
SHT_NOTE section of up to 1 MiB was read, and a file of a few thousand
section headers that all name the same MiB of zeros made memsz read
gigabytes: a 65 MB file of a million headers, a TiB (`memsz size` of the
file the same).

The file: an ELF header, N - 1 SHT_NOTE section headers naming one MiB
of zeros. A process maps it; `memsz record -p PID --duration 0` and
`memsz size FILE`, run under strace, must each read (pread64, the bytes
returned, strace's count) no more than a few times the file's size; the
recording must be whole and give the mapping the RSS smaps gives it.
And a note area larger than the whole bound (a copy of `true` whose
section 1 is made a 2 MiB SHT_NOTE at offset 0) is skipped, not the end
of the search: the IMAGE record of the copy, mapped by a process, has the
build-id readelf -n gives (it had none).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

N = 3000  # section headers: 3000 MiB of notes to read without a bound
MIB = 1 << 20
GUARD = 300  # seconds: a guard against hanging, not a timing assumption

# The target: maps the file, touches its first page, says its pid.
TARGET = r"""
import mmap, os, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
m[0]
open(sys.argv[2] + ".tmp", "w").write("%d" % os.getpid())
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
sys.stdin.read()
"""


def hostile(path):
    """The ELF64 file of N sections, all but the null one SHT_NOTE over
    the same MiB of zeros."""
    shoff = 4096
    notes = (shoff + N * 64 + 4095) & ~4095
    eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 56, 0,
                      64, N, 0)
    sh = struct.pack("<IIQQQQIIQQ", 0, 7, 0, 0, notes, MIB, 0, 0, 4, 0)
    with open(path, "wb") as f:
        f.write(eh.ljust(shoff, b"\0"))
        f.write(bytes(64))  # section 0
        f.write(sh * (N - 1))
        f.truncate(notes + MIB)


def oversized(src, path):
    """A copy of the ELF64 program src whose section 1 is made an SHT_NOTE
    area of 2 MiB at offset 0: more than the whole bound, before the real
    build-id note."""
    b = bytearray(open(src, "rb").read())
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, = struct.unpack_from("<H", b, 0x3a)
    h = shoff + shentsize
    struct.pack_into("<I", b, h + 4, 7)  # sh_type SHT_NOTE
    struct.pack_into("<QQ", b, h + 24, 0, 2 * MIB)  # sh_offset, sh_size
    open(path, "wb").write(b)


def build_id_of(data, path):
    """The build-id memsz dump gives path's IMAGE record ('-': none)."""
    out = subprocess.run([MEMSZ, "dump", "-i", data], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if " IMAGE " in line and line.endswith(" " + path):
            return line.split(" build-id ")[1].split()[0]
    return None


def check_oversized(tmp):
    """An oversized note area is skipped, not the end of the search: the
    build-id after it is found (readelf -n's)."""
    src = shutil.which("true")
    path = os.path.join(tmp, "big-note-area")
    oversized(src, path)
    want = lib.build_id(src)
    ready = os.path.join(tmp, "ready2")
    target = subprocess.Popen([sys.executable, "-c", TARGET, path, ready],
                              stdin=subprocess.PIPE)
    try:
        lib.wait_until(lambda: os.path.exists(ready), "the target to map")
        with open(ready) as f:
            pid = int(f.read())
        data = os.path.join(tmp, "b.data")
        subprocess.run([MEMSZ, "record", "-o", data, "-p", str(pid),
                        "--duration", "0"], check=True,
                       stderr=subprocess.DEVNULL)
        got = build_id_of(data, path)
        check(want and got == want, "a 2 MiB note area before it hides no "
              f"build-id: {got}, readelf -n {want}")
    finally:
        target.kill()
        target.wait()


def read_bytes(trace, path):
    """The bytes strace saw pread64 return from path."""
    total = 0
    with open(trace) as f:
        for line in f:
            if "pread64(" in line and "<%s>" % path in line:
                ret = line.rsplit("=", 1)[-1].split()[0]
                if ret.isdigit():
                    total += int(ret)
    return total


def traced(cmd, trace):
    """cmd run under strace (pread64 of every thread into trace); its
    CompletedProcess. LeakSanitizer cannot run under ptrace: off."""
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get(
        "ASAN_OPTIONS", "") + ":detect_leaks=0")
    return subprocess.run(["strace", "-f", "-y", "-e", "trace=pread64",
                           "-o", trace, *cmd], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env,
                          timeout=GUARD)


def main():
    if not shutil.which("strace"):
        lib.skip("strace not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t2192-")
    path = os.path.join(tmp, "hostile.so")
    hostile(path)
    size = os.stat(path).st_size
    ready = os.path.join(tmp, "ready")
    target = subprocess.Popen([sys.executable, "-c", TARGET, path, ready],
                              stdin=subprocess.PIPE)
    try:
        lib.wait_until(lambda: os.path.exists(ready), "the target to map")
        with open(ready) as f:
            pid = int(f.read())
        data = os.path.join(tmp, "h.data")
        trace = os.path.join(tmp, "trace")
        r = traced([MEMSZ, "record", "-o", data, "-p", str(pid),
                    "--duration", "0"], trace)
        check(r.returncode == 0, "record exits 0 (%d): %s" %
              (r.returncode, r.stderr.strip()))
        got = read_bytes(trace, path)
        check(got <= 4 * size, "record read %d bytes of the %d-byte file "
              "(at most 4 times its size)" % (got, size))
        vma = [v for v in lib.smaps_vmas(pid) if v["last"] == path]
        rows = lib.report(data, "mappings") if r.returncode == 0 else []
        mine = [x for x in rows if x.get("mappings", "").endswith(path)]
        check(len(vma) == 1 and len(mine) == 1 and
              int(mine[0]["rss"]) == vma[0]["Rss"],
              "the mapping's RSS is smaps' (%s, %s)" %
              ([v["Rss"] for v in vma], [x["rss"] for x in mine]))
        r = traced([MEMSZ, "size", path], trace)
        check(r.returncode == 0, "size exits 0 (%d): %s" %
              (r.returncode, r.stderr.strip()))
        got = read_bytes(trace, path)
        check(got <= 4 * size, "size read %d bytes of the %d-byte file "
              "(at most 4 times its size)" % (got, size))
        check_oversized(tmp)
    finally:
        target.kill()
        target.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
