# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.cgroup: control groups for the record -G and memory
charge tests: where the hierarchies are, making, filling, killing and
removing cgroups (memory_cgroups, cat_in_cgroup, start_in_cgroup, and
the scripts FILE_WRITER and ANON_HOLDER to start there), a test's main()
in a cgroup of its own (cgroup_test), memory.stat and the charge
(memcg_stat, memcg_stat_key, memcg_usage), and the CGROUP records of a
recording.
"""
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from .core import (MEMSZ, check, dir_removed, finish, read_int, run_ok,
                   skip, wait_until)
from .proc import workload_ready
from .record import report


def memcg_stat(cg, key):
    """The value of key in the memory cgroup directory cg's memory.stat
    (0 where it has no such line)."""
    with open(os.path.join(cg, "memory.stat")) as f:
        for line in f:
            k, v = line.split()
            if k == key:
                return int(v)
    return 0


# memory.stat is the kernel's per-CPU counters flushed lazily (at least
# every 2 s): a read just after pages were charged or freed may not show
# them yet. memcg_stat_until() reads again until the value agrees or this
# many seconds pass (a guard, not a wait: the caller's check then says
# what was read).
STAT_GUARD = 10


def memcg_stat_until(cg, key, agrees):
    """memcg_stat(cg, key), read again (every 50 ms) until agrees(value)
    or STAT_GUARD seconds pass; the last value read."""
    last = [0]

    def read():
        last[0] = memcg_stat(cg, key)
        return agrees(last[0])
    try:
        wait_until(read, f"{cg}'s memory.stat {key}", STAT_GUARD, 0.05)
    except TimeoutError:
        pass
    return last[0]


def cgroup2_mount():
    """Where a cgroup v2 hierarchy is mounted (/sys/fs/cgroup first), or
    None."""
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split(" - ")[0].split()[4] for line in f
                  if " - cgroup2 " in line]
    if "/sys/fs/cgroup" in mounts:
        return "/sys/fs/cgroup"
    return mounts[0] if mounts else None


_CGROUP_RE = re.compile(r"CGROUP pid (\d+) v(\d) ino (\d+)(?: usage (\d+))?"
                        r"(?: kmem (\d+))? stats \d+( target)?( payer)? (.*)$")


def cgroup_records(data):
    """The CGROUP records of `memsz dump -v -i data`, in order, as dicts:
    "pid", "version", "ino", "usage" and "kmem" (None where not recorded),
    "target" and "payer" (bools), "path" (as dump prints it) and "stats"
    ({counter: value} from memory.stat)."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                         capture_output=True, text=True,
                         errors="surrogateescape").stdout
    recs, cur = [], None
    for line in out.splitlines():
        m = _CGROUP_RE.search(line)
        if m:
            cur = {"pid": int(m[1]), "version": int(m[2]), "ino": int(m[3]),
                   "usage": m[4] and int(m[4]), "kmem": m[5] and int(m[5]),
                   "target": bool(m[6]), "payer": bool(m[7]),
                   "path": m[8], "stats": {}}
            recs.append(cur)
        elif cur and line.startswith("    ") and len(line.split()) == 2:
            k, v = line.split()
            cur["stats"][k] = int(v)
        else:
            cur = None  # another record: its lines are not counters
    return recs


def cgroup_targets(data):
    """The CGROUP records of data's -G target (see cgroup_records)."""
    return [r for r in cgroup_records(data) if r["pid"] == 0 and r["target"]]


V1_MEMORY = "/sys/fs/cgroup/memory"


def make_cgroup(tag, v1_first=False):
    """A new cgroup directory memsz-TAG-PID, under cgroup2 then the v1
    memory controller (v1 first with v1_first: where the memory
    controller must be there), or a skip."""
    roots = [cgroup2_mount()] if cgroup2_mount() else []
    if os.path.isdir(V1_MEMORY):
        roots.insert(0 if v1_first else len(roots), V1_MEMORY)
    for root in roots:
        cg = os.path.join(root, "memsz-%s-%d" % (tag, os.getpid()))
        try:
            os.mkdir(cg)
            return cg
        except OSError:
            continue
    skip("cannot make a cgroup")


def remove_cgroup(cg, what=None):
    """Removes the cgroup directory cg once its killed processes are
    reaped (see wait_until, dir_removed); a cgroup still busy after the
    guard is said in a "# " line (what: the wait's name, by default
    "cgroup CG to be removed"), not raised: the caller checks it is
    gone."""
    try:
        wait_until(lambda: dir_removed(cg),
                   what or "cgroup %s to be removed" % cg)
    except TimeoutError as e:
        print("# " + str(e))


def memory_cgroup_root(v1=False):
    """Where memsz's tests make memory cgroups: cgroup v1's memory
    hierarchy (V1_MEMORY), else (unless v1: a test of v1's charging) a
    cgroup2 hierarchy whose root hands the memory controller down; None
    where neither is."""
    if os.path.exists(os.path.join(V1_MEMORY, "memory.usage_in_bytes")):
        return V1_MEMORY
    root = None if v1 else cgroup2_mount()
    try:
        with open(os.path.join(root, "cgroup.subtree_control")) as f:
            return root if "memory" in f.read().split() else None
    except (OSError, TypeError):
        return None


def cgroup_kill(cg):
    """SIGKILL to every process still in the cgroup directory cg (one a
    test left there, or that escaped its clean-up)."""
    try:
        with open(os.path.join(cg, "cgroup.procs")) as f:
            pids = [int(x) for x in f.read().split()]
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextlib.contextmanager
def memory_cgroups(tag, *names, v1=False):
    """New memory cgroups memsz-TAG-PID-NAME, one per name (one
    memsz-TAG-PID without names), under memory_cgroup_root(v1): a skip
    where there is none. Yields their paths, in names' order; on leaving,
    even on a failure or a skip, kills what is still in them (cgroup_kill),
    removes them (remove_cgroup) and, unless the body raised, checks that
    they are gone."""
    root = memory_cgroup_root(v1)
    if root is None:
        skip("no cgroup v1 memory hierarchy at " + V1_MEMORY if v1 else
             "no memory cgroup hierarchy (cgroup v1 memory, or cgroup2 "
             "with +memory)")
    base = os.path.join(root, "memsz-%s-%d" % (tag, os.getpid()))
    paths = ["%s-%s" % (base, n) for n in names] or [base]
    made = []
    try:
        for cg in paths:
            os.mkdir(cg)
            made.append(cg)
        yield paths
    finally:
        for cg in made:
            cgroup_kill(cg)
            remove_cgroup(cg)
    check(not any(os.path.exists(cg) for cg in paths),
          "cgroup%s %s removed" % ("s" if len(paths) > 1 else "",
                                   " and ".join(paths)))


@contextlib.contextmanager
def cat_in_cgroup(tag):
    """A new cgroup memsz-TAG-PID (make_cgroup: cgroup2 first, else the
    v1 memory controller; a skip if neither) holding one process, a `cat`
    that waits on its stdin: for a `record -G` that needs a process to
    record. Yields the cgroup's path; on leaving, kills and reaps the cat,
    removes the cgroup (remove_cgroup) and, unless the body raised (a
    failure, a skip), checks that it is gone."""
    cg = make_cgroup(tag)
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
    try:
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(cat.pid))
        yield cg
    finally:
        cat.kill()
        cat.wait()
        remove_cgroup(cg)
    check(not os.path.exists(cg), "cgroup %s removed" % cg)


def start_in_cgroup(script, cg, *args, prefix=()):
    """python3 -c script args (run by the command prefix: setpriv, say),
    moved into cg before it goes on."""
    p = subprocess.Popen([*prefix, sys.executable, "-c", script,
                          *map(str, args)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(p.pid))
    p.stdin.write("go\n")
    p.stdin.flush()
    return p


def memcg_usage(cg):
    """cg's charge: memory.current (v2) or memory.usage_in_bytes (v1)."""
    for f in ("memory.current", "memory.usage_in_bytes"):
        v = read_int(os.path.join(cg, f))
        if v is not None:
            return v
    return 0


def memcg_stat_key(cg, key):
    """The memory.stat line of cg's subtree for key ("cache", "rss",
    "inactive_file", ...): v1's total_ one; v2's, which counts the
    subtree, by its v2 name ("cache" is "file", "rss" is "anon")."""
    if not os.path.exists(os.path.join(cg, "memory.current")):
        return "total_" + key
    return {"cache": "file", "rss": "anon"}.get(key, key)


# A python3 script for start_in_cgroup(FILE_WRITER, cg, PATH, MIB): once
# in cg, it writes MIB MiB of random bytes to PATH, closes it, says
# "ready" and waits on its stdin (its page cache charged to cg).
FILE_WRITER = """import os, sys
sys.stdin.readline()
with open(sys.argv[1], "wb") as f:
    for i in range(int(sys.argv[2])):
        f.write(os.urandom(1 << 20))
print("ready", flush=True)
sys.stdin.readline()
"""

# start_in_cgroup(ANON_HOLDER, cg, BYTES): once in cg, it touches BYTES
# of anonymous memory (charged to cg), says "ready", waits on its stdin.
ANON_HOLDER = """import sys
sys.stdin.readline()
b = bytearray(int(sys.argv[1]))
for i in range(0, len(b), 4096):
    b[i] = 1
print("ready", flush=True)
sys.stdin.readline()
"""


def cgroup_test(tag, run, tmpdir=None):
    """A test's main(): as root (else a skip), run(tmp, cg) in a new
    memory cgroup (memory_cgroups(tag)) and a new temporary directory
    memsz-TAG-* (under tmpdir: a disk's, for page cache that can be
    dropped, where /tmp is a tmpfs)."""
    if os.geteuid() != 0:
        skip("making a cgroup needs root")
    with memory_cgroups(tag) as (cg,):
        with tempfile.TemporaryDirectory(prefix="memsz-%s-" % tag,
                                         dir=tmpdir) as tmp:
            run(tmp, cg)


def exit_recorded(cg, data, interval, size, started, exited, prefix=()):
    """Two ANON_HOLDER processes in cg, a keeper (0 bytes) and a burst
    (size bytes), while `record -G cg --interval interval -o data` runs:
    started(data) once it runs, then the burst is told to exit and
    reaped, exited(data), cg's charge read, the recording stopped
    (SIGINT) and the charge read again; every process reaped on any
    exit. All three are run by the command prefix (setpriv, say). Checks that record died by the SIGINT; returns (the burst's
    pid, the lower charge, the higher)."""
    keeper = start_in_cgroup(ANON_HOLDER, cg, 0, prefix=prefix)
    burst = start_in_cgroup(ANON_HOLDER, cg, size, prefix=prefix)
    rec = None
    try:
        workload_ready(keeper, "the keeper")
        workload_ready(burst, f"the burst ({size} bytes touched)")
        rec = subprocess.Popen([*prefix, MEMSZ, "record", "-G", cg,
                                "--interval",
                                str(interval), "-o", data],
                               stderr=subprocess.PIPE, text=True)
        started(data)
        burst.stdin.write("exit\n")
        burst.stdin.flush()
        burst.wait()
        exited(data)
        use0 = memcg_usage(cg)
        rec.send_signal(signal.SIGINT)
        err = rec.communicate()[1]
        use1 = memcg_usage(cg)
    finally:
        if rec and rec.returncode is None:
            rec.kill()
            rec.wait()
        for p in (keeper, burst):
            p.kill()
            p.wait()
    check(rec.returncode == -signal.SIGINT,
          f"record dies by the SIGINT that ended it ({err.strip()})")
    return burst.pid, min(use0, use1), max(use0, use1)


def charge_total(rows):
    """The sum of CHARGE over rows (report's csv rows) but the TOTAL."""
    return sum(float(r["charge"] or 0) for r in rows
               if r.get("pids") != "TOTAL")


def check_exit_dropped(data, pid, *extra):
    """Checks that data has one EXIT record of pid (`memsz dump`: "EXIT
    PID/PID", no parent it does not know) and that its default report
    (--by pids, extra options) has no row of pid; returns the rows."""
    dump = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                          capture_output=True).stdout
    exits = [ln for ln in dump.splitlines()
             if ln.endswith(f" EXIT {pid}/{pid}")]
    check(len(exits) == 1, f"an EXIT record of the burst, pid {pid}, "
          f"dumped without a parent it does not know ({exits})")
    rows = report(data, "pids", *extra)
    gone = [r for r in rows if r["pids"].split()[0] == str(pid)]
    check(not gone, f"the default report has no row of the burst ({gone})")
    return rows


def check_exit_left_out(data, pid, low, high, slack, size):
    """check_exit_dropped(), and that the report's TOTAL of CHARGE is
    within slack of the charge low..high (not size over it)."""
    total = charge_total(check_exit_dropped(data, pid, "-F", "charge"))
    check(low - slack <= total <= high + slack,
          f"the report's CHARGE sums to {total:.0f}, CG's charge "
          f"{low}..{high} within {slack} (the burst's {size} not in it)")


CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")


def build_preload(tmp, source, **env):
    """The C source built (cc) into tmp/wrap.so; returns the environment
    to run memsz with it preloaded (ASan told not to mind) and env."""
    src = os.path.join(tmp, "wrap.c")
    so = os.path.join(tmp, "wrap.so")
    with open(src, "w") as f:
        f.write(source)
    run_ok([CC.split()[0], "-shared", "-fPIC", "-O2", "-o", so, src, "-ldl"])
    return dict(os.environ, LD_PRELOAD=so,
                ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                ":verify_asan_link_order=0", **env)


def preload_test(tag, run, what):
    """A test's main() that preloads into memsz a library built here
    (build_preload): a skip without a C compiler (what: the library, for
    the message), else cgroup_test(tag, run) with its directory on disk;
    exits by finish()."""
    if not CC:
        skip(f"no C compiler to build {what}")
    cgroup_test(tag, run, tmpdir="/var/tmp")
    sys.exit(finish())
