# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.proc: processes as the kernel shows them, the ground
truth of the recording tests: /proc/PID/stat, smaps, smaps_rollup,
schedstat, children; stopping and resuming a workload and waiting for it
(wait_stopped, workload_ready, stopped_child, resume); a JIT compiler's
/tmp/perf-PID.map; a raised priority for a sampling memsz (urgent).
"""
import os
import re
import signal
import subprocess

from .core import fail, skip_part, wait_until


def resume(rec, pid, guard=120):
    """Lets a workload that stopped itself (raise(SIGSTOP)) run on and
    returns rec.communicate() once the recording rec has ended. A stop seen
    in pid's state may still be memsz holding it (a snapshot, backpressure)
    before the workload's own SIGSTOP: one SIGCONT sent then would be lost
    and the workload would stay stopped, so SIGCONT is sent again at every
    poll until rec ends (to a running process it is harmless)."""
    def ended():
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        return rec.poll() is not None
    wait_until(ended, f"the recording of pid {pid} to end", guard)
    return rec.communicate()


def urgent():
    """A prefix for the argv of a memsz that samples: it runs at nice -20
    while the processes it forks run at the default priority, so that the
    reader keeps up with its workload however loaded the machine is. Empty
    (and a skip_part) without root (CAP_SYS_NICE)."""
    if os.geteuid() != 0:
        skip_part("sample loss checks without raised priority (needs root)")
        return []
    return ["chrt", "--reset-on-fork", "--other", "0", "nice", "-n", "-20"]


def perf_map(pid):
    """(start, size, name) of the complete lines of a JIT compiler's own
    /tmp/perf-PID.map (the ground truth of what its code is)."""
    syms = []
    with open(f"/tmp/perf-{pid}.map") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            a, s, name = line.rstrip("\n").split(" ", 2)
            syms.append((int(a, 16), int(s, 16), name))
    return syms


def untraced_threads(pid, tracer, looks=3):
    """The threads of pid whose TracerPid is not tracer, over looks
    readings of /proc/PID/task (a thread that ends between the listing
    and the reading is left out: a line of threads that take each other's
    place is seen in the next reading; so is one that has ended, a zombie
    or dead: its tracer, reaping it, unlinks it before /proc forgets
    it)."""
    found = set()
    for _ in range(looks):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            break
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    st = dict(x.split(":", 1) for x in f if ":" in x)
            except OSError:
                continue
            tp = st.get("TracerPid", "").split()
            ended = st.get("State", "").split()[:1] in (["Z"], ["X"])
            if tp and int(tp[0]) != tracer and not ended:
                found.add(int(tid))
    return sorted(found)


def proc_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, t, ...)."""
    with open(f"/proc/{pid}/stat", errors="surrogateescape") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def task_field(pid, tid, key):
    """The value of key in /proc/PID/task/TID/status ("State",
    "TracerPid", ...), or None (gone, or no such key)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split()[1]
    except OSError:
        pass
    return None


def wait_stopped(pid):
    """Waits until pid is stopped (state T or t); see wait_until."""
    wait_until(lambda: proc_state(pid) in "Tt", f"pid {pid} to stop")


def workload_ready(p, what="the workload"):
    """Reads the lines a workload started by subprocess.Popen p (stdout a
    text pipe) prints until "ready": "child PID" lines and "NAME HEX..."
    ones. Returns (regions, kids): {NAME: (int, ...)} of the hex numbers
    and the children's pids in order. Fails if it ends before."""
    regions, kids = {}, []
    for line in p.stdout:
        w = line.split()
        if w == ["ready"]:
            return regions, kids
        if w[0] == "child":
            kids.append(int(w[1]))
        else:
            regions[w[0]] = tuple(int(x, 16) for x in w[1:])
    fail(f"{what} ended before it was ready")


def workload_stopped(p, what="the workload"):
    """workload_ready, then waits for the workload p, a child of this
    process, to stop itself (an event, not a poll). Fails if it ends."""
    got = workload_ready(p, what)
    _, st = os.waitpid(p.pid, os.WUNTRACED)
    if not os.WIFSTOPPED(st):
        fail(f"{what} ended before it stopped")
    return got


def asleep_in(pid, *where):
    """Waits until pid sleeps in the kernel in a function whose name ends
    in one of where (its wchan): a program Popen started is then past its
    loader, its own image and libc mapped and touched. Popen returns at
    the exec, before the new program has run an instruction."""
    def asleep():
        with open(f"/proc/{pid}/wchan") as f:
            return f.read().endswith(where)
    wait_until(asleep, f"pid {pid} to sleep in {' or '.join(where)}")


def reading_pipe(pid):
    """asleep_in a read of a pipe (a `cat` of its stdin): anon_pipe_read
    since Linux 6.14, pipe_read before, pipe_wait up to 5.4."""
    asleep_in(pid, "pipe_read", "pipe_wait")


def in_nanosleep(pid):
    """asleep_in nanosleep (a `sleep`)."""
    asleep_in(pid, "nanosleep")


def stopped(pid):
    """Sends SIGSTOP to pid and waits until it is stopped."""
    os.kill(pid, signal.SIGSTOP)
    wait_stopped(pid)


def nmaps(pid):
    """The number of mappings (lines of /proc/PID/maps) of pid."""
    with open(f"/proc/{pid}/maps", errors="surrogateescape") as f:
        return sum(1 for _ in f)


def smaps_vmas(pid):
    """The VMAs of /proc/PID/smaps in order, as dicts: "start", "end"
    (ints), "last" (the header's last field: the path, or the inode of an
    anonymous mapping) and each "kB" field in bytes ("Rss", "Pss", ...)."""
    vmas = []
    with open(f"/proc/{pid}/smaps", errors="surrogateescape") as f:
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


def smaps_inode_rss(pid, ino):
    """smaps' Rss (bytes) of pid's mappings of inode ino, summed; None
    where it maps none (a file whose name has a newline is found by its
    inode, not its name)."""
    rss, cur = None, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            p = line.split()
            if p and "-" in p[0] and not p[0].endswith(":"):
                cur = len(p) > 4 and p[4] == str(ino)
            elif cur and p and p[0] == "Rss:":
                rss = (rss or 0) + int(p[1]) * 1024
    return rss


def smaps_rollup(pid):
    """The "kB" fields of /proc/PID/smaps_rollup in bytes ("Rss", "Pss",
    ...); {} for a process without user memory (a kernel thread); None if
    it is gone; raises PermissionError if it may not be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup",
                  errors="surrogateescape") as f:
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


def cpu_state(pid):
    """(tids, ns) of pid: its threads and the nanoseconds they have spent
    on a cpu (the first field of /proc/PID/task/TID/schedstat), or None if
    it cannot be read. Two equal states mean the process did not run in
    between (so its memory did not change, but for reclaim)."""
    tids, ns = [], 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                ns += int(f.read().split()[0])
            tids.append(int(t))
    except (OSError, ValueError, IndexError):
        return None
    return (frozenset(tids), ns)


def all_cpu_states():
    """{pid: cpu_state(pid)} of every process in /proc that can be read."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = cpu_state(int(d))
            if st is not None:
                out[int(d)] = st
    return out


def is_kthread(pid):
    """True if pid is a kernel thread (PF_KTHREAD in /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat", errors="surrogateescape") as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return bool(int(rest[6]) & 0x00200000)


def children(pid):
    """The pids of pid's children (from /proc/PID/task/*/children)."""
    kids = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return kids


def stop_kill(p, *kids):
    """Kills the stopped workload p (a Popen) and its children kids (pids;
    None: none), and reaps p."""
    for pid in (*kids, p.pid):
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    p.wait()


def stopped_child(pid):
    """Waits until pid's first child exists and is stopped (state T or t),
    as a workload that stops itself is; returns its pid. See wait_until."""
    found = []

    def ready():
        try:
            kids = children(pid)
            if kids and proc_state(kids[0]) in "Tt":
                found.append(kids[0])
                return True
        except (OSError, IndexError):
            pass
        return False
    wait_until(ready, f"a stopped child of pid {pid}")
    return found[0]


def smaps_mapping(pid, path):
    """(start, end, fields in bytes) of pid's mapping of path."""
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$",
                         line)
            if m:
                if cur:
                    return cur
                if m[3] == path:
                    cur = (int(m[1], 16), int(m[2], 16), {})
                continue
            m = re.match(r"(\w+):\s+(\d+) kB", line)
            if cur and m:
                cur[2][m[1]] = int(m[2]) * 1024
    return cur


# How a test runs a command as nobody, and a python nobody may run (the
# tests' own may be under root's home)
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
SYS_PYTHON = "/usr/bin/python3"


def start_as_nobody(tmp, script):
    """Runs SYS_PYTHON -c script FLAG as nobody, FLAG a file in the new
    directory tmp/nobody (all may write it; tmp opened to all) that the
    script writes (renamed into place) once ready, and waits for it.
    Returns (p, FLAG's text, the directory); p is killed if it ends or
    fails first. None where SYS_PYTHON is missing (a skip_part)."""
    if not os.access(SYS_PYTHON, os.X_OK):
        skip_part(f"the part run by nobody: no {SYS_PYTHON}")
        return None
    out = os.path.join(tmp, "nobody")
    os.mkdir(out)
    os.chmod(tmp, 0o755)
    os.chmod(out, 0o777)
    flag = os.path.join(out, "pid")
    p = subprocess.Popen(NOBODY + [SYS_PYTHON, "-c", script, flag])
    try:
        wait_until(lambda: os.path.exists(flag) or p.poll() is not None,
                   "the workload run by nobody to be ready")
        if p.poll() is not None:
            fail(f"the workload run by nobody ended ({p.returncode})")
        with open(flag) as f:
            return p, f.read(), out
    except BaseException:
        p.kill()
        p.wait()
        raise
