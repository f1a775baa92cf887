#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2323: a -G recording made without CAP_SYS_ADMIN cannot read which
cgroup pays for each page (/proc/kpagecgroup needs page frame numbers):
every page is taken as charged to its process's own cgroup, and the
report says so in a CHARGE note. It blamed the gap on memory.stat's lag
and on anonymous memory touched before the process joined, whatever the
cause.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) is made; a python3 process run as nobody
(setpriv) touches 16 MiB of anonymous memory, then is moved into CG: the
kernel leaves the charge where it was (ground truth: CG's memory.stat
anon / total_rss stays below 16 MiB). `record -G CG --duration 0` as
nobody, then `report`: a "CHARGE:" note names CAP_SYS_ADMIN and says the
paying cgroup of each page is unknown. The same recording made as root
has no such note, and its [anon] row has CHARGE 0 (another cgroup pays).
A plain `record -p PID` as nobody (no -G, no cgroup charge) gets no
such note either: it was added to every recording made as non-root.
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

HELD = 16 << 20
HOLDER = """import sys
b = bytearray(%d)
for i in range(0, len(b), 4096):
    b[i] = 1
print("ready", flush=True)
sys.stdin.readline()
""" % HELD
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def notes_of(data):
    """The footer lines of `memsz report` (stderr) and its [anon] row's
    CHARGE from the csv."""
    r = subprocess.run([MEMSZ, "report", "-i", data, "-F", "rss,charge"],
                       capture_output=True, text=True)
    rows = lib.report(data, "files", "-F", "rss,charge")
    anon = [float(x["charge"]) for x in rows if x["files"] == "[anon]"]
    return r.stdout + r.stderr, anon


def run(tmp, cg, py):
    work = subprocess.Popen(NOBODY + [py, "-c", HOLDER],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        if not work.stdout.readline().startswith("ready"):
            lib.skip(f"{py} does not run as nobody")
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(work.pid))
        key = "anon" if os.path.exists(os.path.join(cg, "memory.current")) \
            else "total_rss"
        paid = lib.memcg_stat(cg, key)
        check(paid < HELD, f"ground truth: CG's memory.stat {key} {paid} < "
              f"{HELD}: the memory stays charged where it was touched")
        data = os.path.join(tmp, "nobody.data")
        r = subprocess.run(NOBODY + [MEMSZ, "record", "-G", cg, "--duration",
                                     "0", "-o", data],
                           capture_output=True, text=True, cwd=tmp)
        check(r.returncode == 0, f"record -G as nobody exits 0 "
              f"({r.stderr.strip()})")
        pdata = os.path.join(tmp, "pid.data")
        r3 = subprocess.run(NOBODY + [MEMSZ, "record", "-p", str(work.pid),
                                      "--duration", "0", "-o", pdata],
                            capture_output=True, text=True, cwd=tmp)
        check(r3.returncode == 0, f"record -p as nobody exits 0 "
              f"({r3.stderr.strip()})")
        rdata = os.path.join(tmp, "root.data")
        r2 = subprocess.run([MEMSZ, "record", "-G", cg, "--duration", "0",
                             "-o", rdata], capture_output=True, text=True)
    finally:
        work.kill()
        work.wait()
    text, _ = notes_of(data)
    said = [ln for ln in text.splitlines()
            if ln.startswith("CHARGE:") and "CAP_SYS_ADMIN" in ln and
            "unknown" in ln]
    check(len(said) == 1, f"as nobody: one CHARGE note says the paying "
          f"cgroups are unknown without CAP_SYS_ADMIN ({said or text})")
    r = subprocess.run([MEMSZ, "report", "-i", pdata], capture_output=True,
                       text=True)
    text = r.stdout + r.stderr
    check(not any(ln.startswith("CHARGE:") and "CAP_SYS_ADMIN" in ln
                  for ln in text.splitlines()),
          f"record -p (no -G, no CHARGE) as nobody: no such note ({text})")
    if r2.returncode != 0:
        check(False, f"record -G as root ({r2.stderr.strip()})")
        return
    text, anon = notes_of(rdata)
    check(not any(ln.startswith("CHARGE:") and "CAP_SYS_ADMIN" in ln
                  for ln in text.splitlines()),
          "as root: no such note")
    check(anon == [0.0], f"as root: [anon] CHARGE 0, another cgroup pays "
          f"({anon})")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup and setpriv need root")
    if not shutil.which("setpriv"):
        lib.skip("no setpriv")
    py = "/usr/bin/python3"
    if not os.access(py, os.X_OK):
        lib.skip(f"no {py} (one nobody can run)")
    cg = lib.make_cgroup("t2323", v1_first=True)
    try:
        if not os.path.exists(os.path.join(cg, "memory.stat")):
            lib.skip(f"{cg} has no memory controller")
        with tempfile.TemporaryDirectory(prefix="memsz-t2323-") as tmp:
            os.chmod(tmp, 0o777)
            run(tmp, cg, py)
    finally:
        lib.remove_cgroup(cg)
    check(not os.path.exists(cg), f"cgroup {cg} removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
