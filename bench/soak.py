#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Soak of `memsz record -p` (issue 25): a process that forks, execs,
maps and unmaps without pause, recorded with --interval 100 and --faults
for --minutes (default 10) beside a CPU hog. Not run by `make check`.

    python3 bench/soak.py [--minutes M] [--memsz _build/memsz] [--keep DIR]

Checks, and prints the figures of:
  - memsz's memory: its RSS (VmRSS) every second, within BOUND (README.md,
    "Soak"): its RSS at the start, plus BASE_MIB for what does not depend
    on the targets (packing and read buffers, zstd, snapshot pools, perf
    records waiting in the time-ordering window), plus PER_THREAD_KIB per
    thread of the targets alive at once (the most seen by the
    once-a-second look at the workload and its children): the two copies
    of its last stack the sample writer keeps (data/stackref.h: 2 x 8 KiB
    at most, freed once a PACKED record passes without a sample of the
    thread), its tracer, leash and target entries. A process that ended
    is freed (record/session_targets.c: rec_reap_dead), so neither the
    number of processes followed nor the length of the run count. And no
    creep: the highest RSS of the last half of the run must stay within
    CREEP_KIB of the highest of the first half;
  - nothing lost uncounted: the SAMPLE records in the file plus the lost
    samples the record summary reports must cover every page fault the
    kernel counted for the workload (getrusage of itself and its waited
    children over the fault loop: it starts only after memsz has
    attached), but for at most two per exec: the kernel counts in
    ru_minflt the faults execve takes writing the arguments to the new
    stack (through get_user_pages, with no registers), which raise no
    perf page-fault event (with --exec-every 0 the file holds every fault
    the kernel counted, and a few from outside the loop); and the LOST
    records must add up to the summary's counts (lost samples and lost
    mapping records);
  - the report exact at the end: the workload stopped in pause() (its
    children reaped), smaps read, memsz stopped (its final snapshot), then
    `memsz report --pid W --by mappings` must give every mapping the Rss
    smaps gives it, to the byte.
Exits 1 if a check fails."""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

WORKLOAD = r'''
import mmap, os, resource, signal, sys, time
stop = False
def on_usr1(sig, frame):
    global stop
    stop = True
signal.signal(signal.SIGUSR1, on_usr1)
data, every = sys.argv[1], int(sys.argv[2])
with open(data, "wb") as f:
    f.write(os.urandom(1 << 20))
fd = os.open(data, os.O_RDONLY)
os.read(0, 1)                    # wait until memsz has attached
def faults(who):
    r = resource.getrusage(who)
    return r.ru_minflt + r.ru_majflt
f0 = faults(resource.RUSAGE_SELF)
n = forks = execs = maps = 0
while not stop:
    m = mmap.mmap(-1, 256 << 10)  # anonymous: touch each page, unmap
    for off in range(0, 256 << 10, 4096):
        m[off] = 1
    m.close()
    m = mmap.mmap(fd, 1 << 20, prot=mmap.PROT_READ)  # a file: read it
    s = sum(m[off] for off in range(0, 1 << 20, 4096))
    m.close()
    maps += 2
    pid = os.fork()              # a child that maps, touches and exits
    if pid == 0:
        c = mmap.mmap(-1, 64 << 10)
        c[::4096] = b"x" * 16
        os._exit(0)
    os.waitpid(pid, 0)
    forks += 1
    if every and n % every == 0:  # a child that execs
        pid = os.posix_spawn("/bin/true", ["true"], {})
        os.waitpid(pid, 0)
        execs += 1
    n += 1
    time.sleep(0.01)
f1 = faults(resource.RUSAGE_SELF) + faults(resource.RUSAGE_CHILDREN)
print(f1 - f0, n, forks, execs, maps, flush=True)
while True:
    signal.pause()
'''


# The bound of memsz's RSS (see the docstring and README.md, "Soak").
BASE_MIB = 16
PER_THREAD_KIB = 32
CREEP_KIB = 1024


def tree_threads(pid):
    """Threads of pid and of every process below it, now."""
    n, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir("/proc/%d/task" % p)
            n += len(tids)
            for tid in tids:
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return n


def memsz_pid(rec):
    """The pid of memsz itself: rec, or (--wrap) the memsz process under
    it, once it exists."""
    todo = [rec.pid]
    while todo:
        pid = todo.pop()
        try:
            with open("/proc/%d/comm" % pid) as f:
                if f.read().strip() == "memsz":
                    return pid
            with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return None


def rss_kib(pid):
    """(VmRSS, RssAnon, RssFile + RssShmem) of pid in KiB, or None once it
    is gone."""
    v = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, rest = line.partition(":")
                if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                    v[k] = int(rest.split()[0])
    except OSError:
        return None
    return v["VmRSS"], v["RssAnon"], v["RssFile"] + v["RssShmem"]


def smaps_rss(pid):
    """{(start, end): Rss bytes} of every mapping of pid."""
    out, key = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
            if m:
                key = (int(m.group(1), 16), int(m.group(2), 16))
            elif line.startswith("Rss:"):
                out[key] = int(line.split()[1]) * 1024
    return out


def has_perf_fd(pid):
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            if "perf_event" in os.readlink("/proc/%d/fd/%s" % (pid, fd)):
                return True
    except OSError:
        pass
    return False


def report_rss(memsz, data, pid):
    """{(start, end): rss bytes} of pid's mappings in the last snapshot."""
    out = subprocess.run([memsz, "report", "-i", data, "--pid", str(pid),
                          "--by", "mappings", "-n", "0", "--fields", "rss",
                          "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    rows = {}
    for row in json.loads(out)["rows"]:
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", row["name"])
        rows[(int(m.group(1), 16), int(m.group(2), 16))] = row["rss"]
    return rows


def count_records(memsz, data, pid):
    """Samples of the workload's processes (pid and the children it
    forked: every SAMPLE record), and the lost samples the LOST records
    count."""
    p = subprocess.Popen([memsz, "dump", "-i", data],
                         stdout=subprocess.PIPE, text=True)
    samples = lost = 0
    for line in p.stdout:
        if " SAMPLE " in line:
            samples += 1
        elif " LOST " in line:
            lost += int(line.split()[-1])  # "... LOST count"
    p.wait()
    return samples, lost


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--memsz", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "_build",
        "memsz"))
    ap.add_argument("--exec-every", type=int, default=4, metavar="N",
                    help="fork and exec /bin/true every N iterations "
                    "(0: never)")
    ap.add_argument("--wrap", default="", help="run memsz under this "
                    "command (e.g. 'valgrind --tool=massif')")
    ap.add_argument("--record-args", default="", metavar="ARGS",
                    help="more options of memsz record (e.g. "
                    "'--call-graph fp')")
    ap.add_argument("--keep", help="keep the recording in this directory")
    return ap.parse_args()


def run(a, tmp, data):
    """Record the workload beside a hog for a.minutes into data. Returns
    what the checks need."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    work = subprocess.Popen([sys.executable, "-c", WORKLOAD,
                             os.path.join(tmp, "mapped"),
                             str(a.exec_every)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    time.sleep(0.5)
    rec = subprocess.Popen(a.wrap.split() + [
        a.memsz, "record", "-o", data, "--interval", "100", "--faults",
        "-p", str(work.pid)] + a.record_args.split(),
        stderr=subprocess.PIPE, text=True)
    pid = None
    while not pid or not has_perf_fd(pid):
        if rec.poll() is not None:
            sys.exit("soak: memsz record exited: " + rec.stderr.read())
        time.sleep(0.05)
        pid = memsz_pid(rec)
    time.sleep(1)
    work.stdin.write("g")
    work.stdin.flush()
    t0 = time.monotonic()
    series, m = [], {"threads": 0}
    while time.monotonic() - t0 < a.minutes * 60:
        series.append((time.monotonic() - t0, rss_kib(pid)))
        m["threads"] = max(m["threads"], tree_threads(work.pid))
        time.sleep(1)
    work.send_signal(signal.SIGUSR1)
    m.update(zip(("kfaults", "iters", "forks", "execs", "maps"),
                 map(int, work.stdout.readline().split())))
    time.sleep(0.5)              # the workload sits in pause()
    m["before"] = smaps_rss(work.pid)
    if a.keep:                   # where memsz's own memory is
        with open("/proc/%d/smaps" % pid) as f, \
             open(os.path.join(tmp, "memsz.smaps"), "w") as out:
            out.write(f.read())
    os.kill(pid, signal.SIGINT)  # memsz itself, not a --wrap
    m["summary"] = rec.stderr.read()
    m["rc"] = rec.wait()
    m["after"] = smaps_rss(work.pid)
    m["pid"] = work.pid
    m["series"] = [(t, r) for t, r in series if r]
    for p in (work, hog):
        p.kill()
        p.wait()
    return m


def check_rss(a, tmp, m):
    """memsz's RSS within its bound, and not creeping up? Prints the
    figures."""
    series = m["series"]
    rss = [r[0] for _, r in series]
    bound = rss[0] + BASE_MIB * 1024 + PER_THREAD_KIB * m["threads"]
    half = len(rss) // 2
    first, last = max(rss[:half] or rss), max(rss[half:])
    ok_bound = max(rss) <= bound
    ok_creep = last <= first + CREEP_KIB
    print("%s: memsz RSS (KiB) start %d, highest %d, end %d; bound %d = "
          "start + %d MiB + %d KiB x %d threads of the targets alive at "
          "once" % ("PASS" if ok_bound else "FAIL", rss[0], max(rss),
                    rss[-1], bound, BASE_MIB, PER_THREAD_KIB,
                    m["threads"]))
    print("%s: memsz RSS (KiB) highest in the first half %d, in the last "
          "half %d (at most %d KiB more)" %
          ("PASS" if ok_creep else "FAIL", first, last, CREEP_KIB))
    step = max(1, len(series) // 10)
    print("  over time (s: KiB): " + ", ".join(
        "%.0f: %d" % (t, r[0]) for t, r in series[::step]))
    print("  at the end: anon %d, file and shared %d (the perf ring "
          "buffers are mapped shared)" % series[-1][1][1:])
    if a.keep:
        with open(os.path.join(tmp, "rss.txt"), "w") as f:
            for t, r in series:
                f.write("%.0f %d %d %d\n" % ((t,) + r))
    return ok_bound and ok_creep


def check_samples(a, data, m):
    """Every fault recorded or counted lost? Prints the figures."""
    ok = True
    summary, execs = m["summary"], m["execs"]
    print("memsz record exit %d: %s" % (m["rc"], summary.strip()))
    f = re.search(r"(\d+) samples \((\d+) lost\)", summary)
    s_samples, s_lost = (int(f.group(1)), int(f.group(2))) if f else (-1, -1)
    f = re.search(r"(\d+) mapping records lost", summary)
    s_side = int(f.group(1)) if f else 0
    samples, lost = count_records(a.memsz, data, m["pid"])
    print("samples: %d in the file, summary %d (%d lost; %d mapping "
          "records lost), LOST records %d; kernel counted %d faults of the "
          "workload in the loop" % (samples, s_samples, s_lost, s_side, lost,
                                    m["kfaults"]))
    if samples != s_samples or lost != s_lost + s_side:
        print("FAIL: the file and the summary disagree")
        ok = False
    missing = m["kfaults"] - samples - s_lost
    if missing > 2 * execs:
        print("FAIL: %d faults neither recorded nor counted lost (%d "
              "execs)" % (missing, execs))
        ok = False
    elif missing > 0:
        print("  %d faults counted by the kernel and not raised as perf "
              "events: %.2f per exec, of execve's argument pages" %
              (missing, missing / execs))
    # ended by SIGINT: the recording written, memsz dies by it
    if m["rc"] != -signal.SIGINT:
        print("FAIL: memsz record exited %d" % m["rc"])
        ok = False
    if ok:
        print("PASS: every fault recorded or counted lost, and the summary "
              "counts what the file holds")
    return ok


def check_report(a, data, m):
    """The last snapshot's report equal to smaps? Prints the figures."""
    before = m["before"]
    if before != m["after"]:
        print("FAIL: the workload's smaps changed while memsz stopped")
        return False
    got = report_rss(a.memsz, data, m["pid"])
    bad = [(k, before.get(k), got.get(k)) for k in set(before) | set(got)
           if before.get(k, 0) != got.get(k, 0)]
    print("report vs smaps: %d mappings, %d differ, Rss %d vs %d bytes" %
          (len(before), len(bad), sum(before.values()), sum(got.values())))
    for k, want, have in sorted(bad, key=str)[:10]:
        print("  %x-%x smaps %s report %s" % (k[0], k[1], want, have))
    print("%s: the report at the end equals smaps" %
          ("FAIL" if bad else "PASS"))
    return not bad


def main():
    a = parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="memsz-soak.")
    os.makedirs(tmp, exist_ok=True)
    data = os.path.join(tmp, "soak.data")
    m = run(a, tmp, data)
    print("soak: %.1f min, load %.1f; workload: %d iterations, %d forks, "
          "%d execs, %d maps+unmaps" % (a.minutes, os.getloadavg()[0],
                                        m["iters"], m["forks"], m["execs"],
                                        m["maps"]))
    ok = check_rss(a, tmp, m)
    ok &= check_samples(a, data, m)
    ok &= check_report(a, data, m)
    print("data file %.1f MiB in %s" % (os.path.getsize(data) / 2**20, tmp))
    if not a.keep:
        os.unlink(data)
        os.unlink(os.path.join(tmp, "mapped"))
        os.rmdir(tmp)
    print("soak: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
