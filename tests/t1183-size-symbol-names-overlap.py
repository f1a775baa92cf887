#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Symbol names that overlap in their string table: N FUNC symbols at one
address, st_name 1, 2, 3, ... into one string of L bytes of "a", so that
every name is distinct and up to L bytes long. No linker writes such a
table (of 170 real files, the names used add up to at most 1.09 times
the string table); sorting and labelling them all took 4.1 GB and 21 s
for L = 2 MiB, N = 4000. Two ways in, each checked with
`memsz size --by symbols`:
 - the table in a MiniDebugInfo payload (.gnu_debugdata, xz: a few KB)
   added to a stripped program, as the reviewer's generator made it;
 - the same table read raw, as the .symtab of the payload file itself.
Each must exit 0 with one note saying how many symbols were left out,
those left out plus the aliases folded into the one row kept adding up to
N - 1 (the generator's count), and a bounded peak RSS (the kernel's, from
wait4()): under 150 MiB, where labelling them all takes N times 1 MiB.
"""
import csv
import io
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

MiB = 1 << 20
L = 2 * MiB
N = 300
PROG = r"""
#include <stdio.h>
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", argc);
	return 0;
}
"""


def text_section(path):
    """(address, size) of path's .text, from readelf -SW."""
    for line in lib.readelf(["-SW"], path).splitlines():
        m = re.search(r"\]\s+\.text\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+"
                      r"([0-9a-f]+)", line)
        if m:
            return int(m.group(1), 16), int(m.group(2), 16)
    raise KeyError(".text")


def payload(addr, size):
    """An ELF64 LE x86-64 file: .text NOBITS at addr (size bytes), a
    .symtab of N FUNC GLOBAL symbols at addr, 16 bytes each, st_name
    1 + i into a .strtab of "\\0" + "a" * L + "\\0"."""
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    strtab = b"\0" + b"a" * L + b"\0"
    symtab = bytes(24) + b"".join(
        struct.pack("<IBBHQQ", 1 + i, 0x12, 0, 1, addr, 16)
        for i in range(N))
    off_sym = 64
    off_str = off_sym + len(symtab)
    off_shs = off_str + len(strtab)
    shoff = (off_shs + len(shstr) + 7) & ~7
    body = bytearray(shoff)
    body[off_sym:off_str] = symtab
    body[off_str:off_shs] = strtab
    body[off_shs:off_shs + len(shstr)] = shstr

    def sh(name, typ, flags, a, off, sz, link, info, align, ent):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, a, off, sz,
                           link, info, align, ent)
    shdrs = (bytes(64) +
             sh(1, 8, 6, addr, 64, size, 0, 0, 16, 0) +
             sh(7, 2, 0, 0, off_sym, len(symtab), 3, 1, 8, 24) +
             sh(15, 3, 0, 0, off_str, len(strtab), 0, 0, 1, 0) +
             sh(23, 3, 0, 0, off_shs, len(shstr), 0, 0, 1, 0))
    ehdr = (b"\x7fELF\x02\x01\x01" + bytes(9) +
            struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, addr, 0, shoff, 0, 64,
                        0, 0, 64, 5, 4))
    body[0:64] = ehdr
    return bytes(body) + shdrs


def peak_run(path):
    """(stderr, exit status, peak RSS in bytes) of memsz size --by
    symbols on path: the kernel's peak, from wait4()."""
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(err.fileno(), 2)
        os.execvp(MEMSZ, [MEMSZ, "size", "--by", "symbols", "--format",
                          "csv", "-n", "0", "-v", path])
    _, status, ru = os.wait4(pid, 0)
    err.seek(0)
    text = err.read().decode(errors="replace")
    err.close()
    return text, os.waitstatus_to_exitcode(status), ru.ru_maxrss * 1024


def case(what, path):
    csv.field_size_limit(4 * MiB)  # labels are cut after 1 MiB
    err, rc, rss = peak_run(path)
    check(rc == 0, f"{what}: exit 0 ({rc}: {err.strip()[-300:]})")
    dropped = re.findall(r"(\d+) symbols left out: the names of their "
                         r"symbol table add up past 4 times", err)
    aliases = re.findall(r"(\d+) symbols share an address", err)
    check(len(dropped) == 1,
          f"{what}: one note saying symbols were left out ({dropped})")
    got = sum(int(x) for x in dropped + aliases)
    check(got == N - 1,
          f"{what}: left out {dropped} + aliases {aliases} == {N - 1}")
    check(rss < 150 * MiB,
          f"{what}: peak RSS {rss >> 20} MiB < 150 (N = {N} names of up "
          f"to {L >> 20} MiB)")
    rows = subprocess.run([MEMSZ, "size", "--by", "symbols", "--format",
                           "csv", "-n", "0", path], capture_output=True,
                          text=True)
    total = sum(int(r["file_size"]) for r in
                csv.DictReader(io.StringIO(rows.stdout)))
    check(rows.returncode == 0 and total == os.path.getsize(path),
          f"{what}: FILE SIZE sums to the file's size ({total})")


def main():
    for tool in ("gcc", "objcopy", "strip", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t1183-") as tmp:
        src = os.path.join(tmp, "prog.c")
        with open(src, "w") as f:
            f.write(PROG)
        prog = os.path.join(tmp, "prog")
        subprocess.run(["gcc", "-O1", "-o", prog, src], check=True)
        subprocess.run(["strip", "--strip-all", prog], check=True)
        addr, size = text_section(prog)
        raw = payload(addr, size)
        xz = lzma.compress(raw)
        check(len(xz) < 64 * 1024,
              f"fixture: {len(raw)} bytes of table in {len(xz)} of xz")
        pay = os.path.join(tmp, "payload.xz")
        with open(pay, "wb") as f:
            f.write(xz)
        md = os.path.join(tmp, "prog.md")
        subprocess.run(["objcopy", "--add-section",
                        f".gnu_debugdata={pay}", prog, md], check=True)
        case("MiniDebugInfo payload", md)

        rawf = os.path.join(tmp, "raw.elf")
        with open(rawf, "wb") as f:
            f.write(raw)
        # not -W: readelf cuts the names (the whole of them is 300 MiB)
        syms = subprocess.run(["readelf", "-s", rawf], capture_output=True,
                              text=True).stdout
        check(len(re.findall(r"FUNC\s+GLOBAL", syms)) == N,
              f"fixture: readelf -s lists the {N} symbols of the raw file")
        case("raw .symtab", rawf)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
