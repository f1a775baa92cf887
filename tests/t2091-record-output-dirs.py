#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2091: the directories of `record -o` and the names beside the output.

 - a symlink another user owns in a sticky world-writable directory is
   not followed in any directory component of -o (the kernel's
   protected_symlinks rule, applied by memsz whatever fs.protected_symlinks
   says): `-o /tmp/s/evil/x.data`, evil a link nobody planted to root's
   directory, wrote root's recording there. Refused with the message of a
   planted link in the last component; nothing is written where it
   points. A link root owns there is followed, and one that leads on to
   a planted link is refused (the links of a target are checked too);
   through /proc/PID/root of a process in another mount namespace, the
   links of that namespace are the ones checked (the kernel follows the
   magic link there; the check read its text and walked memsz's tree);
 - FILE.old a directory (planted, say): the recording cannot move the
   previous one there; the error says so, naming FILE.old (it said it
   could not write FILE), FILE is
   left as it was and what was recorded is in FILE.partial.
The ground truth: the files in the directories, `memsz dump`.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
# run from other directories too
MEMSZ_ABS = os.path.abspath(MEMSZ) if os.sep in MEMSZ else MEMSZ
UNSAFE = "a symlink another user owns in a sticky directory (not followed)"


def record(out, cwd=None):
    """(exit status, stderr) of a one-shot recording of this process to
    out, under a guard against hanging."""
    p = subprocess.run([MEMSZ_ABS, "record", "-o", out, "-p", str(os.getpid()),
                        "--duration", "0"], capture_output=True, text=True,
                       timeout=120, cwd=cwd)
    return p.returncode, p.stderr


def content(path):
    with open(path, "rb") as f:
        return f.read()


def dumps(path):
    return subprocess.run([MEMSZ, "dump", "-i", path], capture_output=True,
                          text=True).returncode == 0


def planted_dirs(tmp):
    sticky = os.path.join(tmp, "s")
    victim = os.path.join(tmp, "victim")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    os.mkdir(victim, 0o700)
    os.chmod(tmp, 0o755)  # nobody reaches the sticky directory
    evil = os.path.join(sticky, "evil")
    subprocess.run(NOBODY + ["ln", "-s", victim, evil], check=True)
    check(os.lstat(evil).st_uid == 65534, "the planted link is nobody's")

    for what, out, cwd in (
            ("planted link as a directory", os.path.join(evil, "x.data"),
             None),
            ("planted link, relative -o", "s/evil/x.data", tmp),
            ("planted link then ..",
             os.path.join(evil, "..", "victim", "x.data"), None)):
        rc, err = record(out, cwd)
        check(rc == 1 and UNSAFE in err and not os.listdir(victim),
              "%s: refused, nothing written where it points (exit %d, "
              "%r, %s)" % (what, rc, err, os.listdir(victim)))

    mine = os.path.join(sticky, "mine")
    os.symlink(victim, mine)
    rc, err = record(os.path.join(mine, "y.data"))
    check(rc == 0 and dumps(os.path.join(victim, "y.data")),
          "root's own link there is followed (exit %d, %r)" % (rc, err))
    chain = os.path.join(sticky, "chain")
    os.symlink(evil, chain)
    rc, err = record(os.path.join(chain, "z.data"))
    check(rc == 1 and UNSAFE in err and
          not os.path.exists(os.path.join(victim, "z.data")),
          "root's link to the planted one: refused (exit %d, %r)" %
          (rc, err))


def old_is_dir(tmp):
    out = os.path.join(tmp, "o", "x.data")
    os.makedirs(os.path.dirname(out))
    rc, err = record(out)
    if rc != 0:
        lib.fail("record -o %s: %r" % (out, err))
    before = content(out)
    os.mkdir(out + ".old")
    rc, err = record(out)
    check(rc == 1 and ("cannot move '%s' to '%s.old': Is a directory" %
                       (out, out)) in err
          and ("'%s' left as it was" % out) in err,
          "FILE.old a directory: the error names FILE.old (exit %d, %r)" %
          (rc, err))
    check(content(out) == before and dumps(out + ".partial"),
          "FILE.old a directory: FILE as it was, the recording in "
          "FILE.partial")


def proc_root(tmp):
    """-o through /proc/PID/root of a process in another mount namespace:
    the kernel follows the magic link into that namespace's tree, so the
    check must too (it read the link's text, "/", and checked memsz's own
    tree: here a plain directory where the namespace has nobody's link)."""
    base = os.path.join(tmp, "ns")
    victim = os.path.join(tmp, "nsvictim")
    os.makedirs(os.path.join(base, "d"))  # memsz's tree: a directory
    os.mkdir(victim, 0o700)
    # the namespace's tree: base a sticky tmpfs, d nobody's link to victim
    ns = subprocess.Popen(
        ["unshare", "-m", "--propagation", "private", "sh", "-c",
         'mount -t tmpfs -o mode=1777 none "$0" && '
         'setpriv --reuid=65534 --regid=65534 --clear-groups '
         'ln -s "$1" "$0/d" && echo ready && exec cat',
         base, victim], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True)
    try:
        if ns.stdout.readline().strip() != "ready":
            lib.fail("cannot set up the mount namespace")
        out = "/proc/%d/root%s/d/x.data" % (ns.pid, base)
        rc, err = record(out)
        check(rc == 1 and UNSAFE in err and not os.listdir(victim),
              "-o through /proc/PID/root into nobody's link in another "
              "namespace: refused (exit %d, %r, %s)" %
              (rc, err, os.listdir(victim)))
    finally:
        ns.stdin.close()
        ns.wait(timeout=120)


with tempfile.TemporaryDirectory(prefix="memsz-t2091-") as tmp:
    old_is_dir(tmp)
    if os.geteuid() != 0:
        lib.skip_part("acting as nobody to plant a link needs root")
    elif not shutil.which("setpriv"):
        lib.skip_part("setpriv (util-linux) is missing")
    else:
        planted_dirs(tmp)
        if not shutil.which("unshare"):
            lib.skip_part("unshare (util-linux) is missing")
        else:
            proc_root(tmp)

sys.exit(lib.finish())
