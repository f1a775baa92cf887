#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3310: `--format html` opened in a real browser (headless Chromium).

Two recordings made here: the demo workload of run-demo.sh (python3
filling 30 MB, a snapshot every 100 ms) and tests/workloads/
rep_fault_paths.c under `record --faults` (three known call paths). Each
page is loaded by /usr/bin/chromium --headless (no network, a fresh
profile directory) and its DOM, after the page's script ran, is read
back (--dump-dom):
 - the total the page shows equals `--format json`'s total for every
   column the switch offers (chosen by the page address, #col=...);
 - a search (#q=...) totals the rows whose label matches, as computed
   here from the json tree;
 - the treemap drew a box for each top-level row with a non-zero value;
 - the timeline has one point per snapshot in the recording;
 - with --by callers the flame graph has frames main, alloc_a, alloc_b,
   alloc_c, and each alloc_X frame's width is its share of the total;
 - memsz size --format html shows the file's size as its FILE SIZE total;
 - the page references nothing outside itself;
 - the flame graph at the default -n keeps every stack (no "[N others]"
   frame: the page gets every callers row, merges only frames too
   narrow to draw);
 - the timeline of a recording of two processes one after the other
   (sh -c 'python3 ...; sleep; python3 ...') sums, at each point, what
   each process held then: its latest snapshot at or before it, nothing
   before its first, nothing from its EXIT record on (times and exits
   from `memsz dump`, sizes from the snapshots the page embeds); it has
   a legend naming each process, a y axis of at least three 1-2-5 ticks
   in binary units, and fits a 700 pixel window;
 - changing the address's #col=...&q=... on an open page applies it
   (hashchange), and an invalid regular expression is said to be one.
Screenshots are kept in the build directory (tests/t3310-*.png), at 700
and 1400 pixels.
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
from memsz_testlib import (  # noqa: E402
    MEMSZ, SRCDIR, check)

CHROMIUM = "/usr/bin/chromium"
BUILDDIR = os.environ.get("top_builddir", ".")


def chromium(tmp, *args):
    """Run headless Chromium with a fresh profile; its stdout. Its TMPDIR,
    where it makes its singleton socket, is a short directory of its own
    (lib.socket_dir): under a long TMPDIR the socket's path would not fit
    in sun_path, and Chromium would abort."""
    prof = tempfile.mkdtemp(prefix="chromium-", dir=tmp)
    with lib.socket_dir() as sock:
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox",
                            "--disable-gpu", "--no-first-run",
                            "--disable-background-networking",
                            "--disable-component-update", "--disable-sync",
                            "--user-data-dir=" + prof, *args],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=180,
                           env=dict(os.environ, TMPDIR=sock))
    shutil.rmtree(prof, ignore_errors=True)
    if r.returncode:
        raise RuntimeError("chromium failed: " + r.stderr[-500:])
    return r.stdout


def dom(tmp, page, frag=""):
    return chromium(tmp, "--dump-dom", "file://" + page + frag)


def attr(html, elem_id, name):
    """Attribute name of the element with id elem_id in html, or None."""
    m = re.search(r'<[^>]* id="' + elem_id + r'"[^>]*>', html)
    if not m:
        return None
    a = re.search(r'\b' + name + r'="([^"]*)"', m.group(0))
    return a.group(1) if a else None


def dom_after(tmp, page, frag, script, width=1100):
    """The DOM of a copy of page with script run once it has loaded
    (as a user would act on the open page), after the page's handlers
    ran (virtual time)."""
    with open(page) as f:
        src = f.read()
    copy = page[:-5] + "-act.html"
    with open(copy, "w") as f:
        f.write(src.replace("</body>", "<script>window.addEventListener("
                            "'load', function () { setTimeout(function () "
                            "{ " + script + " }, 10); });</script>\n</body>"))
    return chromium(tmp, f"--window-size={width},900",
                    "--virtual-time-budget=3000", "--dump-dom",
                    "file://" + copy + frag)


def dump_times(data):
    """{pid: [snapshot times ns]}, {pid: exit time ns} from memsz dump."""
    snaps, exits = {}, {}
    for line in memsz("dump", "-i", data).splitlines():
        m = re.search(r"(\d+)\.(\d{9}) SNAP_BEGIN pid (\d+)", line)
        if m:
            snaps.setdefault(int(m.group(3)), []).append(
                int(m.group(1)) * 10**9 + int(m.group(2)))
        m = re.search(r"(\d+)\.(\d{9}) EXIT (\d+)/(\d+)", line)
        if m and m.group(3) == m.group(4):
            exits[int(m.group(3))] = int(m.group(1)) * 10**9 + \
                int(m.group(2))
    return snaps, exits


def check_timeline(tmp, keep):
    """A recording of two processes that never lived at the same time."""
    data = os.path.join(tmp, "two.data")
    prog = ("x = bytearray({} << 20); x[::4096] = b'x' * len(x[::4096]); "
            "import time; time.sleep(0.6)")
    r = subprocess.run([MEMSZ, "record", "-o", data, "--interval", "150",
                        "--", "sh", "-c",
                        f'{sys.executable} -c "{prog.format(40)}"; '
                        f'sleep 0.3; {sys.executable} -c "{prog.format(20)}"'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    check(r.returncode == 0, "record of two processes one after the "
          "other exits 0: " + r.stderr.strip()[-200:])
    page = os.path.join(tmp, "two.html")
    write(page, "report", "-i", os.path.basename(data), "--by", "pids")
    with open(page) as f:
        meta = json.loads(re.search(
            r'<script type="application/json" id="memsz-meta">(.*?)'
            r'</script>', f.read(), re.S).group(1))
    snaps, exits = dump_times(data)
    rss = {}  # (pid, time) -> bytes, as the page embeds them
    for sn in meta["snapshots"]:
        rss[(sn["pid"], sn["time_ns"])] = sn["rss"]
    pythons = [p for p in snaps if p in exits and
               max(rss.get((p, t), 0) for t in snaps[p]) > 15 << 20]
    check(len(pythons) == 2 and
          exits[min(pythons, key=lambda p: snaps[p][0])] <
          min(snaps[p][0] for p in pythons if p != min(
              pythons, key=lambda p: snaps[p][0])),
          f"the two python processes never lived at the same time "
          f"({pythons}, exits {exits})")

    def held(t):
        s = 0
        for pid, ts in snaps.items():
            before = [x for x in ts if x <= t and (pid, x) in rss]
            if before and not (pid in exits and t >= exits[pid]):
                s += rss[(pid, max(before))]
        return s

    html = chromium(tmp, "--window-size=700,900",
                    "--virtual-time-budget=3000", "--dump-dom",
                    "file://" + page)
    times = attr(html, "timeline-total", "data-times")
    values = attr(html, "timeline-total", "data-values")
    pts = dict(zip(map(int, times.split(",")), map(int, values.split(",")))
               ) if times and values else {}
    want = {t: held(t) for ts in snaps.values() for t in ts
            if any((p, t) in rss for p in snaps)}
    bad = [(t, pts.get(t), w) for t, w in sorted(want.items())
           if pts.get(t) != w]
    check(pts and not bad,
          f"timeline: at each of the {len(want)} snapshot times the page's "
          f"TOTAL is what each process held then (mismatches "
          f"{bad[:3]})")
    first = min(pythons, key=lambda p: snaps[p][0]) if pythons else None
    later = [t for t in pts if first and t >= exits.get(first, 1 << 63)]
    peak = max([rss.get((first, t), 0) for t in snaps.get(first, [])] + [0])
    check(later and all(pts[t] < peak for t in later),
          f"timeline: after pid {first} exited the TOTAL leaves it out "
          f"({[pts[t] >> 20 for t in sorted(later)][:6]} MiB, its peak "
          f"{peak >> 20} MiB)")
    legend = re.search(r'<div id="timeline-legend">(.*?)</div>', html, re.S)
    legend = re.sub(r"<[^>]+>", " ", legend.group(1)) if legend else ""
    check(all(f"{p} python3" in legend or f"{p} python" in legend
              for p in pythons) and "TOTAL" in legend,
          f"timeline: the legend names each process "
          f"({' '.join(legend.split())[:160]!r})")
    ticks = re.findall(r'<text x="\d+(?:\.\d+)?" y="[\d.]+" '
                       r'text-anchor="end">([^<]*)</text>', html)
    nums = []
    for t in ticks:
        m = re.match(r"^(\d+(?:\.\d+)?) (B|KiB|MiB|GiB)$", t)
        nums.append(float(m.group(1)) if m else None)
    steps = {round(b - a, 6) for a, b in zip(nums, nums[1:])
             if a is not None and b is not None}
    mant = {float(f"{x:e}".split("e")[0]) for x in steps if x}
    check(len(ticks) >= 3 and None not in nums and len(steps) == 1 and
          mant <= {1.0, 2.0, 5.0},
          f"timeline: a y axis of 1-2-5 ticks in binary units ({ticks})")
    svgw = attr(html, "timeline-svg", "width")
    check(svgw and float(svgw) <= 700 - 2 * 14,
          f"timeline: fits a 700 pixel window (svg width {svgw})")
    for w in (700, 1400):
        shot = os.path.join(keep, f"t3310-timeline-{w}.png")
        chromium(tmp, f"--window-size={w},900", "--screenshot=" + shot,
                 "file://" + page)


def memsz(*args):
    return subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          check=True).stdout


def write(path, *args):
    """memsz ARGS --format html > path, run in path's directory (so that
    a relative -i shows as given in the page's title)."""
    with open(path, "w") as f:
        subprocess.run([MEMSZ, *args, "--format", "html"], stdout=f,
                       stderr=subprocess.PIPE, check=True,
                       cwd=os.path.dirname(path))


def matched(rows, rx, col, least=None):
    """Sum of col over rows matching rx, each counted once; with least
    ({column: value}), only rows the page keeps: those at or above
    least in some column (the page folds the others into "[N others]",
    under a ten-thousandth of the total in every column)."""
    s = 0.0
    for r in rows:
        if least and not any(float(r.get(c, 0)) >= v
                             for c, v in least.items()):
            continue
        if rx.search(r["name"]):
            s += float(r.get(col, 0))
        else:
            s += matched(r.get("rows", []), rx, col, least)
    return s


# columns json prints in bytes but memsz keeps in 1/4096 of a byte
FRACTION_COLS = ("pss", "locked", "charge")


def page_least(rep):
    """The least value of a row the page keeps, per column: the total
    divided by 10 000 in memsz's integer units (bytes, or 1/4096 of a
    byte for PSS), rounded down as memsz's integer division does, and
    at least one unit. A float division would drop a row the page keeps
    whenever a value falls between the two (CI saw a libc row do so)."""
    least = {}
    for c, v in rep["total"].items():
        if c == "res_pct":
            continue
        unit = 4096 if c in FRACTION_COLS else 1
        least[c] = max(round(float(v) * unit) // 10000, 1) / unit
    return least


def record_demo(tmp):
    data = os.path.join(tmp, "demo.data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--interval", "100",
                            "--", sys.executable, "-c",
                            "import json, sqlite3, decimal, sys\n"
                            "x = bytearray(30_000_000)\n"
                            "x[::4096] = b'x' * len(x[::4096])\n"
                            "print('ready', flush=True)\n"
                            "sys.stdin.readline()\n"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        check(rec.stdout.readline().startswith("ready"),
              "demo workload filled its 30 MB")
        # the workload holds its memory until a snapshot begun after
        # "ready" has ended, so there are snapshots before and at the peak
        lib.snapshot_after(data, "the demo's 'ready'")
        err = rec.communicate(timeout=120)[1]
        if rec.returncode != 0:
            lib.fail(f"demo record exits {rec.returncode}: {err.strip()}")
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    return data


def record_faults(tmp):
    exe = os.path.join(tmp, "fault_paths")
    subprocess.run(["gcc", "-O2", "-fomit-frame-pointer",
                    "-fasynchronous-unwind-tables", "-o", exe,
                    os.path.join(SRCDIR, "tests/workloads",
                                 "rep_fault_paths.c")], check=True)
    data = os.path.join(tmp, "faults.data")
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, "--faults", "--",
                            exe], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if len(rec.stdout.readline().split()) != 3:
        rec.kill()
        err = rec.communicate()[1]
        if "perf" in err or "permission" in err.lower():
            lib.skip("cannot sample page faults: " + err.strip())
        check(False, "workload printed its buffers: " + err.strip())
        return None, None
    # the workload stops itself; then resume it
    lib.resume(rec, lib.stopped_child(rec.pid))
    check(rec.returncode == 0, "record --faults exits 0")
    return exe, data


def check_columns(tmp, page, rep, what):
    for c in rep["columns"]:
        if c == "res_pct":
            continue
        html = dom(tmp, page, "#col=" + c)
        got = attr(html, "total", "data-value")
        want = float(rep["total"][c])
        check(attr(html, "total", "data-col") == c and got is not None and
              abs(float(got) - want) < 0.01,
              f"{what}: the page's {c} total {got} == the report's {want}")


def main():
    if not os.access(CHROMIUM, os.X_OK):
        lib.skip("chromium (chromium) is not installed")
    keep = os.path.join(BUILDDIR, "tests")
    os.makedirs(keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memsz-t3310-") as tmp:
        data = record_demo(tmp)
        keys = "files,sections,symbols"
        page = os.path.join(tmp, "report.html")
        write(page, "report", "-i", os.path.basename(data), "--snapshot",
              "peak", "--by", keys)
        # the page has every row (as -n 0)
        rep = json.loads(memsz("report", "-i", data, "--snapshot", "peak",
                               "--by", keys, "-n", "0", "--format", "json"))
        with open(page) as f:
            src = f.read()
        urls = re.findall(r"""(?:src|href)\s*=|url\(|@import|https?://[^"'\s]*""",
                          src)
        urls = [u for u in urls if u != "http://www.w3.org/2000/svg"]
        check("Content-Security-Policy" in src and not urls,
              f"the page fetches nothing (CSP set; references: {urls})")
        check_columns(tmp, page, rep, "report " + keys)

        # --fields: the first is the page's column; the switch offers all
        fpage = os.path.join(tmp, "fields.html")
        write(fpage, "report", "-i", os.path.basename(data), "--snapshot",
              "peak", "--by", keys, "-F", "dirty,res")
        html = dom(tmp, fpage)
        got = attr(html, "total", "data-value")
        check(attr(html, "total", "data-col") == "dirty" and
              got is not None and
              abs(float(got) - float(rep["total"]["dirty"])) < 0.01,
              f"-F dirty,res: the page shows DIRTY first ({got} == the "
              f"report's {rep['total']['dirty']})")
        html = dom(tmp, fpage, "#col=pss")
        got = attr(html, "total", "data-value")
        check(attr(html, "total", "data-col") == "pss" and
              got is not None and
              abs(float(got) - float(rep["total"]["pss"])) < 0.01,
              "-F dirty,res: the column switch still offers PSS")
        with open(fpage) as f:
            check("res_pct" not in f.read(),
                  "-F dirty,res: RES% is no column of the page")

        html = dom(tmp, page)
        boxes = re.findall(r'<div class="lbl">([^<]*)</div>', html)
        # rows of at least 0.1% of the total: big enough to be drawn
        tops = [r["name"] for r in rep["rows"]
                if float(r["rss"]) >= float(rep["total"]["rss"]) / 1000]
        check(tops and all(any(b.startswith(t + " ") for b in boxes)
                           for t in tops),
              f"the treemap has a box for each of the {len(tops)} "
              f"top-level rows")
        nsnap = len([1 for x in memsz("dump", "-i", data).splitlines()
                     if "SNAP_BEGIN" in x])
        points = len(re.findall(r"<circle", html))
        check(nsnap > 1 and points == nsnap,
              f"the timeline has one point per snapshot ({points} of "
              f"{nsnap})")

        rx = re.compile("libc", re.I)
        html = dom(tmp, page, "#col=rss&q=libc")
        got = attr(html, "matched", "data-value")
        want = matched(rep["rows"], rx, "rss", page_least(rep))
        check(got is not None and abs(float(got) - want) < 0.01 and want,
              f"search 'libc': the page's matching total {got} == {want}")

        # the address changed on the open page: applied
        want = matched(rep["rows"], re.compile("libc", re.I), "pss",
                       page_least(rep))
        html = dom_after(tmp, page, "#col=rss",
                         "location.hash = '#col=pss&q=libc';")
        got = attr(html, "matched", "data-value")
        check(attr(html, "total", "data-col") == "pss" and
              got is not None and abs(float(got) - want) < 0.01,
              f"hashchange to #col=pss&q=libc: the page shows PSS and "
              f"the search ({attr(html, 'total', 'data-col')}, {got} == "
              f"{want})")
        # an invalid regular expression is said to be one
        html = dom(tmp, page, "#q=libc(")
        m = re.search(r'<span id="matched"[^>]*>([^<]*)</span>', html)
        check(attr(html, "matched", "data-invalid") and m and
              "not a regular expression" in m.group(1),
              f"search 'libc(': said to be no regular expression "
              f"({m and m.group(1)!r})")

        shot = os.path.join(keep, "t3310-report.png")
        chromium(tmp, "--window-size=1100,820", "--screenshot=" + shot,
                 "file://" + page)
        with open(shot, "rb") as f:
            png = f.read()
        check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000,
              f"screenshot kept: {shot} ({len(png)} bytes)")
        for w in (700, 1400):
            chromium(tmp, f"--window-size={w},900", "--screenshot=" +
                     os.path.join(keep, f"t3310-report-{w}.png"),
                     "file://" + page)

        check_timeline(tmp, keep)

        # callers: the flame graph
        exe, fdata = record_faults(tmp)
        if fdata:
            page = os.path.join(tmp, "callers.html")
            # the default -n: the page still has every stack
            write(page, "report", "-i", fdata, "--by", "callers")
            rep = json.loads(memsz("report", "-i", fdata, "--by", "callers",
                                   "-n", "0", "--format", "json"))
            html = dom(tmp, page)
            frames = re.findall(r'<div class="fr" style="left: ([\d.]+)px; '
                                r'width: ([\d.]+)px;[^"]*">([^<]*)</div>',
                                html)
            width = {}
            for _, w, name in frames:
                width[name] = width.get(name, 0) + float(w)
            total = float(rep["total"]["rss"])
            for fn in ("main", "alloc_a", "alloc_b", "alloc_c"):
                share = sum(float(r["rss"]) for r in rep["rows"]
                            if f";{fn};" in r["name"] or
                            r["name"].startswith(fn + ";")) / total
                got = width.get(fn, 0) / width.get("all", 1)
                check(fn in width and abs(got - share) < 0.002,
                      f"flame graph: {fn} is {got:.4f} of the width, its "
                      f"share of RSS is {share:.4f}")
            others = [n for n in width if re.match(r"^\[\d+ others\]$", n)]
            check(not others, f"flame graph at the default -n: no frame "
                  f"folds stacks ({others})")
            check_columns(tmp, page, rep, "report callers")
            for w in (700, 1400):
                chromium(tmp, f"--window-size={w},900", "--screenshot=" +
                         os.path.join(keep, f"t3310-callers-{w}.png"),
                         "file://" + page)

            page = os.path.join(tmp, "size.html")
            write(page, "size", "--by", "sections,symbols", exe)
            html = dom(tmp, page)
            got = attr(html, "total", "data-value")
            check(attr(html, "total", "data-col") == "file_size" and
                  got == str(os.path.getsize(exe)),
                  f"size: the page's FILE SIZE total {got} == the file's "
                  f"size {os.path.getsize(exe)}")


main()
sys.exit(lib.finish())
