#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2316: `record -G CGROUP` takes the cgroup however its path is spelled:
with a trailing slash (what a shell's completion gives), doubled slashes,
"." or ".." components, or relative to the mount, or through a symlink
(whose ".." is the parent of where it leads). The report tells the
cgroup reported from the others by its path (its descendants are part of
it): a -G path kept as typed, "CG/", left every page of CG's descendants
"[charged elsewhere]" and their charge "[unexplained]".

As root, a memory cgroup NAME (v1's memory hierarchy first, else cgroup2
with the memory controller) with a child NAME/sub is made; a python3
process that moves itself into sub touches 16 MiB of anonymous memory
and waits on its stdin. Ground truth: the process's smaps (Anonymous) and sub's
memory.stat (anon / total_rss), which charges the memory to sub. For each
spelling, `record -G SPELLING --duration 0`: the -G CGROUP record names
the cgroup as the kernel's mount plus its path (no slash at the end), the
report's [anon] row has CHARGE = RSS >= 16 MiB, and no page of the
process is "[charged elsewhere]".
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

HELD = 16 << 20
# The holder moves itself into sub (argv[1]) before it touches a page: a
# move after the touch leaves the charge where it was (cgroup v1 moves no
# charge by default), which a loaded machine made happen.
HOLDER = """import os, sys
with open(os.path.join(sys.argv[1], "cgroup.procs"), "w") as f:
    f.write(str(os.getpid()))
b = bytearray(%d)
for i in range(0, len(b), 4096):
    b[i] = 1
print("ready", flush=True)
sys.stdin.readline()
""" % HELD


def target_path(data):
    """The path of the -G CGROUP record (`memsz dump`), or None."""
    t = lib.cgroup_targets(data)
    return t[0]["path"] if t else None


def anon_of(pid):
    """The Anonymous: bytes of pid's smaps_rollup."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Anonymous:"):
                return int(line.split()[1]) * 1024
    return 0


def record(tmp, spelling, pid, cg):
    """record -G spelling; ([anon] (rss, charge), rss of the pid's pages
    "[charged elsewhere]" to cg or a cgroup below it, target path), or
    None if memsz failed."""
    data = os.path.join(tmp, "g.data")
    r = subprocess.run([MEMSZ, "record", "-G", spelling, "--duration", "0",
                        "-o", data], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"# record -G {spelling}: {r.stderr.strip()}")
        return None
    rows = lib.report(data, "pids,files", "-F", "rss,charge")
    mine = [x for x in rows if x["pids"].startswith(f"{pid} ")]
    anon = [(int(x["rss"]), float(x["charge"])) for x in mine
            if x["files"] == "[anon]"]
    # moved under "[charged elsewhere]" (its first key), "PAYER: PID ..."
    # next (the page cache of python's own files is another cgroup's)
    away = sum(int(x["rss"]) for x in rows
               if x["pids"] == "[charged elsewhere]" and
               re.match(re.escape(cg) + rf"(/[^:]*)?: {pid} ", x["files"]))
    return anon[0] if anon else (0, 0.0), away, target_path(data)


def run(tmp, cg, sub, mount):
    name = os.path.basename(cg)
    work = subprocess.Popen([sys.executable, "-c", HOLDER, sub],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        check(work.stdout.readline().startswith("ready"),
              "the holder touched its memory in sub")
        anon = anon_of(work.pid)
        key = "anon" if os.path.exists(os.path.join(sub, "memory.current")) \
            else "total_rss"
        paid = lib.memcg_stat_until(sub, key, lambda v: v >= HELD)
        check(anon >= HELD and paid >= HELD,
              f"ground truth: smaps Anonymous {anon}, sub's memory.stat "
              f"{key} {paid}, both >= {HELD}")
        spellings = [cg, cg + "/", cg + "//", mount + "//" + name,
                     mount + "/./" + name + "/.", name + "/", "/" + name + "/",
                     cg + "/sub/..", name + "/sub/../"]
        # through symlinks: ".." is the parent of where the link leads
        lnk, lnksub = os.path.join(tmp, "lnk"), os.path.join(tmp, "lnksub")
        os.symlink(cg, lnk)
        os.symlink(sub, lnksub)
        spellings += [lnk, lnk + "/", lnksub + "/..", lnk + "/sub/.."]
        for sp in spellings:
            got = record(tmp, sp, work.pid, cg)
            if got is None:
                check(False, f"-G '{sp}': recorded")
                continue
            (rss, charge), away, tpath = got
            check(tpath == cg, f"-G '{sp}': the CGROUP record names {cg} "
                  f"({tpath})")
            check(rss >= HELD and charge == rss and away == 0,
                  f"-G '{sp}': [anon] CHARGE = RSS >= {HELD} ({charge}, "
                  f"{rss}), none of the process's pages \"[charged elsewhere]\" "
                  f"to {name} or sub ({away})")
    finally:
        work.kill()
        work.wait()


def main():
    if os.geteuid() != 0:
        lib.skip("making a cgroup needs root")
    cg = lib.make_cgroup("t2316", v1_first=True)
    mount = os.path.dirname(cg)
    sub = os.path.join(cg, "sub")
    try:
        if mount != lib.V1_MEMORY:
            # cgroup2: the child has the memory controller only if the
            # parent hands it down
            try:
                with open(os.path.join(cg, "cgroup.subtree_control"),
                          "w") as f:
                    f.write("+memory")
            except OSError:
                pass
        os.mkdir(sub)
        if not os.path.exists(os.path.join(sub, "memory.stat")):
            lib.skip(f"{sub} has no memory controller")
        with tempfile.TemporaryDirectory(prefix="memsz-t2316-") as tmp:
            run(tmp, cg, sub, mount)
    finally:
        for d in (sub, cg):
            lib.remove_cgroup(d)
    check(not os.path.exists(cg), f"cgroup {cg} removed")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
