#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2102: faults of an attached process are attributed to the right files.

tests/workloads/rec_fault_attach.c (built here with -O2
-fomit-frame-pointer -fasynchronous-unwind-tables: only its .eh_frame
unwinds it) maps a file the test writes and two anonymous buffers, then
stops itself; once continued it faults them in from three known call
paths (main;read_file, main;touch_anon, main;fill_anon -> memset in libc)
and stops again. Recorded two ways with --faults:
 - attached (`record -p PID` while it is stopped): every mapping, the
   program's and libc's code included, exists before the recording, so
   the report learns them from the start snapshot, which stands for their
   MMAP2 records (flag "maps"; no synthesized MMAP2 record is written);
 - launched (`record -- CMD`): the mappings come from perf's MMAP2 records;
 - attached beside another target (`record --freeze -p HOLD,QUICK`), the
   workload (its `quick` mode, 1/8 of the sizes) being let go once the
   other one's start snapshot waits to stop it (`hold` mode: a thread in
   a vfork, which no ptrace stop reaches until the test ends the vfork):
   it faults its buffers and exits while memsz waits there, which takes
   its exit snapshot before its start snapshot. That first snapshot
   stands for the mappings (flag "maps").
Either way, checked against the kernel's /proc/PID/smaps read once the
workload is done (the Rss of each VMA) and nm (the functions' names):
 - every resident byte of each VMA is charged to a stack through its path,
   and the stacks' frames are named from the right files (the program's
   symbols; libc's memset or [libc.so.6] inside fill_anon);
 - faultsite (past libc's memset) names the path's function with at least
   that Rss.
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
from memsz_testlib import MEMSZ, SRCDIR, check, report  # noqa: E402

PATHS = ("read_file", "touch_anon", "fill_anon")


def vma_rss(pid, addr):
    """Rss of the VMA of pid holding addr, from smaps."""
    for v in lib.smaps_vmas(pid):
        if v["start"] <= addr < v["end"]:
            return v.get("Rss")
    return None


def read_line(p, what):
    """The next line the workload prints; fails the test at its end."""
    line = p.stdout.readline()
    if not line:
        lib.fail("the workload ended before printing " + what)
    return line


def attached(exe, path, data):
    """Records the workload attached while it is stopped; returns (pid,
    addresses, truth, record's stderr)."""
    w = subprocess.Popen([exe, path], stdout=subprocess.PIPE, text=True)
    addrs = [int(x, 16) for x in read_line(w, "its buffers").split()]
    lib.wait_stopped(w.pid)
    rec = subprocess.Popen(lib.urgent() + [MEMSZ, "record", "-o", data,
                                           "--faults", "-p", str(w.pid)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    if lib.wait_snaps(data, 1) < 1:
        rec.kill()
        lib.fail("no start snapshot: " + rec.communicate()[1].strip())
    os.kill(w.pid, signal.SIGCONT)
    read_line(w, "done")
    truth = [vma_rss(w.pid, a) for a in addrs]
    err = lib.resume(rec, w.pid)[1]
    w.wait()
    return w.pid, addrs, truth, err, rec.returncode


def launched(exe, path, data):
    """Records the workload launched by memsz; the same tuple."""
    rec = subprocess.Popen(lib.urgent() + [MEMSZ, "record", "-o", data,
                                           "--faults", "--", exe, path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    addrs = [int(x, 16) for x in read_line(rec, "its buffers").split()]
    pid = lib.stopped_child(rec.pid)
    os.kill(pid, signal.SIGCONT)
    read_line(rec, "done")
    truth = [vma_rss(pid, a) for a in addrs]
    err = lib.resume(rec, pid)[1]
    return pid, addrs, truth, err, rec.returncode


def exit_first(exe, path, data):
    """Records the workload in quick mode beside one in hold mode (see
    the docstring), the hold one first; the same tuple, truth being the
    sizes the quick one faults in whole."""
    pipe = subprocess.PIPE
    hold = subprocess.Popen([exe, "hold"], stdin=pipe, stdout=pipe,
                            text=True)
    read_line(hold, "held")  # its second thread is in the vfork
    w = subprocess.Popen([exe, path, "quick"], stdin=pipe, stdout=pipe,
                         text=True)
    addrs = [int(x, 16) for x in read_line(w, "its buffers").split()]
    rec = subprocess.Popen(lib.urgent() + [
        MEMSZ, "record", "-o", data, "--faults", "--freeze", "--no-growth",
        "--lossy", "-p", f"{hold.pid},{w.pid}"],
        stdout=pipe, stderr=pipe, text=True)
    # The start snapshot of hold stops its main thread (only a ptrace
    # stop is "t"; with --lossy no other holds it) and waits for the
    # other one: the events are counting by then. (Seen only once that
    # snapshot is written, the wait ran out: the check below says so.)
    lib.wait_until(lambda: lib.proc_state(hold.pid) == "t" or
                   rec.poll() is not None or lib.snap_ends(data),
                   "hold's start snapshot")
    w.stdin.write("\n")
    w.stdin.flush()
    read_line(w, "done")
    w.wait()  # its exit stop was handled (in that wait, or after it)
    hold.stdin.write("\n")  # the vfork ends, then hold itself
    hold.stdin.close()
    err = rec.communicate(timeout=120)[1]
    hold.wait()
    truth = [2 << 20, (3 << 20) // 8, (5 << 20) // 8]
    return w.pid, addrs, truth, err, rec.returncode


def check_way(way, data, addrs, truth, syms, *extra):
    """The attribution checks of one recording; syms: each path's
    function as nm names it (GCC may add a .constprop.N suffix); extra:
    arguments of the reports (--pid)."""
    mrows = report(data, "mappings,callers", *extra)
    sites = {r["faultsite"]: int(r["rss"])
             for r in report(data, "faultsite", *extra)}
    for name, addr, want in zip(PATHS, addrs, truth):
        inside = {}
        for r in mrows:
            s, e = (int(x, 16) for x in r["mappings"].split()[0].split("-"))
            if s <= addr < e and int(r["rss"]):
                inside[r["callers"]] = inside.get(r["callers"], 0) + \
                    int(r["rss"])
        key = ";main;" + syms[name]
        mine = {k: v for k, v in inside.items()
                if k.endswith(key) or key + ";" in k}
        got = sum(mine.values())
        if name == "read_file":
            # A file page the kernel mapped with another's fault (fault-
            # around, a large folio) may have no fault in its window: it
            # is [no fault seen], never another path's.
            check(want and sum(inside.values()) == want and got > 0 and
                  set(inside) - set(mine) <= {"[no fault seen]"},
                  f"{way}: {name}'s VMA (Rss {want}) is under main;"
                  f"{syms[name]} ({got}) or [no fault seen]: {inside}")
            check(all(k.endswith(key) for k in mine),
                  f"{way}: its pages are faulted in {syms[name]} itself")
        else:
            check(want and got == want == sum(inside.values()),
                  f"{way}: {name}'s VMA (Rss {want}) is all under main;"
                  f"{syms[name]} ({got}: {inside})")
        if name == "fill_anon":
            libc = re.compile(r"(__)?memset|\[libc\.so")
            check(mine and all(libc.match(k.split(key + ";", 1)[-1])
                               for k in mine),
                  f"{way}: {name}'s pages are faulted in libc's memset "
                  f"({sorted(mine)})")
        elif name == "touch_anon":
            check(all(k.endswith(key) for k in mine),
                  f"{way}: {name}'s pages are faulted in {syms[name]} "
                  f"itself, named from the program's symbols")
        # its pages and any it faulted elsewhere (libc's code pages that
        # memset's faults brought in, its stack)
        check(sites.get(syms[name], 0) >= got,
              f"{way}: faultsite {syms[name]} holds at least the bytes of "
              f"its stacks ({sites.get(syms[name], 0)} >= {got})")


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
    with tempfile.TemporaryDirectory(prefix="memsz-t2102-") as tmp:
        exe = os.path.join(tmp, "rec_fault_attach")
        subprocess.run(["gcc", "-O2", "-pthread", "-fomit-frame-pointer",
                        "-fasynchronous-unwind-tables", "-o", exe,
                        os.path.join(SRCDIR, "tests/workloads",
                                     "rec_fault_attach.c")], check=True)
        nm = subprocess.run(["nm", exe], stdout=subprocess.PIPE, text=True,
                            check=True).stdout
        names = [ln.split()[-1] for ln in nm.splitlines() if ln.strip()]
        syms = {}
        for p in PATHS:
            syms[p] = next((n for n in names if n == p or
                            n.startswith(p + ".")), p)
        check(all(s in names for s in syms.values()),
              f"nm names the three functions: {syms}")
        path = os.path.join(tmp, "file.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(2 << 20))
        for way, fn in (("attached", attached), ("launched", launched),
                        ("exit-first", exit_first)):
            data = os.path.join(tmp, way + ".data")
            # exit-first sets up a race (QUICK's exit inside HOLD's
            # start snapshot) that heavy load can lose: up to 3 tries
            for _ in range(3 if way == "exit-first" else 1):
                pid, addrs, truth, err, rc = fn(exe, path, data)
                if rc and ("perf" in err or "permission" in err.lower()):
                    lib.skip("cannot sample page faults: " + err.strip())
                dump = subprocess.run([MEMSZ, "dump", "-i", data],
                                      stdout=subprocess.PIPE, text=True,
                                      check=rc == 0).stdout
                mine = re.compile(rf" (SNAP_BEGIN pid {pid} |MMAP2 {pid}/)")
                recs = [ln for ln in dump.splitlines() if mine.search(ln)]
                first = next((ln for ln in recs if "SNAP_BEGIN" in ln), "")
                if way != "exit-first" or "at-exit" in first or rc:
                    break
            check(rc == 0, f"{way}: record exits 0 ({err.strip()})")
            if way == "exit-first" and not first:
                check(False, "exit-first: QUICK has a snapshot (none in "
                      "the file)")
                continue
            if way == "exit-first" and "at-exit" not in first:
                # the wait in hold's snapshot ran out before the exit,
                # three times
                lib.skip_part("exit-first: its start snapshot came "
                              f"before its exit ({first.strip()})")
                continue
            if way != "launched":
                check(re.search(r"flags \S*\bmaps\b", first),
                      f"{way}: its first snapshot stands for the "
                      f"mappings at attach ({first.strip()})")
                check(not any("synth" in ln for ln in recs),
                      f"{way}: no synthesized MMAP2 record")
            else:
                check(any(" MMAP2 " in ln and exe in ln for ln in recs),
                      "launched: perf's MMAP2 records name the program")
            check_way(way, data, addrs, truth, syms, "--pid", str(pid))


main()
sys.exit(lib.finish())
