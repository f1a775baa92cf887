#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`memsz size` of a static archive that changes while memsz reads it (as
`ar` rewriting it in place would): the rows come from one copy of the
file, and the note an ELF file gets ("changed (truncated or rewritten)
while it was read") says that copy may be of no one state of the file.
memsz said nothing for an archive.

The change is made at one known point: a library preloaded into memsz
(built here with gcc) moves the archive's mtime right after the pread
that copies it, through the descriptor memsz read it from. Ground truth:
os.stat() sees the mtime the library set (the file changed while memsz
had it open); the same archive unchanged gets no such note. ASan's
interceptors stay in place behind the library
(verify_asan_link_order=0 lets it come first).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
MTIME = 12345
SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
static int done;

/* after the first read of SHIM_PATH of at least 4 KiB (the copy, not the
 * magic check), its mtime moved to SHIM_MTIME */
static ssize_t hook(pread_fn real, int fd, void *buf, size_t n, off_t off)
{
	ssize_t got = real(fd, buf, n, off);
	const char *want = getenv("SHIM_PATH");
	char link[64], path[4096];
	ssize_t l;

	if (done || n < 4096 || !want)
		return got;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	l = readlink(link, path, sizeof(path) - 1);
	if (l <= 0)
		return got;
	path[l] = 0;
	if (strcmp(path, want))
		return got;
	done = 1;
	struct timespec ts[2] = {{0, UTIME_OMIT},
				 {atol(getenv("SHIM_MTIME")), 0}};
	futimens(fd, ts);
	return got;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static pread_fn real;

	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pread");
	return hook(real, fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	static pread_fn real;

	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pread64");
	return hook(real, fd, buf, n, off);
}
"""
SOURCE = "".join(f"int f{i}(int x) {{ return {i} * x; }}\n" for i in range(64))


def main():
    for tool in ("gcc", "ar"):
        if not shutil.which(tool):
            lib.skip(f"{tool} is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = os.path.realpath(tmp)
        open(os.path.join(tmp, "shim.c"), "w").write(SHIM)
        open(os.path.join(tmp, "a.c"), "w").write(SOURCE)
        shim = os.path.join(tmp, "shim.so")
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", shim, "shim.c",
                        "-ldl"], cwd=tmp, check=True)
        subprocess.run(["gcc", "-g", "-c", "-o", "a.o", "a.c"], cwd=tmp,
                       check=True)
        arch = os.path.join(tmp, "lib.a")
        subprocess.run(["ar", "rcs", arch, "a.o"], cwd=tmp, check=True)
        check(os.path.getsize(arch) >= 4096,
              f"the archive is at least 4 KiB ({os.path.getsize(arch)})")
        env = dict(os.environ, SHIM_PATH=arch, SHIM_MTIME=str(MTIME))
        for key in ("armembers", "armembers,symbols"):
            plain = subprocess.run([MEMSZ, "size", "--by", key, arch],
                                   capture_output=True, text=True, env=env)
            check(plain.returncode == 0 and
                  "while it was read" not in plain.stdout + plain.stderr,
                  f"--by {key}, unchanged: no note ({plain.returncode})")
            os.utime(arch, (1000, 1000))
            env["LD_PRELOAD"] = shim
            env["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") +
                                   ":verify_asan_link_order=0")
            r = subprocess.run([MEMSZ, "size", "--by", key, arch],
                               capture_output=True, text=True, env=env)
            del env["LD_PRELOAD"]
            check(int(os.stat(arch).st_mtime) == MTIME,
                  f"--by {key}: the archive changed while memsz read it")
            said = r.stdout + r.stderr
            check(r.returncode == 0 and
                  f"{arch}: changed (truncated or rewritten) while it was "
                  "read" in said,
                  f"--by {key}: the change is noted ({r.returncode}: "
                  f"{said.strip()[-300:]})")
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
