#!/usr/bin/env python3
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
import re
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check, report  # noqa: E402

NODE = "/usr/bin/node"
ARRAY_MIB = 64
SCRIPT = r"""
function hotFill(a) {
  for (let i = 0; i < a.length; i++) a[i] = i;
  return a;
}
const keep = hotFill(new Float64Array(ARRAY_MIB << 17));
console.log('ready ' + process.pid + ' ' + keep.length);
setInterval(() => {}, 1000);
"""


def skip(why):
    print("skip: " + why, file=sys.stderr)
    sys.exit(77)


def perf_map(pid):
    """(start, size, name) of node's /tmp/perf-PID.map, complete lines."""
    syms = []
    with open(f"/tmp/perf-{pid}.map") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            a, s, name = line.rstrip("\n").split(" ", 2)
            syms.append((int(a, 16), int(s, 16), name))
    return syms


def main():
    if not os.access(NODE, os.X_OK):
        skip(NODE + " not found (Debian package nodejs)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2110-") as tmp:
        js = os.path.join(tmp, "hot.js")
        with open(js, "w") as f:
            f.write(SCRIPT.replace("ARRAY_MIB", str(ARRAY_MIB)))
        data = os.path.join(tmp, "memsz.data")
        rec = subprocess.Popen([MEMSZ, "record", "--faults", "-o", data,
                                "--", NODE, "--perf-basic-prof", js],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        line = rec.stdout.readline().split()
        if len(line) != 3 or line[0] != "ready":
            rec.kill()
            err = rec.communicate()[1]
            if "not permitted" in err:
                skip("cannot sample page faults: " + err.strip())
            check(False, "node printed ready: " + err.strip())
            return
        pid = int(line[1])
        try:
            truth = perf_map(pid)
        finally:
            rec.send_signal(signal.SIGINT)
            out, err = rec.communicate(timeout=120)
            try:
                os.unlink(f"/tmp/perf-{pid}.map")
            except OSError:
                pass
        check(rec.returncode in (0, 128 + signal.SIGTERM),
              f"record ends when interrupted ({rec.returncode}): "
              + err.strip())
        check("(0 lost)" in err, "no sample lost: " + err.strip())
        hot = [t for t in truth if "hotFill" in t[2]]
        check(hot, f"node's map names hotFill ({len(truth)} lines)")

        dump = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout
        recs = re.findall(rf"JITMAP pid {pid} symbols (\d+)", dump)
        got = set()
        for m in re.finditer(r"^    0x([0-9a-f]+) 0x([0-9a-f]+) (.*)$",
                             dump, re.M):
            got.add((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
        missing = [t for t in truth if t not in got]
        check(recs and not missing,
              f"JITMAP records of pid {pid} ({len(recs)}) hold every line "
              f"of node's map ({len(truth)}; missing {missing[:3]})")

        hot_names = {t[2] for t in hot}
        sites = {r["faultsite"]: int(r["rss"])
                 for r in report(data, "faultsite")}
        total = sum(sites.values())
        hot_rss = sum(v for k, v in sites.items() if k in hot_names)
        check(hot_rss >= (ARRAY_MIB << 20) * 3 // 4,
              f"faultsite: {hot_rss >> 20} MiB charged to hotFill "
              f"as node's map names it, of {total >> 20} MiB "
              f"(top: {sorted(sites, key=sites.get)[-3:]})")
        check(not any(k in ("[anon]", "[unknown]") and v > hot_rss
                      for k, v in sites.items()),
              "faultsite: no anonymous frame outweighs hotFill")
        syms = report(data, "symbols", "--filter", "hotFill")
        vm = sum(int(r["vm_size"]) for r in syms
                 if r["symbols"] in hot_names)
        rss = sum(int(r["rss"]) for r in syms
                  if r["symbols"] in hot_names)
        size = sum(t[1] for t in hot)
        check(0 < rss <= vm <= size,
              f"symbols: resident JIT code of hotFill ({rss} B, VM "
              f"{vm} B) within the bytes node's map gives it ({size} B)")


main()
print(f"{lib.failures} failure(s)")
sys.exit(1 if lib.failures else 0)
