#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3025: `memsz report --by mappings --sort addr`, the per-mapping view of
pmap -x and showmap, against the kernel's own /proc/PID/smaps.

A python3 process maps anonymous memory of three sizes (touched in part)
and a file, forks a child that dirties memory of its own, and both stop
themselves (SIGSTOP). They are recorded with `memsz record -p --duration
0`; smaps is read once memsz has exited (PSS is observer-free). Then:
- `--by mappings --sort addr` (no -n: an order lists every row) has one
  row per VMA of smaps, in smaps' order (ascending addresses), with the
  same start and end, RSS equal to Rss, and PSS within a page of Pss
  where other processes cannot change it meanwhile (csv has no TOTAL
  row);
- `--by pids,mappings --sort addr`: the processes in pid order, and under
  each its mappings in its smaps' order with its Rss;
- `--sort name` orders labels by string; `-n` still folds; a --sort that
  is neither a column nor an order is a usage error naming both.
"""
import csv
import io
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

# Maps anonymous memory of 3, 5 and 9 MiB, touches 1, 2 and 4 MiB of it,
# maps FILE (argv[1]) and reads it; forks a child that touches 3 MiB of
# its own; both print "ready PID" and stop themselves.
WORKLOAD = r"""
import mmap, os, signal, sys
maps = []
for size, touch in ((3, 1), (5, 2), (9, 4)):
    m = mmap.mmap(-1, size << 20, flags=mmap.MAP_PRIVATE)
    for off in range(0, touch << 20, 4096):
        m[off] = 1
    maps.append(m)
f = open(sys.argv[1], "rb")
fm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
sum(fm[off] for off in range(0, len(fm), 4096))
pid = os.fork()
if pid == 0:
    own = mmap.mmap(-1, 7 << 20, flags=mmap.MAP_PRIVATE)
    for off in range(0, 3 << 20, 4096):
        own[off] = 2
    os.write(1, b"ready %d\n" % os.getpid())
    os.kill(os.getpid(), signal.SIGSTOP)
    os._exit(0)
os.write(1, b"ready %d\n" % os.getpid())
os.kill(os.getpid(), signal.SIGSTOP)
os.waitpid(pid, 0)
"""


def report(data, *args):
    """(exit status, rows as dicts, stderr) of `memsz report --format csv`
    over data with args (no -n unless args give one)."""
    p = subprocess.run([MEMSZ, "report", "-i", data, "--format", "csv",
                        *args], capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.stdout else []
    return p.returncode, rows, p.stderr


def span(label):
    """(start, end) of a mappings label "start-end perms name"."""
    s, e = label.split()[0].split("-")
    return int(s, 16), int(e, 16)


def same_as_smaps(rows, vmas, who, own):
    """Checks rows (mapping rows) against smaps vmas: the same mappings in
    the same order, RSS exact, and PSS within a page on the mappings no
    other process may map meanwhile (anonymous ones, the file own): pages
    of libraries and of the python binary turn shared or private as other
    tests start and end between the snapshot and the smaps read."""
    got = [span(r["mappings"]) for r in rows]
    want = [(v["start"], v["end"]) for v in vmas]
    check(got == want,
          f"{who}: {len(got)} rows, one per VMA of smaps ({len(want)}), in "
          f"its order" + ("" if got == want else
                          f" (first difference at "
                          f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))})"))
    bad = [(hex(v["start"]), r["rss"], v.get("Rss", 0))
           for r, v in zip(rows, vmas) if int(r["rss"]) != v.get("Rss", 0)]
    check(not bad, f"{who}: RSS of every mapping == smaps Rss {bad[:3]}")
    if os.geteuid() == 0:
        bad = [(hex(v["start"]), r["pss"], v.get("Pss", 0))
               for r, v in zip(rows, vmas)
               if not v["last"].startswith("/") or v["last"] == own
               if abs(float(r["pss"]) - v.get("Pss", 0)) > PAGE]
        check(not bad, f"{who}: PSS of every anonymous mapping and of the "
              f"test's file within a page of smaps Pss {bad[:3]}")


def run(tmp):
    data = os.path.join(tmp, "m.data")
    blob = os.path.join(tmp, "blob")
    with open(blob, "wb") as f:
        f.write(os.urandom(256 << 10))
    wl = subprocess.Popen([sys.executable, "-c", WORKLOAD, blob],
                          stdout=subprocess.PIPE, text=True)
    pids = []
    try:
        for _ in range(2):
            line = wl.stdout.readline().split()
            if len(line) != 2 or line[0] != "ready":
                lib.fail(f"the workload started ({line})")
            pids.append(int(line[1]))
        for p in pids:
            lib.wait_stopped(p)
        parent, child = wl.pid, [p for p in pids if p != wl.pid][0]
        rec = subprocess.run([MEMSZ, "record", "-o", data, "-p",
                              f"{parent},{child}", "--duration", "0"],
                             capture_output=True, text=True, timeout=300)
        check(rec.returncode == 0, f"record exits 0 ({rec.stderr.strip()})")
        vmas = {p: smaps_vmas(p) for p in (parent, child)}

        rc, rows, err = report(data, "--pid", str(parent), "--by",
                               "mappings", "--sort", "addr")
        check(rc == 0, f"report --by mappings --sort addr exits 0 {err}")
        check(len(vmas[parent]) > 20,
              f"the parent has more than 20 mappings "
              f"({len(vmas[parent])}): -n's default would fold them")
        same_as_smaps(rows, vmas[parent], f"pid {parent}", blob)
        # the kernel merges adjacent anonymous mappings: their sum
        anon = sum(int(r["rss"]) for r in rows
                   if r["mappings"].endswith("[anon]"))
        check(anon >= 7 << 20, f"[anon] rows hold the 7 MiB touched "
              f"({anon >> 10} KiB)")

        rc, rows, err = report(data, "--by", "pids,mappings", "--sort",
                               "addr")
        check(rc == 0, f"report --by pids,mappings --sort addr exits 0 {err}")
        order = []
        for r in rows:
            p = int(r["pids"].split()[0])
            if not order or order[-1] != p:
                order.append(p)
        check(order == sorted((parent, child)),
              f"pids in pid order, each once: {order}")
        for p in (parent, child):
            same_as_smaps([r for r in rows
                           if int(r["pids"].split()[0]) == p], vmas[p],
                          f"pids,mappings: pid {p}", blob)

        rc, rows, err = report(data, "--pid", str(parent), "--by",
                               "mappings", "--sort", "addr", "-n", "5")
        check(rc == 0 and len(rows) == 6 and
              [span(r["mappings"]) for r in rows[:5]] ==
              [(v["start"], v["end"]) for v in vmas[parent][:5]] and
              rows[5]["mappings"] == f"[{len(vmas[parent]) - 5} others]",
              "-n 5: the first 5 mappings by address, then the others "
              f"({[r['mappings'] for r in rows]})")

        rc, rows, err = report(data, "--pid", str(parent), "--by", "files",
                               "--sort", "name")
        names = [r["files"] for r in rows]
        check(rc == 0 and len(names) > 20 and names == sorted(names),
              f"--sort name: every file, by name ({names[:4]}...)")

        rc, rows, err = report(data, "--sort", "bogus")
        check(rc == 129 and "cannot sort by 'bogus'" in err and
              "orders: addr, name" in err,
              f"--sort bogus: a usage error naming the orders ({err.strip()})")
    finally:
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wl.kill()
        wl.wait()


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t3025.") as tmp:
        run(tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
