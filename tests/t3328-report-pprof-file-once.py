#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3328: pprof sums a file several processes map once, as memsz does.

Three python3 processes, each waiting on its stdin (a pipe held here),
are recorded together (`record -p A -p B -p C --duration 0`): they map
the same files (python, libc, ...). memsz's TOTAL counts a file's FILE
SIZE once, and a range of it in VM SIZE once, however many processes map
it; with a process key (pids) every process's row has the whole file.
`--format pprof` wrote one sample per leaf with the leaf's values, so
`go tool pprof -top` summed the file once per process: three times its
size. Ground truth: `stat` of the files, memsz's own csv of the same
recording (--by files: each file once, its rows summing to the TOTAL).
For --by pids,files, files,pids and pids,files,sections:
 - `pprof -top -sample_index=file_size` (and vm_size) prints the csv's
   total, and rss's too (every process's own, summed by both);
 - `pprof -tags -sample_index=file_size`: each file the three map has
   its size on disk (stat) under the files label, and
   `-tagfocus=files=^PATH$` keeps that much of the largest;
 - a comment of the profile says which rule it follows;
 - `--format folded` of file, vm and rss: its stacks sum to the TOTAL
   (what a flame graph's root shows), a file counted once there too.
With --by pids,mappings (a mapping's FILE SIZE is the range it maps, the
TOTAL's the whole file): each range once, whatever key is above it:
pprof's file_size total is that of --by mappings, at most what one
process's rows sum (more than half of it: not once per process);
vm_size's is the TOTAL's.
"""
import csv
import io
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WAIT = "import sys; sys.stdin.readline()"
TOTAL = re.compile(r"of (\d+)B? total")
SHOWN = re.compile(r"Showing nodes accounting for (\d+)B?,")
GO_ENV = {}


def pprof(*args):
    """Stdout of `go tool pprof ARGS`; raises if it fails."""
    r = subprocess.run(["go", "tool", "pprof", *args], capture_output=True,
                       text=True, env=GO_ENV)
    if r.returncode:
        raise RuntimeError("go tool pprof " + " ".join(args) + ": " +
                           r.stderr.strip())
    return r.stdout


def top_total(prof, index, *flt):
    """What `pprof -top` of sample type index sums: the profile's total,
    or with a filter flt the samples it keeps."""
    out = pprof("-top", "-unit=B", "-nodecount=1000000", "-nodefraction=0",
                "-edgefraction=0", f"-sample_index={index}", *flt, prof)
    m = (SHOWN if flt else TOTAL).search(out)
    return int(m.group(1)) if m else None


def file_tags(prof):
    """{path: bytes} of the files label in `pprof -tags` of file_size."""
    out = pprof("-tags", "-unit=B", "-sample_index=file_size", prof)
    m = re.search(r"^ files: Total [^\n]*\n((?:\s+[\d.]+B \([^)]*\): "
                  r"[^\n]*\n?)*)", out, re.M)
    got = {}
    for line in (m.group(1).splitlines() if m else []):
        v = re.match(r"^\s+([\d.]+)B \([^)]*\): (.*)$", line)
        if v:
            got[v.group(2)] = round(float(v.group(1)))
    return got


def csv_rows(data, by):
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                          "-F", "file,vm,rss", "--format", "csv"],
                         capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def sums(rows):
    return {c: sum(int(r[c]) for r in rows)
            for c in ("file_size", "vm_size", "rss")}


def folded_total(data, by, col):
    """The sum of the folded stacks of column col (file, vm, rss): what
    flamegraph.pl makes the root's width."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                          "-F", col, "--format", "folded"],
                         capture_output=True, text=True, check=True).stdout
    return sum(int(line.rsplit(" ", 1)[1]) for line in out.splitlines())


def write_pprof(data, by, prof):
    with open(prof, "wb") as f:
        subprocess.run([MEMSZ, "report", "-i", data, "--by", by,
                        "--format", "pprof"], stdout=f,
                       stderr=subprocess.PIPE, check=True)


def record(data):
    """Record three python3 processes once each waits on its stdin (its
    images mapped and touched); their pids."""
    procs = [subprocess.Popen([sys.executable, "-c", WAIT],
                              stdin=subprocess.PIPE) for _ in range(3)]
    try:
        for p in procs:
            lib.reading_pipe(p.pid)
        pids = sum([["-p", str(p.pid)] for p in procs], [])
        r = subprocess.run([MEMSZ, "record", "-o", data, "--duration", "0"]
                           + pids, capture_output=True, text=True)
    finally:
        for p in procs:
            p.stdin.close()
            p.wait()
    if r.returncode:
        lib.skip("cannot record the processes: " + r.stderr.strip())
    return [p.pid for p in procs]


def shared_files(data, pids):
    """{path: FILE SIZE in the csv} of the files (on disk, FILE SIZE > 0)
    that every one of pids maps."""
    seen = {}
    for r in csv_rows(data, "pids,files"):
        pid = int(r["pids"].split()[0])
        if int(r["file_size"]) and r["files"].startswith("/"):
            seen.setdefault(r["files"], set()).add(pid)
    per_file = {r["files"]: int(r["file_size"])
                for r in csv_rows(data, "files")}
    return {f: per_file[f] for f, who in seen.items()
            if who == set(pids) and os.path.isfile(f)}


def main():
    with lib.pprof_tmp("memsz-t3328-") as (tmp, env):
        GO_ENV.update(env)
        data = os.path.join(tmp, "memsz.data")
        pids = record(data)
        files = shared_files(data, pids)
        if not files:
            lib.skip("the three processes map no file in common")
        sizes = {f: os.stat(f).st_size for f in files}
        if files != sizes:  # the ground truth of what follows
            lib.fail(f"memsz's csv (--by files) has the files at their "
                     f"size on disk: {files} vs {sizes}")
        want = sums(csv_rows(data, "files"))
        big = max(sizes, key=sizes.get)
        for by in ("pids,files", "files,pids", "pids,files,sections"):
            prof = os.path.join(tmp, by.replace(",", "-") + ".pb.gz")
            write_pprof(data, by, prof)
            got = {col: top_total(prof, col) for col in want}
            check(got == want, f"--by {by}: pprof -top totals {got} are "
                  f"memsz's TOTAL {want}")
            tags = file_tags(prof)
            bad = {f: (tags.get(f), s) for f, s in sizes.items()
                   if tags.get(f) != s}
            check(not bad, f"--by {by}: pprof -tags file_size of each "
                  f"file the three map is its stat size (wrong: {bad})")
            got = top_total(prof, "file_size",
                            f"-tagfocus=files=^{re.escape(big)}$")
            check(got == sizes[big],
                  f"--by {by}: -tagfocus on {big}: {got} == its size "
                  f"{sizes[big]}")
            got = {c + "_size" if c != "rss" else c:
                   folded_total(data, by, c) for c in ("file", "vm", "rss")}
            check(got == want, f"--by {by}: the folded stacks' sums {got} "
                  f"are memsz's TOTAL {want}")
            out = pprof("-top", "-nodecount=1", prof)
            check("the other processes' samples carry 0" in out,
                  f"--by {by}: a comment of the profile says which "
                  "sample carries a shared file")

        # mappings: the ranges mapped, each once, whatever key is above
        prof = os.path.join(tmp, "maps.pb.gz")
        write_pprof(data, "mappings", prof)
        once = top_total(prof, "file_size")
        prof = os.path.join(tmp, "pids-maps.pb.gz")
        write_pprof(data, "pids,mappings", prof)
        got = top_total(prof, "file_size")
        first = sums(r for r in csv_rows(data, "pids,mappings")
                     if int(r["pids"].split()[0]) == pids[0])
        check(got == once and first["file_size"] / 2 < got <=
              first["file_size"],
              f"--by pids,mappings: pprof's file_size {got} is --by "
              f"mappings' {once}, the ranges one process maps, each once "
              f"(its csv rows sum {first['file_size']}, a range two "
              "mappings map twice)")
        got = top_total(prof, "vm_size")
        check(got == want["vm_size"], f"--by pids,mappings: pprof's "
              f"vm_size {got} is memsz's TOTAL {want['vm_size']}")


main()
sys.exit(lib.finish())
