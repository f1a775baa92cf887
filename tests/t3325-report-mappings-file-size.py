#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3325: the mappings key changes the FILE SIZE of its own rows only.

FILE SIZE is the bytes on disk of an image, counted once per image in
each row; a mapping's row has the range of the file it maps. With the
mappings key anywhere in --by, every level had the mapped ranges, so
under `--by files,mappings` libpython's row was the 5.7 MB python maps
of it, not its 23 MB, and the TOTAL the sum of the ranges; and an "[N
others]" row of mappings of several processes added up the same file
range once per process, above the TOTAL. Two python3 processes waiting
on a pipe are recorded (`record -p A,B`); the ground truth is their
/proc/PID/maps and the files' sizes (os.stat, as `ls -l`):
 - `--by files`: each file's row is its size; the TOTAL the sum of the
   sizes of the files mapped;
 - `--by files,mappings` and `--by pids,files,mappings`: the same file
   rows and TOTAL; each mapping's row the file range it maps (its length,
   clipped at the end of the file);
 - `--by mappings --sort addr -n 3`: the "[N others]" row's FILE SIZE and
   VM SIZE are at most the TOTAL's.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# maps 64 KiB at 0x200000 (a hint: where it is free), an address of
# fewer than 8 hex digits, says ready and waits on stdin
WAIT = """
import ctypes, sys
libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
a = libc.mmap(0x200000, 65536, 3, 0x22, -1, 0)  # rw-p, private anon
ctypes.memset(a, 1, 65536)
print('ready', hex(a), flush=True)
sys.stdin.readline()
"""


def report(data, by, *extra):
    """The json document of `report --by by -F file,vm`."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-F",
                          "file,vm", "-n", "0", "--format", "json",
                          *extra], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def read_maps(pid):
    """[(range, perms, offset, path)] of the lines of /proc/PID/maps: the
    range as the kernel prints it ("00400000-00b6f000"), path "" for an
    unnamed mapping."""
    got = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            w = line.rstrip("\n").split(maxsplit=5)
            got.append((w[0], w[1], int(w[2], 16), w[5] if len(w) > 5
                        else ""))
    return got


def file_maps(maps):
    """[(start, end, offset, path, range)] of the regular files of maps."""
    got = []
    for rng, _, off, path in maps:
        if not path.startswith("/") or path.endswith(" (deleted)") or \
                not os.path.isfile(path):
            continue
        lo, hi = (int(x, 16) for x in rng.split("-"))
        got.append((lo, hi, off, path, rng))
    return got


def walk(rows, depth, fn, path=()):
    for r in rows:
        fn(depth, path + (r["name"],), r)
        walk(r.get("rows", []), depth + 1, fn, path + (r["name"],))


def main():
    procs = [subprocess.Popen([sys.executable, "-c", WAIT],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True) for _ in range(2)]
    with tempfile.TemporaryDirectory(prefix="memsz-t3325-") as tmp:
        data = os.path.join(tmp, "py.data")
        try:
            low = {}
            for p in procs:
                w = p.stdout.readline().split()
                check(len(w) == 2 and w[0] == "ready",
                      f"python3 {p.pid} is ready ({w})")
                low[p.pid] = int(w[1], 16) if len(w) == 2 else 0
            whole = {p.pid: read_maps(p.pid) for p in procs}
            maps = {pid: file_maps(m) for pid, m in whole.items()}
            subprocess.run([MEMSZ, "record", "-p",
                            ",".join(str(p.pid) for p in procs),
                            "--duration", "0", "-o", data],
                           capture_output=True, text=True, check=True)
        finally:
            for p in procs:
                p.kill()
                p.wait()
        size = {m[3]: os.stat(m[3]).st_size
                for ms in maps.values() for m in ms}
        # what each mapping maps of its file: its length, clipped at the
        # end of the file; by the range /proc/PID/maps prints
        ranges = {rng: min(hi - lo, max(0, size[p] - off))
                  for ms in maps.values() for lo, hi, off, p, rng in ms}
        checks(data, size, ranges)
        label_checks(data, whole, low)


def checks(data, size, ranges):
    files = report(data, "files")
    whole = sum(size.values())
    check(files["total"]["file_size"] == whole,
          f"--by files: TOTAL FILE SIZE {files['total']['file_size']} == "
          f"{whole}, the sizes of the {len(size)} files mapped")
    for by in ("files", "files,mappings", "pids,files,mappings"):
        doc = report(data, by) if by != "files" else files
        lvl = by.split(",").index("files")
        bad, seen, maps_bad, maps_seen = [], 0, [], 0

        def row(depth, path, r):
            nonlocal seen, maps_seen
            if depth == lvl and r["name"] in size:
                seen += 1
                if r["file_size"] != size[r["name"]]:
                    bad.append((r["name"], r["file_size"], size[r["name"]]))
            elif depth == lvl + 1 and r["name"].split()[0] in ranges:
                maps_seen += 1
                want = ranges[r["name"].split()[0]]
                if r["file_size"] != want:
                    maps_bad.append((r["name"], r["file_size"], want))
        walk(doc["rows"], 0, row)
        check(seen >= len(size) and not bad,
              f"--by {by}: {seen} file rows have the file's size "
              f"(wrong: {bad[:3]})")
        check(doc["total"]["file_size"] == whole,
              f"--by {by}: TOTAL FILE SIZE {doc['total']['file_size']} "
              f"== {whole}")
        if "mappings" in by:
            check(maps_seen >= len(ranges) and not maps_bad,
                  f"--by {by}: {maps_seen} mapping rows have the file "
                  f"range they map (wrong: {maps_bad[:3]})")
    doc = report(data, "mappings", "--sort", "addr", "-n", "3")
    others = [r for r in doc["rows"] if r["name"].endswith(" others]")]
    check(len(others) == 1, "--by mappings -n 3: an [N others] row")
    for col in ("file_size", "vm_size"):
        got = [r[col] for r in others]
        check(got and got[0] <= doc["total"][col],
              f"--by mappings -n 3: [N others] {col} {got} <= the "
              f"TOTAL's {doc['total'][col]}")


def label_checks(data, whole, low):
    """The mapping labels of each process against its /proc/PID/maps."""
    doc = report(data, "pids,mappings", "--sort", "addr")
    for pr in doc["rows"]:
        pid = int(pr["name"].split()[0])
        if pid not in whole:
            continue
        labels = [r["name"] for r in pr.get("rows", [])]
        maps = {f"{rng} {perms}" for rng, perms, _, _ in whole[pid]}
        odd = [x for x in labels if " ".join(x.split()[:2]) not in maps]
        check(labels and not odd,
              f"pid {pid}: every mapping label starts \"start-end perms\" "
              f"as /proc/PID/maps prints it (not there: {odd[:3]})")
        want = "%08x-%08x rw-p" % (low[pid], low[pid] + 65536)
        check(any(x.startswith(want + " ") for x in labels),
              f"pid {pid}: the mapping at {low[pid]:#x} is "
              f"\"{want} ...\" (got "
              f"{[x for x in labels if x.startswith(('0', '2'))][:2]})")
        starts = [int(x.split("-")[0], 16) for x in labels]
        check(starts == sorted(starts) and starts[0] <= low[pid],
              f"pid {pid}: --sort addr puts its {len(labels)} mappings "
              "in address order")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
