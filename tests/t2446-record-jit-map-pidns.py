#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2446: the JIT map of a process in its own PID and mount namespaces
(a container) is read, attached with `record -p HOSTPID`.

A JIT names its map after getpid(), the pid of its own PID namespace:
/tmp/perf-3.map in its /tmp. memsz looked for /tmp/perf-HOSTPID.map under
/proc/HOSTPID/root, found nothing and recorded no JIT symbol (perf looks
the map up by the namespace's pid, nsinfo's nstgid).

The workload runs under `unshare -p -f -m --mount-proc` with a tmpfs of
its own on /tmp (gone with the namespace), maps 4 anonymous pages, writes
one line for them in /tmp/perf-NSPID.map and stops itself. Ground truth:
NSpid of /proc/HOSTPID/status and the map file read through
/proc/HOSTPID/root. The recording must hold a JITMAP record of HOSTPID
with that symbol.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402
import tempfile  # noqa: E402

WORKLOAD = r"""
import ctypes, mmap, os, signal
a = mmap.mmap(-1, 4 * mmap.PAGESIZE)
a[0] = 1
addr = ctypes.addressof(ctypes.c_char.from_buffer(a))
with open("/tmp/perf-%d.map" % os.getpid(), "w") as f:
    f.write("%x 1000 jit_ns_func\n" % addr)
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
os._exit(0)
"""


def main():
    if os.geteuid() != 0:
        lib.skip("PID and mount namespaces need root here")
    if not shutil.which("unshare"):
        lib.skip("unshare (util-linux) is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t2446-")
    ns = subprocess.Popen(
        ["unshare", "-p", "-f", "-m", "--mount-proc", "sh", "-c",
         # python is not the namespace's init, which ignores its SIGSTOP
         'mount -t tmpfs t2446 /tmp && "$0" -c "$1"; true',
         sys.executable, WORKLOAD],
        cwd="/", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if ns.stdout.readline().strip() != "ready":
            lib.skip("no PID and mount namespace here: " +
                     ns.communicate()[1].strip())
        sh = lib.children(ns.pid)
        py = lib.children(sh[0]) if len(sh) == 1 else []
        if len(py) != 1:
            lib.fail("the namespace holds %s, not sh and python" % sh)
        pid = py[0]
        lib.wait_stopped(pid)
        with open(f"/proc/{pid}/status") as f:
            nspid = [ln.split()[1:] for ln in f if ln.startswith("NSpid:")]
        if not nspid or len(nspid[0]) < 2:
            lib.skip("/proc/PID/status has no NSpid of a namespace")
        inner = int(nspid[0][-1])
        check(inner != pid, "the workload is pid %d in its namespace, %d "
              "outside" % (inner, pid))
        with open(f"/proc/{pid}/root/tmp/perf-{inner}.map") as f:
            s, n, name = f.readline().split()
        want = (int(s, 16), int(n, 16), name)
        check(not os.path.exists(f"/tmp/perf-{inner}.map") or
              os.stat(f"/tmp/perf-{inner}.map").st_ino !=
              os.stat(f"/proc/{pid}/root/tmp/perf-{inner}.map").st_ino,
              "the map is in the namespace's own /tmp")
        data = os.path.join(tmp, "j.data")
        rec = subprocess.run([MEMSZ, "record", "-p", str(pid), "-o", data,
                              "--duration", "0"],
                             capture_output=True, text=True)
        check(rec.returncode == 0, "record -p exits 0: " + rec.stderr.strip())
        nrec, syms = lib.jitmap_syms(data, pid)
        check(nrec >= 1, "a JITMAP record of pid %d (%d)" % (pid, nrec))
        check(want in syms, "it holds %s (%s)" % (want, syms))
    finally:
        # SIGKILL to the namespace's init (sh) ends all of it
        for kid in lib.children(ns.pid):
            os.kill(kid, 9)
        ns.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
