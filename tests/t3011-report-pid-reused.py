#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3011: a report reads an image from the path the recording names when
that path holds the file recorded, not from the path record opened it by
(/proc/PID/root/PATH): once the process has ended its PID can be another
process's, whose root may hold another file there.

A program maps libt.so (built here); `record -p PID --duration 0` names
it with its open path under /proc/PID/root. The program ends; a shell
then gets the same PID (the kernel's ns_last_pid set to PID - 1, root
only) in a mount namespace of its own where libt.so is another build
(a bind mount: another build-id). The report of the recording must
label libt.so's mapping by its path, with the RSS smaps gave it at the
recording, and its notes must name that path, not the other file
(before, the other file was read: its build-id differs, so the image was
'changed since it was recorded').
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

LIB = "int t_value(int x) { return x * %d; }\n"
PROG = r"""
#include <stdio.h>
int t_value(int);
int main(void)
{
	char line[8];

	printf("ready %d\n", t_value(1));
	fflush(stdout);
	return !fgets(line, sizeof(line), stdin);
}
"""
LAST_PID = "/proc/sys/kernel/ns_last_pid"


def build(d):
    for n, k in (("a", 3), ("b", 5)):
        os.makedirs(os.path.join(d, n))
        open(os.path.join(d, n, "t.c"), "w").write(LIB % k)
        subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wl,--build-id",
                        "-o", "libt.so", "t.c"], cwd=os.path.join(d, n),
                       check=True)
    open(os.path.join(d, "prog.c"), "w").write(PROG)
    subprocess.run(["gcc", "-O1", "-o", "prog", "prog.c", "-La", "-lt",
                    "-Wl,-rpath," + os.path.join(d, "a")], cwd=d, check=True)


def take_pid(pid, argv):
    """A process running argv whose PID is pid: the next PID set to
    pid - 1 before each try (another fork may come first: tried again),
    or None."""
    for _ in range(200):
        with open(LAST_PID, "w") as f:
            f.write(str(pid - 1))
        p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        if p.pid == pid:
            return p
        p.kill()
        p.wait()
    return None


def main():
    if os.geteuid() != 0:
        lib.skip("setting the next PID (ns_last_pid) needs root")
    for tool in ("gcc", "unshare", "mount"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory(prefix="memsz-t3011-") as d:
        build(d)
        liba, libb = (os.path.join(d, n, "libt.so") for n in ("a", "b"))
        check(lib.build_id(liba) != lib.build_id(libb),
              "the two builds of libt.so differ in build-id")
        data = os.path.join(d, "rec.data")
        p = subprocess.Popen([os.path.join(d, "prog")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        check(p.stdout.readline().startswith("ready 3"), "prog is ready")
        rss = sum(v.get("Rss", 0) for v in lib.smaps_vmas(p.pid)
                  if v["last"] == liba)
        r = subprocess.run([MEMSZ, "record", "-p", str(p.pid), "--duration",
                            "0", "-o", data], capture_output=True, text=True)
        check(r.returncode == 0, f"recorded ({r.stderr.strip()})")
        dump = subprocess.run([MEMSZ, "dump", "-i", data],
                              capture_output=True, text=True).stdout
        check(f"open '/proc/{p.pid}/root{liba}'" in dump,
              "the IMAGE record names its open path under /proc/PID/root")
        pid = p.pid
        p.stdin.close()
        p.wait()
        # the same PID, in a mount namespace where libt.so is build b
        sh = take_pid(pid, ["unshare", "-m", "--propagation", "private",
                            "sh", "-c", f"mount --bind {libb} {liba} && "
                            "echo ready && read x"])
        if sh is None:
            lib.skip("PID %d could not be taken again" % pid)
        try:
            check(sh.stdout.readline().strip() == "ready",
                  f"PID {pid} is a shell whose {liba} is build b")
            with open(f"/proc/{pid}/root{liba}", "rb") as f:
                other = f.read()
            check(other == open(libb, "rb").read(),
                  f"/proc/{pid}/root{liba} is now build b's file")
            rows = lib.report(data, "files")
            got = [r for r in rows if liba in r["files"]]
            check(len(got) == 1 and got[0]["files"] == liba,
                  f"libt.so is labelled by its path: "
                  f"{[r['files'] for r in got]}")
            check(got and float(got[0]["rss"]) == rss,
                  f"its RSS {got[0]['rss'] if got else None} is the "
                  f"{rss} smaps gave it at the recording")
            out = subprocess.run([MEMSZ, "report", "-i", data, "--by",
                                  "files", "-v"], capture_output=True,
                                 text=True)
            text = out.stdout + out.stderr
            bad = [x for x in text.splitlines()
                   if "changed since" in x or f"/proc/{pid}/" in x]
            check(out.returncode == 0 and not bad,
                  f"no line says it changed or names the other root: "
                  f"{bad[:3]}")
        finally:
            sh.stdin.close()
            sh.wait()
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
