#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2092: a directory of `record -o` swapped for another user's link after
memsz checked it.

memsz checks every directory of -o under the kernel's protected_symlinks
rule (t2091). The check must be the resolution: a directory swapped for
a planted link between the check and the create must not be followed.
Here nobody's directory s/d in a sticky world-writable directory passes
the check, then, at the exact moment memsz creates its file, s/d is
moved away and nobody's link s/d -> victim (root's own directory) is put
in its place. memsz (built before the fix) opened "s/d" again by name
and wrote root's recording into victim.

The moment is an event, not a delay: an LD_PRELOAD shim built here holds
memsz at its first create of the recording (open/openat with O_TMPFILE,
or O_CREAT of FILE.tmp.XXXXXX), says so on a pipe, and goes on when the
test, having swapped the directory, writes to another pipe. The shim
also makes O_TMPFILE fail (EOPNOTSUPP) in a second case, for the named
temporary file's path.

The ground truth: the files in victim and in the moved directory, and
`memsz dump` of what memsz wrote.
"""
import os
import select
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NOBODY = 65534
GUARD = 120  # seconds: a hang guard, not a timing assumption

SHIM = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

static int held;

/* The first create of the recording (an unnamed file, or a name holding
 * SHIM_NAME): say so on SHIM_READY_FD, wait for a byte on SHIM_GO_FD.
 * With SHIM_NO_TMPFILE, O_TMPFILE fails as on a file system without it.
 * Returns -1 (errno set) for a create made to fail. */
static int hold(const char *path, int flags)
{
	const char *r = getenv("SHIM_READY_FD"), *g = getenv("SHIM_GO_FD");
	const char *name = getenv("SHIM_NAME");
	int tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	char c;

	if (tmpfile && getenv("SHIM_NO_TMPFILE")) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (held || !r || !g || !name ||
	    !(tmpfile || ((flags & O_CREAT) && strstr(path, name))))
		return 0;
	held = 1;
	if (write(atoi(r), "h", 1) != 1 || read(atoi(g), &c, 1) < 0)
		abort();
	close(atoi(r));
	close(atoi(g));
	return 0;
}

static int shim_openat(int dfd, const char *path, int flags, va_list ap)
{
	mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE
			  ? va_arg(ap, mode_t)
			  : 0;

	if (hold(path, flags) < 0)
		return -1;
	return syscall(SYS_openat, dfd, path, flags, mode);
}

int openat(int dfd, const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = shim_openat(dfd, path, flags, ap);
	va_end(ap);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = shim_openat(AT_FDCWD, path, flags, ap);
	va_end(ap);
	return fd;
}

int openat64(int dfd, const char *path, int flags, ...)
	__attribute__((alias("openat")));
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
"""


def build_shim(tmp):
    if not shutil.which("gcc"):
        lib.skip("gcc (gcc) is not installed")
    src = os.path.join(tmp, "shim.c")
    so = os.path.join(tmp, "shim.so")
    with open(src, "w") as f:
        f.write(SHIM)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", so, src],
                   check=True)
    return so


def raced(tmp, shim, target, what, no_tmpfile):
    """One recording into s/d/x.data whose d is swapped for nobody's link
    to victim while memsz is held at its create."""
    base = os.path.join(tmp, what)
    sticky = os.path.join(base, "s")
    victim = os.path.join(base, "victim")
    d = os.path.join(sticky, "d")
    moved = os.path.join(sticky, "d.moved")
    os.makedirs(sticky)
    os.chmod(sticky, 0o1777)
    os.mkdir(victim, 0o700)
    os.mkdir(d)
    os.chown(d, NOBODY, NOBODY)  # nobody's directory: passes the check
    out = os.path.join(d, "x.data")

    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    env = dict(os.environ, LD_PRELOAD=shim, SHIM_READY_FD=str(ready_w),
               SHIM_GO_FD=str(go_r), SHIM_NAME="x.data.tmp.")
    if no_tmpfile:
        env["SHIM_NO_TMPFILE"] = "1"
    # a sanitizer build's runtime must come first; the shim precedes it
    env["ASAN_OPTIONS"] = ":".join(
        filter(None, [os.environ.get("ASAN_OPTIONS"),
                      "verify_asan_link_order=0"]))
    p = subprocess.Popen([MEMSZ, "record", "-o", out, "-p",
                          str(target), "--duration", "0"],
                         env=env, pass_fds=(ready_w, go_r),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    os.close(ready_w)
    os.close(go_r)
    try:
        # memsz holds the only write end: a byte, or EOF if it never
        # reached the create
        r, _, _ = select.select([ready_r], [], [], GUARD)
        got = os.read(ready_r, 1) if r else b""
        check(got == b"h", "%s: memsz held at its create (the shim "
              "fired)" % what)
        if got == b"h":
            # the swap: the checked directory moved away, nobody's link
            # to root's directory in its place
            os.rename(d, moved)
            os.symlink(victim, d)
            os.lchown(d, NOBODY, NOBODY)
        os.write(go_w, b"g")
    finally:
        os.close(go_w)
        os.close(ready_r)
        try:
            _, err = p.communicate(timeout=GUARD)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
    check(not os.listdir(victim),
          "%s: nothing written through the link swapped in (victim holds "
          "%s; exit %d, %r)" % (what, os.listdir(victim), p.returncode, err))
    kept = os.path.join(moved, "x.data")
    check(p.returncode == 0 and os.path.exists(kept) and
          subprocess.run([MEMSZ, "dump", "-i", kept],
                         stdout=subprocess.DEVNULL).returncode == 0,
          "%s: the recording is in the directory checked (exit %d, %r, "
          "it holds %s)" % (what, p.returncode, err,
                            os.listdir(moved) if os.path.isdir(moved)
                            else None))
    check(not [n for n in os.listdir(moved) if ".tmp." in n],
          "%s: no temporary file left" % what)


if os.geteuid() != 0:
    lib.skip("a link of another user (nobody) needs root to plant")
with tempfile.TemporaryDirectory(prefix="memsz-t2092-") as tmp:
    os.chmod(tmp, 0o755)
    shim = build_shim(tmp)
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        raced(tmp, shim, sleeper.pid, "unnamed", False)
        raced(tmp, shim, sleeper.pid, "named", True)
    finally:
        sleeper.kill()
        sleeper.wait()

sys.exit(lib.finish())
