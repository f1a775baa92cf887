#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3060: the damaged recordings of a reliability review, made again here
from fresh recordings, report right (and, in the sanitizer build, without
undefined behaviour).

 - --faults -c 50 --stack-size 512 of a `python3` that is a shell wrapper
   forking the real one (fault samples of a process with no mapping
   history): --by callers and --by faultsite exit 0, their RSS adds up to
   --by files';
 - every IMAGE record removed, and the IMAGE_KIND records of their
   images (mappings naming image ids with no IMAGE record): a note naming the rule and the offset;
 - a mapping ending at 0x80007febb63a7000, and one grown by 2.5 GiB over
   the next: a note, and the totals of the snapshots before it, never an
   8192 PiB VM SIZE (the mapping records re-encoded in version 6, whose
   fields are coded against the previous mapping's);
 - the file cut on the record boundary before its last snapshot: the
   previous snapshot reported, and the footer says the file was cut short.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402

IMAGE, SNAP_BEGIN, SNAP_MAPPING, END, IMAGE_KIND = 1, 7, 8, 15, 21


def rep(path, *args):
    p = subprocess.run([lib.MEMSZ, "report", "-i", path, "--format",
                        "json", *args], capture_output=True, text=True)
    clean = "runtime error" not in p.stderr and "Sanitizer" not in p.stderr
    lib.check(clean, "%s %s: no sanitizer report" %
              (os.path.basename(path), " ".join(args)))
    if not clean:
        print(p.stderr[:2000])
    doc = json.loads(p.stdout) if p.stdout.strip() else {}
    return p.returncode, doc


def has_note(doc, text):
    return any(text in n for n in doc.get("notes", []))


def faults_case(tmp):
    wrapper = os.path.join(tmp, "python3")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\n/usr/bin/python3 \"$@\"\nexit $?\n")
    os.chmod(wrapper, 0o755)
    data = os.path.join(tmp, "faults.data")
    p = subprocess.run([lib.MEMSZ, "record", "-o", data, "--faults", "-c",
                        "50", "--stack-size", "512", "--", wrapper, "-c",
                        "x = bytearray(20_000_000)"],
                       capture_output=True, text=True)
    lib.check(p.returncode == 0, "record --faults of a forking wrapper (%s)"
              % p.stderr.strip()[-200:])
    rc, files = rep(data, "--by", "files")
    lib.check(rc == 0, "report --by files exits 0")
    for by in ("callers", "faultsite", "faultsite,sections"):
        rc, doc = rep(data, "--by", by)
        lib.check(rc == 0 and doc["total"]["rss"] == files["total"]["rss"],
                  "--by %s exits 0, RSS %s = --by files' %s" %
                  (by, doc.get("total", {}).get("rss"),
                   files["total"]["rss"]))


def damaged(tmp, name, raw):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(raw)
    return path


def leb(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def get_leb(p, i):
    v, sh = 0, 0
    while True:
        v |= (p[i] & 0x7f) << sh
        sh += 7
        i += 1
        if not p[i - 1] & 0x80:
            return v, i


def v6_parse(p):
    """(gap, npages, end of the gap, of npages, of the page stream) of the
    payload p of a version 6 SNAP_MAPPING record (man 5 memsz-data)."""
    has = p[0]
    zz, i = get_leb(p, 1)
    np_, j = get_leb(p, i)
    k = j
    nlebs = (3 * bool(has & 1) + bool(has & 2) + bool(has & 0x40) +
             bool(has & 4))
    for _ in range(nlebs):
        _, k = get_leb(p, k)
    if has & 8:
        n, k = get_leb(p, k)
        k += n
    if has & 0x10:
        _, k = get_leb(p, k)
    if has & 0x20:
        n, k = get_leb(p, k)
        for _ in range(2 * n):
            _, k = get_leb(p, k)
    _, k = get_leb(p, k)
    n, k = get_leb(p, k)
    return (zz >> 1) ^ -(zz & 1), np_, i, j, k + n


def v6_ranges(raw, recs, begin):
    """[(record, start, end)] of the SNAP_MAPPING records of the snapshot
    that begins at record begin."""
    out, prev_end = [], 0
    for r in recs:
        if r[0] <= begin[0] or r[1] != SNAP_MAPPING:
            if r[0] > begin[0] and r[1] == SNAP_BEGIN:
                break
            continue
        gap, np_, _, _, _ = v6_parse(raw[r[0] + 16:r[0] + r[2]])
        start = ((prev_end >> 12) + gap) << 12
        prev_end = start + (np_ << 12)
        out.append((r, start, prev_end))
    return out


def v6_rewrite(raw, rec, gap=None, npages=None):
    """raw with the mapping record rec given another gap or npages (its
    size and padding made right; checksums not fixed)."""
    p = bytes(raw[rec[0] + 16:rec[0] + rec[2]])
    g, np_, i, j, end = v6_parse(p)
    g = g if gap is None else gap
    np_ = np_ if npages is None else npages
    body = p[:1] + leb(2 * g if g >= 0 else -2 * g - 1) + leb(np_) + \
        p[j:end]
    body += b"\0" * (-len(body) % 8)
    hdr = bytearray(raw[rec[0]:rec[0] + 16])
    struct.pack_into("<Q", hdr, 8, 16 + len(body))
    return bytearray(raw[:rec[0]] + hdr + body + raw[rec[0] + rec[2]:])


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t3060-") as tmp:
        faults_case(tmp)

        orig = os.path.join(tmp, "rec.data")
        subprocess.run([lib.MEMSZ, "record", "-o", orig, "--interval", "50",
                        "--", "sleep", "0.3"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        raw = open(orig, "rb").read()
        recs = lib.md_records(raw)
        begins = [r for r in recs if r[1] == SNAP_BEGIN]
        lib.check(len(begins) >= 3, "%d snapshots recorded" % len(begins))
        rc, base = rep(orig)
        lib.check(rc == 0 and not has_note(base, "damaged") and
                  not has_note(base, "cut short"),
                  "the recording reports without a damage note")
        rc, prev = rep(orig, "--snapshot", str(len(begins) - 2))
        lib.check(rc == 0, "report of the snapshot before the last")

        # mappings naming image ids with no IMAGE record
        kept = b"".join(raw[o:o + s] for o, t, s in recs
                        if t not in (IMAGE, END, IMAGE_KIND))
        path = damaged(tmp, "noimage.data", bytes(
            lib.md_fix_checksums(bytearray(raw[:64] + kept))))
        rc, doc = rep(path)
        lib.check(rc != 0 and "has no complete snapshot: it is damaged at "
                  "offset" in doc.get("error", "") and
                  "mapping of an image id with no IMAGE record" in
                  doc.get("error", ""),
                  "no IMAGE records: refused, naming the offset and the "
                  "rule (%s)" % doc.get("error"))

        # the last mapping of the last snapshot ends far above user space
        ranges = v6_ranges(raw, recs, begins[-1])
        last = [x for x in ranges if x[1] < 1 << 57]
        big = v6_rewrite(raw, last[-1][0],
                         npages=(0x80007febb63a7000 - last[-1][1]) >> 12)
        for fix, why in ((False, "checksum mismatch"),
                         (True, "mapping beyond the user address space")):
            b = lib.md_fix_checksums(bytearray(big)) if fix else big
            rc, doc = rep(damaged(tmp, "big.data", bytes(b)))
            lib.check(rc == 0 and has_note(doc, why) and
                      doc["total"] == prev["total"],
                      "end 0x80007febb63a7000: note '%s', the previous "
                      "snapshot's totals" % why)

        # a mapping of the last snapshot grown by 2.5 GiB over the others
        # (the next one's gap made smaller by as much: it keeps its start)
        (first, start, end), nxt = ranges[0], ranges[1]
        grown = v6_rewrite(raw, nxt[0],
                           gap=(nxt[1] - end - (5 << 29)) >> 12)
        grown = v6_rewrite(grown, first,
                           npages=(end + (5 << 29) - start) >> 12)
        rc, doc = rep(damaged(tmp, "grown.data",
                              bytes(lib.md_fix_checksums(grown))))
        lib.check(rc == 0 and has_note(doc, "overlapping the previous") and
                  doc["total"] == prev["total"],
                  "a mapping grown over the next: note, previous totals")

        # cut on the record boundary before the last snapshot
        rc, doc = rep(damaged(tmp, "cut.data", raw[:begins[-1][0]]))
        lib.check(rc == 0 and has_note(doc, "was cut short at offset %d" %
                                       begins[-1][0]) and
                  doc["total"] == prev["total"],
                  "cut before the last snapshot: 'cut short' note, the "
                  "previous snapshot's totals")
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
