#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2130: observer-free PSS. A stopped python3 that has loaded libraries
memsz maps too (libz, liblzma, libbz2, libm, libc) is recorded with
`memsz record -p PID --duration 0`; each mapping's PSS in the report must
equal its smaps Pss read when memsz is not running, within one page. Pss
moves whenever any process on the machine maps or unmaps those libraries,
so smaps is read before and after memsz and a round counts only when both
reads agree; rounds are repeated until one agrees on every mapping (memsz
counting itself as a sharer would fail them all).
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import PAGE, check, smaps_vmas  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
LIBS = ("libz.so", "liblzma.so", "libbz2.so", "libm.so", "libc.so")
PROG = r"""
import bz2, lzma, math, sys, zlib
data = bytes(range(256)) * 4096
for m in (bz2, lzma, zlib):
    m.decompress(m.compress(data))
math.sqrt(2.0)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("ready")
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
sys.stdin.read()
"""


def lib_pss(pid):
    """{(start, end): Pss} of the mappings of LIBS in /proc/PID/smaps."""
    return {(v["start"], v["end"]): v.get("Pss", 0)
            for v in smaps_vmas(pid)
            if any(n in v["last"] for n in LIBS)}


def memsz_pss(data):
    """{(start, end): PSS bytes} per mapping from `memsz report`."""
    out = {}
    for r in lib.report(data, "mappings"):
        label = r["mappings"]
        if "-" not in label.split()[0]:
            continue
        s, e = (int(x, 16) for x in label.split()[0].split("-"))
        out[(s, e)] = float(r["pss"])
    return out


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: PSS needs PFNs (CAP_SYS_ADMIN)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2130.") as tmp:
        ready = os.path.join(tmp, "ready")
        p = subprocess.Popen(["/usr/bin/python3", "-c", PROG, ready],
                             stdin=subprocess.PIPE)
        try:
            lib.wait_until(lambda: os.path.exists(ready) or
                           p.poll() is not None, "the python3 workload")
            if p.poll() is not None:
                lib.fail("the python3 workload died before it was ready")
            lib.stopped(p.pid)
            names = {v["last"].rsplit("/", 1)[-1] for v in smaps_vmas(p.pid)
                     if any(n in v["last"] for n in LIBS)}
            check(len(names) >= 4, f"the target maps {sorted(names)}")
            data = os.path.join(tmp, "o.data")
            # Other processes (other memsz runs among them) map these
            # libraries for a moment now and then, which moves their Pss:
            # a round counts when smaps reads the same before and after
            # memsz and every mapping agrees. memsz counting itself as a
            # sharer is systematic and fails every round.
            quiet = 0
            for attempt in range(100):
                before = lib_pss(p.pid)
                subprocess.run([MEMSZ, "record", "-o", data, "-p",
                                str(p.pid), "--duration", "0"],
                               check=True, stderr=subprocess.DEVNULL)
                after = lib_pss(p.pid)
                if before != after:
                    continue
                quiet += 1
                got = memsz_pss(data)
                bad = [k for k, want in after.items()
                       if k not in got or not want - 8 <= got[k] < want + PAGE]
                if not bad:
                    break
            check(quiet > 0, f"{quiet} quiet rounds of {attempt + 1}")
            # smaps prints Pss in whole kB, rounded down: the exact value
            # lies in [Pss, Pss + 1 KiB) (a few bytes below for the
            # kernel's own per-page rounding). One page memsz counted
            # itself a sharer of falls below it, so the lower bound is
            # tight. Above, the contract is "within a page per mapping":
            # with large file folios memsz has been seen to correct one
            # sharer too many on a few pages of a mapping (+1 KiB on a
            # 3-page mapping), which stays inside it.
            shared = 0
            for key, want in sorted(after.items()):
                have = got.get(key)
                check(have is not None and want - 8 <= have < want + PAGE,
                      f"{key[0]:x}-{key[1]:x}: PSS {have} in smaps Pss "
                      f"[{want}, {want} + a page)")
                if have is not None and want > PAGE:
                    shared += 1
            check(shared >= 4, f"{shared} library mappings with PSS")
        finally:
            os.kill(p.pid, signal.SIGCONT)
            p.stdin.close()
            p.wait()
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
