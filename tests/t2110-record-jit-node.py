#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2110: JIT code named, with node --perf-basic-prof.

A node script (Debian's /usr/bin/node) runs a hot JavaScript function,
hotFill, that writes every element of a fresh 64 MiB Float64Array (its
pages untouched until then: V8 gets big zeroed buffers from mmap), prints
"ready PID" and waits. It runs under `memsz record --faults`; while it waits the test reads
node's own /tmp/perf-PID.map (the ground truth: what V8 says its code is),
then stops the recording with SIGINT (final snapshot of the live process).
 - the recording holds JITMAP records of that pid, and every line node had
   written to its map is among their symbols (`memsz dump -v`);
 - `report --by faultsite` charges at least 3/4 of the array to a frame
   named by a hotFill line of node's map ("JS:*hotFill /path:2:17"): the
   optimized loop that touched it, not an anonymous frame;
 - `report --by symbols` charges resident JIT code to hotFill symbols,
   never more VM bytes than node's map gives those symbols.
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

NODE = "/usr/bin/node"
ARRAY_MIB = 64
SCRIPT = r"""
function hotFill(a) {
  for (let i = 0; i < a.length; i++) a[i] = i;
  return a;
}
// Optimize hotFill before the big array, synchronously: left to itself V8
// compiles the loop on a background thread while the interpreter goes on
// writing, and on a busy machine the whole array can be written before
// the optimized code is ready (then no fault is in hotFill's JIT code).
%PrepareFunctionForOptimization(hotFill);
hotFill(new Float64Array(1024));
hotFill(new Float64Array(1024));
%OptimizeFunctionOnNextCall(hotFill);
hotFill(new Float64Array(1024));
const keep = hotFill(new Float64Array(ARRAY_MIB << 17));
console.log('ready ' + process.pid + ' ' + keep.length);
setInterval(() => {}, 1000);
"""


def main():
    if not os.access(NODE, os.X_OK):
        lib.skip(NODE + " is not installed (nodejs)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2110-") as tmp:
        js = os.path.join(tmp, "hot.js")
        with open(js, "w") as f:
            f.write(SCRIPT.replace("ARRAY_MIB", str(ARRAY_MIB)))
        data = os.path.join(tmp, "memsz.data")
        # every fault counted (0 lost): memsz at nice -20, node not
        rec = subprocess.Popen(lib.urgent() +
                               [MEMSZ, "record", "--faults", "-o", data,
                                "--", NODE, "--perf-basic-prof",
                                "--allow-natives-syntax", js],
                               # V8 writes its isolate-*-v8.log here
                               cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        line = rec.stdout.readline().split()
        if len(line) != 3 or line[0] != "ready":
            rec.kill()
            err = rec.communicate()[1]
            if "not permitted" in err:
                lib.skip("cannot sample page faults: " + err.strip())
            check(False, "node printed ready: " + err.strip())
            return
        pid = int(line[1])
        try:
            truth = lib.perf_map(pid)
        finally:
            rec.send_signal(signal.SIGINT)
            out, err = rec.communicate(timeout=120)
            try:
                os.unlink(f"/tmp/perf-{pid}.map")
            except OSError:
                pass
        check(rec.returncode == -signal.SIGINT,
              f"record ends when interrupted ({rec.returncode}): "
              + err.strip())
        check("(0 lost)" in err, "no sample lost: " + err.strip())
        hot_names = {t[2] for t in truth if "hotFill" in t[2]}
        check(hot_names, f"node's map names hotFill ({len(truth)} lines)")
        lib.jit_checks(data, truth, pid, hot_names,
                       (ARRAY_MIB << 20) * 3 // 4, "hotFill")


main()
sys.exit(lib.finish())
