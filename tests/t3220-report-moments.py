#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3220: a report over several processes sums what each held at one moment.

1. Timeline times. `memsz record --interval 100 -- sh -c 'sleep 1; python3
   ...; sleep 0.5'`: python starts about a second after sh and exits half a
   second before it. The ground truth is the kernel's: python's and sh's
   start times from /proc/PID/stat (ticks since boot) and python's exit
   from /proc/uptime, which sh prints when python returns. Checks, in csv
   and json: python's series is 0 at every point before python started and
   after it exited, and holds its 50 MiB at some point between; every
   point's TOTAL is the sum of its series. The default report adds each
   process's last snapshot: python's (taken at its exit) and sh's (half a
   second after it) were never current together, so the footer says "not
   one moment"; a report of one process (--pid, or a filter keeping one)
   does not.
2. A filter keeps the TOTAL of what is kept. Two `sleep` processes map the
   same files; `--filter pids=^B` must give the same TOTAL as `--pid B`,
   and that TOTAL's FILE SIZE is the sum of the sizes of the files B maps
   (st_size), its RSS the sum of B's smaps Rss. No footer note names the
   process the filter dropped. Both lived throughout: the default report
   of both is one moment (no "not one moment" note), the one point of
   their timeline, whose TOTAL (files shared counted once) is the
   report's.
3. A file counts once: the VM SIZE of libc's .bss under --by files,sections
   of a two-process recording equals its size in the section header
   (readelf -S), not once per process.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
MIB = 1 << 20


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def start_ticks(stat_line):
    """Field 22 of /proc/PID/stat (start time in ticks since boot); the
    command name in field 2 may hold spaces, so count after its ')'."""
    return int(stat_line.rsplit(")", 1)[1].split()[19])


# The workload: python prints its own /proc/self/stat line before it
# allocates, sh prints /proc/uptime once python has returned.
PY = ("import sys,time; print('py', open('/proc/self/stat').read().strip(),"
      " flush=True); x = bytearray(50 << 20); x[::4096] = b'x' * (50 << 8);"
      " time.sleep(1)")
SH = ("echo sh $(cat /proc/$$/stat); sleep 1; python3 -c \"$0\"; "
      "echo up $(cat /proc/uptime); sleep 0.5")


def record_timeline(tmp):
    data = os.path.join(tmp, "tl.data")
    p = subprocess.run([MEMSZ, "record", "--interval", "100", "-o", data,
                        "--", "sh", "-c", SH, PY],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"record exits 0 ({p.stderr.strip()[-200:]})")
    out = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1]
           for ln in p.stdout.splitlines() if " " in ln}
    sh_start = start_ticks(out["sh"])
    sh_pid = int(out["sh"].split()[0])
    py_stat = out["py"]
    py_pid = int(py_stat.split()[0])
    py_start = (start_ticks(py_stat) - sh_start) / TICK
    py_exit = float(out["up"].split()[0]) - sh_start / TICK
    return data, py_pid, py_start, py_exit, sh_pid


def check_timeline(data, py_pid, py_start, py_exit):
    # one tick of /proc/PID/stat and /proc/uptime either way
    slack = 1.0 / TICK + 0.001
    out = run(MEMSZ, "report", "-i", data, "--by", "pids", "--timeline",
              "-n", "0", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    py = [r for r in rows if r["pids"].split()[0] == str(py_pid)]
    check(py, f"python (pid {py_pid}) has a series")
    early = [r for r in py if float(r["time"]) < py_start - slack and
             int(r["rss"])]
    check(not early, f"python holds nothing before it started at "
          f"{py_start:.3f} s (points: "
          f"{[(r['time'], r['rss']) for r in early][:3]})")
    late = [r for r in py if float(r["time"]) > py_exit + slack and
            int(r["rss"])]
    check(not late, f"python holds nothing after it exited at "
          f"{py_exit:.3f} s (points: "
          f"{[(r['time'], r['rss']) for r in late][:3]})")
    alive = [int(r["rss"]) for r in py
             if py_start <= float(r["time"]) <= py_exit]
    check(alive and max(alive) >= 50 * MIB,
          f"python holds its 50 MiB while it lives (max "
          f"{max(alive, default=0)})")
    # every point's TOTAL is the sum of its series (json has the TOTAL)
    js = json.loads(run(MEMSZ, "report", "-i", data, "--by", "pids",
                        "--timeline", "-n", "0", "--format", "json"))
    times = [float(s["time"]) for s in js["snapshots"]]
    sums = [sum(int(r["rss"][i]) for r in js["rows"])
            for i in range(len(times))]
    check(sums == [int(v) for v in js["total"]["rss"]],
          "each point's TOTAL is the sum of its series")
    check(times == sorted(times) and len(set(times)) == len(times),
          "points are in time order, one per moment")
    csv_times = sorted({float(r["time"]) for r in rows})
    check(csv_times == times, "csv and json have the same points")
    return times


def moment_notes(data, *extra):
    js = json.loads(run(MEMSZ, "report", "-i", data, "--by", "pids",
                        "--format", "json", *extra))
    return [n for n in js.get("notes", []) if "not one moment" in n]


def check_moment(data, py_pid, sh_pid):
    notes = moment_notes(data)
    check(len(notes) == 1 and "last snapshot" in notes[0],
          f"the default report of sh and python says it is not one "
          f"moment ({notes})")
    check(not moment_notes(data, "--pid", str(sh_pid)),
          "a report of one process (--pid) is one moment")
    check(not moment_notes(data, "--filter", f"pids=^{py_pid} "),
          "a report filtered to one process is one moment")


def check_filter(tmp):
    a = subprocess.Popen(["sleep", "100"])
    b = subprocess.Popen(["sleep", "100"])
    try:
        # asleep in clock_nanosleep: done loading and
        # touching pages, so the recording and the smaps read after it
        # see the same pages (mapped libraries alone raced with the
        # rest of sleep's start on a loaded machine)
        lib.in_nanosleep(a.pid)
        lib.in_nanosleep(b.pid)
        data = os.path.join(tmp, "two.data")
        run(MEMSZ, "record", "-p", f"{a.pid},{b.pid}", "--duration", "0",
            "-o", data)
        rss_b = sum(v["Rss"] for v in lib.smaps_vmas(b.pid))
        files_b = set()
        for v in lib.smaps_vmas(b.pid):
            path = v["last"]
            if path.startswith("/") and os.path.isfile(path):
                files_b.add(os.path.realpath(path))
        size_b = sum(os.stat(f).st_size for f in files_b)
    finally:
        for p in (a, b):
            p.kill()
            p.wait()

    def total(*extra):
        p = subprocess.run([MEMSZ, "report", "-i", data, "--by", "pids",
                            "-F", "file,vm,rss", "--format", "json",
                            *extra], capture_output=True, text=True)
        return json.loads(p.stdout)

    by_pid = total("--pid", str(b.pid))
    by_filter = total("--filter", f"pids=^{b.pid} ")
    for col in ("file_size", "vm_size", "rss"):
        check(int(by_filter["total"][col]) == int(by_pid["total"][col]),
              f"--filter pids=B keeps the TOTAL {col} of --pid B "
              f"({by_filter['total'][col]} vs {by_pid['total'][col]})")
    check(int(by_pid["total"]["file_size"]) == size_b,
          f"TOTAL FILE SIZE is the size of the files B maps "
          f"({by_pid['total']['file_size']} vs {size_b})")
    check(abs(int(by_pid["total"]["rss"]) - rss_b) == 0,
          f"TOTAL RSS is B's smaps Rss ({by_pid['total']['rss']} vs "
          f"{rss_b})")
    check(not any(str(a.pid) in n for n in by_filter.get("notes", [])),
          "no footer note names the process the filter dropped")
    check(not moment_notes(data),
          "two processes alive throughout: their TOTAL is one moment")
    # that moment is the timeline's point: files shared once there too
    tl = json.loads(run(MEMSZ, "report", "-i", data, "--by", "pids",
                        "--timeline=file,vm,rss", "--format", "json"))
    both = total()
    for col in ("file_size", "vm_size", "rss"):
        check(int(tl["total"][col][-1]) == int(both["total"][col]),
              f"the timeline's point sums the report's TOTAL {col} "
              f"({tl['total'][col][-1]} vs {both['total'][col]})")
    return data


def check_bss(data):
    libc = None
    for r in lib.report(data, "files"):
        if re.search(r"/libc\.so\.6$", r["files"]):
            libc = r["files"]
    if not libc:
        check(False, "the recording maps libc")
        return
    bss = 0
    for ln in lib.readelf(["-S"], libc).splitlines():
        f = ln.replace("[ ", "[").split()
        if len(f) > 6 and f[1] == ".bss":
            bss = int(f[5], 16)
    rows = [r for r in lib.report(data, "files,sections")
            if r["files"] == libc and r["sections"] == ".bss"]
    check(rows and int(rows[0]["vm_size"]) == bss,
          f"libc's .bss counts once in VM SIZE "
          f"({rows[0]['vm_size'] if rows else None} vs readelf {bss})")


def main():
    tmp = tempfile.mkdtemp(prefix="memsz-t3220-")
    try:
        data, py_pid, py_start, py_exit, sh_pid = record_timeline(tmp)
        check_timeline(data, py_pid, py_start, py_exit)
        check_moment(data, py_pid, sh_pid)
        two = check_filter(tmp)
        check_bss(two)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
