#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2322: a -G cgroup removed while it is recorded is said to be removed,
not to have no memory controller: memsz goes on snapshotting the
processes that left it, and the cgroup's counters could not be read any
more, which it took for a cgroup without the memory controller.

As root, a memory cgroup CG (v1's memory hierarchy first, else cgroup2
with the memory controller) and a sibling CG-out are made; a python3
process in CG waits on its stdin. `record -G CG --interval 100` runs;
after a snapshot with CG's counters (a CGROUP record of the -G cgroup),
the process is moved to CG-out and CG removed (ground truth: CG's
directory is gone); after two more snapshots the recording is stopped
(SIGINT). It dies by it (t2490); stderr and the recording's notes
(`memsz dump`) say that CG was removed and never that it has no memory controller;
the CGROUP records of the -G cgroup from before the removal are there.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WAITER = """import os, sys
open(os.path.join(sys.argv[1], "cgroup.procs"), "w").write(str(os.getpid()))
print("ready", flush=True)
sys.stdin.readline()
"""


def target_records(data):
    """The number of CGROUP records of the -G cgroup in data."""
    return len(lib.cgroup_targets(lib.recording(data)))


def run(tmp, cg, out):
    work = subprocess.Popen([sys.executable, "-c", WAITER, cg],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    rec = None
    try:
        check(work.stdout.readline().startswith("ready"),
              "the process is in CG")
        data = os.path.join(tmp, "g.data")
        rec = subprocess.Popen([MEMSZ, "record", "-G", cg, "--interval",
                                "100", "-o", data], stderr=subprocess.PIPE,
                               text=True)
        try:
            lib.wait_until(lambda: target_records(data) > 0,
                           "a CGROUP record of CG")
        except TimeoutError as e:
            print("# " + str(e))
        with open(os.path.join(out, "cgroup.procs"), "w") as f:
            f.write(str(work.pid))
        lib.wait_until(lambda: lib.dir_removed(cg), f"{cg} to be removed")
        check(not os.path.exists(cg), "CG removed while recorded")
        lib.snapshot_after(data, "the removal")
        rec.send_signal(signal.SIGINT)
        err = rec.communicate()[1]
    finally:
        if rec and rec.returncode is None:
            rec.kill()
            rec.wait()
        work.kill()
        work.wait()
    check(rec.returncode == -signal.SIGINT,
          f"record dies by the SIGINT that ended it ({err.strip()})")
    notes = subprocess.run([MEMSZ, "dump", "-i", data], text=True,
                           capture_output=True).stdout
    notes = "\n".join(ln for ln in notes.splitlines() if "NOTE" in ln)
    said = err + notes
    check("no memory controller" not in said,
          f"nothing says CG has no memory controller ({said.strip()})")
    check(f"cgroup '{cg}' was removed" in err and
          f"cgroup '{cg}' was removed" in notes,
          f"stderr and a NOTE say CG was removed ({said.strip()})")
    check(target_records(data) > 0, "CG's counters from before the removal "
          "are recorded")


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    cg = lib.make_cgroup("t2322", v1_first=True)
    out = cg + "-out"
    try:
        os.mkdir(out)
        if not os.path.exists(os.path.join(cg, "memory.stat")):
            lib.skip(f"{cg} has no memory controller")
        with tempfile.TemporaryDirectory(prefix="memsz-t2322-") as tmp:
            run(tmp, cg, out)
    finally:
        for d in (cg, out):
            lib.remove_cgroup(d)
    check(not os.path.exists(cg) and not os.path.exists(out),
          "the cgroups removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
