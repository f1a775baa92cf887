# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.core: what every Python test uses: the memsz under test
(MEMSZ), the source tree (SRCDIR), the page size; the checks and their
counts (check, check_quiet, skip_part, skip, fail, finish); waiting for
an event (wait_until); running a command that must succeed (run_ok);
building a workload (workload); another test's module (sibling_test).

Conventions, the same as tests/lib.sh for the shell tests: each check is
one named assertion; what cannot be checked here is said with
skip_part(why) (the test goes on) or skip(why) (it ends now, exit 77:
automake's SKIP); a test that cannot go on calls fail(why). finish()
gives the exit status. No fixed sleeps: wait_until() polls for an
event.
"""
import importlib.util
import os
import subprocess
import sys
import time

MEMSZ = os.environ.get("MEMSZ", "memsz")
# this file is tests/memsz_testlib/core.py
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRCDIR = os.environ.get("top_srcdir", os.path.join(TESTS, ".."))
PAGE = os.sysconf("SC_PAGE_SIZE")

# the counts finish() reports (memsz_testlib.checks and .failures read
# them: see __init__.py)
failures = 0
checks = 0
skipped = []


def sibling_test(name):
    """The test tests/NAME.py loaded as a module (its name has dashes, so
    import cannot), for a test that runs another's workload or checks."""
    path = os.path.join(TESTS, name + ".py")
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


def read_int(path):
    """The number in file path (a sysfs, procfs or cgroupfs value), or
    None where it cannot be read."""
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


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
