#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size --by symbols` on /usr/bin/node (non-PIE): no symbol is
given .rodata through bytes that are no references.

Before, by default (t1314 and t1315 build the cases small):
  - ecp_nistz256_precomputed and _vpaes_consts, OpenSSL tables (STT_OBJECT)
    in .text, decoded as code, took 912 KiB and 54 KiB of .rodata;
  - v8::internal::Map::TryGetMapRootIdxFor() (473 bytes of code) took
    2.97 MiB of .rodata through the root indexes it returns ("mov
    $0x2XX0001, %eax"), ossl_err_load_DH_strings() 576 KiB through an
    error code: numbers that land inside strings and JavaScript sources.

Ground truth: readelf -sW (the data symbols of executable sections),
objdump -d over the two functions (the immediates they load), the bytes
of .rodata read from the file, nm (where the next symbol starts), and
the V8 embedded blob's own size variable:
  - each data symbol of an executable section owns bytes of its own
    section only;
  - each function owns at most the bytes from each number of its that
    does not land inside text (the byte before it and the bytes up to a
    NUL, or for 4 KiB, printable) to the next such number of its, the next
    symbol or .rodata's end; the numbers inside text own nothing;
  - v8::internal::DefaultEmbeddedBlobData(), whose one instruction loads
    the address of v8_Default_embedded_blob_data_, owns the
    v8_Default_embedded_blob_data_size_ bytes of .rodata from there (a
    number that lands on binary data still names it).
The node of another build may lack a symbol: that part is skipped.
"""
import bisect
import csv
import os
import re
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NODE = "/usr/bin/node"
FUNCS = {"_ZN2v88internal3Map19TryGetMapRootIdxForENS0_12InstanceTypeE":
         "v8::internal::Map::TryGetMapRootIdxFor(v8::internal::"
         "InstanceType)",
         "ossl_err_load_DH_strings": "ossl_err_load_DH_strings"}
BLOB_FN = ("_ZN2v88internal23DefaultEmbeddedBlobDataEv",
           "v8::internal::DefaultEmbeddedBlobData()")
TEXT = 4096  # a run of printable bytes this long is text, as in xrefs.c


def memsz_rows(names):
    """{(symbol, section): VM SIZE} of memsz size --by symbols,sections
    for the symbols named (exactly) in names."""
    pat = "|".join(re.escape(n) for n in names)
    r = subprocess.run([MEMSZ, "size", "--by", "symbols,sections", "-n",
                        "0", "--format", "csv", "--filter",
                        "symbols=^(%s)$" % pat, NODE],
                       capture_output=True, text=True)
    check(r.returncode == 0, "memsz size exits 0%s"
          % (" (%s)" % r.stderr.strip()[-200:] if r.returncode else ""))
    return {(x["symbols"], x["sections"]): int(x["vm_size"])
            for x in csv.DictReader(r.stdout.splitlines())}


def text_byte(c):
    return 0x20 <= c < 0x7f or c in (9, 10, 13)


def main():
    lib.need_x86_tools("nm", "objdump", "readelf")
    if not os.path.exists(NODE):
        lib.skip("%s is not installed" % NODE)
    secs = lib.sections(NODE)
    if ".rodata" not in secs or "EXEC" not in lib.readelf(["-h"], NODE):
        lib.skip("%s is no position-dependent program with .rodata" % NODE)
    # the data symbols (OBJECT, TLS, sized) of executable sections
    byindex = {}
    for line in lib.readelf(["-S"], NODE).splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m and m.group(2) in secs:
            byindex[m.group(1)] = m.group(2)
    objs = {}
    for line in lib.readelf(["-s"], NODE).splitlines():
        f = line.split()
        if len(f) == 8 and f[3] in ("OBJECT", "TLS") and f[2] != "0" and \
                "X" in secs.get(byindex.get(f[6], ""), (0, 0, 0, ""))[3]:
            objs[f[7]] = byindex[f[6]]
    nm = {}
    starts = []
    for line in lib.run_ok(["nm", "-S", "--defined-only",
                            NODE]).stdout.splitlines():
        f = line.split()
        if len(f) >= 3:
            nm[f[-1]] = (int(f[0], 16), int(f[1], 16) if len(f) == 4
                         else 0)
            if len(f) == 4 and int(f[1], 16):
                starts.append(int(f[0], 16))
    starts.sort()
    funcs = {k: v for k, v in FUNCS.items() if k in nm}
    blob = all(n in nm for n in (BLOB_FN[0], "v8_Default_embedded_blob_"
                                 "data_", "v8_Default_embedded_blob_data_"
                                 "size_"))
    if not objs and not funcs and not blob:
        lib.skip("this node has none of the symbols checked")
    rows = memsz_rows(list(objs) + list(funcs.values()) +
                      ([BLOB_FN[1]] if blob else []))

    raddr, roff, rsize, _ = secs[".rodata"]
    with open(NODE, "rb") as f:
        f.seek(roff)
        ro = f.read(rsize)

    def inside_text(t):
        """Does t land inside text (printable before it, printable up to a
        NUL or for TEXT bytes from it)?"""
        i = t - raddr
        if i <= 0 or not text_byte(ro[i - 1]):
            return False
        for k in range(i, min(i + TEXT, len(ro))):
            if ro[k] == 0:
                return True
            if not text_byte(ro[k]):
                return False
        return i + TEXT <= len(ro)

    for name, sec in sorted(objs.items()):
        other = {s: v for (y, s), v in rows.items() if y == name and
                 s != sec and not s.startswith((".sym", ".str", ".dyn",
                                                ".gnu"))}
        check(not other, "%s (a data symbol of %s) owns no byte of "
              "another loaded section: %s" % (name, sec, other))
    if not objs:
        lib.skip_part("node has no data symbol in an executable section")

    for mangled, shown in funcs.items():
        a, size = nm[mangled]
        out = lib.run_ok(["objdump", "-d", "--no-show-raw-insn",
                          "--start-address=%#x" % a,
                          "--stop-address=%#x" % (a + size),
                          NODE]).stdout
        nums = sorted({int(x, 16) for x in
                       re.findall(r"\bmov\s+\$0x([0-9a-f]+),", out)
                       if raddr <= int(x, 16) < raddr + rsize})
        inside = [t for t in nums if inside_text(t)]
        kept = [t for t in nums if not inside_text(t)]
        bound = 0
        for k, t in enumerate(kept):
            i = bisect.bisect_right(starts, t)
            j = starts[i] if i < len(starts) else raddr + rsize
            nxt = kept[k + 1] if k + 1 < len(kept) else raddr + rsize
            bound += min(j, nxt, raddr + rsize) - t
        check(inside, "objdump -d: %s loads %d numbers in .rodata, %d of "
              "them inside text" % (shown, len(nums), len(inside)))
        got = rows.get((shown, ".rodata"), 0)
        check(got <= bound, "%s owns %d bytes of .rodata, at most %d"
              % (shown, got, bound))
    if not funcs:
        lib.skip_part("node has neither function weighed")

    if blob:
        a, size = nm[BLOB_FN[0]]
        out = lib.run_ok(["objdump", "-d", "--no-show-raw-insn",
                          "--start-address=%#x" % a,
                          "--stop-address=%#x" % (a + size),
                          NODE]).stdout
        data = nm["v8_Default_embedded_blob_data_"][0]
        n = nm["v8_Default_embedded_blob_data_size_"][0] - raddr
        want = struct.unpack("<I", ro[n:n + 4])[0]
        check("$%#x," % data in out,
              "objdump -d: %s loads the address of "
              "v8_Default_embedded_blob_data_, %#x" % (BLOB_FN[1], data))
        got = rows.get((BLOB_FN[1], ".rodata"))
        check(got == want, "%s owns v8_Default_embedded_blob_data_size_ "
              "bytes of .rodata, %d: %s" % (BLOB_FN[1], want, got))
    else:
        lib.skip_part("node has no V8 embedded blob symbols")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
