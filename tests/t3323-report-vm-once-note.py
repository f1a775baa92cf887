#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3323: the footer note on FILE SIZE and VM SIZE counted once says what
the numbers do: FILE SIZE counts a file on disk several processes map
once, VM SIZE the same range of it as often as one process maps it, so a
page two mappings of one process share counts twice; shared memory (no
FILE SIZE) once for each process.

The note said "FILE SIZE and VM SIZE count a file several processes map
once": read as written, a file one process maps twice, over a shared
page, would count once in the TOTAL's VM SIZE. It does not, and should
not (smaps' Size counts it twice). Two processes map a 16-page file
MAP_SHARED: P its pages 0-15 and, again, 8-15; Q its pages 0-15. Ground
truth, from /proc/PID/maps read while both are stopped: each process's
VM SIZE of the file is the sum of its mappings' sizes (24 and 16 pages);
the file's row above the pids key has, per page, the most mappings any
one process has of it (pages 0-7 once, 8-15 twice: 24 pages, not the
file's 16 nor the rows' 40); its FILE SIZE is the file's size once. The
note names that rule. It said so of every file: a file of /dev/shm
(tmpfs, no FILE SIZE) two more processes map counts in VM SIZE once for
each (the sum of their maps): the note says that too.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, check  # noqa: E402

NPAGES = 16
MAPPER = r"""
import mmap, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
maps = []
for arg in sys.argv[2:]:
    off, n = (int(x) for x in arg.split(":"))
    m = mmap.mmap(fd, n * mmap.PAGESIZE, flags=mmap.MAP_SHARED,
                  prot=mmap.PROT_READ, offset=off * mmap.PAGESIZE)
    for i in range(n):
        m[i * mmap.PAGESIZE]
    maps.append(m)
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def file_maps(pid, path):
    """[(first page, pages)] of pid's mappings of path, from its maps."""
    out = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and w[5] == path:
                lo, hi = (int(x, 16) for x in w[0].split("-"))
                out.append((int(w[2], 16) // PAGE, (hi - lo) // PAGE))
    return out


def start(path, *ranges):
    p = subprocess.Popen([sys.executable, "-c", MAPPER, path, *ranges],
                         stdout=subprocess.PIPE, text=True)
    lib.workload_stopped(p, "the mapper")
    return p


def shm_file():
    """A file of NPAGES in /dev/shm (tmpfs: no FILE SIZE), or None."""
    try:
        fd, path = tempfile.mkstemp(prefix="memsz-t3323-", suffix=".shm",
                                    dir="/dev/shm")
    except OSError:
        return None
    os.write(fd, b"y" * (NPAGES * PAGE))
    os.close(fd)
    return path


def main():
    shm = shm_file()
    try:
        return run(shm)
    finally:
        if shm:
            os.unlink(shm)


def run(shm):
    with tempfile.TemporaryDirectory(prefix="memsz-t3323-") as tmp:
        path = os.path.join(tmp, "shared.bin")
        with open(path, "wb") as f:
            f.write(b"x" * (NPAGES * PAGE))
        procs = []
        shm_vm = {}
        try:
            procs.append(start(path, f"0:{NPAGES}", f"{NPAGES // 2}:"
                               f"{NPAGES // 2}"))
            procs.append(start(path, f"0:{NPAGES}"))
            maps = {p.pid: file_maps(p.pid, path) for p in procs}
            # two more processes map the /dev/shm file, whole, once each
            for _ in range(2 if shm else 0):
                procs.append(start(shm, f"0:{NPAGES}"))
                shm_vm[procs[-1].pid] = sum(
                    n for _, n in file_maps(procs[-1].pid, shm)) * PAGE
            vm = {pid: sum(n for _, n in m) * PAGE
                  for pid, m in maps.items()}
            most = [max(sum(1 for first, n in m if first <= pg < first + n)
                        for m in maps.values())
                    for pg in range(NPAGES)]
            once = sum(most) * PAGE
            check(once < sum(vm.values()) and once > NPAGES * PAGE,
                  f"the case: the file's VM counted per page as often as "
                  f"one process maps it ({once}) is between the file "
                  f"({NPAGES * PAGE}) and the rows' sum "
                  f"({sum(vm.values())}): maps {maps}")
            data = os.path.join(tmp, "r.data")
            r = subprocess.run([MEMSZ, "record", "-o", data, "--duration",
                                "0", "-p", ",".join(str(p.pid)
                                                    for p in procs)],
                               capture_output=True, text=True, timeout=300)
            if r.returncode:
                lib.fail(f"record: {r.returncode} {r.stderr}")
        finally:
            for p in procs:
                p.kill()
                os.kill(p.pid, signal.SIGCONT)
                p.wait()
        r = subprocess.run([MEMSZ, "report", "-i", data, "--by",
                            "files,pids", "--filter", "files=shared\\.bin$",
                            "-n", "0", "--format", "json"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode:
            lib.fail(f"report: {r.returncode} {r.stderr}")
        j = json.loads(r.stdout)
        rows = [x for x in j["rows"] if x["name"] == path]
        check(len(rows) == 1, f"one row for the file ({len(rows)})")
        if rows:
            f = rows[0]
            check(int(f["vm_size"]) == once,
                  f"the file's VM SIZE {f['vm_size']} is, per page, the "
                  f"most one process maps it: {once}")
            check(int(f["file_size"]) == NPAGES * PAGE,
                  f"the file's FILE SIZE {f['file_size']} is its size once")
            for pid, want in vm.items():
                got = [int(x["vm_size"]) for x in f.get("rows", [])
                       if x["name"].split()[0] == str(pid)]
                check(got == [want],
                      f"pid {pid}'s VM SIZE of the file {got} is its "
                      f"mappings' sizes {want}")
        notes = [n for n in j["notes"] if "VM SIZE" in n]
        check(len(notes) == 1, f"one note on VM SIZE ({notes})")
        note = notes[0] if notes else ""
        check("FILE SIZE counts a file on disk several processes map "
              "once" in note,
              f"the note says FILE SIZE counts a file once: {note!r}")
        check("VM SIZE the same range of it as often as one process "
              "maps it (a page two mappings of one process share, twice)"
              in note,
              f"the note says VM SIZE counts a range as often as one "
              f"process maps it, a page shared in one process twice: "
              f"{note!r}")
        shm_row(data, shm, shm_vm, note)
    return lib.finish()


def shm_row(data, shm, shm_vm, note):
    """The /dev/shm file has no FILE SIZE, and its VM SIZE is the sum of
    the processes' mappings of it (maps): the note says so."""
    if not shm:
        lib.skip_part("no writable /dev/shm")
        return
    r = subprocess.run([MEMSZ, "report", "-i", data, "--by", "files,pids",
                        "--filter", "files=" + re.escape(shm) + "$",
                        "-n", "0", "--format", "json"],
                       capture_output=True, text=True, timeout=300)
    rows = [x for x in json.loads(r.stdout)["rows"]
            if x["name"].startswith(shm)] if r.returncode == 0 else []
    check(len(rows) == 1, f"one row for the /dev/shm file ({r.stderr!r})")
    want = sum(shm_vm.values())
    if rows:
        check(int(rows[0]["vm_size"]) == want and
              not int(rows[0].get("file_size") or 0),
              f"the /dev/shm file: no FILE SIZE "
              f"({rows[0].get('file_size')}), VM SIZE "
              f"{rows[0]['vm_size']} the sum of its maps {want}")
    check("shared memory (tmpfs, /dev/shm, memfd: no FILE SIZE) counts in "
          "VM SIZE once for each process that maps it" in note,
          f"the note says shared memory counts for each process: {note!r}")


if __name__ == "__main__":
    sys.exit(main())
