#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_oneshot: end-to-end `memsz record -p PID --duration 0` (one
snapshot, then exit: process start, /proc reads, PSS look-ups, the file
written, synced and renamed) beside `cat /proc/PID/smaps` of the same
process, in the same run.

Cases: the fixed cost, small real processes (`sleep`, an idle python3,
an idle node when installed), then processes with 1, 2 and 4 GiB
resident (half anonymous, half a shared file mapping, so that PSS needs
kpagecount look-ups). Each run replaces the recording of the run before
(so memsz syncs the new file and the one it moves to .old, and renames
both); the rows marked "new" write a new name instead (the file before
removed between runs, as bench_snapshot does), which is a one-shot's
cost without replacing a recording.

Measured by CPU time (user + system of the command and its children,
getrusage), the median of paired runs: each run of memsz is followed by
one of cat, so both see the same load. Prints both medians and the ratio
memsz / cat (target: <= 1.5 for the small processes), then the start
alone (`memsz --version` beside `true` and `cat /dev/null`: the cost of
starting a dynamically linked program that both sides pay) and the
`sleep` row without it (what each side does once started). Asserts
nothing. Run as root (PSS needs /proc/kpagecount). BENCH_RUNS sets the
number of pairs (default 31). MEMSZ_BEFORE=PATH adds a column for
another memsz (a build before a change), run in turn with the two others
so all three see the same load; give both builds as copies in one
directory (MEMSZ_FLOOR then names the floor): the same binary took ~10
us more a start run from a worktree's _build than as a copy in a
directory of /tmp here (1 500 pairs), as much as some changes measure.
When bench/bench_oneshot_floor is built beside MEMSZ (or MEMSZ_FLOOR
names it), a column gives memsz / its floor: a program started to do the
least such a one-shot must (the same page-frame look-ups, sorted once
for the whole process, and the result linked as a new file; see
bench_oneshot_floor.c for what it leaves out), run in turn with the
others, its file removed before each run: the floor's time, its ratio to
cat (the least memsz / cat the kernel's interfaces allow that row) and
memsz / floor.
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile

MEMSZ = os.environ.get("MEMSZ", "memsz")
BEFORE = os.environ.get("MEMSZ_BEFORE")
FLOOR = os.environ.get("MEMSZ_FLOOR") or os.path.join(
    os.path.dirname(shutil.which(MEMSZ) or MEMSZ), "bench",
    "bench_oneshot_floor")
if not os.access(FLOOR, os.X_OK):
    FLOOR = None
RUNS = int(os.environ.get("BENCH_RUNS", "31"))
ROWS = {}  # name -> (memsz, cat) medians, for the line without the start

# A process with SIZE bytes resident: half in an anonymous buffer, half in
# a mapped file; it prints "ready" and waits for stdin to close.
PROG = r"""
import mmap, os, sys
size, path = int(sys.argv[1]), sys.argv[2]
anon = bytearray(size // 2)
for i in range(0, len(anon), 4096):
    anon[i] = 1
with open(path, "wb") as f:
    f.truncate(size // 2)
fd = os.open(path, os.O_RDWR)
m = mmap.mmap(fd, size // 2)
for i in range(0, size // 2, 4096):
    m[i] = 1
print("ready", flush=True)
sys.stdin.read()
"""

IDLE_PY = 'import sys; print("ready", flush=True); sys.stdin.read()'
IDLE_NODE = ('console.log("ready"); process.stdin.resume(); '
             'process.stdin.on("end", () => process.exit(0))')


def unlink_data(data):
    """Remove data and data.old: the next recording replaces nothing."""
    for path in (data, data + ".old"):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def cpu(argv, fresh=None):
    """CPU seconds (user + system) argv and its children took; with
    fresh, that recording is removed first (not timed)."""
    if fresh:
        unlink_data(fresh)
    if FLOOR and argv[0] == FLOOR:
        unlink_data(argv[2])
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def paired(cmds, runs, fresh=None):
    """Median CPU seconds of each of cmds, run in turn runs times (with
    fresh, the recording is removed before each, see cpu). The order
    turns by one command each round, so that none keeps the place after
    a given other (which leaves it, say, the inode that one freed)."""
    times = [[] for _ in cmds]
    for r in range(runs):
        for k in range(len(cmds)):
            i = (k + r) % len(cmds)
            times[i].append(cpu(cmds[i], fresh))
    return [sorted(t)[len(t) // 2] for t in times]


def row(name, pid, data, runs, fresh=False):
    one = ["record", "-p", str(pid), "--duration", "0", "-o", data]
    cmds = [[MEMSZ] + one, ["cat", f"/proc/{pid}/smaps"]]
    if BEFORE:
        cmds.append([BEFORE] + one)
    if FLOOR:
        cmds.append([FLOOR, str(pid), data + ".floor"])
    t = paired(cmds, runs, data if fresh else None)
    rec, cat = t[0], t[1]
    ROWS[name] = (rec, cat)
    line = (f"{name:>11} {cat * 1e3:>9.2f}ms {rec * 1e3:>10.2f}ms "
            f"{rec / cat:>6.2f}")
    if BEFORE:
        line += f" {t[2] * 1e3:>10.2f}ms {t[2] / cat:>6.2f}"
    if FLOOR:
        line += (f" {t[-1] * 1e3:>9.2f}ms {t[-1] / cat:>6.2f} "
                 f"{rec / t[-1]:>6.2f}")
    print(line, flush=True)


def started(argv):
    """Start argv (stdin a pipe) and wait for its "ready" line."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    p.stdout.readline()
    return p


def stop(p):
    p.stdin.close()
    p.wait()


def small(tmp, data):
    procs = [("sleep", subprocess.Popen(["sleep", "1000"]))]
    procs.append(("python3", started([sys.executable, "-c", IDLE_PY])))
    if shutil.which("node"):
        procs.append(("node", started(["node", "-e", IDLE_NODE])))
    try:
        for name, p in procs:
            row(name, p.pid, data, RUNS)
        for name, p in procs:
            row(name + " new", p.pid, data, RUNS, fresh=True)
    finally:
        for name, p in procs:
            if name == "sleep":
                p.kill()
                p.wait()
            else:
                stop(p)


def resident(tmp, data):
    for gib in (1, 2, 4):
        path = os.path.join(tmp, "file")
        p = started([sys.executable, "-c", PROG, str(gib << 30), path])
        try:
            row(f"{gib} GiB", p.pid, data, max(5, RUNS // 4))
        finally:
            stop(p)
            os.unlink(path)


def main():
    if os.geteuid() != 0:
        print("bench_oneshot: run as root (PSS needs /proc/kpagecount)")
    load = os.getloadavg()[0]
    print(f"bench_oneshot: CPU medians of {RUNS} paired runs, load "
          f"{load:.1f}")
    tmp = tempfile.mkdtemp(prefix="memsz-bench-oneshot-")
    data = os.path.join(tmp, "o.data")
    print(f"{'process':>11} {'cat smaps':>11} {'memsz -d 0':>12} "
          f"{'ratio':>6}" +
          (f" {'before':>12} {'ratio':>6}" if BEFORE else "") +
          (f" {'floor':>11} {'ratio':>6} {'/floor':>6}" if FLOOR else ""))
    try:
        small(tmp, data)
        resident(tmp, data)
        starts = [[MEMSZ, "--version"], ["true"], ["cat", "/dev/null"]]
        if BEFORE:
            starts.append([BEFORE, "--version"])
        t = paired(starts, RUNS)
        ver, true = t[0], t[1]
        print(f"start: memsz --version {ver * 1e3:.2f}ms, true "
              f"{true * 1e3:.2f}ms, cat /dev/null {t[2] * 1e3:.2f}ms" +
              (f", before --version {t[3] * 1e3:.2f}ms" if BEFORE else ""))
        for name in ("sleep", "sleep new"):
            if name not in ROWS:
                continue
            rec, cat = ROWS[name]
            own, cown = rec - ver, cat - true
            print(f"{name} without the start: memsz {own * 1e3:.2f}ms, "
                  f"cat {cown * 1e3:.2f}ms" +
                  (f", ratio {own / cown:.2f}" if cown > 0 else ""))
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
