#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""MiniDebugInfo (.gnu_debugdata) that memsz must not read, or not all
of: each case is the stripped program of t1180 with a hostile payload
added by `objcopy --add-section`, as Fedora's find-debuginfo.sh adds the
good one. `memsz size --by symbols` must exit 0 with one note saying
what was left out and why, FILE SIZE summing to the file's size, and
bounded memory (the child's peak RSS from wait4(), the kernel's count):
 - a corrupt and a truncated xz stream;
 - an xz bomb: 320 MiB of zeros in 50 KB (its index declares it: over
   the bound, never inflated) and the same zeros after the good payload
   with its index made to declare 1 MiB (inflation stops at 1 MiB): peak RSS under 200 MiB,
   where inflating it would take 320;
 - 192 MiB of zeros, its index telling the truth (within the bound):
   refused by its first 64 bytes (no ELF header), not inflated whole:
   peak RSS under 128 MiB;
 - a payload that is no ELF file, a truncated one, one of another class
   (-m32), one without .symtab;
 - a payload holding a .gnu_debugdata of its own: its symbols are read,
   the nested one is not;
 - a payload whose s_alpha lies outside .text and whose s_beta names a
   section the file does not have: those two are left out, s_gamma is
   still named with its nm size.
libdwfl's reader (dwfl_module_getsymtab) inflates the bomb whole.
"""
import csv
import io
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

MiB = 1 << 20
PROG = r"""
#include <stdio.h>
static int __attribute__((noinline)) s_alpha(int x) { return x * 3 + 1; }
static int __attribute__((noinline)) s_beta(int x) { return x * x - 7; }
static int __attribute__((noinline)) s_gamma(int x)
{
	return s_alpha(x) + s_beta(x);
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", s_gamma(argc));
	return 0;
}
"""


def varint(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def read_varint(b, i):
    n = shift = 0
    while True:
        n |= (b[i] & 0x7f) << shift
        shift += 7
        i += 1
        if not b[i - 1] & 0x80:
            return n, i


def xz_declare(z, size):
    """The one-block xz stream z with its index declaring size inflated
    bytes (index and footer rebuilt, their CRC-32s right)."""
    footer = z[-12:]
    flags = footer[8:10]
    back = (struct.unpack("<I", footer[4:8])[0] + 1) * 4
    index = z[-12 - back:-12]
    assert index[0] == 0
    count, i = read_varint(index, 1)
    assert count == 1
    unpadded, i = read_varint(index, i)
    body = b"\0" + varint(1) + varint(unpadded) + varint(size)
    body += b"\0" * (-len(body) % 4)
    new_index = body + struct.pack("<I", zlib.crc32(body))
    tail = struct.pack("<I", len(new_index) // 4 - 1) + flags
    new_footer = struct.pack("<I", zlib.crc32(tail)) + tail + b"YZ"
    return z[:-12 - back] + new_index + new_footer


def elf_sections(b):
    """[(name, type, offset, size, entsize)] of the ELF64 LE file b."""
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", b, 0x3c)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i)
            for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    secs = []
    for h in hdrs:
        name = b[stroff + h[0]:b.index(b"\0", stroff + h[0])].decode()
        secs.append((name, h[1], h[4], h[5], h[9]))
    return secs


def patch_symbol(b, name, value=None, shndx=None):
    """b with the .symtab entry of name given another value or section
    index (ELF64 LE)."""
    b = bytearray(b)
    secs = elf_sections(b)
    symtab = [s for s in secs if s[0] == ".symtab"][0]
    strtab = [s for s in secs if s[0] == ".strtab"][0]
    for off in range(symtab[2], symtab[2] + symtab[3], 24):
        st_name, = struct.unpack_from("<I", b, off)
        at = strtab[2] + st_name
        if b[at:b.index(b"\0", at)].decode() != name:
            continue
        if value is not None:
            struct.pack_into("<Q", b, off + 8, value)
        if shndx is not None:
            struct.pack_into("<H", b, off + 6, shndx)
        return bytes(b)
    raise KeyError(name)


def run_size(path):
    """(rows, stderr, exit status) of memsz size --by symbols on
    path."""
    p = subprocess.Popen([MEMSZ, "size", "--by", "symbols", "--format",
                          "csv", "-n", "0", path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=300)
    return list(csv.DictReader(io.StringIO(out))), err, p.returncode


def peak_rss(path):
    """(peak RSS in bytes, exit status) of one memsz size --by symbols
    run on path: the kernel's count, from wait4()."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execvp(MEMSZ, [MEMSZ, "size", "--by", "symbols", path])
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def main():
    for tool in ("gcc", "nm", "objcopy", "strip", "xz", "comm", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1181-") as tmp:
        src = os.path.join(tmp, "prog.c")
        with open(src, "w") as f:
            f.write(PROG)
        orig = os.path.join(tmp, "prog.orig")
        subprocess.run(["gcc", "-O1", "-g", "-o", orig, src], check=True)
        good = os.path.join(tmp, "prog")
        lib.fedora_minidebug(orig, good)
        truth = lib.nm_defined(orig)
        with open(good + ".mini.xz", "rb") as f:
            good_xz = f.read()
        mini = lzma.decompress(good_xz)
        bare = os.path.join(tmp, "bare")
        subprocess.run(["objcopy", "--remove-section", ".gnu_debugdata",
                        good, bare], check=True)

        def with_payload(name, data):
            pay = os.path.join(tmp, name + ".payload")
            with open(pay, "wb") as f:
                f.write(data)
            out = os.path.join(tmp, name)
            subprocess.run(["objcopy", "--add-section",
                            f".gnu_debugdata={pay}", bare, out], check=True)
            return out

        def case(what, path, words, named=(), absent=()):
            rows, err, rc = run_size(path)
            check(rc == 0, f"{what}: exit 0 ({rc}: {err.strip()[-300:]})")
            notes = [x for x in err.splitlines()
                     if "MiniDebugInfo (.gnu_debugdata):" in x]
            check(len(notes) == 1 and all(w in notes[0] for w in words),
                  f"{what}: one note saying {words} ({notes or err})")
            check(sum(int(r["file_size"]) for r in rows) ==
                  os.path.getsize(path),
                  f"{what}: FILE SIZE sums to the file's size")
            vm = {r["symbols"]: int(r["vm_size"]) for r in rows}
            check(all(s in vm for s in named) and
                  not any(s in vm for s in absent),
                  f"{what}: named {list(named)}, not {list(absent)} "
                  f"({sorted(s for s in vm if not s.startswith('['))})")

        check(lzma.decompress(good_xz)[:4] == b"\x7fELF",
              "fixture: the good payload is an xz-compressed ELF file")
        rows, err, _ = run_size(good)
        check(any(r["symbols"] == "s_alpha" for r in rows) and
              "MiniDebugInfo (.gnu_debugdata):" not in err,
              "fixture: the good payload names s_alpha, without a note")

        bad = bytearray(good_xz)
        for i in range(len(bad) // 3, len(bad) // 3 + 16):
            bad[i] ^= 0x5a
        case("corrupt xz", with_payload("corrupt", bytes(bad)),
             ["not read: its xz stream"], absent=["s_alpha"])
        case("truncated xz",
             with_payload("trunc", good_xz[:len(good_xz) * 2 // 3]),
             ["not read: its xz stream is corrupt or truncated"],
             absent=["s_alpha"])

        c = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0)
        zero = bytes(16 * MiB)
        bomb = b"".join(c.compress(zero) for _ in range(20)) + c.flush()
        check(len(bomb) < 128 * 1024, f"fixture: 320 MiB of zeros in "
              f"{len(bomb)} bytes of xz")
        path = with_payload("bomb", bomb)
        case("xz bomb", path,
             ["declares more inflated bytes than memsz reads",
              f"{320 * MiB} bytes inflated from {len(bomb)}",
              "over 256 MiB and 64 times"], absent=["s_alpha"])
        rss, rc = peak_rss(path)
        check(rc == 0 and rss < 200 * MiB,
              f"xz bomb: peak RSS {rss >> 20} MiB < 200 (exit {rc})")
        # the payload's ELF header first (checked before the rest is
        # inflated), then the zeros
        c = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0)
        lying = c.compress(mini) + b"".join(
            c.compress(zero) for _ in range(20)) + c.flush()
        path = with_payload("liar", xz_declare(lying, MiB))
        case("xz bomb declaring 1 MiB", path,
             ["inflates past the size its index declares"],
             absent=["s_alpha"])
        rss, rc = peak_rss(path)
        check(rc == 0 and rss < 200 * MiB,
              f"xz bomb declaring 1 MiB: peak RSS {rss >> 20} MiB < 200 "
              f"(exit {rc})")

        c = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=0)
        zeros = b"".join(c.compress(zero) for _ in range(12)) + c.flush()
        path = with_payload("zeros", zeros)
        case("192 MiB of zeros, declared", path,
             ["not read: it inflates to no ELF file", "not an ELF file"],
             absent=["s_alpha"])
        rss, rc = peak_rss(path)
        check(rc == 0 and rss < 128 * MiB,
              f"192 MiB of zeros: peak RSS {rss >> 20} MiB < 128: refused "
              f"by its first bytes, not inflated whole (exit {rc})")

        case("not ELF", with_payload("text", lzma.compress(
            b"no ELF file here\n" * 64)),
            ["not read: it inflates to no ELF file", "not an ELF file"])
        case("truncated ELF", with_payload("cut", lzma.compress(
            mini[:len(mini) // 2])),
            ["not read: it inflates to no ELF file"])
        nosym = os.path.join(tmp, "nosym")
        with open(nosym, "wb") as f:
            f.write(mini)
        subprocess.run(["objcopy", "--strip-all", nosym], check=True)
        with open(nosym, "rb") as f:
            case("no .symtab", with_payload("nosym", lzma.compress(
                f.read())), ["not read: it has no .symtab"])
        m32 = os.path.join(tmp, "prog32")
        if subprocess.run(["gcc", "-m32", "-O1", "-g", "-o", m32, src],
                          capture_output=True).returncode:
            lib.skip_part("gcc -m32 cannot link (gcc-multilib)")
        else:
            lib.fedora_minidebug(m32, m32 + ".s")
            with open(m32 + ".s.mini.xz", "rb") as f:
                case("ELFCLASS32 payload", with_payload("m32", f.read()),
                     ["not read: it is an ELF file of another class"])

        nested = os.path.join(tmp, "nested.elf")
        with open(nested, "wb") as f:
            f.write(mini)
        subprocess.run(["objcopy", "--add-section",
                        f".gnu_debugdata={good}.mini.xz", nested],
                       check=True)
        with open(nested, "rb") as f:
            case("nested .gnu_debugdata", with_payload("nested",
                 lzma.compress(f.read())),
                 ["its own .gnu_debugdata not read"],
                 named=["s_alpha", "s_beta", "s_gamma"])

        secs = elf_sections(mini)
        symndx = [i for i, s in enumerate(secs) if s[0] == ".symtab"][0]
        out = patch_symbol(mini, "s_alpha", value=0x7ff000000)
        out = patch_symbol(out, "s_beta", shndx=symndx)
        path = with_payload("outside", lzma.compress(out))
        case("symbols outside the file's sections", path,
             ["2 symbols left out"], named=["s_gamma"],
             absent=["s_alpha", "s_beta"])
        r = subprocess.run([MEMSZ, "size", "--by", "sections,symbols",
                            "--format", "csv", "-n", "0", path],
                           capture_output=True, text=True)
        text = {x["symbols"]: int(x["vm_size"]) for x in
                csv.DictReader(io.StringIO(r.stdout))
                if x["sections"] == ".text"}
        check(text.get("s_gamma") == truth["s_gamma"][1],
              f"symbols outside: s_gamma keeps its nm size "
              f"{truth['s_gamma'][1]} ({text.get('s_gamma')})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
