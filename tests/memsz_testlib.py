# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib: helpers shared by the Python tests (tests/t*.py).

A test imports it from its own directory:
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import memsz_testlib as lib
and ends with `sys.exit(lib.finish())`.

Conventions, the same as tests/lib.sh for the shell tests: each check is one
named assertion; what cannot be checked here is said with skip_part(why)
(the test goes on) or skip(why) (it ends now, exit 77: automake's SKIP); a
test that cannot go on calls fail(why). finish() gives the exit status.
No fixed sleeps: wait_until() polls for an event.
"""
import contextlib
import csv
import ctypes
import fcntl
import importlib.util
import io
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__),
                                                    ".."))
PAGE = os.sysconf("SC_PAGE_SIZE")

failures = 0
checks = 0
skipped = []


def sibling_test(name):
    """The test tests/NAME.py loaded as a module (its name has dashes, so
    import cannot), for a test that runs another's workload or checks."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        name + ".py")
    spec = importlib.util.spec_from_file_location(name.split("-")[0], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(ok, what):
    """Prints "ok     what" or "NOT OK what"; counts a failure."""
    global failures, checks
    checks += 1
    print(("ok     " if ok else "NOT OK ") + what)
    if not ok:
        failures += 1


def check_quiet(cond, what):
    """Counts a check; prints "not ok - what" only when cond is false."""
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("not ok -", what)


def skip_part(why):
    """A part of the test is not checked here (why names the missing tool
    or package); the test goes on and finish() then returns 77."""
    print("# skipped: " + why)
    skipped.append(why)


def skip(why):
    """Nothing more can be checked here: exits 77 with why (or 1 if a check
    already failed)."""
    skip_part(why)
    sys.exit(finish())


def fail(why):
    """The test cannot go on: one failed check, exit 1."""
    check(False, why)
    sys.exit(finish())


def finish():
    """The exit status: 1 if a check failed or none ran, else 77 after one
    "SKIP: why" line per skip, else 0."""
    print(f"# {checks - failures} passed, {failures} failed")
    if failures:
        return 1
    if skipped:
        for why in skipped:
            print("SKIP: " + why)
        return 77
    if not checks:
        print("NOT OK no check ran")
        return 1
    return 0


def wait_until(cond, what, guard=120, interval=0.01):
    """Polls cond() every interval seconds (0: without pause, for a state
    that lasts only a moment) until it is true. Raises TimeoutError(what)
    only if it is still false after guard seconds: a guard against
    hanging, not a timing assumption."""
    end = time.monotonic() + guard
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError("gave up waiting for " + what)
        if interval:
            time.sleep(interval)


def resume(rec, pid, guard=120):
    """Lets a workload that stopped itself (raise(SIGSTOP)) run on and
    returns rec.communicate() once the recording rec has ended. A stop seen
    in pid's state may still be memsz holding it (a snapshot, backpressure)
    before the workload's own SIGSTOP: one SIGCONT sent then would be lost
    and the workload would stay stopped, so SIGCONT is sent again at every
    poll until rec ends (to a running process it is harmless)."""
    def ended():
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        return rec.poll() is not None
    wait_until(ended, f"the recording of pid {pid} to end", guard)
    return rec.communicate()


def urgent():
    """A prefix for the argv of a memsz that samples: it runs at nice -20
    while the processes it forks run at the default priority, so that the
    reader keeps up with its workload however loaded the machine is. Empty
    (and a skip_part) without root (CAP_SYS_NICE)."""
    if os.geteuid() != 0:
        skip_part("sample loss checks without raised priority (needs root)")
        return []
    return ["chrt", "--reset-on-fork", "--other", "0", "nice", "-n", "-20"]


def report(data, by, *extra):
    """Rows (dicts) of `memsz report -i data --by by -n 0 --format csv`;
    raises CalledProcessError if memsz fails."""
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-n", "0",
                          "--format", "csv", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, check=True)
    return list(csv.DictReader(io.StringIO(out.stdout)))


def recording(data):
    """The file an unfinished `memsz record -o data` is writing: a
    temporary data.tmp.XXXXXX beside data until the recording is complete
    and renamed to data (then data itself)."""
    d, base = os.path.split(data)
    for f in sorted(os.listdir(d or ".")):
        if f.startswith(base + ".tmp."):
            return os.path.join(d, f)
    return data


def perf_map(pid):
    """(start, size, name) of the complete lines of a JIT compiler's own
    /tmp/perf-PID.map (the ground truth of what its code is)."""
    syms = []
    with open(f"/tmp/perf-{pid}.map") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            a, s, name = line.rstrip("\n").split(" ", 2)
            syms.append((int(a, 16), int(s, 16), name))
    return syms


def jitmap_syms(data, pid):
    """(the number of JITMAP records of pid, the set of their (start, size,
    name) symbols) in the recording data, by `memsz dump -v`."""
    dump = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                          stdout=subprocess.PIPE, text=True,
                          check=True).stdout
    recs = re.findall(rf"JITMAP pid {pid} symbols (\d+)", dump)
    got = set()
    for m in re.finditer(r"^    0x([0-9a-f]+) 0x([0-9a-f]+) (.*)$",
                         dump, re.M):
        got.add((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return len(recs), got


def jit_checks(data, truth, pid, hot_names, least, filt):
    """The checks of a JIT runtime's recording data (pid, its perf map
    truth, the names of its hot function hot_names, a --filter regex
    that matches them): every map line is in
    the JITMAP records; `--by faultsite` charges at least least bytes to
    frames of those names, and no anonymous frame more; `--by symbols`
    charges resident code to them within the bytes the map gives them."""
    nrecs, got = jitmap_syms(data, pid)
    missing = [t for t in truth if t not in got]
    check(nrecs and not missing,
          f"JITMAP records of pid {pid} ({nrecs}) hold every line of its "
          f"map ({len(truth)}; missing {missing[:3]})")
    sites = {r["faultsite"]: int(r["rss"]) for r in report(data, "faultsite")}
    total = sum(sites.values())
    hot_rss = sum(v for k, v in sites.items() if k in hot_names)
    check(hot_rss >= least,
          f"faultsite: {hot_rss >> 20} MiB charged to the hot function as "
          f"the map names it (want >= {least >> 20} MiB), of "
          f"{total >> 20} MiB (top: {sorted(sites, key=sites.get)[-3:]})")
    check(not any(k in ("[anon]", "[unknown]") and v > hot_rss
                  for k, v in sites.items()),
          "faultsite: no anonymous frame outweighs the hot function")
    syms = report(data, "symbols", "--filter", filt)
    vm = sum(int(r["vm_size"]) for r in syms if r["symbols"] in hot_names)
    rss = sum(int(r["rss"]) for r in syms if r["symbols"] in hot_names)
    size = sum(t[1] for t in truth if t[2] in hot_names)
    check(0 < rss <= vm <= size,
          f"symbols: resident JIT code of the hot function ({rss} B, VM "
          f"{vm} B) within the bytes its map gives it ({size} B)")


def workload(tmp, name, *flags):
    """Builds tests/workloads/NAME.c into tmp with gcc -O2 and flags and
    returns the executable's path; skips the test without gcc."""
    if subprocess.run(["sh", "-c", "command -v gcc"],
                      stdout=subprocess.DEVNULL).returncode:
        skip("gcc (gcc) is not installed")
    exe = os.path.join(tmp, name)
    subprocess.run(["gcc", "-O2", *flags, "-o", exe,
                    os.path.join(SRCDIR, "tests/workloads", name + ".c")],
                   check=True)
    return exe



def next_tick(f, guard=120):
    """The next "tick N urg M" line that tests/workloads/fault_loop.c
    prints to f, as (N, M); None if f ends or no line comes within guard
    seconds (a hang guard, not a timing assumption)."""
    end = time.monotonic() + guard
    while time.monotonic() < end:
        if not select.select([f], [], [], end - time.monotonic())[0]:
            break
        line = f.readline()
        if not line:
            return None
        w = line.split()
        if len(w) == 4 and w[0] == "tick":
            return int(w[1]), int(w[3])
    return None


def start_fault_loop(name, data, args, wargs, launch):
    """Runs fault_loop (wargs: its argv) under `memsz record -o data args`,
    launched by memsz or attached to with -p. Returns (rec, pid, out,
    target) once it ticks: memsz's Popen, the workload's pid, its stdout,
    its Popen when attached (else None). None after a failed check; skips
    when memsz may not sample."""
    target = None
    if launch:
        rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "--",
                                *wargs], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        out = rec.stdout
        kids = children(rec.pid) if next_tick(out) else []
        if not kids:
            rec.kill()
            err = rec.communicate()[1]
            if "not permitted" in err:
                skip("cannot sample page faults: " + err.strip())
            check(False, f"{name}: the workload runs: {err.strip()}")
            return None
        return rec, kids[0], out, None
    target = subprocess.Popen(wargs, stdout=subprocess.PIPE, text=True)
    if next_tick(target.stdout) is None:
        check(False, f"{name}: the workload runs")
        target.kill()
        target.wait()
        return None
    rec = subprocess.Popen([MEMSZ, "record", "-o", data, *args, "-p",
                            str(target.pid)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    return rec, target.pid, target.stdout, target


def stop_after_tick(name, rec, data, out, guard=120):
    """Waits until memsz (rec, recording into data) has taken its first
    snapshot and fault_loop (stdout out) ticks after it, then ends memsz
    with SIGINT. Returns (its stderr, `memsz dump` of data), or None after
    a failed check. guard: the hang guard of each wait, in seconds."""
    wait_until(lambda: snap_ends(data) >= 1 or rec.poll() is not None,
               f"{name}: memsz's first snapshot", guard)
    if rec.poll() is not None:
        check(False, f"{name}: memsz attached: {rec.stderr.read()}")
        return None
    check(next_tick(out) is not None,
          f"{name}: the workload runs while recorded")
    rec.send_signal(signal.SIGINT)
    rec.wait(timeout=guard)
    err = rec.stderr.read().strip()
    check(rec.returncode == 0, f"{name}: memsz exits 0: {err}")
    dump = subprocess.run([MEMSZ, "dump", "-i", data],
                          capture_output=True, text=True).stdout
    return err, dump


def end_fault_loop(rec, pid, target):
    """Kills memsz (rec) if it still runs, then the workload, and reaps
    both (target: the workload's Popen when attached, else None)."""
    if rec.poll() is None:
        rec.kill()
        rec.wait()
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    if target:
        target.wait()

def bloaty_path():
    """Bloaty, to compare with where it is built: $BLOATY, the build of
    bench/bench_size.py's recipe (/tmp/bloaty/build/bloaty) or PATH; None
    without one."""
    for p in (os.environ.get("BLOATY"), "/tmp/bloaty/build/bloaty",
              shutil.which("bloaty")):
        if p and os.access(p, os.X_OK):
            return p
    return None


def lea_targets(prog, funcs):
    """{function of funcs: the address its first RIP-relative operand
    names, or in a position-dependent program the immediate its first mov
    loads} (objdump -d: ground truth for the code-to-data references)."""
    out, fn = {}, None
    for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", prog],
                               capture_output=True, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"[0-9a-f]+ <(\w+)>:", line)
        if m:
            fn = m.group(1)
            continue
        m = re.search(r"\(%rip\).*# ([0-9a-f]+)", line) or \
            re.search(r"\bmov\s+\$0x([0-9a-f]+),", line)
        if fn in funcs and m and fn not in out:
            out[fn] = int(m.group(1), 16)
    return out


def llvm_tool(name):
    """name (an LLVM tool: llvm-dwp, llvm-dwarfdump) on PATH, else its
    versioned name (16, 15, 14), or None."""
    for n in (name, f"{name}-16", f"{name}-15", f"{name}-14"):
        if shutil.which(n):
            return n
    return None


# C++ whose types go to type units (-fdebug-types-section): Big2 the
# type of a variable, Outer of an array of them, Inner of Outer's member
TU_SOURCES = {
    "h.h": "struct Big2 { char c[300]; };\nstruct Inner { long v[7]; };\n"
           "struct Outer { Inner in[2]; int k; };\nint g2();\n",
    "t.cc": "#include \"h.h\"\nBig2 big_b[3];\n"
            "int main() { return big_b[1].c[2] + g2(); }\n",
    "u.cc": "#include \"h.h\"\nBig2 single_u;\nOuter arr_u[4];\n"
            "int g2() { return single_u.c[1] + arr_u[1].k; }\n",
}


def type_unit_prog(d, cxx, flags):
    """prog, t.dwo and u.dwo from TU_SOURCES, built by cxx -gsplit-dwarf
    -fdebug-types-section with flags in the new directory d, which
    becomes the current one."""
    os.mkdir(d)
    os.chdir(d)
    for src, text in TU_SOURCES.items():
        with open(src, "w") as f:
            f.write(text)
    subprocess.run([cxx, "-O1", "-g"] + flags + [
        "-fdebug-types-section", "-gsplit-dwarf", "-c", "t.cc", "u.cc"],
        check=True)
    subprocess.run([cxx, "-o", "prog", "t.o", "u.o"], check=True)


def readelf(args, path):
    """Stdout of `readelf -W args path`; raises if readelf fails."""
    return subprocess.run(["readelf", "-W"] + args + [path],
                          capture_output=True, text=True, check=True).stdout


def size_rows(obj, by):
    """The rows of `memsz size --by BY --format csv -n 0 OBJ` as dicts,
    and its stderr; checks it exits 0 and that the rows' FILE SIZE sums
    to the file's size (I1)."""
    r = subprocess.run([MEMSZ, "size", "--by", by, "--format", "csv", "-n",
                        "0", obj], capture_output=True, text=True)
    name = os.path.basename(obj)
    check(r.returncode == 0, f"{name}: exit 0 ({r.returncode}: "
          f"{r.stderr.strip()[-200:]})")
    rows = list(csv.DictReader(r.stdout.splitlines()))
    check(sum(int(x["file_size"]) for x in rows) == os.path.getsize(obj),
          f"{name}: the rows' FILE SIZE sums to the file's size")
    return rows, r.stderr


def unit_code_vm(rows, unit):
    """{symbol: VM SIZE} of unit's rows (of --by compileunits,sections,
    symbols) but the unwind tables': a function's row also holds its FDE
    of .eh_frame, as in a linked file (t1196 checks those), or its
    .ARM.exidx entry and .ARM.extab words (t1310)."""
    got = {}
    for x in rows:
        if (x["compileunits"] == unit and x["sections"] != ".eh_frame" and
                not x["sections"].startswith((".ARM.exidx", ".ARM.extab"))):
            got[x["symbols"]] = got.get(x["symbols"], 0) + int(x["vm_size"])
    return got


def dwarf_unit_name(obj):
    """The first unit's DW_AT_name as readelf -wi prints it (relocated,
    in a .o)."""
    out = readelf(["-wi"], obj)
    m = re.search(r"DW_TAG_compile_unit.*?DW_AT_name\s*:\s*(?:\([^)]*\)"
                  r"(?:\s*\([^)]*\))?:?\s*)?(\S+)\n", out, re.S)
    return m.group(1) if m else None


def nm_sizes(obj, names=None):
    """{symbol: st_size} of nm -S obj, for the symbols named in names
    (None: every symbol with a size)."""
    out = subprocess.run(["nm", "-S", obj], capture_output=True, text=True,
                         check=True).stdout
    return {f[3]: int(f[1], 16) for f in (x.split() for x in
                                          out.splitlines())
            if len(f) == 4 and (names is None or f[3] in names)}


def check_unit_symbols(obj, tag, named, dwarf_read=False):
    """The checks of a relocatable object's one unit a.c (t1192, t1194,
    t1195, t1197), tag naming it: readelf -wi names the unit a.c; its
    size_rows(--by compileunits,sections,symbols) (with dwarf_read: and
    memsz says nothing of DWARF not read) hold each symbol of named at
    the size nm -S gives it. Returns those rows and {symbol: VM SIZE} of
    the unit (unit_code_vm)."""
    want = dwarf_unit_name(obj)
    check(want == "a.c", f"{tag}: readelf -wi names the unit a.c ({want})")
    rows, err = size_rows(obj, "compileunits,sections,symbols")
    if dwarf_read:
        check("DWARF not read" not in err,
              f"{tag}: DWARF read ({err.strip()[-200:]})")
    got = unit_code_vm(rows, want)
    sizes = nm_sizes(obj, named)
    check(len(sizes) == len(named) and
          all(got.get(s) == n for s, n in sizes.items()),
          f"{tag}: the unit holds each symbol nm -S sizes, at its size "
          f"({sizes} vs {got})")
    return rows, got


def _pb_varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def pb_fields(pb):
    """The (field number, value) pairs of a protocol buffer message (a
    pprof Profile): ints for varints, bytes for the other wire types."""
    out, i = [], 0
    while i < len(pb):
        tag, i = _pb_varint(pb, i)
        kind = tag & 7
        if kind == 0:
            v, i = _pb_varint(pb, i)
        elif kind == 1:
            v, i = pb[i:i + 8], i + 8
        elif kind == 5:
            v, i = pb[i:i + 4], i + 4
        elif kind == 2:
            n, i = _pb_varint(pb, i)
            v, i = pb[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % kind)
        out.append((tag >> 3, v))
    return out


def section_strings(path, name, addr):
    """[(address, string)] of the strings readelf -p finds in section name
    of path (loaded at addr), in address order."""
    out = []
    for line in readelf(["-p", name], path).splitlines():
        m = re.match(r"\s*\[\s*([0-9a-f]+)\]\s+(.*)$", line)
        if m:
            out.append((addr + int(m.group(1), 16), m.group(2)))
    return sorted(out)


def sections(path):
    """{name: (address, file offset, size, flags)} of path's section
    headers, from readelf -SW (the flags letters as readelf prints them:
    "C" for SHF_COMPRESSED, "A" for SHF_ALLOC...)."""
    out = {}
    for line in readelf(["-S"], path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)",
                     line)
        if m:
            out[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16),
                               int(m.group(4), 16), m.group(5))
    return out


def proc_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, t, ...)."""
    with open(f"/proc/{pid}/stat", errors="surrogateescape") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_stopped(pid):
    """Waits until pid is stopped (state T or t); see wait_until."""
    wait_until(lambda: proc_state(pid) in "Tt", f"pid {pid} to stop")


def workload_ready(p, what="the workload"):
    """Reads the lines a workload started by subprocess.Popen p (stdout a
    text pipe) prints until "ready": "child PID" lines and "NAME HEX..."
    ones. Returns (regions, kids): {NAME: (int, ...)} of the hex numbers
    and the children's pids in order. Fails if it ends before."""
    regions, kids = {}, []
    for line in p.stdout:
        w = line.split()
        if w == ["ready"]:
            return regions, kids
        if w[0] == "child":
            kids.append(int(w[1]))
        else:
            regions[w[0]] = tuple(int(x, 16) for x in w[1:])
    fail(f"{what} ended before it was ready")


def workload_stopped(p, what="the workload"):
    """workload_ready, then waits for the workload p, a child of this
    process, to stop itself (an event, not a poll). Fails if it ends."""
    got = workload_ready(p, what)
    _, st = os.waitpid(p.pid, os.WUNTRACED)
    if not os.WIFSTOPPED(st):
        fail(f"{what} ended before it stopped")
    return got


def stopped(pid):
    """Sends SIGSTOP to pid and waits until it is stopped."""
    os.kill(pid, signal.SIGSTOP)
    wait_stopped(pid)


def nmaps(pid):
    """The number of mappings (lines of /proc/PID/maps) of pid."""
    with open(f"/proc/{pid}/maps", errors="surrogateescape") as f:
        return sum(1 for _ in f)


def mapping_rows(data, fields):
    """The rows of `memsz report --by mappings -F fields` of data, keyed by
    their mapping's (start, end)."""
    rows = {}
    for r in report(data, "mappings", "-F", fields):
        s, e = (int(x, 16) for x in r["mappings"].split()[0].split("-"))
        rows[(s, e)] = r
    return rows


def record_between(pid, data, read, fields, who, env=None):
    """Runs `memsz record -o data -p pid --duration 0` (environment env)
    between two calls of read() ({name: smaps_vmas() dict}) until both
    agree on fields (a stopped process's smaps may still move: 20 tries,
    then fails); returns the second."""
    for _ in range(20):
        before = read()
        subprocess.run([MEMSZ, "record", "-o", data, "-p", str(pid),
                        "--duration", "0"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        after = read()
        if all(before[n].get(f) == after[n].get(f) for n in after
               for f in fields):
            return after
    fail(f"{who}: smaps kept changing while stopped")


def mapping_row_checks(what, r, v):
    """(ok, message) of each check of r, a `report --by mappings --format
    csv` row of columns rss, pss, uss, dirty, shclean, shdirty and any of
    swap and thp (None: the mapping is not reported, a failed check),
    against v, the mapping's smaps_vmas() dict: Rss, Private_Dirty,
    Private_Clean, Shared_Clean, Shared_Dirty, Swap and AnonHugePages
    exactly, Pss within a kB (smaps rounds it down)."""
    if r is None:
        return [(False, f"{what}: memsz reports the mapping")]
    dirty, uss = int(r["dirty"]), int(r["uss"])
    have = {"Rss": int(r["rss"]), "Private_Dirty": dirty,
            "Private_Clean": uss - dirty,
            "Shared_Clean": int(r["shared_clean"]),
            "Shared_Dirty": int(r["shared_dirty"])}
    for col, field in (("swap", "Swap"), ("thp", "AnonHugePages")):
        if col in r:
            have[field] = int(r[col])
    out = [(True, f"{what}: memsz reports the mapping")]
    for f, got in have.items():
        out.append((got == v[f], f"{what}: {f} {got} == smaps {v[f]}"))
    pss = float(r["pss"])
    out.append((v["Pss"] <= pss < v["Pss"] + 1024,
                f"{what}: Pss {pss} in smaps [{v['Pss']}, + 1 kB)"))
    return out


def checks_retried(attempt, who):
    """Checks what attempt() returns, (ok, message) pairs, calling it again
    up to three times in all while one fails, each failure printed: a
    recording between two equal smaps reads may still catch a page
    mid-migration (compaction of other processes' huge page allocations
    moves a stopped process's pages), which memsz cannot look up; a wrong
    number memsz always gives fails every time."""
    for n in range(1, 4):
        res = attempt()
        bad = [m for ok, m in res if not ok]
        if not bad or n == 3:
            break
        for m in bad:
            print(f"# {who}, attempt {n} differs: {m}")
    for ok, m in res:
        check(ok, m)


def smaps_regions(pid, regions):
    """smaps dicts (smaps_vmas) of pid's mappings named in regions (name:
    (start, end)), each the mapping of exactly that range; a failure if
    one is not there."""
    by = {(v["start"], v["end"]): v for v in smaps_vmas(pid)}
    out = {}
    for name, se in regions.items():
        if se not in by:
            fail(f"pid {pid} has no mapping {se[0]:x}-{se[1]:x}")
        out[name] = by[se]
    return out


def compare_regions(pid, regions, data, who, fields, cols):
    """Records pid into data between two equal smaps reads of its
    mappings named in regions (record_between: smaps fields) and checks
    each against memsz's row of it (mapping_rows cols,
    mapping_row_checks), recording again while one differs
    (checks_retried)."""
    def attempt():
        after = record_between(pid, data,
                               lambda: smaps_regions(pid, regions),
                               fields, who)
        rows = mapping_rows(data, cols)
        return [c for name, se in regions.items()
                for c in mapping_row_checks(f"{who}, {name}", rows.get(se),
                                            after[name])]
    checks_retried(attempt, who)


def check_mapping_row(what, r, v):
    """Checks r against v as mapping_row_checks lists."""
    for ok, m in mapping_row_checks(what, r, v):
        check(ok, m)


def smaps_vmas(pid):
    """The VMAs of /proc/PID/smaps in order, as dicts: "start", "end"
    (ints), "last" (the header's last field: the path, or the inode of an
    anonymous mapping) and each "kB" field in bytes ("Rss", "Pss", ...)."""
    vmas = []
    with open(f"/proc/{pid}/smaps", errors="surrogateescape") as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if "-" in p[0] and not p[0].endswith(":"):
                s, e = (int(x, 16) for x in p[0].split("-"))
                vmas.append({"start": s, "end": e, "last": p[-1]})
            elif vmas and len(p) == 3 and p[2] == "kB":
                vmas[-1][p[0][:-1]] = int(p[1]) * 1024
    return vmas


def smaps_inode_rss(pid, ino):
    """smaps' Rss (bytes) of pid's mappings of inode ino, summed; None
    where it maps none (a file whose name has a newline is found by its
    inode, not its name)."""
    rss, cur = None, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            p = line.split()
            if p and "-" in p[0] and not p[0].endswith(":"):
                cur = len(p) > 4 and p[4] == str(ino)
            elif cur and p and p[0] == "Rss:":
                rss = (rss or 0) + int(p[1]) * 1024
    return rss


def smaps_rollup(pid):
    """The "kB" fields of /proc/PID/smaps_rollup in bytes ("Rss", "Pss",
    ...); {} for a process without user memory (a kernel thread); None if
    it is gone; raises PermissionError if it may not be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup",
                  errors="surrogateescape") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    out = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] == "kB":
            out[p[0][:-1]] = int(p[1]) * 1024
    return out


def all_rollups():
    """{pid: smaps_rollup(pid)} of every process in /proc, with the value
    "denied" for those that may not be read; gone ones left out."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            r = smaps_rollup(int(d))
        except PermissionError:
            r = "denied"
        if r is not None:
            out[int(d)] = r
    return out


def cpu_state(pid):
    """(tids, ns) of pid: its threads and the nanoseconds they have spent
    on a cpu (the first field of /proc/PID/task/TID/schedstat), or None if
    it cannot be read. Two equal states mean the process did not run in
    between (so its memory did not change, but for reclaim)."""
    tids, ns = [], 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                ns += int(f.read().split()[0])
            tids.append(int(t))
    except (OSError, ValueError, IndexError):
        return None
    return (frozenset(tids), ns)


def all_cpu_states():
    """{pid: cpu_state(pid)} of every process in /proc that can be read."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = cpu_state(int(d))
            if st is not None:
                out[int(d)] = st
    return out


def is_kthread(pid):
    """True if pid is a kernel thread (PF_KTHREAD in /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat", errors="surrogateescape") as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return bool(int(rest[6]) & 0x00200000)


def pid_rows(data, *extra):
    """{pid: row} of `memsz report --by pids` (csv) of data."""
    return {int(r["pids"].split()[0]): r for r in report(data, "pids", *extra)
            if r["pids"] != "TOTAL" and r["pids"][0].isdigit()}


def children(pid):
    """The pids of pid's children (from /proc/PID/task/*/children)."""
    kids = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return kids


def stop_kill(p, *kids):
    """Kills the stopped workload p (a Popen) and its children kids (pids;
    None: none), and reaps p."""
    for pid in (*kids, p.pid):
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    p.wait()


def stopped_child(pid):
    """Waits until pid's first child exists and is stopped (state T or t),
    as a workload that stops itself is; returns its pid. See wait_until."""
    found = []

    def ready():
        try:
            kids = children(pid)
            if kids and proc_state(kids[0]) in "Tt":
                found.append(kids[0])
                return True
        except (OSError, IndexError):
            pass
        return False
    wait_until(ready, f"a stopped child of pid {pid}")
    return found[0]


def pid_label_is(label, pid, name):
    """True if label is process pid's --by pids label, 'PID' then its
    command line (or its command name when it has none), for a program
    whose file name is name."""
    parts = (label or "").split(" ")
    return (len(parts) >= 2 and parts[0] == str(pid) and
            os.path.basename(parts[1]) == name)


def snap_ends(data):
    """The number of complete snapshots (SNAP_END records) `memsz dump`
    reads in data, which may still be being written (then into its
    temporary file, see recording)."""
    p = subprocess.run([MEMSZ, "dump", "-i", recording(data)],
                       capture_output=True, text=True)
    return p.stdout.count("SNAP_END")


def wait_snaps(data, n):
    """Waits (polling data for records; see wait_until) until data holds n
    complete snapshots; returns how many it holds (fewer only at the hang
    guard)."""
    try:
        wait_until(lambda: snap_ends(data) >= n, f"{n} snapshots in {data}")
    except TimeoutError as e:
        print("# " + str(e))
    return snap_ends(data)


def snapshot_after(data, what):
    """Checks that data, still being recorded, gets a complete snapshot
    begun after now, i.e. after the snapshot under way (if any) ends: waits
    for two SNAP_END records more than it has now. Returns the number of
    that snapshot; what names the event it follows, for the check."""
    k = snap_ends(data) + 1
    check(wait_snaps(data, k + 1) >= k + 1, f"a snapshot after {what}")
    return k


# --- memsz.data bytes (man 5 memsz-data), to craft damaged files ---

def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_CRC_TABLE = _crc32c_table()


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli) of data, continuing from crc."""
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _CRC_TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def md_records(raw):
    """[(offset, type, size)] of the records of memsz.data bytes raw, while
    their sizes fit."""
    import struct
    hsize = struct.unpack_from("<I", raw, 12)[0]
    off, out = hsize, []
    while len(raw) - off >= 16:
        rtype, _, size = struct.unpack_from("<IIQ", raw, off)
        if size < 16 or size > len(raw) - off:
            break
        out.append((off, rtype, size))
        off += size
    return out


def md_fix_checksums(raw):
    """Recompute the header and record checksums of bytearray raw in place
    (a file with header flag CRC), so that damage crafted behind them
    reaches the reader's other checks."""
    import struct
    hsize = struct.unpack_from("<I", raw, 12)[0]
    hdr = bytes(raw[:44]) + b"\0" * 4 + bytes(raw[48:hsize])
    struct.pack_into("<I", raw, 44, crc32c(hdr))
    for off, _, size in md_records(raw):
        rec = bytes(raw[off:off + 4]) + b"\0" * 4 + \
            bytes(raw[off + 8:off + size])
        struct.pack_into("<I", raw, off + 4, crc32c(rec))
    return raw


def md_without_image_kinds(raw):
    """The memsz.data bytes raw (header flag CRC) without its IMAGE_KIND
    records, the END record's count of records lowered to match and its
    checksum made again: a recording as memsz wrote it before IMAGE_KIND
    records, to check that such files read as they did."""
    import struct
    out = bytearray(raw[:struct.unpack_from("<I", raw, 12)[0]])
    dropped = 0
    for off, rtype, size in md_records(raw):
        rec = bytearray(raw[off:off + size])
        if rtype == 21:  # IMAGE_KIND
            dropped += 1
            continue
        if rtype == 15:  # END: time, nrecords, nsamples
            n = struct.unpack_from("<Q", rec, 24)[0]
            struct.pack_into("<Q", rec, 24, n - dropped)
        out += rec
    check_quiet(dropped > 0, "the recording has IMAGE_KIND records")
    return bytes(md_fix_checksums(out))


@contextlib.contextmanager
def hugetlb_pool_lock():
    """Held by every test that changes the machine's hugetlb pool
    (nr_hugepages) while it reads, raises, uses and restores it: two such
    tests run at once (make -j2 check) would restore each other's pages
    away (t2170 and t2172). Blocks until the other test is done."""
    fd = os.open("/tmp/memsz-tests-hugetlb.lock",
                 os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def read_int(path):
    """The number in file path (a sysfs, procfs or cgroupfs value), or
    None where it cannot be read."""
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def memcg_stat(cg, key):
    """The value of key in the memory cgroup directory cg's memory.stat
    (0 where it has no such line)."""
    with open(os.path.join(cg, "memory.stat")) as f:
        for line in f:
            k, v = line.split()
            if k == key:
                return int(v)
    return 0


# memory.stat is the kernel's per-CPU counters flushed lazily (at least
# every 2 s): a read just after pages were charged or freed may not show
# them yet. memcg_stat_until() reads again until the value agrees or this
# many seconds pass (a guard, not a wait: the caller's check then says
# what was read).
STAT_GUARD = 10


def memcg_stat_until(cg, key, agrees):
    """memcg_stat(cg, key), read again (every 50 ms) until agrees(value)
    or STAT_GUARD seconds pass; the last value read."""
    last = [0]

    def read():
        last[0] = memcg_stat(cg, key)
        return agrees(last[0])
    try:
        wait_until(read, f"{cg}'s memory.stat {key}", STAT_GUARD, 0.05)
    except TimeoutError:
        pass
    return last[0]


def dir_removed(path):
    """Tries to remove the directory path (a cgroup): True once it is
    gone, False while it is still busy (its killed processes not yet
    reaped); for wait_until()."""
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def build_id(path):
    """The GNU build-id of ELF file path as readelf -n prints it, or
    None."""
    for line in readelf(["-n"], path).splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return None


def free_port():
    """A TCP port on 127.0.0.1 nothing listens on (just now)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class BlackHole:
    """A listening socket on 127.0.0.1 that accepts and never answers
    (a debuginfod server that hangs); conns: the connections taken."""

    def __init__(self):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)

    def count(self):
        return len(self.conns)


def cgroup2_mount():
    """Where a cgroup v2 hierarchy is mounted (/sys/fs/cgroup first), or
    None."""
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split(" - ")[0].split()[4] for line in f
                  if " - cgroup2 " in line]
    if "/sys/fs/cgroup" in mounts:
        return "/sys/fs/cgroup"
    return mounts[0] if mounts else None


_CGROUP_RE = re.compile(r"CGROUP pid (\d+) v(\d) ino (\d+)(?: usage (\d+))?"
                        r"(?: kmem (\d+))? stats \d+( target)?( payer)? (.*)$")


def cgroup_records(data):
    """The CGROUP records of `memsz dump -v -i data`, in order, as dicts:
    "pid", "version", "ino", "usage" and "kmem" (None where not recorded),
    "target" and "payer" (bools), "path" (as dump prints it) and "stats"
    ({counter: value} from memory.stat)."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data],
                         capture_output=True, text=True,
                         errors="surrogateescape").stdout
    recs, cur = [], None
    for line in out.splitlines():
        m = _CGROUP_RE.search(line)
        if m:
            cur = {"pid": int(m[1]), "version": int(m[2]), "ino": int(m[3]),
                   "usage": m[4] and int(m[4]), "kmem": m[5] and int(m[5]),
                   "target": bool(m[6]), "payer": bool(m[7]),
                   "path": m[8], "stats": {}}
            recs.append(cur)
        elif cur and line.startswith("    ") and len(line.split()) == 2:
            k, v = line.split()
            cur["stats"][k] = int(v)
        else:
            cur = None  # another record: its lines are not counters
    return recs


def cgroup_targets(data):
    """The CGROUP records of data's -G target (see cgroup_records)."""
    return [r for r in cgroup_records(data) if r["pid"] == 0 and r["target"]]


V1_MEMORY = "/sys/fs/cgroup/memory"


def make_cgroup(tag, v1_first=False):
    """A new cgroup directory memsz-TAG-PID, under cgroup2 then the v1
    memory controller (v1 first with v1_first: where the memory
    controller must be there), or a skip."""
    roots = [cgroup2_mount()] if cgroup2_mount() else []
    if os.path.isdir(V1_MEMORY):
        roots.insert(0 if v1_first else len(roots), V1_MEMORY)
    for root in roots:
        cg = os.path.join(root, "memsz-%s-%d" % (tag, os.getpid()))
        try:
            os.mkdir(cg)
            return cg
        except OSError:
            continue
    skip("cannot make a cgroup")


def remove_cgroup(cg, what=None):
    """Removes the cgroup directory cg once its killed processes are
    reaped (see wait_until, dir_removed); a cgroup still busy after the
    guard is said in a "# " line (what: the wait's name, by default
    "cgroup CG to be removed"), not raised: the caller checks it is
    gone."""
    try:
        wait_until(lambda: dir_removed(cg),
                   what or "cgroup %s to be removed" % cg)
    except TimeoutError as e:
        print("# " + str(e))


def memory_cgroup_root(v1=False):
    """Where memsz's tests make memory cgroups: cgroup v1's memory
    hierarchy (V1_MEMORY), else (unless v1: a test of v1's charging) a
    cgroup2 hierarchy whose root hands the memory controller down; None
    where neither is."""
    if os.path.exists(os.path.join(V1_MEMORY, "memory.usage_in_bytes")):
        return V1_MEMORY
    root = None if v1 else cgroup2_mount()
    try:
        with open(os.path.join(root, "cgroup.subtree_control")) as f:
            return root if "memory" in f.read().split() else None
    except (OSError, TypeError):
        return None


def cgroup_kill(cg):
    """SIGKILL to every process still in the cgroup directory cg (one a
    test left there, or that escaped its clean-up)."""
    try:
        with open(os.path.join(cg, "cgroup.procs")) as f:
            pids = [int(x) for x in f.read().split()]
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextlib.contextmanager
def memory_cgroups(tag, *names, v1=False):
    """New memory cgroups memsz-TAG-PID-NAME, one per name (one
    memsz-TAG-PID without names), under memory_cgroup_root(v1): a skip
    where there is none. Yields their paths, in names' order; on leaving,
    even on a failure or a skip, kills what is still in them (cgroup_kill),
    removes them (remove_cgroup) and, unless the body raised, checks that
    they are gone."""
    root = memory_cgroup_root(v1)
    if root is None:
        skip("no cgroup v1 memory hierarchy at " + V1_MEMORY if v1 else
             "no memory cgroup hierarchy (cgroup v1 memory, or cgroup2 "
             "with +memory)")
    base = os.path.join(root, "memsz-%s-%d" % (tag, os.getpid()))
    paths = ["%s-%s" % (base, n) for n in names] or [base]
    made = []
    try:
        for cg in paths:
            os.mkdir(cg)
            made.append(cg)
        yield paths
    finally:
        for cg in made:
            cgroup_kill(cg)
            remove_cgroup(cg)
    check(not any(os.path.exists(cg) for cg in paths),
          "cgroup%s %s removed" % ("s" if len(paths) > 1 else "",
                                   " and ".join(paths)))


@contextlib.contextmanager
def swap_file(d, name, mib):
    """A swap file d/NAME of mib MiB, turned on (a skip where that cannot
    be done). Yields its path; on leaving, even on a failure, turns it off
    and checks that swapoff exits 0 (d's owner removes the file)."""
    path = os.path.join(d, name)
    try:
        subprocess.run(["fallocate", "-l", f"{mib}M", path], check=True,
                       capture_output=True)
        os.chmod(path, 0o600)
        subprocess.run(["mkswap", path], check=True, capture_output=True)
        r = subprocess.run(["swapon", path], capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        skip(f"cannot make a swap file in {d}: {e}")
    if r.returncode:
        skip(f"swapon {path} failed: {r.stderr.strip()}")
    try:
        yield path
    finally:
        r = subprocess.run(["swapoff", path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"swapoff {path}: {r.stderr.strip()}")


@contextlib.contextmanager
def cat_in_cgroup(tag):
    """A new cgroup memsz-TAG-PID (make_cgroup: cgroup2 first, else the
    v1 memory controller; a skip if neither) holding one process, a `cat`
    that waits on its stdin: for a `record -G` that needs a process to
    record. Yields the cgroup's path; on leaving, kills and reaps the cat,
    removes the cgroup (remove_cgroup) and, unless the body raised (a
    failure, a skip), checks that it is gone."""
    cg = make_cgroup(tag)
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE)
    try:
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(cat.pid))
        yield cg
    finally:
        cat.kill()
        cat.wait()
        remove_cgroup(cg)
    check(not os.path.exists(cg), "cgroup %s removed" % cg)


def wait_served(proc, url):
    """Waits (see wait_until) until url answers 200 (a debuginfod server
    proc has scanned the file); False if the server exits first, or at
    the hang guard."""
    import urllib.error
    import urllib.request
    up = []

    def ready():
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    up.append(url)
                    return True
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        return proc.poll() is not None
    try:
        wait_until(ready, "debuginfod to serve " + url)
    except TimeoutError as e:
        print("# " + str(e))
    return bool(up)


# fanotify(7) permission events: a test holds memsz in an open() of a
# file until it answers, so that it can change the tree meanwhile
FAN_CLOEXEC, FAN_CLASS_CONTENT = 0x1, 0x4
FAN_MARK_ADD, FAN_OPEN_PERM, FAN_EVENT_ON_CHILD = 0x1, 0x10000, 0x8000000
FAN_ALLOW = 0x1
AT_FDCWD = -100
FAN_EVENT = struct.Struct("=IBBHQii")  # struct fanotify_event_metadata


def fanotify(*paths):
    """A fanotify descriptor holding every open of a file in the
    directories paths until answered, or a skip where that is not
    permitted or built."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint,
                                   ctypes.c_uint64, ctypes.c_int,
                                   ctypes.c_char_p]
    fd = libc.fanotify_init(FAN_CLOEXEC | FAN_CLASS_CONTENT, os.O_RDONLY)
    if fd < 0:
        skip("fanotify permission events: %s" %
             os.strerror(ctypes.get_errno()))
    for path in paths:
        if libc.fanotify_mark(fd, FAN_MARK_ADD,
                              FAN_OPEN_PERM | FAN_EVENT_ON_CHILD,
                              AT_FDCWD, path.encode()) < 0:
            skip("fanotify permission events: %s" %
                 os.strerror(ctypes.get_errno()))
    return fd


def fan_events(fd):
    """The (pid, file descriptor) of the open events waiting on fd."""
    buf = os.read(fd, 4096)
    out = []
    while len(buf) >= FAN_EVENT.size:
        length, _, _, _, _, efd, pid = FAN_EVENT.unpack_from(buf)
        out.append((pid, efd))
        buf = buf[length:]
    return out


def fan_allow(fd, efd):
    """Let the open of event descriptor efd go on, and close it."""
    os.write(fd, struct.pack("=iI", efd, FAN_ALLOW))
    os.close(efd)


def fan_serve(fd, rec, on_open, guard=120):
    """Answers every open the fanotify descriptor fd holds (rec's and any
    other process's: fan_allow) until the process rec (a Popen, stderr a
    text pipe) ends or guard seconds pass (a guard against hanging, not a
    timing assumption), calling on_open(efd) before it lets each of rec's
    own go on; then closes fd, kills rec if it still runs and returns its
    stderr."""
    end = time.monotonic() + guard
    try:
        while rec.poll() is None and time.monotonic() < end:
            if not select.select([fd], [], [], 0.1)[0]:
                continue
            for pid, efd in fan_events(fd):
                if pid == rec.pid:
                    on_open(efd)
                fan_allow(fd, efd)
    finally:
        os.close(fd)
        if rec.poll() is None:
            rec.kill()
    return rec.communicate()[1]


# Fedora's find-debuginfo.sh (add_minidebug), step by step: the names of
# the defined dynamic symbols, the function symbols of the debug file,
# those not dynamic kept; the debug file with only those symbols, its
# .gdb_index and .comment removed, xz-compressed into .gnu_debugdata.
FEDORA_MINIDEBUG = r'''
set -e
nm -D "$BIN" --format=posix --defined-only | awk '{ print $1 }' | sort > "$T.dynsyms"
nm "$DBG" --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t") print $1 }' | sort > "$T.funcsyms"
if [ -n "$KEEP_ALL" ]; then cp "$T.funcsyms" "$T.keep"; else comm -13 "$T.dynsyms" "$T.funcsyms" > "$T.keep"; fi
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$T.keep" "$DBG" "$T.mini"
xz -f "$T.mini"
objcopy --add-section .gnu_debugdata="$T.mini.xz" "$BIN"
'''


def fedora_minidebug(orig, out, keep_all=False):
    """Make out from the unstripped binary orig as Fedora ships it:
    objcopy --only-keep-debug, strip --strip-all, then FEDORA_MINIDEBUG
    (keep_all: every function symbol kept, those .dynsym has too). The
    compressed payload stays in out + ".mini.xz". Returns the names kept
    (a list)."""
    dbg = out + ".debug"
    subprocess.run(["objcopy", "--only-keep-debug", orig, dbg], check=True)
    subprocess.run(["strip", "--strip-all", "-o", out, orig], check=True)
    env = dict(os.environ, BIN=out, DBG=dbg, T=out,
               KEEP_ALL="1" if keep_all else "")
    subprocess.run(["sh", "-c", FEDORA_MINIDEBUG], env=env, check=True)
    with open(out + ".keep") as f:
        return f.read().split()


def nm_defined(path):
    """{name: (address, size)} of `nm -S --defined-only path`: the
    symbols with a size."""
    out = subprocess.run(["nm", "-S", "--defined-only", path],
                         capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
    return syms


def eh_frame_fdes(path):
    """{pc_begin: FDE bytes (its length field and what it counts)} of
    `readelf -wf path`."""
    fdes = {}
    for line in readelf(["--debug-dump=frames"], path).splitlines():
        m = re.match(r"[0-9a-f]+ ([0-9a-f]+) [0-9a-f]+ FDE cie=[0-9a-f]+ "
                     r"pc=([0-9a-f]+)\.\.", line)
        if m:
            fdes[int(m.group(2), 16)] = int(m.group(1), 16) + 4
    return fdes


# --- page-cache and cgroup v1 charge tests (t2315, t2458) ---


def start_in_cgroup(script, cg, *args):
    """python3 -c script args, moved into cg before it goes on."""
    p = subprocess.Popen([sys.executable, "-c", script, *map(str, args)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write(str(p.pid))
    p.stdin.write("go\n")
    p.stdin.flush()
    return p


def smaps_mapping(pid, path):
    """(start, end, fields in bytes) of pid's mapping of path."""
    cur = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$",
                         line)
            if m:
                if cur:
                    return cur
                if m[3] == path:
                    cur = (int(m[1], 16), int(m[2], 16), {})
                continue
            m = re.match(r"(\w+):\s+(\d+) kB", line)
            if cur and m:
                cur[2][m[1]] = int(m[2]) * 1024
    return cur


def block_device_dir(*dirs):
    """The first of dirs on a block device (not tmpfs or another file
    system of device major 0), or None: where a test's files must be page
    cache of a disk, or have a device and inode memsz records."""
    for d in dirs:
        if os.major(os.stat(d).st_dev) != 0:
            return d
    return None


def fincore_bytes(path):
    """The bytes of path in the page cache, as fincore says (None
    without fincore)."""
    try:
        fc = subprocess.run(["fincore", "-b", "-n", "-o", "RES", path],
                            capture_output=True, text=True)
    except FileNotFoundError:
        return None
    return int(fc.stdout.split()[0]) if fc.returncode == 0 else None


def charge_runs(data, start, end):
    """The SNAP_CHARGE runs of data within [start, end) as merged
    (vaddr, end, cgroup inode) ranges, in address order."""
    out = subprocess.run([MEMSZ, "dump", "-v", "-i", data], text=True,
                         capture_output=True).stdout
    runs, inrec = [], False
    for line in out.splitlines():
        if not line.startswith("    "):
            inrec = "SNAP_CHARGE" in line
            continue
        m = re.match(r"    (0x[0-9a-f]+) (\d+) cgroup (\d+)$", line)
        if not (inrec and m):
            continue
        va, n, cg = int(m[1], 16), int(m[2]), int(m[3])
        s, e = max(va, start), min(va + n * PAGE, end)
        if s >= e:
            continue
        if runs and runs[-1][1] == s and runs[-1][2] == cg:
            runs[-1] = (runs[-1][0], e, cg)
        else:
            runs.append((s, e, cg))
    return sorted(runs)


# --- hand-written DWARF tests (t1309, t2462) ---


def run_ok(args, **kw):
    """subprocess.run(args) with its output captured as text; the test
    fails if it exits non-zero, or (timeout= given) does not end in
    time: a hang guard, not a timing check."""
    try:
        r = subprocess.run(args, capture_output=True, text=True, **kw)
    except subprocess.TimeoutExpired:
        fail("%s did not end within %d s (a loop?)"
             % (" ".join(args), kw["timeout"]))
    if r.returncode:
        fail("%s failed (exit %d): %s" % (" ".join(args), r.returncode,
                                        r.stderr[-600:]))
    return r


def build_c_asm(tmp, c_text, asm_text):
    """tmp/prog built by gcc -O1 from tmp/main.c (c_text) and tmp/h.s
    (asm_text); its path."""
    for name, text in (("main.c", c_text), ("h.s", asm_text)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    prog = os.path.join(tmp, "prog")
    run_ok(["gcc", "-O1", "-o", prog, "main.c", "h.s"], cwd=tmp)
    return prog
