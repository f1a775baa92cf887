#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compressed DWARF that claims gigabytes inflated from a megabyte is not
inflated: `memsz size` and `memsz report` read the file as if it had no
DWARF, with a note naming the file and both sizes, exit 0, and stay
small. Before, memsz (or libdw for it) inflated it whole: zlib allows
1032 times the compressed size, so a 14 MB file cost 14 GB of RAM.

Fixtures, built here from a small C program (gcc -g): its .debug_str
pointed at 1 MiB of zlib that inflates to 1 GiB of zeros
  - as an SHF_COMPRESSED section (Elf64_Chdr claiming 1 GiB; readelf -St
    shows the header and -S the compressed size),
  - renamed .zdebug_str with GNU's "ZLIB" header (libelf's
    elf_compress_gnu(), which libdw calls for .zdebug_ names),
  - with 20 more headers named .debug_str over the same bytes, each
    claiming 1 byte (the compressed bytes counted 21 times made the
    ratio 48: counted at most the file's size, the note gives it),
  - in a separate debug file found by build-id (--debug-root), the
    note then naming the debug file;
  - in the .dwo file of a split unit (gcc -gsplit-dwarf), and in the dwz
    file (dwz -m) of two programs: files libdw opens by itself, named
    in the DWARF; the note then says they count (the real dwz file is
    still read: the units' VM SIZE as without dwz);
and a copy whose .shstrtab is compressed the same way (its names kept
readable in a stored block first): libdw names sections with
elf_strptr(), which inflates a compressed string table whole; no
toolchain makes one, and its DWARF is refused whatever it claims (the
note says why), also where the table's raw bytes (readelf's names, and
memsz's) name .debug_str otherwise than its inflated bytes (eu-readelf's,
libdw's), which hid it from the count: 1 GiB inflated before.
Ground truth: the peak RSS of memsz (wait4()'s ru_maxrss of the child,
which counts this test's pages copied before exec, ~20 MiB) stays under
200 MiB where inflating took over 1 GiB; the note gives the
claimed and compressed sizes readelf gives; FILE SIZE still sums to the
file's size (I1); --by symbols still names main (nm).

And real compressed DWARF is still read: a program of three units built
with -gz=zlib gives one row per unit readelf --debug-dump=info names,
the same rows as its uncompressed build; libc.so.6's libc6-dbg debug file
(compressed, 2.6 times) gives no such note and labels units readelf names.
"""
import csv
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402


def check(ok, what, why=""):
    """lib.check, why (what memsz said) added only when not ok."""
    lib.check(ok, what + ("" if ok or not why else f": {why}"))


MEMSZ = os.environ.get("MEMSZ", "./memsz")
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
CLAIM = 1 << 30  # what the hostile sections inflate to
RSS_MAX_KIB = 200 << 10  # inflating CLAIM takes over 1 GiB
SHF_COMPRESSED = 0x800
NOTE = re.compile(r"(\S+): (compileunits|inlines): DWARF(?: of debug file "
                  r"'([^']*)')? not read: its compressed sections( and "
                  r"those of the dwz and \.dwo files it names)? claim "
                  r"(\d+) bytes inflated from (\d+), over 256 MiB and 64 "
                  r"times as many")
LINKED = " and those of the dwz and .dwo files it names"
# DWARF refused whatever it claims: why, and the linked file it is about
REFUSAL = re.compile(r"(\S+): (compileunits|inlines): DWARF(?: of debug "
                     r"file '[^']*')? not read: (?:it names '([^']*)', a "
                     r"dwz or \.dwo file: )?(.*)")
ZNAMES = "section-name table (.shstrtab) is compressed"

PROG = r"""
#include <stdio.h>
#include <unistd.h>
int counter;
int main(int argc, char **argv)
{
	if (argc > 1) {
		printf("ready\n");
		fflush(stdout);
		pause();
	}
	return counter;
}
"""

UNITS = {
    "unit_one.c": "int one_table[64] = {1};\n"
                  "int one(int x) { return one_table[x & 63] * x; }\n",
    "unit_two.c": "static long acc;\n"
                  "long two(long x) { acc += x; return acc * 3; }\n",
    "unit_main.c": "int one(int); long two(long);\n"
                   "int main(int c, char **v) { return one(c) + two(c); }\n",
}


def run(*args):
    """(exit status, stdout, stderr, peak RSS in KiB) of memsz args: the
    child's own ru_maxrss (wait4), not that of every child so far."""
    with tempfile.TemporaryFile("w+") as o, tempfile.TemporaryFile("w+") as e:
        p = subprocess.Popen([MEMSZ, *args], stdout=o, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        o.seek(0)
        e.seek(0)
        return p.returncode, o.read(), e.read(), ru.ru_maxrss


def zeros_deflate():
    """(raw deflate stream, adler32 of the zeros) inflating to CLAIM
    zero bytes."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(1 << 20)
    parts, adler = [], 1
    for _ in range(CLAIM // len(chunk)):
        parts.append(c.compress(chunk))
        adler = zlib.adler32(chunk, adler)
    parts.append(c.flush())
    return b"".join(parts), adler


def zlib_stream(raw, prefix=b""):
    """A zlib stream of prefix (a stored block) then the zeros of raw."""
    body, adler = raw
    head = b"\x78\x01"
    if prefix:
        head += b"\x00" + struct.pack("<HH", len(prefix),
                                      len(prefix) ^ 0xffff) + prefix
        adler = zlib.adler32(prefix)
        chunk = bytes(1 << 20)
        for _ in range(CLAIM // len(chunk)):
            adler = zlib.adler32(chunk, adler)
    return head + body + struct.pack(">I", adler)


def shdrs(b):
    """[(header offset, name offset, flags, offset, size)] of ELF64 b, and
    e_shstrndx."""
    shoff, = struct.unpack_from("<Q", b, 0x28)
    es, n, si = struct.unpack_from("<HHH", b, 0x3a)
    out = []
    for i in range(n):
        h = shoff + i * es
        name, = struct.unpack_from("<I", b, h)
        flags, off, size = struct.unpack_from("<Q8xQQ", b, h + 8)
        out.append((h, name, flags, off, size))
    return out, si


def section_header(b, name):
    hs, si = shdrs(b)
    names = hs[si][3]
    for h in hs:
        at = names + h[1]
        if b[at:b.index(b"\0", at)] == name.encode():
            return h
    lib.fail(f"no section {name}")


def put_section(b, h, payload, flags_or=0):
    """Point header h of b at payload appended to b."""
    end = (len(b) + 7) & ~7
    b += bytes(end - len(b)) + payload
    struct.pack_into("<QQ", b, h[0] + 0x18, end, len(payload))
    struct.pack_into("<Q", b, h[0] + 8, h[2] | flags_or)


def hostile_str(src, dst, raw, gnu=False, name=".debug_str"):
    b = bytearray(open(src, "rb").read())
    name = ".zdebug_str" if gnu else name
    if gnu:
        subprocess.run(["objcopy", "--rename-section",
                        ".debug_str=.zdebug_str", src, dst], check=True)
        b = bytearray(open(dst, "rb").read())
        payload = b"ZLIB" + struct.pack(">Q", CLAIM) + zlib_stream(raw)
        put_section(b, section_header(b, name), payload)
    else:
        payload = struct.pack("<IIQQ", 1, 0, CLAIM, 1) + zlib_stream(raw)
        put_section(b, section_header(b, name), payload, SHF_COMPRESSED)
    open(dst, "wb").write(b)
    os.chmod(dst, 0o755)


def hostile_shstrtab(src, dst, raw):
    """dst: src with its .shstrtab compressed, claiming its names and
    CLAIM zeros; the names stay where the raw bytes show them."""
    b = bytearray(open(src, "rb").read())
    hs, si = shdrs(b)
    names = bytes(b[hs[si][3]:hs[si][3] + hs[si][4]])
    stream = zlib_stream(raw, names)
    shift = 24 + 2 + 5  # Elf64_Chdr, zlib header, stored block header
    for h in hs:
        struct.pack_into("<I", b, h[0], h[1] + shift)
    payload = struct.pack("<IIQQ", 1, 0, len(names) + CLAIM, 1) + stream
    put_section(b, hs[si], payload, SHF_COMPRESSED)
    open(dst, "wb").write(b)
    os.chmod(dst, 0o755)
    return len(payload), len(names) + CLAIM


def two_names(src, raw, renames, header):
    """src's bytes with .debug_str 1 MiB claiming CLAIM, and .shstrtab
    compressed as one stored deflate block after header (the compression
    header, its length known: header(0)) of a table whose raw bytes (the
    table shifted by that header, the zlib and the stored-block headers)
    give each section the name renames maps its real name to (its real
    name if none), and whose inflated bytes give its real name."""
    b = bytearray(open(src, "rb").read())
    h = section_header(b, ".debug_str")
    put_section(b, h, struct.pack("<IIQQ", 1, 0, CLAIM, 1) +
                zlib_stream(raw), SHF_COMPRESSED)
    hs, si = shdrs(b)
    old = bytes(b[hs[si][3]:hs[si][3] + hs[si][4]])
    shift = len(header(0)) + 2 + 5
    table = bytearray(b"\0" * (shift + 1))
    for i, sh in enumerate(hs[1:], 1):
        name = old[sh[1]:old.index(b"\0", sh[1])]
        at = len(table)
        table += renames.get(name, name) + b"\0"
        table += bytes(at + shift - len(table)) + name + b"\0"
        struct.pack_into("<I", b, sh[0], at + shift)
    t = bytes(table)
    stream = (b"\x78\x01\x01" + struct.pack("<HH", len(t), len(t) ^ 0xffff)
              + t + struct.pack(">I", zlib.adler32(t)))
    return b, hs[si], header(len(t)) + stream


def split_names(src, dst, raw):
    """dst: src with .shstrtab compressed (SHF_COMPRESSED) by two_names,
    each section's name raw its real one but .debug_str's, .debug_xtr
    raw. Names taken raw, .debug_str is not DWARF libdw reads; libdw's
    elf_strptr() names it .debug_str and inflates it."""
    b, h, payload = two_names(
        src, raw, {b".debug_str": b".debug_xtr"},
        lambda n: struct.pack("<IIQQ", 1, 0, n, 1))
    put_section(b, h, payload, SHF_COMPRESSED)
    open(dst, "wb").write(b)
    os.chmod(dst, 0o755)


def gnu_names(src, dst, raw):
    """dst: src with .shstrtab GNU-compressed by two_names ("ZLIB" and the
    size) and named .zdebug_line raw, which libdw takes for DWARF and has
    libelf inflate midway through dwarf_begin_elf(); .debug_str is
    .debug_xtr raw, as in split_names: libdw reads it once the table is
    inflated."""
    b, h, payload = two_names(
        src, raw, {b".debug_str": b".debug_xtr",
                   b".shstrtab": b".zdebug_line"},
        lambda n: b"ZLIB" + struct.pack(">Q", n))
    put_section(b, h, payload)
    open(dst, "wb").write(b)
    os.chmod(dst, 0o755)


def padded(src, dst, raw, copies=20):
    """dst: src with .debug_str claiming CLAIM, and copies more headers
    named .debug_str over the same bytes, one compression header before
    it, that claims 1 byte: each counts the 1 MiB again, as compressed
    bytes claiming next to nothing. (claimed, compressed) sizes."""
    b = bytearray(open(src, "rb").read())
    h = section_header(b, ".debug_str")
    one = struct.pack("<IIQQ", 1, 0, 1, 1)
    payload = one + struct.pack("<IIQQ", 1, 0, CLAIM, 1) + zlib_stream(raw)
    put_section(b, h, payload, SHF_COMPRESSED)
    at, = struct.unpack_from("<Q", b, h[0] + 0x18)
    copy = bytes(b[h[0]:h[0] + 64])
    struct.pack_into("<QQ", b, h[0] + 0x18, at + len(one),
                     len(payload) - len(one))
    shoff, = struct.unpack_from("<Q", b, 0x28)
    n, = struct.unpack_from("<H", b, 0x3c)
    table = bytes(b[shoff:shoff + 64 * n]) + copy * copies
    end = (len(b) + 7) & ~7
    b += bytes(end - len(b)) + table
    struct.pack_into("<Q", b, 0x28, end)
    struct.pack_into("<H", b, 0x3c, n + copies)
    open(dst, "wb").write(b)
    os.chmod(dst, 0o755)
    return len(b), CLAIM + copies


def refusal_checks(what, path, key, why, file=None):
    """memsz size --by key of path: exit 0, one note saying why (a text
    in it) and naming file, small RSS, I1."""
    rc, out, err, rss = run("size", "--by", key, "--format", "csv", "-n",
                            "0", path)
    check(rc == 0, f"{what}, {key}: exit 0", f"{rc}: {err[-300:]}")
    notes = [m.groups() for m in REFUSAL.finditer(err)]
    check(len(notes) == 1 and notes[0][:3] == (path, key, file) and
          why in notes[0][3] and not NOTE.search(err),
          f"{what}, {key}: one note naming {file or 'the file'}: {why}",
          f"{notes}, {err[-300:]}")
    bounded_checks(what, path, key, out, rss)


def bounded_checks(what, path, key, out, rss):
    """What every refused DWARF keeps: memsz's peak RSS small (nothing
    inflated), and size's FILE SIZE summing to the file's size (I1)."""
    check(rss < RSS_MAX_KIB,
          f"{what}, {key}: peak RSS {rss} KiB < {RSS_MAX_KIB} KiB")
    rows = size_rows(out)
    check(rows and sum(int(r["file_size"]) for r in rows
                       if r[key] != "TOTAL") == os.path.getsize(path),
          f"{what}, {key}: FILE SIZE sums to the file's size (I1)")


def claimed(path, name):
    """(compressed size, claimed size) readelf -St gives section name."""
    out = lib.readelf(["-S", "-t"], path)
    m = re.search(r"\]\s+%s\n\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)"
                  r".*?\n.*COMPRESSED.*\n\s+ZLIB, ([0-9a-f]+), \d+"
                  % re.escape(name), out)
    if not m:
        lib.fail(f"readelf -St: {name} is not a ZLIB SHF_COMPRESSED section")
    return int(m.group(1), 16), int(m.group(2), 16)


def size_rows(out):
    return [r for r in csv.DictReader(io.StringIO(out))]


def hostile_checks(what, path, sizes, key, *extra, debug=None,
                   linked=False):
    """memsz size --by key of path: exit 0, the note with sizes (the
    compressed and the claimed), small RSS, I1."""
    rc, out, err, rss = run("size", "--by", key, "--format", "csv", "-n",
                            "0", *extra, path)
    check(rc == 0, f"{what}, {key}: exit 0", f"{rc}: {err[-300:]}")
    notes = [m.groups() for m in NOTE.finditer(err)]
    check(notes == [(path, key, debug, LINKED if linked else None,
                     str(sizes[1]), str(sizes[0]))],
          f"{what}, {key}: one note naming the file and the sizes "
          f"{sizes}", f"{notes}, {err[-300:]}")
    bounded_checks(what, path, key, out, rss)


def symbols_check(what, path):
    rc, out, err, rss = run("size", "--by", "symbols", "--format", "csv",
                            "-n", "0", path)
    check(rc == 0 and "main" in [r["symbols"] for r in size_rows(out)] and
          not NOTE.search(err) and rss < RSS_MAX_KIB,
          f"{what}, symbols: main named, no note, RSS {rss} KiB",
          f"{rc}, {err[-300:]}")


def report_check(tmp, path, sizes):
    """A recording of path running: report --by compileunits refuses its
    DWARF the same way."""
    p = subprocess.Popen([path, "wait"], stdout=subprocess.PIPE, text=True)
    data = os.path.join(tmp, "m.data")
    try:
        check(p.stdout.readline().startswith("ready"), "the program runs")
        lib.stopped(p.pid)
        r = subprocess.run([MEMSZ, "record", "-p", str(p.pid), "--duration",
                            "0", "-o", data], capture_output=True, text=True)
    finally:
        p.kill()
        p.wait()
    if r.returncode:
        lib.skip_part(f"memsz record cannot record here: {r.stderr[-200:]}")
        return
    rc, out, err, rss = run("report", "-i", data, "--by", "compileunits",
                            "-n", "0", "-v")
    said = out + err
    notes = [m.groups() for m in NOTE.finditer(said)]
    check(rc == 0 and (path, "compileunits", None, None, str(sizes[1]),
                       str(sizes[0])) in notes,
          "report: exit 0 and the note", f"{rc}, {notes}, {said[-300:]}")
    check(rss < RSS_MAX_KIB, f"report: peak RSS {rss} KiB < {RSS_MAX_KIB}")


ODD = "libdw would open it unchecked, and it is not a regular ELF file"


def past_eof(src, dst, raw, hostile, name):
    """dst: src with section hostile claiming CLAIM, and section name's
    offset past the end of the file: memsz's range check refuses the
    file, libelf (libdw) reads it."""
    hostile_str(src, dst, raw, name=hostile)
    b = bytearray(open(dst, "rb").read())
    h = section_header(b, name)
    struct.pack_into("<Q", b, h[0] + 0x18, len(b) + (1 << 20))
    open(dst, "wb").write(b)


def reader_check(what, fifo, *args):
    """memsz args, fifo the linked file a FIFO: it ends, no reader ever
    opened the FIFO (a writer's non-blocking open succeeds only then:
    libdw's open() of it would block forever; each is let go on), and
    the note names it."""
    with tempfile.TemporaryFile("w+") as e:
        p = subprocess.Popen([MEMSZ, *args], stdout=subprocess.DEVNULL,
                             stderr=e)
        opened = []

        def done():
            try:
                opened.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                os.close(opened[-1])  # the reader then reads EOF
            except OSError:
                pass
            return p.poll() is not None
        lib.wait_until(done, f"memsz to end or open {fifo}")
        p.wait()
        e.seek(0)
        err = e.read()
    check(not opened, f"{what}: no reader opened the FIFO")
    notes = [m.groups() for m in REFUSAL.finditer(err)]
    check(p.returncode == 0 and len(notes) == 1 and notes[0][2] == fifo
          and ODD in notes[0][3],
          f"{what}: the note names the FIFO", f"{notes}, {err[-300:]}")


def dwo_check(tmp, raw):
    """A split unit's .dwo (gcc -gsplit-dwarf), which libdw opens and
    inflates whole on its own, made hostile."""
    d = os.path.join(tmp, "split")
    os.makedirs(d)
    open(os.path.join(d, "prog.c"), "w").write(PROG)
    subprocess.run(["gcc", "-g", "-gsplit-dwarf", "-O1", "-c", "prog.c",
                    "-o", "prog.o"], cwd=d, check=True)
    subprocess.run(["gcc", "-o", "prog", "prog.o"], cwd=d, check=True)
    prog, dwo = os.path.join(d, "prog"), os.path.join(d, "prog.dwo")
    check(re.search(r"DW_AT_(?:GNU_)?dwo_name.*: prog\.dwo",
                    lib.readelf(["-wi"], prog)),
          "readelf -wi: the skeleton unit names prog.dwo")
    os.rename(dwo, dwo + ".orig")
    hostile_str(dwo + ".orig", dwo, raw, name=".debug_str.dwo")
    hostile_checks("a .dwo file", prog, claimed(dwo, ".debug_str.dwo"),
                   "compileunits", linked=True)
    # one memsz cannot read (.strtab past its end), libdw can
    past_eof(dwo + ".orig", dwo, raw, ".debug_str.dwo", ".strtab")
    refusal_checks("a .dwo file memsz cannot read", prog, "compileunits",
                   ODD, file=dwo)
    os.unlink(dwo)
    os.mkfifo(dwo)
    reader_check("a .dwo FIFO", dwo, "size", "--by", "compileunits",
                 "--format", "csv", prog)
    # a .dwo naming a dwz file of its own (libdw would look for it
    # itself): no tool makes one
    link = os.path.join(d, "altlink")
    open(link, "wb").write(b"common.debug\0" + bytes(range(20)))
    # under the name libdw reads in a split file (.dwo suffix) and the
    # plain one (read where the file's first DWARF section is plain)
    for name in (".gnu_debugaltlink.dwo", ".gnu_debugaltlink"):
        os.unlink(dwo)
        subprocess.run(["objcopy", "--add-section", f"{name}={link}",
                        dwo + ".orig", dwo], check=True)
        check(name in lib.sections(dwo), f"readelf: the .dwo has a {name}")
        refusal_checks(f"a .dwo naming a dwz file ({name})", prog,
                       "compileunits", "names a dwz file of its own",
                       file=dwo)


def dwo_many_check(tmp):
    """Eight skeleton units naming one .dwo: libdw opens and inflates it
    once for each (each handle kept), so its inflated bytes count eight
    times, its compressed bytes once: 256 MiB from 4.2 MiB (60 times, read
    if one unit named it) is 2 GiB for eight."""
    d = os.path.join(tmp, "many")
    os.makedirs(d)
    open(os.path.join(d, "a.c"), "w").write(
        "int fa(int x) { return x * 3 + 1; }\n")
    calls = " + ".join(f"fa{i}(c)" for i in range(1, 9))
    open(os.path.join(d, "main.c"), "w").write(
        "".join(f"int fa{i}(int);\n" for i in range(1, 9)) +
        f"int main(int c, char **v) {{ return {calls}; }}\n")
    subprocess.run(["gcc", "-g", "-gdwarf-5", "-gsplit-dwarf", "-O1", "-c",
                    "a.c", "-o", "a.o"], cwd=d, check=True)
    for i in range(1, 9):
        subprocess.run(["objcopy", f"--redefine-sym=fa=fa{i}", "a.o",
                        f"a{i}.o"], cwd=d, check=True)
    subprocess.run(["gcc", "-O1", "-o", "prog8", "main.c"] +
                   [f"a{i}.o" for i in range(1, 9)], cwd=d, check=True)
    prog, dwo = os.path.join(d, "prog8"), os.path.join(d, "a.dwo")
    names = re.findall(r"DW_AT_(?:GNU_)?dwo_name.*: (\S+)",
                       lib.readelf(["-wi"], prog))
    check(names == ["a.dwo"] * 8,
          f"readelf -wi: eight skeleton units name a.dwo: {names}")
    claim = 256 << 20
    body = zlib.compress(os.urandom(4 << 20), 0) + \
        zlib.compress(bytes(claim - (4 << 20)), 1)
    b = bytearray(open(dwo, "rb").read())
    put_section(b, section_header(b, ".debug_str.dwo"),
                struct.pack("<IIQQ", 1, 0, claim, 1) + body, SHF_COMPRESSED)
    open(dwo, "wb").write(b)
    sizes = claimed(dwo, ".debug_str.dwo")
    check(sizes[1] == claim and sizes[1] < 64 * sizes[0],
          f"readelf -St: .debug_str.dwo claims {sizes[1]} from {sizes[0]} "
          f"bytes, under 64 times")
    for key in ("compileunits", "inlines"):
        hostile_checks("a .dwo named by eight units", prog,
                       (sizes[0], 8 * sizes[1]), key, linked=True)


def dwz_check(tmp, raw):
    """The dwz file (.gnu_debugaltlink) of two programs, which libdw opens
    and inflates whole on its own, made hostile."""
    if not shutil.which("dwz"):
        lib.skip_part("dwz is not installed")
        return
    d = os.path.join(tmp, "dwz")
    os.makedirs(d)
    src = os.path.join(d, "prog.c")
    p1, p2 = os.path.join(d, "p1"), os.path.join(d, "p2")
    common = os.path.join(d, "common.debug")
    open(src, "w").write(PROG)
    subprocess.run(["gcc", "-g", "-O1", "-o", p1, src], check=True)
    shutil.copy(p1, p2)
    subprocess.run(["dwz", "-m", common, "-M", common, p1, p2], check=True)
    check(".gnu_debugaltlink" in lib.sections(p1),
          "dwz: the program links its dwz file")
    # as it is, the dwz file is read: the units as without dwz
    plain = os.path.join(d, "p0")
    subprocess.run(["gcc", "-g", "-O1", "-o", plain, src], check=True)
    vm = {}
    for path in (plain, p1):
        rc, out, err, rss = run("size", "--by", "compileunits", "--format",
                                "csv", "-n", "0", path)
        vm[path] = {r["compileunits"]: r["vm_size"] for r in size_rows(out)
                    if not r["compileunits"].startswith(("[", "LOAD #"))}
        check(rc == 0 and not NOTE.search(err), f"{path}: no note",
              err[-300:])
    check(vm[p1] == vm[plain] and src in vm[p1],
          "a real dwz file: the units' VM SIZE as without dwz",
          f"{vm}")
    # refused after the dwz file was handed to libdw: .debug_line_str
    # without its final NUL (the sanitizer build reports a leak of the
    # dwz file's handles if they are not ended then)
    b = bytearray(open(p1, "rb").read())
    h = section_header(b, ".debug_line_str")
    b[h[3] + h[4] - 1] = ord("X")
    unterm = os.path.join(d, "p1.unterm")
    open(unterm, "wb").write(b)
    rc, out, err, rss = run("size", "--by", "compileunits", unterm)
    check(rc == 0 and "libdw cannot read its DWARF" in out + err and
          "Sanitizer" not in err,
          "a dwz program whose strings do not end: refused, nothing leaked",
          f"{rc}, {err[-300:]}")
    os.rename(common, common + ".orig")
    hostile_str(common + ".orig", common, raw)
    hostile_checks("a dwz file", p1, claimed(common, ".debug_str"),
                   "compileunits", linked=True)
    # one memsz cannot read (its build-id note past its end), libdw can
    past_eof(common + ".orig", common, raw, ".debug_str",
             ".note.gnu.build-id")
    for key in ("compileunits", "inlines"):
        refusal_checks("a dwz file memsz cannot read", p1, key, ODD,
                       file=common)
    os.unlink(common)
    os.mkfifo(common)
    reader_check("a dwz FIFO", common, "size", "--by", "compileunits",
                 "--format", "csv", p1)
    # none: libdw is told so, and never opens the path itself (strace:
    # memsz looks at it through O_PATH only, libdw would open() it)
    os.unlink(common)
    if not shutil.which("strace"):
        lib.skip_part("strace is not installed")
        return
    log = os.path.join(d, "strace.log")
    # LeakSanitizer cannot run under ptrace (the sanitizer build)
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "")
               + ":detect_leaks=0")
    r = subprocess.run(["strace", "-f", "-e", "trace=open,openat", "-o",
                        log, MEMSZ, "size", "--by", "compileunits", p1],
                       capture_output=True, text=True, env=env)
    if r.returncode and "ptrace" in r.stderr:
        lib.skip_part(f"strace cannot trace here: {r.stderr[-200:]}")
        return
    opens = [x for x in open(log) if common in x]
    check(r.returncode == 0 and opens and
          all("O_PATH" in x for x in opens),
          "no dwz file: memsz looks (O_PATH) and libdw never opens it",
          f"{r.returncode}, {opens}, {r.stderr[-300:]}")


def unit_names(path):
    """DW_AT_name of each compile unit readelf --debug-dump=info gives."""
    out = lib.readelf(["--debug-dump=info", "--dwarf-depth=1"], path)
    names = []
    for unit in out.split("DW_TAG_compile_unit")[1:]:
        m = re.search(r"DW_AT_name\s*:\s*(?:\((?:line_)?strp\) \(offset: "
                      r"[^)]*\): |\(indirect (?:line )?string, offset: "
                      r"[^)]*\): |\(string\) )?(.*)",
                      unit.split("Compilation Unit @")[0])
        if m:
            names.append(m.group(1).strip())
    return names


def real_checks(tmp):
    srcs = []
    for name, text in UNITS.items():
        srcs.append(os.path.join(tmp, name))
        open(srcs[-1], "w").write(text)
    plain = os.path.join(tmp, "units")
    packed = os.path.join(tmp, "units.gz")
    subprocess.run(["gcc", "-g", "-O1", "-o", plain, *srcs], check=True,
                   cwd=tmp)
    gnu = os.path.join(tmp, "units.gnu")
    subprocess.run(["gcc", "-g", "-gz=zlib", "-O1", "-o", packed, *srcs],
                   check=True, cwd=tmp)
    subprocess.run(["gcc", "-g", "-gz=zlib-gnu", "-O1", "-o", gnu, *srcs],
                   check=True, cwd=tmp)
    check("C" in lib.sections(packed)[".debug_info"][3],
          "gcc -gz=zlib: .debug_info is SHF_COMPRESSED")
    check(".zdebug_info" in lib.sections(gnu) and
          ".debug_info" not in lib.sections(gnu),
          "gcc -gz=zlib-gnu: .zdebug_info, no .debug_info")
    for path in (packed, gnu):
        want = {os.path.basename(n) for n in unit_names(path)} & set(UNITS)
        check(want == set(UNITS), f"readelf names the three units of "
              f"{os.path.basename(path)} ({want})")
    got = {}
    for path in (plain, packed, gnu):
        rc, out, err, rss = run("size", "--by", "compileunits", "--format",
                                "csv", "-n", "0", path)
        got[path] = {os.path.basename(r["compileunits"]):
                     int(r["vm_size"]) for r in size_rows(out)
                     if os.path.basename(r["compileunits"]) in UNITS}
        check(rc == 0 and not NOTE.search(err) and
              set(got[path]) == set(UNITS),
              f"{os.path.basename(path)}: a row per unit readelf names, no "
              "note", f"{rc}, {sorted(got[path])}, {err[-300:]}")
    check(got[plain] == got[packed],
          f"-gz=zlib: the units' VM SIZE as uncompressed ({got[packed]})")
    # GNU-compressed DWARF only (.zdebug_*) was "no DWARF in the file"
    check(got[plain] == got[gnu],
          f"-gz=zlib-gnu: the units' VM SIZE as uncompressed ({got[gnu]})")
    if not os.path.exists(LIBC):
        lib.skip_part(f"{LIBC} not here")
        return
    rc, out, err, rss = run("size", "--by", "compileunits", "--format",
                            "csv", "-n", "0", "-v", LIBC)
    m = re.search(r"compileunits from debug file '([^']+)'", err)
    if not m:
        lib.skip_part("libc6-dbg is not installed")
        return
    dbg = m.group(1)
    check("C" in lib.sections(dbg).get(".debug_info", (0, 0, 0, ""))[3],
          "libc6-dbg's debug file is compressed")
    names = set(unit_names(dbg))
    labels = {r["compileunits"] for r in size_rows(out)} - {"TOTAL"}
    # fallback labels: "[section .x]", "LOAD #2 [R]", ...
    units = {x for x in labels if not x.startswith(("[", "LOAD #"))}
    check(rc == 0 and not NOTE.search(err) and len(units) > 500 and
          units <= names,
          f"libc: no note, {len(units)} unit labels, each a unit readelf "
          f"names ({len(units - names)} not)")


def main():
    for tool in ("gcc", "readelf", "objcopy"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "prog.c")
        prog = os.path.join(tmp, "prog")
        open(src, "w").write(PROG)
        subprocess.run(["gcc", "-g", "-O1", "-Wl,--build-id", "-o", prog,
                        src], check=True)
        raw = zeros_deflate()

        gabi = os.path.join(tmp, "gabi")
        hostile_str(prog, gabi, raw)
        sizes = claimed(gabi, ".debug_str")
        check(sizes[1] == CLAIM and sizes[0] < CLAIM // 1000,
              f"readelf -St: .debug_str claims 1 GiB from {sizes[0]} bytes")
        for key in ("compileunits", "inlines"):
            hostile_checks("SHF_COMPRESSED .debug_str", gabi, sizes, key)
        symbols_check("SHF_COMPRESSED .debug_str", gabi)
        report_check(tmp, gabi, sizes)

        gnu = os.path.join(tmp, "gnu")
        hostile_str(prog, gnu, raw, gnu=True)
        zs = lib.sections(gnu)[".zdebug_str"][2]
        hostile_checks(".zdebug_str", gnu, (zs, CLAIM), "compileunits")

        # headers over the same compressed bytes: counted once (the
        # compressed bytes of a file are no more than its size)
        pad = os.path.join(tmp, "padded")
        sizes = padded(prog, pad, raw)
        check(len([x for x in lib.readelf(["-SW"], pad).splitlines()
                   if " .debug_str " in x]) == 21,
              "readelf: 21 headers named .debug_str")
        hostile_checks("20 headers over one stream", pad,
                       (os.path.getsize(pad), sizes[1]), "compileunits")

        # a compressed section-name table: refused whatever it claims
        shstr = os.path.join(tmp, "shstr")
        hostile_shstrtab(prog, shstr, raw)
        refusal_checks("compressed .shstrtab", shstr, "compileunits",
                       ZNAMES)
        symbols_check("compressed .shstrtab", shstr)
        names = os.path.join(tmp, "names")
        split_names(prog, names, raw)
        if shutil.which("eu-readelf"):
            eu = subprocess.run(["eu-readelf", "-S", names],
                                capture_output=True, text=True).stdout
            check(".debug_xtr" in lib.sections(names) and
                  " .debug_str " in eu,
                  "readelf names .debug_xtr (raw), eu-readelf (libelf's "
                  "elf_strptr(), inflated) .debug_str")
        for key in ("compileunits", "inlines"):
            refusal_checks("raw names not libdw's", names, key, ZNAMES)
        gnames = os.path.join(tmp, "gnames")
        gnu_names(prog, gnames, raw)
        check(".zdebug_line" in lib.sections(gnames),
              "readelf names the GNU-compressed .shstrtab .zdebug_line")
        for key in ("compileunits", "inlines"):
            refusal_checks("GNU-compressed .shstrtab", gnames, key, ZNAMES)

        # the DWARF in a debug file found by build-id
        root = os.path.join(tmp, "debug")
        stripped = os.path.join(tmp, "stripped")
        dbg = os.path.join(tmp, "prog.debug")
        subprocess.run(["objcopy", "--only-keep-debug", prog, dbg],
                       check=True)
        subprocess.run(["objcopy", "--strip-debug", prog, stripped],
                       check=True)
        bid = lib.build_id(prog)
        where = os.path.join(root, ".build-id", bid[:2], bid[2:] + ".debug")
        os.makedirs(os.path.dirname(where))
        hostile_str(dbg, where, raw)
        hostile_checks("debug file", stripped, claimed(where, ".debug_str"),
                       "compileunits", "--debug-root", root, debug=where)

        dwo_check(tmp, raw)
        dwo_many_check(tmp)
        dwz_check(tmp, raw)
        real_checks(tmp)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
