#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2459: record -v says on stderr, one "memsz: " line each, what the
recording decides or notes silently, and records the same.

A stopped Python process that has locked one page (mlock) is recorded
with --duration 0, with and without -v, MEMSZ_SMAPS_SHARE=0 and =1:
- without -v, stderr holds the summary line only;
- with -v, a line says the snapshot read smaps for the VmFlags of its
  locked memory, with VmLck as /proc/PID/status gives it, and, where the
  kernel has THP (hpage_pmd_size) and PAGEMAP_SCAN (Linux 6.7+), a line
  says whether smaps was read for the huge pages' sharing as
  MEMSZ_SMAPS_SHARE asks (=0: not read, =1: read once);
- the recordings with and without -v give the same report (mappings:
  the sizes, RSS, dirty, swap, THP and locked; PSS and sharing move with
  what other processes map) and the same NOTE records (memsz dump).
A command launched with -e page-faults: with -v, its "event 0:
page-faults" note, otherwise silent, is said ("memsz: note: ..."), and
every note line said is a NOTE record of the file; without -v it is not
said. As nobody (setpriv; no PFNs), `record -v -- true` says no line
twice: the "page frame numbers are not readable" line memsz says anyway
is not said again as a note (it was, as "note: PSS unavailable ...")."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

WORKLOAD = r"""
import ctypes, mmap, os, signal
libc = ctypes.CDLL(None, use_errno=True)
n = 4 * mmap.PAGESIZE
m = mmap.mmap(-1, n)
m.write(b"x" * n)
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(mmap.PAGESIZE))
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""
SUMMARY = re.compile(r"^\[ memsz record: wrote .*\]$")
# what a stopped process's pages give whatever other processes do (PSS,
# USS and the shared columns move as others map and unmap its libraries)
FIELDS = "file,vm,rss,dirty,swap,thp,locked"
PMD_SIZE = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"


def record(data, args, env_share=None):
    """Runs memsz record -o data ARGS; returns (exit status, stderr
    lines)."""
    env = dict(os.environ)
    env.pop("MEMSZ_SMAPS_SHARE", None)
    if env_share is not None:
        env["MEMSZ_SMAPS_SHARE"] = env_share
    r = subprocess.run([MEMSZ, "record", "-o", data, *args], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    return r.returncode, r.stderr.splitlines()


def said(lines):
    """The lines of stderr but the summary line."""
    return [x for x in lines if not SUMMARY.match(x)]


def notes(data):
    """The texts of the NOTE records of data, in order (memsz dump)."""
    out = subprocess.run([MEMSZ, "dump", "-i", data], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return [x.split(" NOTE ", 1)[1] for x in out.splitlines()
            if " NOTE " in x]


def report_text(data):
    """`memsz report --by mappings -F FIELDS` of data as CSV text."""
    return subprocess.run([MEMSZ, "report", "-i", data, "--by", "mappings",
                           "-n", "0", "--format", "csv", "-F", FIELDS],
                          check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout


def vmlck(pid):
    """VmLck of pid in kB (/proc/PID/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmLck:"):
                return int(line.split()[1])
    lib.fail("no VmLck in /proc/PID/status")


def has_scan():
    """PAGEMAP_SCAN: Linux 6.7 or later."""
    m = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return m and (int(m.group(1)), int(m.group(2))) >= (6, 7)


def attached(tmp, pid):
    lck = vmlck(pid)
    check(lck > 0, f"the workload has locked memory (VmLck {lck} kB)")
    thp = os.path.exists(PMD_SIZE) and has_scan()
    if not thp:
        lib.skip_part("huge pages' smaps line: no THP or no PAGEMAP_SCAN")
    pfx = f"memsz: pid {pid} snapshot 0: "
    plain = os.path.join(tmp, "plain.data")
    rc, err = record(plain, ["-p", str(pid), "--duration", "0"], "0")
    check(rc == 0 and said(err) == [],
          f"without -v: exit 0 ({rc}), nothing said but the summary "
          f"({said(err)})")
    for share, how in (("0", "smaps not read: the sharing of its huge "
                        "pages checked one by one (MEMSZ_SMAPS_SHARE=0)"),
                       ("1", "smaps read once for the sharing of its huge "
                        "pages (MEMSZ_SMAPS_SHARE=1)")):
        data = os.path.join(tmp, f"v{share}.data")
        rc, err = record(data, ["-v", "-p", str(pid), "--duration", "0"],
                         share)
        want = [pfx + "smaps read for the VmFlags of its locked memory "
                f"(VmLck {lck} kB)"]
        if thp:
            want.append(pfx + how)
        check(rc == 0 and said(err) == want,
              f"-v, MEMSZ_SMAPS_SHARE={share}: exit 0 ({rc}), said "
              f"{want} ({said(err)})")
        check(any(SUMMARY.match(x) for x in err),
              f"-v, MEMSZ_SMAPS_SHARE={share}: the summary line too")
    if not os.path.exists(os.path.join(tmp, "v0.data")):
        lib.fail("record -v wrote no recording")
    base = report_text(plain)
    check(base.count("\n") > 1, "the plain recording reports mappings")
    check(report_text(os.path.join(tmp, "v0.data")) == base,
          f"-v records the same: the same report ({FIELDS})")
    check(notes(os.path.join(tmp, "v0.data")) == notes(plain),
          "-v records the same NOTE records")


def launched(tmp):
    ev = os.path.join(tmp, "ev.data")
    rc, err = record(ev, ["-v", "-e", "page-faults", "--", "true"])
    if rc != 0:
        lib.skip_part(f"launched with -e page-faults: memsz failed ({err})")
        return
    noted = notes(ev)
    told = [x[len("memsz: note: "):] for x in err
            if x.startswith("memsz: note: ")]
    check("event 0: page-faults" in noted,
          f"the recording notes its event ({noted})")
    check("event 0: page-faults" in told,
          f"-v says the event note ({told})")
    check(all(t in noted for t in told),
          "every note -v says is a NOTE record of the file")
    rc, err = record(ev, ["-e", "page-faults", "--", "true"])
    check(rc == 0 and not any("event 0" in x for x in err),
          f"without -v the event note is not said ({said(err)})")


def unprivileged(tmp):
    """record -v as nobody: each line said once, no PFN note said again."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        lib.skip_part("record -v as nobody needs root and setpriv")
        return
    d = os.path.join(tmp, "nobody")
    os.mkdir(d)
    os.chmod(tmp, 0o755)  # nobody goes through to d, which it writes
    os.chmod(d, 0o777)
    r = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                        "--clear-groups", MEMSZ, "record", "-v", "-o",
                        os.path.join(d, "np.data"), "--", "true"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    err = r.stderr.splitlines()
    check(r.returncode == 0 and
          any("page frame numbers are not readable" in x for x in err),
          f"as nobody, record -v says PFNs are not readable ({err})")
    check(r.returncode == 0 and len(set(err)) == len(err) and
          not any(x.startswith("memsz: note: PSS unavailable") for x in err),
          f"as nobody, no line said twice, the PFN one not again as a "
          f"note ({err})")


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2459-") as tmp:
        p = subprocess.Popen([sys.executable, "-c", WORKLOAD],
                             stdout=subprocess.PIPE, text=True)
        try:
            lib.workload_stopped(p)
            attached(tmp, p.pid)
        finally:
            p.kill()
            p.wait()
        launched(tmp)
        unprivileged(tmp)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
