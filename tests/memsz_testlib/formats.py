# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.formats: the bytes of memsz's binary formats, read and
crafted by hand: memsz.data records and their CRC-32C checksums (man 5
memsz-data), to make damaged or older files; the fields of a protocol
buffer message (--format pprof), and the environment `go tool pprof`
reads one in.
"""
import contextlib
import os
import shutil
import struct
import tempfile

from .core import check_quiet, skip


def _pb_varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def pb_fields(pb):
    """The (field number, value) pairs of a protocol buffer message (a
    pprof Profile): ints for varints, bytes for the other wire types."""
    out, i = [], 0
    while i < len(pb):
        tag, i = _pb_varint(pb, i)
        kind = tag & 7
        if kind == 0:
            v, i = _pb_varint(pb, i)
        elif kind == 1:
            v, i = pb[i:i + 8], i + 8
        elif kind == 5:
            v, i = pb[i:i + 4], i + 4
        elif kind == 2:
            n, i = _pb_varint(pb, i)
            v, i = pb[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % kind)
        out.append((tag >> 3, v))
    return out


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_CRC_TABLE = _crc32c_table()


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli) of data, continuing from crc."""
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _CRC_TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def md_records(raw):
    """[(offset, type, size)] of the records of memsz.data bytes raw, while
    their sizes fit."""
    hsize = struct.unpack_from("<I", raw, 12)[0]
    off, out = hsize, []
    while len(raw) - off >= 16:
        rtype, _, size = struct.unpack_from("<IIQ", raw, off)
        if size < 16 or size > len(raw) - off:
            break
        out.append((off, rtype, size))
        off += size
    return out


def md_fix_checksums(raw):
    """Recompute the header and record checksums of bytearray raw in place
    (a file with header flag CRC), so that damage crafted behind them
    reaches the reader's other checks."""
    hsize = struct.unpack_from("<I", raw, 12)[0]
    hdr = bytes(raw[:44]) + b"\0" * 4 + bytes(raw[48:hsize])
    struct.pack_into("<I", raw, 44, crc32c(hdr))
    for off, _, size in md_records(raw):
        rec = bytes(raw[off:off + 4]) + b"\0" * 4 + \
            bytes(raw[off + 8:off + size])
        struct.pack_into("<I", raw, off + 4, crc32c(rec))
    return raw


def md_without_image_kinds(raw):
    """The memsz.data bytes raw (header flag CRC) without its IMAGE_KIND
    records, the END record's count of records lowered to match and its
    checksum made again: a recording as memsz wrote it before IMAGE_KIND
    records, to check that such files read as they did."""
    out = bytearray(raw[:struct.unpack_from("<I", raw, 12)[0]])
    dropped = 0
    for off, rtype, size in md_records(raw):
        rec = bytearray(raw[off:off + size])
        if rtype == 21:  # IMAGE_KIND
            dropped += 1
            continue
        if rtype == 15:  # END: time, nrecords, nsamples
            n = struct.unpack_from("<Q", rec, 24)[0]
            struct.pack_into("<Q", rec, 24, n - dropped)
        out += rec
    check_quiet(dropped > 0, "the recording has IMAGE_KIND records")
    return bytes(md_fix_checksums(out))


def go_env(tmp):
    """The environment `go tool pprof` runs in: its caches, home and
    temporary files in directory tmp, no module download."""
    return dict(os.environ, HOME=tmp,
                GOCACHE=os.path.join(tmp, "gocache"),
                GOPATH=os.path.join(tmp, "gopath"),
                GOFLAGS="-mod=mod", GOPROXY="off", PPROF_TMPDIR=tmp)


@contextlib.contextmanager
def pprof_tmp(prefix):
    """A temporary directory named prefix... and go_env() of it, for a
    test that runs `go tool pprof`; skips the test without go."""
    if not shutil.which("go"):
        skip("go (golang-go) is not installed")
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield tmp, go_env(tmp)
