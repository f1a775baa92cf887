#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3200: `memsz diff` against ground truth from readelf, nm, stat and smaps.

ELF: a fixture library built twice here with gcc, the second build with one
added function and a grown array. The diff's FILE SIZE change of the whole
file equals the change of `stat -c %s`; by sections, .text and .data change
by the change of their readelf -SW sizes, which nm -S shows to be the added
function and the grown array; by symbols the function is [new]; build-id
notes tell a rebuild from a file that changed with its build-id kept.

Recordings: diff_grow (built here) writes N pages, is stopped and recorded
(`record -p`), then writes M more pages, is stopped and recorded again.
The change of RSS (total, and of the grown mapping) equals the change of
smaps Rss. Runs of a program rebuilt in place between them are one row
under --by pids, and the notes say whether its build-id changed. A third
recording holds both states as its first and last
snapshots (the first is waited for in `memsz dump`, no sleeps); `diff -i`
gives the same change. csv and json are parsed here.
"""
import csv
import io
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, PAGE, SRCDIR, check  # noqa: E402

LIB_SRC = r"""
#ifndef N
#define N 1000
#endif
int grown_array[N] = { 1 };
int kept_function(int x) { return x + grown_array[x % N]; }
#ifdef V2
int added_function(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += grown_array[i % N] * i;
	return s;
}
#endif
"""


def run(*args, ok=True):
    p = subprocess.run(args, capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p


def diff_csv(*args):
    out = run(MEMSZ, "diff", "-n", "0", "--format", "csv", *args)
    return list(csv.DictReader(io.StringIO(out.stdout))), out.stderr


def section_sizes(path):
    sizes = {}
    for line in lib.readelf(["-S"], path).splitlines():
        p = line.replace("[ ", "[").split()
        if len(p) > 6 and p[0].startswith("[") and p[0] != "[Nr]":
            sizes[p[1]] = int(p[5], 16)
    return sizes


def nm_size(path, sym):
    for line in run("nm", "-S", path).stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[3] == sym:
            return int(p[1], 16)
    return None


def elf_case(tmp):
    src = os.path.join(tmp, "lib.c")
    with open(src, "w") as f:
        f.write(LIB_SRC)
    old, new = os.path.join(tmp, "old.so"), os.path.join(tmp, "new.so")
    flags = ["gcc", "-O1", "-shared", "-fPIC", "-falign-functions=1",
             "-Wl,--build-id"]
    run(*flags, "-o", old, src)
    run(*flags, "-DV2", "-DN=3000", "-o", new, src)

    stat = [int(run("stat", "-c", "%s", p).stdout) for p in (old, new)]
    rows, err = diff_csv("--by", "files", old, new)
    check(len(rows) == 1 and rows[0]["files"] == new,
          "ELF --by files: one row, named by NEW")
    check(int(rows[0]["file_size_delta"]) == stat[1] - stat[0],
          f"ELF: FILE SIZE change {rows[0]['file_size_delta']} == stat "
          f"change {stat[1] - stat[0]}")
    check(int(rows[0]["file_size_old"]) == stat[0] and
          int(rows[0]["file_size_new"]) == stat[1],
          "ELF: FILE SIZE OLD and NEW are the files' sizes")
    check("new build-id" in err, "ELF: a note says the build-id is new")

    so, sn = section_sizes(old), section_sizes(new)
    rows, _ = diff_csv("--by", "sections", old, new)
    by = {r["sections"]: r for r in rows}
    added, arr_o, arr_n = (nm_size(new, "added_function"),
                           nm_size(old, "grown_array"),
                           nm_size(new, "grown_array"))
    for sec in (".text", ".data"):
        want = sn[sec] - so[sec]
        got = int(by[sec]["vm_size_delta"]) if sec in by else None
        check(got == want, f"ELF: {sec} VM SIZE change {got} == readelf "
              f"change {want}")
    check(sn[".text"] - so[".text"] == added,
          f"ELF: .text grew by nm size of added_function ({added})")
    check(sn[".data"] - so[".data"] == arr_n - arr_o,
          f"ELF: .data grew by nm growth of grown_array "
          f"({arr_n - arr_o})")
    total_vm = sum(int(r["vm_size_delta"]) for r in rows)
    total_file = sum(int(r["file_size_delta"]) for r in rows)
    check(total_file == stat[1] - stat[0],
          f"ELF --by sections: FILE SIZE changes sum to {stat[1]-stat[0]}")

    rows, _ = diff_csv("--by", "symbols", old, new)
    by = {r["symbols"]: r for r in rows}
    check(by.get("added_function", {}).get("change") == "new" and
          int(by["added_function"]["vm_size_old"]) == 0,
          "ELF --by symbols: added_function is new")
    check(by.get("grown_array", {}).get("change") == "changed",
          "ELF --by symbols: grown_array changed")
    # --by symbols charges each symbol its hash-table words too, and one
    # more dynamic symbol re-lays .gnu.hash's buckets: only those move
    rows, _ = diff_csv("--by", "symbols,sections", old, new)
    kept = sorted(r["sections"] for r in rows
                  if r["symbols"] == "kept_function")
    check(set(kept) <= {".gnu.hash"},
          f"ELF --by symbols: the unchanged function is left out but for "
          f"its .gnu.hash words ({kept})")
    check(sum(int(r["vm_size_delta"]) for r in rows) == total_vm,
          "ELF: VM SIZE changes sum the same by sections and by symbols")
    # --fields chooses the columns compared; --filter the rows of both
    # sides; nm gives the size of what is kept
    # (a symbol's row holds its metadata too: at least its nm size)
    want = by["added_function"]["vm_size_delta"]
    rows, _ = diff_csv("--by", "symbols", "-F", "vm", "--filter",
                       "symbols=^added_", old, new)
    check(len(rows) == 1 and rows[0]["symbols"] == "added_function" and
          rows[0]["vm_size_delta"] == want and int(want) >= added and
          "file_size_delta" not in rows[0],
          f"ELF --fields vm --filter: added_function alone, VM SIZE "
          f"+{want} as unfiltered (nm: {added}), no FILE SIZE column")
    rows, _ = diff_csv("--by", "symbols", "--exclude", "symbols=^added_",
                       old, new)
    check(rows and all(r["symbols"] != "added_function" for r in rows),
          "ELF --exclude: the excluded symbol is left out")
    for args, why in ((["-F", "rss"], "rss of an ELF file"),
                      (["-F", "res"], "RES% has no change"),
                      (["--filter", "nokey=x"], "a filter on no key")):
        p = run(MEMSZ, "diff", "--format", "json", *args, old, new,
                ok=False)
        check(p.returncode == 129 and "error" in json.loads(p.stdout or
                                                            "{}"),
              f"diff {' '.join(args)}: usage error (129) in json ({why})")
    tab = run(MEMSZ, "diff", "--by", "symbols", old, new).stdout
    check(any(ln.rstrip().endswith("added_function [new]")
              for ln in tab.splitlines()),
          "ELF table: added_function marked [new]")
    # the table fits --width (and COLUMNS) as report's does: labels cut
    # in the middle, the [new] mark kept; --width 0: whole labels
    for args, env in ((["--width", "60"], {}), ([], {"COLUMNS": "60"})):
        p = subprocess.run([MEMSZ, "diff", "--by", "symbols", *args, old,
                            new], capture_output=True, text=True,
                           env={**os.environ, **env})
        # the table: up to its TOTAL line (the footer notes after it are
        # whole sentences)
        lines = []
        for ln in p.stdout.splitlines():
            lines.append(ln)
            if ln.rstrip().endswith("TOTAL"):
                break
        check(p.returncode == 0 and lines and
              max(len(ln) for ln in lines) <= 60 and
              any(ln.endswith(" [new]") for ln in lines),
              f"ELF table {args or env}: every line fits 60 columns "
              f"(widest {max(len(ln) for ln in lines) if lines else 0})")
    wide = run(MEMSZ, "diff", "--by", "symbols", "--width", "0", old,
               new).stdout
    check(any(ln.rstrip().endswith("added_function [new]")
              for ln in wide.splitlines()),
          "ELF table --width 0: labels whole")

    js = json.loads(run(MEMSZ, "diff", "--format", "json", old, new).stdout)
    check(int(js["total"]["file_size"]["delta"]) == stat[1] - stat[0] and
          js["columns"] == ["file_size", "vm_size"],
          "ELF json: total FILE SIZE change")

    same = run(MEMSZ, "diff", old, old).stdout
    check("identical" in same, "ELF: a file against itself is identical")

    # the same build-id on different bytes: the id did not change
    patched = os.path.join(tmp, "patched.so")
    with open(old, "rb") as f:
        data = bytearray(f.read())
    i = data.find(b"GCC: ")
    data[i + 1] = ord("X")  # in .comment: the ELF stays valid
    with open(patched, "wb") as f:
        f.write(data)
    out = run(MEMSZ, "diff", old, patched)
    check("kept its build-id" in out.stdout,
          "ELF: changed bytes with the same build-id are noted")

    # no build-id on either build: the content tells them apart
    nold, nnew = os.path.join(tmp, "nold.so"), os.path.join(tmp, "nnew.so")
    run(*flags[:-1], "-Wl,--build-id=none", "-o", nold, src)
    run(*flags[:-1], "-Wl,--build-id=none", "-DV2", "-o", nnew, src)
    out = run(MEMSZ, "diff", nold, nnew)
    check("has no build-id" in out.stdout,
          "ELF: changed files without a build-id are noted")

    bad = run(MEMSZ, "diff", old, src, ok=False)
    check(bad.returncode == 1 and "neither" in bad.stderr,
          "a file that is neither kind fails with one line")


def wait_line(proc, prefix):
    line = proc.stdout.readline()
    if not line.startswith(prefix):
        raise RuntimeError(f"workload: expected {prefix!r}, got {line!r}")
    return line.split()


def stop(pid):
    lib.stopped(pid)


def smaps_state(pid, addr):
    vmas = lib.smaps_vmas(pid)
    total = sum(v.get("Rss", 0) for v in vmas)
    mine = [v for v in vmas if v["start"] <= addr < v["end"]][0]
    return total, mine


def record_case(tmp):
    exe = os.path.join(tmp, "diff_grow")
    run("gcc", "-O1", "-o", exe,
        os.path.join(SRCDIR, "tests", "workloads", "diff_grow.c"))
    n, m = 64, 200
    a, b, c = (os.path.join(tmp, x) for x in ("a.data", "b.data",
                                              "c.data"))
    p = subprocess.Popen([exe, str(n), str(m)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    rec = None
    try:
        ready = wait_line(p, "ready")
        pid, addr = int(ready[1]), int(ready[2], 16)
        stop(pid)
        rss_a, vma_a = smaps_state(pid, addr)
        run(MEMSZ, "record", "-p", str(pid), "-o", a, "--duration", "0.1")
        # the third recording: its first snapshot is this state
        rec = subprocess.Popen([MEMSZ, "record", "-p", str(pid), "-o", c],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            lib.wait_until(lambda: lib.snap_ends(c) >= 1,
                           "the third recording's first snapshot")
        except TimeoutError as e:
            lib.fail(str(e))
        check(lib.snap_ends(c) >= 1, "the third recording took its first "
              "snapshot")
        os.kill(pid, signal.SIGCONT)
        p.stdin.write("go\n")
        p.stdin.flush()
        wait_line(p, "grown")
        stop(pid)
        rss_b, vma_b = smaps_state(pid, addr)
        run(MEMSZ, "record", "-p", str(pid), "-o", b, "--duration", "0.1")
        rec.send_signal(signal.SIGINT)
        rec.communicate(timeout=120)
        check(rec.returncode == -signal.SIGINT,
              "the third recording ends on SIGINT (and dies by it)")
    finally:
        if rec and rec.poll() is None:
            rec.kill()
            rec.wait()
        p.kill()
        p.wait()

    want = rss_b - rss_a
    want_vma = vma_b["Rss"] - vma_a["Rss"]
    check(want_vma == m * PAGE, f"smaps: the mapping grew by {m} pages "
          f"({want_vma} bytes)")
    label = f"{vma_a['start']:08x}-{vma_a['end']:08x} rw-p [anon]"
    for name, args in (("two recordings", (a, b)),
                       ("diff -i", ("-i", c)),
                       ("diff -i --snapshot first --snapshot last",
                        ("-i", c, "--snapshot", "first", "--snapshot",
                         "last"))):
        rows, _ = diff_csv("--by", "files", *args)
        got = sum(int(r["rss_delta"]) for r in rows)
        check(got == want, f"{name}: RSS change {got} == smaps Rss change "
              f"{want}")
        rows, _ = diff_csv("--by", "mappings", *args)
        by = {r["mappings"]: r for r in rows}
        got = int(by[label]["rss_delta"]) if label in by else None
        check(got == want_vma, f"{name}: RSS change of {label}: {got} == "
              f"{want_vma}")
        js = json.loads(run(MEMSZ, "diff", "--format", "json", *args)
                        .stdout)
        check(int(js["total"]["rss"]["delta"]) == want and
              int(js["total"]["rss"]["old"]) == rss_a and
              int(js["total"]["rss"]["new"]) == rss_b,
              f"{name}: json total RSS old {rss_a}, new {rss_b}")
    same, _ = diff_csv("--by", "files", "-i", c, "--snapshot", "0",
                       "--snapshot", "0")
    check(same == [], "a snapshot against itself: no rows")
    bad = run(MEMSZ, "diff", "-i", c, "--snapshot", "0", ok=False)
    check(bad.returncode == 129, "-i with one --snapshot is a usage error")
    bad = run(MEMSZ, "diff", a, os.path.join(tmp, "diff_grow"), ok=False)
    check(bad.returncode == 129 and "cannot compare" in bad.stderr,
          "a recording against an ELF file is refused")


def runs_case(tmp):
    """Runs of one program rebuilt in place between runs (two pids each
    time): --by pids pairs them by name; the notes tell a new build-id
    from a program that changed while keeping its build-id or having
    none."""
    src = os.path.join(SRCDIR, "tests", "workloads", "diff_grow.c")
    exe = os.path.join(tmp, "prog")

    def build(opt, build_id):
        run("gcc", opt, f"-Wl,--build-id={build_id}", "-o", exe, src)

    def rec(name, n):
        data = os.path.join(tmp, name)
        p = subprocess.run([MEMSZ, "record", "-o", data, "--", exe, str(n),
                            "0"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        check(p.returncode == 0, f"{name} recorded")
        return data

    build("-O1", "sha1")
    r1 = rec("run1.data", 64)
    build("-O2", "sha1")                 # other code: a new build-id
    r2 = rec("run2.data", 192)
    os.utime(exe, (1, 1))                # same bytes, another mtime
    r3 = rec("run3.data", 64)
    build("-O1", "none")
    r4 = rec("run4.data", 64)
    build("-O2", "none")                 # other code, no build-id
    r5 = rec("run5.data", 64)

    rows, err = diff_csv("--by", "pids", r1, r2)
    # a process is labelled by its command line: "PID /path/prog N 0"
    check(len(rows) == 1 and rows[0]["change"] == "changed" and
          rows[0]["pids"].split()[1].rsplit("/", 1)[-1] == "prog",
          f"two runs --by pids: one process row, changed "
          f"({[(r['pids'], r['change']) for r in rows]})")
    check("of OLD is compared with" in err,
          "two runs: a note says which processes were paired")
    check(f"'{exe}': new build-id" in err,
          "a rebuilt program: a note gives its new build-id")
    _, err = diff_csv(r2, r3)
    check(f"'{exe}' changed" in err and "kept its build-id" in err,
          "same build-id, new mtime: noted as kept build-id")
    _, err = diff_csv(r4, r5)
    check(f"'{exe}' has no build-id" in err,
          "a changed program without build-id is noted")
    _, err = diff_csv(r1, r1)
    check("new build-id" not in err and "kept its" not in err,
          "a recording against itself: no build-id note")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3200-")
    try:
        elf_case(tmp)
        record_case(tmp)
        runs_case(tmp)
    finally:
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
