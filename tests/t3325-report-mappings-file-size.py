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

WAIT = "import sys; print('ready', flush=True); sys.stdin.readline()"


def report(data, by, *extra):
    """The json document of `report --by by -F file,vm`."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-F",
                          "file,vm", "-n", "0", "--format", "json",
                          *extra], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def file_maps(pid):
    """[(start, end, offset, path)] of the regular files pid maps."""
    got = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            w = line.split(maxsplit=5)
            if len(w) < 6 or not w[5].startswith("/"):
                continue
            path = w[5].rstrip("\n")
            if path.endswith(" (deleted)") or not os.path.isfile(path):
                continue
            lo, hi = (int(x, 16) for x in w[0].split("-"))
            got.append((lo, hi, int(w[2], 16), path))
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
            for p in procs:
                check(p.stdout.readline().split() == ["ready"],
                      f"python3 {p.pid} is ready")
            maps = {p.pid: file_maps(p.pid) for p in procs}
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
        # end of the file
        ranges = {f"{lo:x}-{hi:x}": min(hi - lo, max(0, size[p] - off))
                  for ms in maps.values() for lo, hi, off, p in ms}
        checks(data, size, ranges)


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


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
