#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A target whose /proc/PID/status is longer than memsz's one-read buffer.

The target (python3, as root) joins 600 supplementary groups, so the
Groups: line pushes VmHWM, VmLck, HugetlbPages and Threads past the first
4 KiB of its status file (as on hosts where directory users have hundreds
of groups), then locks 4 MiB with mlock(2) and waits on stdin. Ground
truth, read by this test from the kernel: the status file's length and
VmHWM, and the Locked bytes of its smaps. `memsz record --duration 0`:
the snapshot says vm_hwm equal to VmHWM, carries the locked flag, and
`report --by mappings --fields locked` sums to smaps' Locked.
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
TARGET = r"""
import ctypes, mmap, os, sys
os.setgroups(list(range(1000000, 1000600)))
buf = mmap.mmap(-1, 4 << 20)
buf.write(b"x" * (4 << 20))
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
libc = ctypes.CDLL(None, use_errno=True)
if libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(4 << 20)):
    sys.exit("mlock: errno %d" % ctypes.get_errno())
print("ready", flush=True)
sys.stdin.read()
"""


def status(pid):
    with open(f"/proc/{pid}/status") as f:
        text = f.read()
    fields = {}
    for line in text.splitlines():
        k, _, v = line.partition(":")
        fields[k] = v.split()
    return len(text), fields


def main():
    if os.geteuid() != 0:
        lib.skip("not root: setgroups(2) and mlock(2) of 4 MiB need it")
    p = subprocess.Popen(["/usr/bin/python3", "-c", TARGET],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        if p.stdout.readline().strip() != "ready":
            lib.fail("the target did not start")
        length, st = status(p.pid)
        check(length > 4096, f"status is {length} bytes, over 4 KiB")
        lck = int(st["VmLck"][0]) * 1024
        check(lck >= 4 << 20, f"VmLck {lck} bytes")
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "status.data")
            subprocess.run([MEMSZ, "record", "--duration", "0", "-o", data,
                            "-p", str(p.pid)], check=True,
                           stderr=subprocess.DEVNULL)
            hwm = int(status(p.pid)[1]["VmHWM"][0]) * 1024
            dump = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                                  capture_output=True, text=True).stdout
            ends = [ln for ln in dump.splitlines() if "SNAP_END" in ln]
            begins = [ln for ln in dump.splitlines() if "SNAP_BEGIN" in ln]
            check(len(ends) == 1 and f"vm_hwm {hwm}" in ends[0],
                  f"vm_hwm is VmHWM {hwm}: {ends}")
            check(len(begins) == 1 and "locked" in begins[0],
                  f"the snapshot is flagged locked: {begins}")
            want = sum(v.get("Locked", 0) for v in lib.smaps_vmas(p.pid))
            try:
                have = sum(float(r["locked"]) for r in
                           lib.report(data, "mappings", "--fields",
                                      "locked"))
            except subprocess.CalledProcessError as e:
                have = -1  # no LOCKED column without the locked flag
                print(f"# report: {e}")
            check(want >= 4 << 20 and have == want,
                  f"LOCKED sums to smaps' Locked: {have:.0f} vs {want}")
    finally:
        p.stdin.close()
        p.wait()
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
