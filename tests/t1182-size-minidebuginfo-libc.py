#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""MiniDebugInfo of a real library: this machine's libc.so.6 given a
.gnu_debugdata made from its libc6-dbg debug file exactly as Fedora's
find-debuginfo.sh makes it (memsz_testlib.FEDORA_MINIDEBUG). binutils
2.40's `nm -D --format=posix` prints versioned names (memcpy@@GLIBC_2.14),
so comm keeps some 1 260 functions .dynsym already names: memsz must
count each of those once. Ground truth, readelf -sW of the payload and
--dyn-syms of the library:
 - every function of the payload (with a size) is a row or an alias of
   one (json);
 - the note counts exactly the (address, name) pairs of the payload that
   .dynsym does not have, with its versioned names (glob@@GLIBC_2.27)
   made .dynsym's (glob): checked again on a payload keeping every
   function, those .dynsym names too;
 - no payload symbol is left out (no note says so);
 - FILE SIZE sums to the file's size.
"""
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

TYPES = ("FUNC", "IFUNC", "OBJECT", "TLS")


def readelf_syms(args, path):
    """{(value, name without version): size} of the symbols of the types
    memsz labels, defined, with a size."""
    out = {}
    for line in lib.readelf(args, path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in TYPES and f[6].isdigit() and \
                int(f[2]) > 0:
            out[(int(f[1], 16), f[7].split("@")[0])] = int(f[2])
    return out


def one_payload(libc, dbg, tmp, keep_all):
    """The checks on libc given a payload as Fedora makes it, or
    (keep_all) one keeping every function, those .dynsym names too: its
    versioned names (glob@@GLIBC_2.27) are .dynsym's (glob)."""
    what = "keep-all payload: " if keep_all else ""
    out = os.path.join(tmp, "libc.so.6")
    shutil.copy(libc, out)
    env = dict(os.environ, BIN=out, DBG=dbg, T=out, KEEP_ALL=keep_all)
    subprocess.run(["sh", "-c", lib.FEDORA_MINIDEBUG], env=env,
                   check=True)
    mini = os.path.join(tmp, "mini.elf")
    with open(out + ".mini.xz", "rb") as f, open(mini, "wb") as g:
        g.write(lzma.decompress(f.read()))
    aux = readelf_syms(["-s"], mini)
    dyn = readelf_syms(["--dyn-syms"], out)
    both = set(aux) & set(dyn)
    check(len(aux) > 3000 and len(both) > 100,
          what + f"fixture: {len(aux)} payload symbols, {len(both)} of them "
          f"also in .dynsym")
    r = subprocess.run([MEMSZ, "size", "--by", "symbols", "--format",
                        "json", "-n", "0", "--debug-root", tmp, out],
                       capture_output=True, text=True)
    check(r.returncode == 0, what + f"exit 0 ({r.stderr.strip()[-300:]})")
    doc = json.loads(r.stdout)
    rows, notes = doc["rows"], "\n".join(doc.get("notes", []))
    names = set()
    for x in rows:
        names.add(x["name"])
        names.update(x.get("aliases", []))
    missing = sorted(n for _, n in aux if n not in names)
    check(not missing, what + f"every payload symbol is a row or an alias "
          f"({len(missing)} are not: {missing[:5]})")
    want = len(set(aux) - set(dyn))
    check(f"no .symtab: {want} symbols of its MiniDebugInfo" in notes,
          what + f"the note counts the {want} payload symbols .dynsym does not "
          f"name ({notes[:300]})")
    check("MiniDebugInfo (.gnu_debugdata):" not in notes,
          what + "no payload symbol is left out")
    check(sum(x["file_size"] for x in rows) == os.path.getsize(out),
          what + "FILE SIZE sums to the file's size")


def main():
    for tool in ("nm", "objcopy", "xz", "comm", "readelf"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    if not os.path.exists(libc):
        lib.skip(f"no {libc}")
    bid = re.search(r"Build ID: (\w+)", lib.readelf(["-n"], libc))
    dbg = (f"/usr/lib/debug/.build-id/{bid.group(1)[:2]}/"
           f"{bid.group(1)[2:]}.debug") if bid else ""
    if not os.path.exists(dbg):
        lib.skip(f"libc's debug file is not installed (libc6-dbg): {dbg}")
    for keep_all in ("", "1"):
        with tempfile.TemporaryDirectory(prefix="memsz-t1182-") as tmp:
            one_payload(libc, dbg, tmp, keep_all)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
