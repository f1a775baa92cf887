#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Rewrite a little-endian ELF file as big-endian (test fixture generator).

binutils here cannot change a file's byte order and no big-endian linker is
installed, so tests/elf_fixture.c builds an x86-64 (or i386) executable and
this script byte-swaps every structure memsz and readelf read: the ELF
header, program and section headers, symbol tables, SHT_SYMTAB_SHNDX, note
headers and the .gnu_debuglink CRC. Code and data bytes stay as they are.

usage: elf-byteswap.py IN OUT
"""
import struct
import sys

EHDR = {1: "HHIIIIIHHHHHH", 2: "HHIQQQIHHHHHH"}
PHDR = {1: "IIIIIIII", 2: "IIQQQQQQ"}
SHDR = {1: "IIIIIIIIII", 2: "IIQQQQIIQQ"}
SYM = {1: "IIIBBH", 2: "IBBHQQ"}


def swap(buf, off, fmt, count=1):
    size = struct.calcsize("<" + fmt)
    for i in range(count):
        o = off + i * size
        vals = struct.unpack_from("<" + fmt, buf, o)
        struct.pack_into(">" + fmt, buf, o, *vals)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    buf = bytearray(open(src, "rb").read())
    if buf[:4] != b"\x7fELF" or buf[5] != 1:
        sys.exit("elf-byteswap: not a little-endian ELF file")
    cls = buf[4]
    e = struct.unpack_from("<" + EHDR[cls], buf, 16)
    (etype, mach, ver, entry, phoff, shoff, flags, ehsize, phentsize,
     phnum, shentsize, shnum, shstrndx) = e
    secs = []
    for i in range(shnum):
        secs.append(struct.unpack_from("<" + SHDR[cls], buf,
                                       shoff + i * shentsize))
    names = secs[shstrndx] if shnum else None

    def secname(s):
        if names is None:
            return ""
        start = names[4] + s[0]  # sh_offset of .shstrtab + sh_name
        return buf[start:buf.index(0, start)].decode()

    for s in secs:
        name, typ, fl, addr, off, size, link, info, al, ent = s
        if typ in (2, 11):  # SYMTAB, DYNSYM
            swap(buf, off, SYM[cls], size // struct.calcsize("<" + SYM[cls]))
        elif typ == 18:  # SYMTAB_SHNDX
            swap(buf, off, "I", size // 4)
        elif typ == 7:  # NOTE
            o, end = off, off + size
            align = 8 if al == 8 else 4
            while o + 12 <= end:
                nsz, dsz, _ = struct.unpack_from("<III", buf, o)
                swap(buf, o, "III")
                o += 12
                o += (nsz + align - 1) // align * align
                o += (dsz + align - 1) // align * align
        elif typ != 8 and secname(s) == ".gnu_debuglink":
            swap(buf, off + size - 4, "I")
    for i in range(shnum):
        swap(buf, shoff + i * shentsize, SHDR[cls])
    for i in range(phnum):
        swap(buf, phoff + i * phentsize, PHDR[cls])
    swap(buf, 16, EHDR[cls])
    buf[5] = 2
    open(dst, "wb").write(buf)


if __name__ == "__main__":
    main()
