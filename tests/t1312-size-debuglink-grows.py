#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1312: a .gnu_debuglink candidate that grows while memsz reads it for
its CRC is read only as far as memsz checked its size.

memsz reads a debuglink candidate whole for its CRC (an image without a
build-id), and refuses unread one too large or mostly holes. Its owner
could grow it after that check, and the read went on to the new end: a
file grown to 1 TiB once opened was still being read after 15 s. The CRC
is now of the bytes whose size was checked.

A program without a build-id is built (gcc) and stripped, its debug file
(objcopy --only-keep-debug, with 64 MiB of random bytes after it, so
that the CRC takes about a thousand reads) named by its debuglink. Each
read memsz makes of the debug file waits for the test (a fanotify
FAN_ACCESS_PERM mark). A first `size --by symbols` counts the reads and
must take the debug file. A second grows the file by 256 MiB (a hole) at
the read halfway through that count, which lies in the CRC's reads (they
are more than half of them, checked): memsz must still take the debug
file, its CRC being that of the bytes it checked. Reading on to the new
end, it refused it ("CRC does not match").
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

PAD = 64 << 20
CHUNK = 64 << 10  # elf/debugfile.c CRC_CHUNK
GROW = 256 << 20
SRC = "int grows_f(int x) { return x * 3; }\n" \
    "int main(int c, char **v) { (void)v; return grows_f(c); }\n"


def size(tmp, prog, debug, at=None):
    """memsz size --by symbols prog, each read of debug held until
    answered; at the at-th read of memsz's, debug grows by GROW first.
    Returns (memsz's reads of debug, its stdout + stderr)."""
    fan = lib.fanotify(debug, mask=lib.FAN_ACCESS_PERM)
    out = open(os.path.join(tmp, "out"), "w+")
    rec = subprocess.Popen([MEMSZ, "size", "--by", "symbols",
                            "--debug-root", tmp, prog],
                           stdout=out, stderr=subprocess.PIPE, text=True)
    reads = []

    def on_read(efd):
        reads.append(efd)
        if len(reads) == at:
            os.truncate(debug, os.path.getsize(debug) + GROW)
    err = lib.fan_serve(fan, rec, on_read)
    out.seek(0)
    text = out.read() + err
    out.close()
    return len(reads), text


def main():
    if os.geteuid() != 0:
        lib.skip("fanotify permission events need root")
    for tool in ("gcc", "objcopy"):
        if not shutil.which(tool):
            lib.skip(f"no {tool}")
    with tempfile.TemporaryDirectory(prefix="memsz-t1312-") as tmp:
        src, full = os.path.join(tmp, "p.c"), os.path.join(tmp, "full")
        debug, prog = os.path.join(tmp, "p.debug"), os.path.join(tmp, "p")
        with open(src, "w") as f:
            f.write(SRC)
        subprocess.run(["gcc", "-g", "-O1", "-Wl,--build-id=none", "-o",
                        full, src], check=True)
        subprocess.run(["objcopy", "--only-keep-debug", full, debug],
                       check=True)
        with open(debug, "ab") as f:
            for _ in range(PAD >> 20):
                f.write(os.urandom(1 << 20))
        subprocess.run(["objcopy", "--strip-all",
                        f"--add-gnu-debuglink={debug}", full, prog],
                       check=True)
        taken = f"symbols from debug file '{debug}'"
        crc_reads = -(-os.path.getsize(debug) // CHUNK)
        n, out = size(tmp, prog, debug)
        check(taken in out, f"the debug file is taken by its CRC "
              f"({out.strip()[-300:]})")
        check(crc_reads <= n < 2 * crc_reads,
              f"memsz read it {n} times, {crc_reads} of them the CRC's: "
              f"read {n // 2} lies among them")
        n2, out = size(tmp, prog, debug, at=n // 2)
        check(taken in out,
              f"grown by {GROW >> 20} MiB at read {n // 2}: the debug file "
              f"is still taken, its CRC that of the bytes checked "
              f"({n2} reads; {out.strip()[-300:]})")


main()
sys.exit(lib.finish())
