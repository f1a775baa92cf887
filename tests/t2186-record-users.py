#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2186: `--by users` for recordings of -p and of a launched command, not
only of -a and -G.

- `record -p` of two processes, one running as nobody (setpriv --reuid)
  and one as root: `report --by users,pids` puts each under the user its
  /proc/PID/status Uid line names (the effective uid), and no process is
  "[unknown user]";
- `record -- setpriv --reuid nobody sh -c ...`: memsz launches setpriv as
  root, which becomes nobody before it runs sh; sh writes its own Uid line
  of /proc/self/status and forks a sleep. Both are reported under that
  user (the owner is recorded again when a snapshot finds it changed);
- `dump` shows the owner in the COMM records of the -p recording.
"""
import os
import pwd
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "memsz")
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def status_user(text):
    """The user name of the effective uid of a /proc/PID/status text."""
    for line in text.splitlines():
        if line.startswith("Uid:"):
            uid = int(line.split()[2])
            try:
                return pwd.getpwuid(uid).pw_name
            except KeyError:
                return f"uid {uid}"
    return None


def by_users(data):
    """{pid: user} of `report --by users,pids`."""
    return {int(r["pids"].split()[0]): r["users"]
            for r in lib.report(data, "users,pids")}


def attached(tmp):
    data = os.path.join(tmp, "p.data")
    procs = [subprocess.Popen(NOBODY + ["sleep", "1000"]),
             subprocess.Popen(["sleep", "1000"])]
    try:
        # setpriv has exec'd sleep once the comm says so
        for p in procs:
            lib.wait_until(lambda: open(f"/proc/{p.pid}/comm").read() ==
                           "sleep\n", f"pid {p.pid} to run sleep")
        want = {}
        for p in procs:
            with open(f"/proc/{p.pid}/status") as f:
                want[p.pid] = status_user(f.read())
        check(sorted(want.values()) == ["nobody", "root"],
              f"the workload runs as nobody and root ({want})")
        rec = subprocess.run([MEMSZ, "record", "-o", data, "-p",
                              ",".join(str(p.pid) for p in procs),
                              "--duration", "0"], capture_output=True,
                             text=True, timeout=120)
        check(rec.returncode == 0, f"record -p exits 0 {rec.stderr.strip()}")
        got = by_users(data)
        check(got == want, f"record -p: --by users,pids as "
              f"/proc/PID/status Uid says: {got} == {want}")
        dump = subprocess.run([MEMSZ, "dump", "-i", data],
                              capture_output=True, text=True).stdout
        nob = procs[0].pid
        check(any(f"COMM {nob}/{nob}: sleep (uid 65534 nobody)" in line or
                  (f"COMM {nob}/{nob}: sleep (uid " in line and
                   line.endswith(" nobody)"))
                  for line in dump.splitlines()),
              f"dump: pid {nob}'s COMM record names its owner")
    finally:
        for p in procs:
            p.kill()
            p.wait()


def launched(tmp):
    data = os.path.join(tmp, "l.data")
    st = os.path.join(tmp, "status")
    pidf = os.path.join(tmp, "pids")
    # sh writes its pid and its Uid line, then a forked sleep's pid
    script = (f"echo $$ > {pidf}; grep ^Uid: /proc/$$/status > {st}; "
              f"sleep 0.3 & echo $! >> {pidf}; wait")
    rec = subprocess.run([MEMSZ, "record", "-o", data, "--"] + NOBODY +
                         ["sh", "-c", script], capture_output=True,
                         text=True, timeout=120)
    check(rec.returncode == 0, f"record -- exits 0 {rec.stderr.strip()}")
    with open(st) as f:
        want = status_user(f.read())
    with open(pidf) as f:
        sh, sleep = (int(x) for x in f.read().split())
    check(want == "nobody", f"the command ran as nobody ({want})")
    got = by_users(data)
    check(got.get(sh) == want and got.get(sleep) == want,
          f"record --: sh ({sh}) and the sleep it forked ({sleep}) under "
          f"'{want}': {got}")
    check("[unknown user]" not in got.values(),
          f"record --: no process is '[unknown user]' {got}")


def main():
    if os.geteuid() != 0:
        lib.skip("needs root: the workload runs as another user (setpriv)")
    with tempfile.TemporaryDirectory(prefix="memsz-t2186.") as tmp:
        os.chmod(tmp, 0o777)
        attached(tmp)
        launched(tmp)
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
