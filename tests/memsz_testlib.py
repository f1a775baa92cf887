"""memsz_testlib: helpers shared by the Python tests (tests/t*.py).

A test imports it from its own directory:
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import memsz_testlib as lib
and ends with `return 1 if lib.failures else 0`.
"""
import csv
import io
import os
import signal
import subprocess
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__),
                                                    ".."))
PAGE = os.sysconf("SC_PAGE_SIZE")

failures = 0
checks = 0


def check(ok, what):
    """Prints "ok     what" or "NOT OK what"; counts a failure."""
    global failures, checks
    checks += 1
    print(("ok     " if ok else "NOT OK ") + what)
    if not ok:
        failures += 1


def check_quiet(cond, what):
    """Counts a check; prints "not ok - what" only when cond is false."""
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("not ok -", what)


def report(data, by, *extra):
    """Rows (dicts) of `memsz report -i data --by by -n 0 --format csv`;
    raises CalledProcessError if memsz fails."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                          "--format", "csv", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True)
    return list(csv.DictReader(io.StringIO(out.stdout)))


def readelf(args, path):
    """Stdout of `readelf -W args path`; raises if readelf fails."""
    return subprocess.run(["readelf", "-W"] + args + [path],
                          capture_output=True, text=True, check=True).stdout


def proc_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, t, ...)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def stopped(pid):
    """Sends SIGSTOP to pid and waits (up to 2 s) until it is stopped."""
    os.kill(pid, signal.SIGSTOP)
    for _ in range(200):
        if proc_state(pid) in "Tt":
            return
        time.sleep(0.01)


def smaps_vmas(pid):
    """The VMAs of /proc/PID/smaps in order, as dicts: "start", "end"
    (ints), "last" (the header's last field: the path, or the inode of an
    anonymous mapping) and each "kB" field in bytes ("Rss", "Pss", ...)."""
    vmas = []
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if "-" in p[0] and not p[0].endswith(":"):
                s, e = (int(x, 16) for x in p[0].split("-"))
                vmas.append({"start": s, "end": e, "last": p[-1]})
            elif vmas and len(p) == 3 and p[2] == "kB":
                vmas[-1][p[0][:-1]] = int(p[1]) * 1024
    return vmas


def smaps_rollup(pid):
    """The "kB" fields of /proc/PID/smaps_rollup in bytes ("Rss", "Pss",
    ...); {} for a process without user memory (a kernel thread); None if
    it is gone; raises PermissionError if it may not be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    out = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] == "kB":
            out[p[0][:-1]] = int(p[1]) * 1024
    return out


def all_rollups():
    """{pid: smaps_rollup(pid)} of every process in /proc, with the value
    "denied" for those that may not be read; gone ones left out."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            r = smaps_rollup(int(d))
        except PermissionError:
            r = "denied"
        if r is not None:
            out[int(d)] = r
    return out


def is_kthread(pid):
    """True if pid is a kernel thread (PF_KTHREAD in /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return bool(int(rest[6]) & 0x00200000)


def pid_rows(data, *extra):
    """{pid: row} of `memsz report --by pids` (csv) of data."""
    return {int(r["pids"].split()[0]): r for r in report(data, "pids", *extra)
            if r["pids"] != "TOTAL" and r["pids"][0].isdigit()}
