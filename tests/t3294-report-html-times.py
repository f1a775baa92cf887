#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3294: the html timeline tells the times --timeline and `memsz dump` do.

`memsz report --timeline` and the footer tell times in seconds since the
recording began (the file header's start); the page's timeline told them
from its first snapshot, so a point --timeline puts at 0.012 s the page
called "at 0.000 s". A python3 that grows twice is recorded; its page is loaded by headless
Chromium and, ground truth, `memsz dump`'s SNAP_BEGIN times less the
header's start give each snapshot's time:
 - every point's title says "at T s" with that T (3 decimals);
 - read on the x axis (its "N s" ticks), the first point is at the first
   snapshot's time since the start, not at 0 (this tells the clocks apart
   by pixels, however soon after the start the first snapshot came);
 - the x ticks are evenly spaced, the first at the first multiple of
   the step at or after the first snapshot's time, not left of it (a
   first tick forced to 0 s passed the check above: it is linear);
 - the first point is at --timeline --format json's first time.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402


def memsz(*args):
    r = subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode:
        lib.fail(" ".join(args) + " exits 0: " + r.stderr.strip()[-200:])
    return r.stdout


def chromium_dom(tmp, page):
    """The DOM of page in headless Chromium, with a fresh profile and its
    TMPDIR (its singleton socket's) a short directory of its own: under a
    long TMPDIR the socket's path would not fit in sun_path."""
    prof = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    with lib.socket_dir() as sock:
        r = subprocess.run(["chromium", "--headless", "--no-sandbox",
                            "--disable-gpu", "--no-first-run",
                            "--disable-background-networking",
                            "--user-data-dir=" + prof,
                            "--window-size=1100,900", "--dump-dom",
                            "file://" + page], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=180,
                           env=dict(os.environ, TMPDIR=sock))
    shutil.rmtree(prof, ignore_errors=True)
    if r.returncode:
        lib.fail("chromium loads the page: " + r.stderr[-300:])
    return r.stdout


def dump_times(data):
    """[(pid, seconds since the start)] of each SNAP_BEGIN, from dump."""
    out = memsz("dump", "-i", data).splitlines()
    m = re.search(r"\(monotonic (\d+)\.(\d{9})\)", out[0])
    start = int(m.group(1)) * 10**9 + int(m.group(2))
    times = []
    for line in out:
        m = re.search(r"(\d+)\.(\d{9}) SNAP_BEGIN pid (\d+)", line)
        if m:
            t = int(m.group(1)) * 10**9 + int(m.group(2)) - start
            times.append((int(m.group(3)), t / 1e9))
    return times


def main():
    if not shutil.which("chromium"):
        lib.skip("no chromium")
    with tempfile.TemporaryDirectory(prefix="memsz-t3294-") as tmp:
        data = os.path.join(tmp, "memsz.data")
        memsz("record", "-o", data, "--", "python3", "-c",
              "a = bytearray(8 << 20); b = bytearray(16 << 20)")
        snaps = dump_times(data)
        if not snaps:
            lib.fail("the recording has snapshots")
        tl = json.loads(memsz("report", "-i", data, "--timeline",
                              "--format", "json"))
        tl_times = [round(p["time"], 3) for p in tl["snapshots"]]
        page = os.path.join(tmp, "report.html")
        with open(page, "w") as f:
            f.write(memsz("report", "-i", data, "--format", "html"))
        html = chromium_dom(tmp, page)
        titles = re.findall(r"<title>pid (\d+) [^<]*? at ([\d.]+) s: RSS",
                            html)
        check(len(titles) == len(snaps),
              f"a point per snapshot ({len(titles)} of {len(snaps)})")
        got = sorted((int(p), float(t)) for p, t in titles)
        want = sorted((p, round(t, 3)) for p, t in snaps)
        bad = [(g, w) for g, w in zip(got, want)
               if g[0] != w[0] or abs(g[1] - w[1]) > 0.0011]
        check(not bad, "each point's time is its SNAP_BEGIN's since the "
              f"recording began (first {want[0][1]} s; differing: "
              f"{bad[:3]})")
        ticks = [(float(x), float(v)) for x, v in re.findall(
            r'<text x="([-\d.e]+)" y="[\d.]+" text-anchor="middle">'
            r'([\d.e-]+) s</text>', html)]
        points = [float(x) for x in re.findall(
            r'<circle cx="([-\d.e]+)"[^>]*><title>pid ', html)]
        if len(ticks) < 2 or not points:
            check(False, f"x axis ticks ({len(ticks)}) and points "
                  f"({len(points)}) on the page")
        else:
            (x1, v1), (x2, v2) = ticks[0], ticks[-1]
            per_px = (v2 - v1) / (x2 - x1)
            at = v1 + (min(points) - x1) * per_px
            want0 = min(t for _, t in snaps)
            check(abs(at - want0) <= 2 * per_px + 1e-6,
                  f"on the x axis the first point is at {at:.4f} s, the "
                  f"first snapshot's {want0:.4f} s since the start "
                  f"(a pixel is {per_px * 1e3:.3f} ms)")
            # the ticks: one step apart in value and in pixels, the
            # first the first multiple of the step at or after the first
            # snapshot (not 0 before it, off the plot), at or right of
            # the first point
            step = ticks[1][1] - ticks[0][1]
            even = all(abs((b[1] - a[1]) - step) <= 1e-6 * max(1, step) and
                       abs((b[0] - a[0]) - (ticks[1][0] - ticks[0][0])) <= 1
                       for a, b in zip(ticks, ticks[1:]))
            check(step > 0 and even, f"x ticks evenly spaced: {ticks[:4]}")
            check(step > 0 and want0 - 1e-6 <= v1 < want0 + step + 1e-6,
                  f"the first x tick {v1} s is the first multiple of "
                  f"{step} s at or after the first snapshot's "
                  f"{want0:.4f} s")
            check(x1 >= min(points) - 1.5,
                  f"the first x tick (x {x1}) is not left of the first "
                  f"point (x {min(points)})")
        first = min(t for _, t in got) if got else None
        check(first is not None and abs(first - tl_times[0]) <= 0.0011,
              f"the first point is at {first} s, --timeline's "
              f"{tl_times[0]} s")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
