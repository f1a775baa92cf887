#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2318: on a hybrid machine (cgroup v1's memory controller, a cgroup2
hierarchy without it beside, as systemd lays them out with the same
paths in both), `record -G NAME` given relative to the mounts or as
/proc/PID/cgroup shows it takes the memory cgroup of that name: v1's
memory hierarchy's, not the cgroup2 directory of the same name, which
has no memory counters. It took the cgroup2 one, warned that it had no
memory controller and recorded no charge.

As root, where v1's memory hierarchy and a cgroup2 mount without the
memory controller are both there (skipped elsewhere: on a cgroup2-only
machine with the controller, the cgroup2 directory is the memory
cgroup), a cgroup NAME is made in both and a python3 process that
touches 16 MiB of anonymous memory is moved into both (v1's first, so
that v1's NAME pays for it). For `-G NAME` and `-G /NAME`: no warning,
the -G CGROUP record names v1's NAME with its usage_in_bytes (within
the values read just before and after), and the report's [anon] row has
CHARGE = RSS >= 16 MiB. A cgroup2 directory given by its absolute path
is still taken as given (the warning says it has no memory controller).
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

HELD = 16 << 20
HOLDER = """import sys
print("joined?", flush=True)
sys.stdin.readline()
b = bytearray(%d)
for i in range(0, len(b), 4096):
    b[i] = 1
print("ready", flush=True)
sys.stdin.readline()
""" % HELD


def target_record(data):
    """(path, usage) of the -G CGROUP record (`memsz dump`), or None."""
    t = lib.cgroup_targets(data)
    return (t[0]["path"], t[0]["usage"]) if t else None


def run(tmp, v1, v2, name):
    work = subprocess.Popen([sys.executable, "-c", HOLDER],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        work.stdout.readline()
        for cg in (v1, v2):
            with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                f.write(str(work.pid))
        work.stdin.write("go\n")
        work.stdin.flush()
        check(work.stdout.readline().startswith("ready"),
              "the holder touched its memory in v1's and cgroup2's NAME")
        paid = lib.memcg_stat_until(v1, "total_rss", lambda v: v >= HELD)
        check(paid >= HELD, f"ground truth: v1 NAME's memory.stat "
              f"total_rss {paid} >= {HELD}")
        data = os.path.join(tmp, "g.data")
        for sp in (name, "/" + name):
            u0 = lib.read_int(os.path.join(v1, "memory.usage_in_bytes"))
            r = subprocess.run([MEMSZ, "record", "-G", sp, "--duration",
                                "0", "-o", data], capture_output=True,
                               text=True)
            u1 = lib.read_int(os.path.join(v1, "memory.usage_in_bytes"))
            check(r.returncode == 0 and "warning" not in r.stderr,
                  f"-G {sp}: exit 0, no warning ({r.stderr.strip()})")
            t = target_record(data) if r.returncode == 0 else None
            check(t is not None and t[0] == v1 and
                  min(u0, u1) <= t[1] <= max(u0, u1),
                  f"-G {sp}: the charge recorded is v1's {v1}, its "
                  f"usage_in_bytes {u0}..{u1} ({t})")
            rows = lib.report(data, "files", "-F", "rss,charge") \
                if r.returncode == 0 else []
            anon = [(int(x["rss"]), float(x["charge"])) for x in rows
                    if x["files"] == "[anon]"]
            check(len(anon) == 1 and anon[0][0] >= HELD and
                  anon[0][1] == anon[0][0],
                  f"-G {sp}: [anon] CHARGE = RSS >= {HELD} ({anon})")
        r = subprocess.run([MEMSZ, "record", "-G", v2, "--duration", "0",
                            "-o", data], capture_output=True, text=True)
        check(r.returncode == 0 and
              f"cgroup '{v2}' has no memory controller" in r.stderr,
              f"-G {v2} (absolute): taken as given, said to have no memory "
              f"controller ({r.stderr.strip()})")
    finally:
        work.kill()
        work.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    mnt = lib.cgroup2_mount()
    if not os.path.isdir(lib.V1_MEMORY) or not mnt:
        lib.skip("not a hybrid machine (v1's memory hierarchy and cgroup2)")
    with open(os.path.join(mnt, "cgroup.controllers")) as f:
        if "memory" in f.read().split():
            lib.skip("cgroup2 has the memory controller")
    name = f"memsz-t2318-{os.getpid()}"
    v1, v2 = os.path.join(lib.V1_MEMORY, name), os.path.join(mnt, name)
    os.mkdir(v1)
    try:
        os.mkdir(v2)
        with tempfile.TemporaryDirectory(prefix="memsz-t2318-") as tmp:
            run(tmp, v1, v2, name)
    finally:
        for d in (v1, v2):
            lib.remove_cgroup(d)
    check(not os.path.exists(v1) and not os.path.exists(v2),
          "the cgroups removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
