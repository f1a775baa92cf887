#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2477: an unprivileged user with little locked memory records --faults
with smaller rings, and is told so; no ring is blamed on
perf_event_paranoid.

The kernel lets a user lock perf_event_mlock_kb per online cpu of ring
buffers, and ulimit -l (RLIMIT_MEMLOCK) more (none of it without
CAP_IPC_LOCK); a ring over that is refused with EPERM. memsz once mapped
each cpu's side-band ring first, sized for 64 MiB sample rings (8 or 16
MiB): it ate the budget, the sample ring was halved to what was left and
the growth trigger's ring refused, and memsz failed with "cannot sample
events: perf_event_open not permitted (Operation not permitted,
perf_event_paranoid=2)" where the memsz before it recorded with 128 KiB
sample rings. As nobody (setpriv), with RLIMIT_MEMLOCK of 1, 4 and 8
MiB, `memsz record --faults [--call-graph fp] -- sh -c 'seq 1 300000 |
sort'`:
 - exits 0, its summary says 0 lost and some samples;
 - its stderr says the sample ring buffers were limited, to sizes whose
   sum over the cpus is within the budget the kernel's limits give
   (perf_event_mlock_kb times the online cpus, plus RLIMIT_MEMLOCK);
 - no "perf_event_open not permitted" on stderr.
memsz before the fix failed 5 of the 6 runs (20 of 24 checks failed).

With larger stack copies (--stack-size 32768 and 65528) and RLIMIT_MEMLOCK
of 0, 128, 384, 3456 and 7680 KiB, `memsz record --faults --stack-size N
-- true` either records, saying the sample rings were limited, or fails
with the one line naming the locked-memory limit; never "give a larger
-m" (memsz shrank a sample ring under two samples for the limit and blamed
-m, and kept 512 KiB side-band rings that left the last cpu no room).
Where the limits cannot hold 512 KiB side-band rings next to the sample
rings said, the side-band rings are said limited too, and the rings said
fit the limits.
"""
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
LIMITS_KIB = (1024, 4096, 8192)
WAYS = ((), ("--call-graph", "fp"))
# the smallest sample rings memsz asks for (SAMPLE_RING_MIN), per cpu
SAMPLE_RING_KIB = 8 << 10
STACK_LIMITS_KIB = (0, 128, 384, 3456, 7680)
STACKS = (32768, 65528)
# side-band ring without the limit (DEFAULT_RING_BYTES) and the growth
# trigger's ring (GROWTH_RING_PAGES), in KiB; each ring maps one page more
SIDEBAND_KIB = 512
GROWTH_KIB = 32


def read_int(path):
    with open(path) as f:
        return int(f.read().split()[0])


def online_cpus():
    """The online cpus (/sys/devices/system/cpu/online)."""
    n = 0
    with open("/sys/devices/system/cpu/online") as f:
        for part in f.read().strip().split(","):
            lo, _, hi = part.partition("-")
            n += int(hi or lo) - int(lo) + 1
    return n


def record(tmp, limit_kib, way, cmd=("sh", "-c",
                                      "seq 1 300000 | sort >/dev/null")):
    """memsz record as nobody with RLIMIT_MEMLOCK limit_kib; (rc, err)."""
    def limit():
        b = limit_kib << 10
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (b, b))

    data = os.path.join(tmp, f"l{limit_kib}{len(way)}.data")
    # TMPDIR: tmp (mode 0777), where sort, as nobody, may spill; the
    # caller's TMPDIR may not be writable by nobody
    p = subprocess.run(NOBODY + [lib.MEMSZ, "record", "--faults", *way,
                                 "-o", data, "--", *cmd],
                       stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                       text=True, preexec_fn=limit, timeout=600,
                       env=dict(os.environ, TMPDIR=tmp))
    if os.path.exists(data):
        os.unlink(data)
    return p.returncode, p.stderr


def stack_sizes(tmp, mlock_kib, ncpus):
    """Large stack copies under small limits: recorded with the rings
    said limited and within the limits, or the locked-memory line."""
    page_kib = os.sysconf("SC_PAGE_SIZE") >> 10
    for stack in STACKS:
        for limit_kib in STACK_LIMITS_KIB:
            budget = mlock_kib * ncpus + limit_kib
            name = f"--stack-size {stack}, ulimit -l {limit_kib}"
            rc, err = record(tmp, limit_kib, ("--stack-size", str(stack)),
                             ("true",))
            last = err.strip().splitlines()[-1:] or [""]
            check("give a larger -m" not in err,
                  f"{name}: -m not blamed ({last[0]})")
            if rc:
                check("locked-memory limit" in last[0] and
                      "ulimit -l" in last[0],
                      f"{name}: fails with the locked-memory line "
                      f"({err.strip()[-300:]})")
                continue
            sample = re.search(r"sample ring buffers limited to (\d+) KiB",
                               err)
            side = re.search(r"side-band ring buffers limited to (\d+) "
                             r"KiB", err)
            check(sample, f"{name}: records, sample rings said limited")
            if not sample:
                continue
            s_kib = int(sample.group(1))
            full = ncpus * (s_kib + SIDEBAND_KIB + GROWTH_KIB + 3 * page_kib)
            check(side or full <= budget,
                  f"{name}: side-band rings said limited where {ncpus} x "
                  f"({s_kib} KiB sample + {SIDEBAND_KIB} KiB side-band) "
                  f"is over the {budget} KiB the limits give")
            if side:
                x_kib = int(side.group(1))
                check(ncpus * (s_kib + x_kib) <= budget,
                      f"{name}: {s_kib} + {x_kib} KiB rings per cpu within "
                      f"the {budget} KiB the limits give")


def main():
    if os.geteuid() != 0:
        lib.skip("acting as nobody with a set RLIMIT_MEMLOCK needs root")
    if not shutil.which("setpriv"):
        lib.skip("no setpriv (util-linux)")
    paranoid = read_int("/proc/sys/kernel/perf_event_paranoid")
    if paranoid > 2:
        lib.skip(f"perf_event_paranoid is {paranoid}: no perf events "
                 "for an unprivileged user")
    mlock_kib = read_int("/proc/sys/kernel/perf_event_mlock_kb")
    ncpus = online_cpus()
    with tempfile.TemporaryDirectory(prefix="memsz-t2477-") as tmp:
        os.chmod(tmp, 0o777)
        if subprocess.run(NOBODY + ["test", "-x", lib.MEMSZ]).returncode:
            lib.skip(f"{lib.MEMSZ} is not executable by nobody")
        stack_sizes(tmp, mlock_kib, ncpus)
        for limit_kib in LIMITS_KIB:
            budget = mlock_kib * ncpus + limit_kib
            if budget >= SAMPLE_RING_KIB * ncpus * 2:
                lib.skip_part(f"ulimit -l {limit_kib}: {budget} KiB "
                              "lockable is enough for every ring")
                continue
            for way in WAYS:
                name = f"ulimit -l {limit_kib} {' '.join(way)}".strip()
                rc, err = record(tmp, limit_kib, way)
                check(rc == 0, f"{name}: record exits 0 ({err.strip()[-300:]})")
                check("perf_event_open not permitted" not in err,
                      f"{name}: no perf_event_paranoid blamed")
                m = re.search(r"(\d+) samples \((\d+) lost\)", err)
                check(m and int(m.group(1)) > 0 and m.group(2) == "0",
                      f"{name}: samples, 0 lost "
                      f"({m.group(0) if m else 'no summary'})")
                m = re.search(r"sample ring buffers limited to (\d+) KiB "
                              r"per cpu", err)
                check(m and int(m.group(1)) * ncpus <= budget,
                      f"{name}: sample rings said limited, within the "
                      f"{budget} KiB the limits give "
                      f"({m.group(0) if m else 'not said'})")


main()
sys.exit(lib.finish())
