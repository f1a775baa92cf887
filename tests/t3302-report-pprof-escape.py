#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3302: `--format pprof` holds names others chose escaped, as the text
formats show them.

`cat` is copied to a name with ESC [31m, a C1 control (U+0085) and the
bytes 0xff 0xfe (not UTF-8), started reading a pipe the test holds, and
recorded with a one-shot `record -p PID --duration 0` (it runs until
the test closes the pipe: nothing here waits for a time to pass). Its pprof profile is read
back two ways:
 - its string table, unpacked here from the gzipped protocol buffer
   (no go needed), must be valid UTF-8 in every string (profile.proto
   is proto3, whose string fields are UTF-8: strict readers refuse
   anything else), hold no control byte, and hold the file's name as
   the table shows it;
 - `go tool pprof -raw` and `-top` must print no control byte (they
   print the strings as stored, so a raw ESC reached the terminal), and
   `-top -sample_index=rss` gives the image, under the label the table
   shows (\\x1b[31m, \\u0085, \\xff\\xfe), the csv's RSS of it.

Two copies running at once, one named x<ESC>y-cat and one named the
text x\\x1by-cat (which the table shows alike, as two rows), must be
two strings in the string table and two samples with two locations in
`go tool pprof -raw`, not one sample adding up both. Only the parts
that run `go tool pprof` are skipped without go.
"""
import csv
import gzip
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def string_table(pb):
    """Field 6 (string_table) of a Profile message, as bytes."""
    return [v for k, v in lib.pb_fields(pb) if k == 6]


def controls(b):
    return sorted({c for c in b if (c < 0x20 and c not in b"\n\t")
                   or c == 0x7f})


def go_env(tmp):
    """The environment go tool pprof runs in, or None (skip_part) without
    go."""
    if not shutil.which("go"):
        lib.skip_part("go (golang-go) is not installed: "
                      "go tool pprof not run")
        return None
    return lib.go_env(tmp)


def profile(data, prof):
    """Write data's pprof profile to prof; its string table."""
    with open(prof, "wb") as f:
        subprocess.run([MEMSZ, "report", "-i", data, "--format", "pprof"],
                       stdout=f, stderr=subprocess.PIPE, check=True)
    with gzip.open(prof) as f:
        return string_table(f.read())


def record(data, names):
    """Record copies of cat named names, each running until its stdin
    (a pipe held here) closes, with one one-shot record -p once each
    waits on that pipe (at Popen's return it has not yet run: its
    image is mapped but not one page of it resident)."""
    procs = [subprocess.Popen([n], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL) for n in names]
    try:
        for p in procs:
            lib.reading_pipe(p.pid)  # its image touched, not just exec'd
        pids = sum([["-p", str(p.pid)] for p in procs], [])
        subprocess.run([MEMSZ, "record", "-o", data, "--duration", "0"]
                       + pids, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, check=True)
    finally:
        for p in procs:
            p.stdin.close()
            p.wait()


def main():
    cat = shutil.which("cat")
    if not cat:
        lib.skip("no cat(1)")
    with tempfile.TemporaryDirectory(prefix="memsz-t3302-") as tmp:
        env = go_env(tmp)
        name = os.path.join(tmp.encode(),
                            b"s\x1b[31m-\xc2\x85-\xff\xfe-cat")
        shutil.copy(cat, name)
        data = os.path.join(tmp, "e.data")
        record(data, [name])
        shown = os.path.join(tmp, "s\\x1b[31m-\\u0085-\\xff\\xfe-cat")
        prof = os.path.join(tmp, "e.pb.gz")
        strs = profile(data, prof)
        bad = []
        for s in strs:
            try:
                s.decode("utf-8")
            except UnicodeDecodeError:
                bad.append(s)
        check(strs and not bad,
              "every string of the profile is UTF-8 (%d of %d not: %r)" %
              (len(bad), len(strs), bad[:2]))
        check(not [s for s in strs if controls(s)],
              "no string of the profile holds a control byte (%r)" %
              [s for s in strs if controls(s)][:2])
        check(shown.encode() in strs,
              "the string table holds the file's name as the table shows "
              "it (%s)" % shown)
        if env:
            go_checks(data, prof, shown, env)
        twins(tmp, env, cat)


def go_checks(data, prof, shown, env):
    """What go tool pprof prints of prof."""
    for view in ("-raw", "-top"):
        r = subprocess.run(["go", "tool", "pprof", view, prof],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
        check(r.returncode == 0 and not controls(r.stdout),
              "pprof %s: no control byte in its output (exit %d, %r)"
              % (view, r.returncode, controls(r.stdout)))
    rss = 0
    out = subprocess.run([MEMSZ, "report", "-i", data, "--format", "csv"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=True).stdout
    for r in csv.DictReader(io.StringIO(out.decode())):
        if r["files"] == shown:
            rss += int(r["rss"])
    top = subprocess.run(["go", "tool", "pprof", "-top", "-unit=B",
                          "-sample_index=rss", prof],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env).stdout.decode(errors="replace")
    flat = [ln.split()[0] for ln in top.splitlines()
            if ln.rstrip().endswith(shown)]
    check(rss and flat == ["%dB" % rss],
          "pprof -top: the image under the table's label with the "
          "csv's RSS (%d; pprof %r)" % (rss, flat))


def twins(tmp, env, cat):
    """x<ESC>y-cat and x\\x1by-cat: two strings, two samples in
    pprof -raw."""
    names = [os.path.join(tmp.encode(), b"x\x1by-cat"),
             os.path.join(tmp.encode(), b"x\\x1by-cat")]
    for n in names:
        shutil.copy(cat, n)
    data = os.path.join(tmp, "t.data")
    record(data, names)
    out = subprocess.run([MEMSZ, "report", "-i", data, "--format", "csv"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         check=True).stdout.decode()
    rows = [r for r in csv.DictReader(io.StringIO(out))
            if r["files"] == os.path.join(tmp, "x\\x1by-cat")]
    check(len(rows) == 2, "the table shows the two copies as two rows "
          "(%d rows)" % len(rows))
    prof = os.path.join(tmp, "t.pb.gz")
    strs = {s for s in profile(data, prof) if s.endswith(b"x1by-cat")}
    check(len(strs) == 2,
          "the string table names x<ESC>y-cat and x\\\\x1by-cat apart "
          "(%r)" % sorted(strs))
    if not env:
        return
    raw = subprocess.run(["go", "tool", "pprof", "-raw", prof],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env).stdout.decode(errors="replace")
    samples = [ln.strip() for ln in raw.splitlines()
               if ln.strip().startswith("files:[") and "x1by-cat" in ln]
    locs = [ln for ln in
            raw.split("Locations")[-1].split("Mappings")[0].splitlines()
            if "x1by-cat" in ln]
    check(len(samples) == 2 and len(set(samples)) == 2 and len(locs) == 2,
          "pprof -raw: x<ESC>y-cat and x\\\\x1by-cat are two samples "
          "(%r) at two locations (%r)" % (samples, locs))


main()
sys.exit(lib.finish())
