#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3300: `--format pprof` read back by pprof itself (`go tool pprof`).

tests/workloads/rep_fault_paths.c, built here, makes memory resident from
three known call paths (main -> alloc_a -> touch, alloc_b -> touch,
alloc_c -> memset) and stops itself; it is recorded with
`memsz record --faults`. Then, for the same recording and keys, pprof's
view of the profile memsz wrote must be memsz's own csv:
 - --by files,sections,symbols: `pprof -top` prints the csv's RSS total,
   and its top rows (flat bytes per function) are the csv's leaf rows
   summed by label; the same for the pss and dirty sample types;
 - every file's mapping carries the build-id readelf finds in the file;
 - --by pids,sections: the labels pid, comm (the command name the
   kernel gave the workload, as /proc/PID/comm says it: not its command
   line), cmdline and sections as `pprof -tags` lists them, with the
   csv's bytes;
 - --by callers: the total, the flat bytes of the innermost frames, the
   cumulative bytes of alloc_a/b/c, and `pprof -traces` shows each stack
   leaf first (touch, alloc_a, main) with the csv's bytes; `pprof -tags`
   lists the labels callers and frame (innermost frames, with the
   report's bytes), `-tagfocus=callers=alloc_a` keeps alloc_a's stacks;
 - the main binary is mapping 1 (the workload, with its build-id), so
   pprof never says "Main binary filename not available";
 - memsz size --format pprof of the workload: FILE SIZE total is the
   file's size, and the top rows are size's csv;
 - pprof output is refused on a terminal.
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
from memsz_testlib import (  # noqa: E402
    MEMSZ, SRCDIR, check, report)


GO_ENV = {}
COMM = [None]  # the workload's /proc/PID/comm


def pprof(*args):
    """Stdout of `go tool pprof ARGS`; raises if it fails."""
    r = subprocess.run(["go", "tool", "pprof", *args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=GO_ENV)
    if r.returncode:
        raise RuntimeError("go tool pprof " + " ".join(args) + ": " +
                           r.stderr.strip())
    return r.stdout


def pprof_stderr(*args):
    """Stderr of `go tool pprof ARGS` (its warnings)."""
    return subprocess.run(["go", "tool", "pprof", *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=GO_ENV).stderr


def tag_values(tags, key):
    """{value: bytes} of the block "KEY: Total ..." of pprof -tags
    -unit=B."""
    m = re.search(r"^ " + re.escape(key) + r": Total [^\n]*\n((?:\s+[\d.]+B "
                  r"\([^)]*\): [^\n]*\n?)*)", tags, re.M)
    out = {}
    for line in (m.group(1).splitlines() if m else []):
        v = re.match(r"^\s+([\d.]+)B \([^)]*\): (.*)$", line)
        if v:
            out[v.group(2)] = float(v.group(1))
    return out


def write_pprof(cmd, out, *args):
    """memsz CMD ARGS --format pprof > out."""
    with open(out, "wb") as f:
        subprocess.run([MEMSZ, cmd, *args, "--format", "pprof"], stdout=f,
                       stderr=subprocess.PIPE, check=True)


TOP_TOTAL = re.compile(r"of (\d+)B total")
# flat, flat%, sum%, cum, cum%, name; a zero prints as "0", not "0B"
TOP_ROW = re.compile(r"^\s*(\d+)B?\s+\S+%\s+\S+%\s+(\d+)B?\s+\S+%\s+(.*)$")


def top(prof, index, n=100000):
    """pprof -top in bytes: (total, [(flat, cum, name)...]) by flat."""
    out = pprof("-top", "-unit=B", "-nodefraction=0", "-edgefraction=0",
                f"-nodecount={n}", f"-sample_index={index}", prof)
    m = TOP_TOTAL.search(out)
    rows = [(int(a), int(b), c) for a, b, c in
            (r.groups() for r in map(TOP_ROW.match, out.splitlines())
             if r)]
    return (int(m.group(1)) if m else None), rows


def last_key(*keys):
    """The label of a csv row's leaf: its last non-empty key field (a
    row whose keys below have nothing to add ends early)."""
    return lambda r: next((r[k] for k in reversed(keys) if r[k]), "")


def by_leaf(rows, col, leaf):
    """Sum of column col of csv rows by leaf(row)."""
    s = {}
    for r in rows:
        k = leaf(r)
        s[k] = s.get(k, 0) + round(float(r[col]))
    return s


def compare_top(prof, rows, col, leaf, what):
    total, trows = top(prof, col)
    want_total = sum(round(float(r[col])) for r in rows)
    exact = col != "pss"  # PSS is rounded to bytes per row
    check(total is not None and (total == want_total if exact else
                                 abs(total - want_total) <= len(rows)),
          f"{what}: pprof -top total {col} {total} == report's "
          f"{want_total}")
    sums = by_leaf(rows, col, leaf)
    top10 = [r for r in trows if r[0]][:10]
    bad = [(name, flat, sums.get(name)) for flat, _, name in top10
           if sums.get(name) is None or
           (abs(sums[name] - flat) > (0 if exact else len(rows)))]
    want10 = sorted((v for v in sums.values() if v), reverse=True)[:10]
    got10 = [r[0] for r in top10]
    check(top10 and not bad and
          (got10 == want10 if exact else
           all(abs(a - b) <= len(rows) for a, b in zip(got10, want10))),
          f"{what}: pprof's top 10 {col} rows are the report's "
          f"({got10[:4]}... vs {want10[:4]}...; mismatches {bad[:3]})")


def build_ids(prof):
    """{file: build-id} of the Mappings section of pprof -raw."""
    out = pprof("-raw", prof)
    ids, inmaps = {}, False
    for line in out.splitlines():
        if line.startswith("Mappings"):
            inmaps = True
            continue
        if inmaps:
            m = re.match(r"^\s*\d+: \S+ (\S+)(?: ([0-9a-f]+))?", line)
            if m:
                ids[m.group(1)] = m.group(2) or ""
    return ids


def sample_types(prof):
    """The sample types of pprof -raw, "[dflt]" marking the default."""
    raw = pprof("-raw", prof)
    return raw.split("Samples:", 1)[1].lstrip().splitlines()[0].split()


def readelf_build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else ""


def main_mapping(prof):
    """(file, build-id) of mapping 1 in pprof -raw."""
    raw = pprof("-raw", prof).split("Mappings", 1)
    m = re.search(r"^1: \S+ (\S+)(?: ([0-9a-f]+))?", raw[1] if len(raw) > 1
                  else "", re.M)
    return (m.group(1), m.group(2) or "") if m else (None, None)


def record(tmp):
    exe = os.path.join(tmp, "fault_paths")
    subprocess.run(["gcc", "-O2", "-fomit-frame-pointer",
                    "-fasynchronous-unwind-tables", "-Wl,--build-id",
                    "-o", exe, os.path.join(SRCDIR, "tests/workloads",
                                            "rep_fault_paths.c")],
                   check=True)
    data = os.path.join(tmp, "memsz.data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--faults", "--",
                            exe], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    line = rec.stdout.readline()
    if len(line.split()) != 3:
        rec.kill()
        err = rec.communicate()[1]
        if "perf" in err or "permission" in err.lower():
            lib.skip("cannot sample page faults: " + err.strip())
        check(False, "workload printed its buffers: " + err.strip())
        return None, None
    # the workload stops itself: wait for that, then let it finish
    pid = lib.stopped_child(rec.pid)
    with open(f"/proc/{pid}/comm") as f:
        COMM[0] = f.read().strip()
    err = lib.resume(rec, pid)[1]
    check(rec.returncode == 0, "record exits 0: " + err.strip())
    return exe, data


def main():
    with lib.pprof_tmp("memsz-t3300-") as (tmp, env):
        GO_ENV.update(env)
        exe, data = record(tmp)
        if not data:
            return

        # files, sections, symbols: totals and top rows per sample type
        keys = "files,sections,symbols"
        prof = os.path.join(tmp, "fss.pb.gz")
        write_pprof("report", prof, "-i", data, "--by", keys)
        with open(prof, "rb") as f:
            check(f.read(2) == b"\x1f\x8b", "the profile is gzipped")
        rows = report(data, keys)
        for col in ("rss", "pss", "dirty", "file_size"):
            compare_top(prof, rows, col,
                        last_key("files", "sections", "symbols"),
                        f"--by {keys}")
        # --fields chooses the sample types, in order; RES%, a ratio,
        # is none
        prof = os.path.join(tmp, "fields.pb.gz")
        write_pprof("report", prof, "-i", data, "--by", keys, "-F",
                    "dirty,res,rss")
        check(sample_types(prof) == ["dirty/bytes[dflt]", "rss/bytes"],
              f"-F dirty,res,rss: sample types dirty (default) and rss "
              f"({sample_types(prof)})")
        compare_top(prof, rows, "dirty",
                    last_key("files", "sections", "symbols"),
                    f"-F dirty,res,rss --by {keys}")
        prof = os.path.join(tmp, "fss.pb.gz")
        ids = build_ids(prof)
        check(ids.get(exe) == readelf_build_id(exe) != "",
              f"the workload's mapping has its build-id "
              f"({ids.get(exe)} == readelf's)")
        libc = [p for p in ids if "/libc.so" in p]
        check(libc and ids[libc[0]] == readelf_build_id(libc[0]),
              f"libc's mapping has its build-id ({libc})")

        # labels: pid, comm, sections
        prof = os.path.join(tmp, "ps.pb.gz")
        write_pprof("report", prof, "-i", data, "--by", "pids,sections")
        rows = report(data, "pids,sections")
        tags = pprof("-tags", "-unit=B", "-sample_index=rss", prof)
        pids = {r["pids"].split()[0] for r in rows}
        comms = {r["pids"].split(" ", 1)[1] for r in rows}
        check(" pid:" in tags and all(p in tags for p in pids) and
              " comm:" in tags and all(c in tags for c in comms),
              f"pprof -tags lists pid {pids} and comm {comms}")
        comm = tag_values(tags, "comm")
        check(COMM[0] and list(comm) == [COMM[0]],
              f"pprof -tags: comm is the command name {COMM[0]!r} "
              f"({list(comm)})")
        cmdline = tag_values(tags, "cmdline")
        check(len(cmdline) == 1 and list(cmdline)[0].startswith(exe),
              f"pprof -tags: cmdline is the command line ({list(cmdline)})")
        text = [r for r in rows if r["sections"] == ".text"]
        want = sum(int(r["rss"]) for r in text)
        m = re.search(r"^\s*([\d.]+)B \(\s*[\d.]+%\): \.text$", tags,
                      re.M)
        check(m and float(m.group(1)) == want,
              f"pprof -tags: sections .text {m and m.group(1)} B == "
              f"report's {want}")

        # callers: the real stacks
        prof = os.path.join(tmp, "callers.pb.gz")
        write_pprof("report", prof, "-i", data, "--by", "callers")
        rows = report(data, "callers")
        compare_top(prof, rows, "rss", lambda r: r["callers"].split(";")[-1],
                    "--by callers")
        total, trows = top(prof, "rss")
        cum = {name: c for _, c, name in trows}
        for fn in ("alloc_a", "alloc_b", "alloc_c"):
            want = sum(int(r["rss"]) for r in rows
                       if f";{fn};" in r["callers"] or
                       r["callers"].startswith(fn + ";"))
            check(want > 0 and cum.get(fn) == want,
                  f"--by callers: cumulative {fn} {cum.get(fn)} == the "
                  f"report's stacks through it ({want})")
        warn = pprof_stderr("-top", prof)
        check("Main binary filename not available" not in warn,
              f"--by callers: pprof finds the main binary ({warn[:80]!r})")
        check(main_mapping(prof) == (exe, readelf_build_id(exe)),
              f"--by callers: mapping 1 is the workload with its build-id "
              f"({main_mapping(prof)})")
        tags = pprof("-tags", "-unit=B", "-sample_index=rss", prof)
        frames = tag_values(tags, "frame")
        want = by_leaf(rows, "rss", lambda r: r["callers"].split(";")[-1])
        want = {k: v for k, v in want.items() if v}
        check(frames and frames == want,
              f"pprof -tags: frame lists the innermost frames with the "
              f"report's bytes ({sorted(frames.items())[:3]}... vs "
              f"{sorted(want.items())[:3]}...)")
        stacks = tag_values(tags, "callers")
        check(stacks and sum(stacks.values()) == sum(want.values()) and
              set(stacks) <= {r["callers"] for r in rows},
              f"pprof -tags: callers lists the stacks ({len(stacks)})")
        out = pprof("-top", "-unit=B", "-sample_index=rss",
                    "-nodefraction=0", "-tagfocus=callers=alloc_a", prof)
        shown = re.search(r"Showing nodes accounting for (\d+)B", out)
        want = sum(int(r["rss"]) for r in rows if "alloc_a" in r["callers"])
        check(shown and int(shown.group(1)) == want,
              f"-tagfocus=callers=alloc_a: {shown and shown.group(1)} B == "
              f"the report's stacks through alloc_a ({want})")
        traces = pprof("-traces", "-unit=B", "-sample_index=rss", prof)
        # one block per sample: "-----+----" lines, value then frames
        blocks = [b.strip().splitlines()
                  for b in re.split(r"^-+\+-+$", traces, flags=re.M)[1:]]
        stacks = {}
        for b in blocks:
            # a sample's labels ("frame:  touch") come before its value
            while b and not re.match(r"^\s*\d+B\s", b[0]):
                b = b[1:]
            if not b:
                continue
            m = re.match(r"^\s*(\d+)B\s+(.*)$", b[0])
            if m:
                frames = [m.group(2).strip()] + [x.strip() for x in b[1:]]
                stacks[";".join(reversed(frames))] = int(m.group(1))
        for fn in ("alloc_a", "alloc_b"):
            want = {r["callers"]: int(r["rss"]) for r in rows
                    if r["callers"].endswith(f"main;{fn};touch")}
            got = {k: stacks.get(k) for k in want}
            check(len(want) == 1 and got == want,
                  f"pprof -traces: touch <- {fn} <- main ..., leaf first, "
                  f"{got} == report's {want}")

        # memsz size
        prof = os.path.join(tmp, "size.pb.gz")
        write_pprof("size", prof, "--by", "sections,symbols", exe)
        out = subprocess.run([MEMSZ, "size", "--by", "sections,symbols",
                              "-n", "0", "--format", "csv", exe],
                             stdout=subprocess.PIPE, text=True,
                             check=True).stdout
        srows = list(csv.DictReader(io.StringIO(out)))
        total, _ = top(prof, "file_size")
        check(total == os.path.getsize(exe),
              f"size: pprof total file_size {total} == the file's size "
              f"{os.path.getsize(exe)}")
        compare_top(prof, srows, "file_size", last_key("sections", "symbols"),
                    "size --by sections,symbols")
        compare_top(prof, srows, "vm_size", last_key("sections", "symbols"),
                    "size --by sections,symbols")

        # --fields chooses the sample types
        prof = os.path.join(tmp, "size-vm.pb.gz")
        write_pprof("size", prof, "--by", "sections,symbols", "-F", "vm",
                    exe)
        check(sample_types(prof) == ["vm_size/bytes[dflt]"],
              "size -F vm: the one sample type is vm_size")
        compare_top(prof, srows, "vm_size", last_key("sections", "symbols"),
                    "size -F vm")

        # binary output is not written to a terminal (script(1) gives
        # memsz a pseudo-terminal as stdout)
        r = subprocess.run(["script", "-qec", f"'{MEMSZ}' size --format "
                            f"pprof '{exe}'; echo rc=$?", "/dev/null"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        check("redirect it to a file" in r.stdout and "rc=1" in r.stdout and
              "\x1f\x8b" not in r.stdout,
              "pprof to a terminal: refused with one line, exit 1 "
              f"({r.stdout.strip()[:120]!r})")


main()
sys.exit(lib.finish())
