"""memsz_testlib: helpers shared by the Python tests (tests/t*.py).

A test imports it from its own directory:
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import memsz_testlib as lib
and ends with `return 1 if lib.failures else 0`.
"""
import csv
import io
import os
import signal
import subprocess
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__),
                                                    ".."))
PAGE = os.sysconf("SC_PAGE_SIZE")

failures = 0
checks = 0


def check(ok, what):
    """Prints "ok     what" or "NOT OK what"; counts a failure."""
    global failures, checks
    checks += 1
    print(("ok     " if ok else "NOT OK ") + what)
    if not ok:
        failures += 1


def check_quiet(cond, what):
    """Counts a check; prints "not ok - what" only when cond is false."""
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("not ok -", what)


def report(data, by, *extra):
    """Rows (dicts) of `memsz report -i data --by by -n 0 --format csv`;
    raises CalledProcessError if memsz fails."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                          "--format", "csv", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True)
    return list(csv.DictReader(io.StringIO(out.stdout)))


def readelf(args, path):
    """Stdout of `readelf -W args path`; raises if readelf fails."""
    return subprocess.run(["readelf", "-W"] + args + [path],
                          capture_output=True, text=True, check=True).stdout


def proc_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, t, ...)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def stopped(pid):
    """Sends SIGSTOP to pid and waits (up to 2 s) until it is stopped."""
    os.kill(pid, signal.SIGSTOP)
    for _ in range(200):
        if proc_state(pid) in "Tt":
            return
        time.sleep(0.01)


def smaps_vmas(pid):
    """The VMAs of /proc/PID/smaps in order, as dicts: "start", "end"
    (ints), "last" (the header's last field: the path, or the inode of an
    anonymous mapping) and each "kB" field in bytes ("Rss", "Pss", ...)."""
    vmas = []
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if "-" in p[0] and not p[0].endswith(":"):
                s, e = (int(x, 16) for x in p[0].split("-"))
                vmas.append({"start": s, "end": e, "last": p[-1]})
            elif vmas and len(p) == 3 and p[2] == "kB":
                vmas[-1][p[0][:-1]] = int(p[1]) * 1024
    return vmas


# --- memsz.data bytes (man 5 memsz-data), to craft damaged files ---

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
    import struct
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
    import struct
    hsize = struct.unpack_from("<I", raw, 12)[0]
    hdr = bytes(raw[:44]) + b"\0" * 4 + bytes(raw[48:hsize])
    struct.pack_into("<I", raw, 44, crc32c(hdr))
    for off, _, size in md_records(raw):
        rec = bytes(raw[off:off + 4]) + b"\0" * 4 + \
            bytes(raw[off + 8:off + size])
        struct.pack_into("<I", raw, off + 4, crc32c(rec))
    return raw
