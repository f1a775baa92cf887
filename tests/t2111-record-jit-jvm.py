#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2111: JIT code named, with the JVM's own perf map written at its exit.

A Java program (Debian's default JDK) calls a method, hotFill, until the
JIT compilers have compiled it, then has it allocate N arrays of 14 longs
in a young generation large enough that no collection runs; compiled code
allocates and initializes small arrays inline, so it touches the fresh
heap pages itself. It runs under `memsz record --faults` with
-XX:+DumpPerfMapAtExit: the JVM writes /tmp/perf-PID.map only as it exits,
so memsz must read it at the exit stop (the file is the ground truth: what
the JVM says its code is). Then:
 - the recording holds JITMAP records of that pid holding every line of
   the JVM's map (`memsz dump -v`);
 - `report --by faultsite` charges at least 3/4 of the arrays' payload to
   frames named by hotFill lines of the map, and no anonymous frame more;
 - `report --by symbols` charges resident JIT code to hotFill symbols,
   never more VM bytes than the map gives them.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

N = 500000        # arrays the compiled hotFill allocates
PAYLOAD = 14 * 8  # bytes of each array's elements
SOURCE = r"""
public class Hot {
    static Object[] hotFill(Object[] keep, int from, int to) {
        for (int i = from; i < to; i++)
            keep[i] = new long[14];
        return keep;
    }
    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        Object[] warm = new Object[100];
        for (int k = 0; k < 20000; k++)
            hotFill(warm, 0, warm.length);
        Object[] keep = hotFill(new Object[n], 0, n);
        System.out.println("ready " + ProcessHandle.current().pid() + " "
                           + keep.length);
    }
}
"""


def main():
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        lib.skip("java and javac are not installed (default-jdk-headless)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2111-") as tmp:
        with open(os.path.join(tmp, "Hot.java"), "w") as f:
            f.write(SOURCE)
        subprocess.run([javac, "-d", tmp, os.path.join(tmp, "Hot.java")],
                       check=True)
        data = os.path.join(tmp, "memsz.data")
        # the serial collector with a 900 MiB young generation: the warm-up
        # (about 250 MiB) and the arrays fit, so no collection moves them
        rec = subprocess.run(lib.urgent() +
                             [MEMSZ, "record", "--faults", "-o", data, "--",
                              java, "-XX:+UseSerialGC", "-Xms1g", "-Xmn900m",
                              "-XX:+UnlockDiagnosticVMOptions",
                              "-XX:+DumpPerfMapAtExit", "-cp", tmp, "Hot",
                              str(N)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, timeout=600)
        line = rec.stdout.split()
        if len(line) != 3 or line[0] != "ready":
            if "not permitted" in rec.stderr:
                lib.skip("cannot sample page faults: " + rec.stderr.strip())
            check(False, "java printed ready: " + rec.stderr.strip())
            return
        pid = int(line[1])
        try:
            truth = lib.perf_map(pid)
        except OSError as e:
            check(False, f"the JVM wrote its map at exit: {e}")
            return
        finally:
            try:
                os.unlink(f"/tmp/perf-{pid}.map")
            except OSError:
                pass
        check(rec.returncode == 0, f"record exits 0 ({rec.returncode}): "
              + rec.stderr.strip())
        check("(0 lost)" in rec.stderr, "no sample lost: "
              + rec.stderr.strip())
        hot_names = {t[2] for t in truth if "Hot.hotFill(" in t[2]}
        check(hot_names, f"the JVM's map names hotFill ({len(truth)} lines)")
        lib.jit_checks(data, truth, pid, hot_names, N * PAYLOAD * 3 // 4,
                       r"Hot\.hotFill\(")


main()
sys.exit(lib.finish())
