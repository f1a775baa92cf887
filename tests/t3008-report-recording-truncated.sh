#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t3008-report-recording-truncated.sh — a recording truncated while
# `memsz report` or `memsz dump` reads it (a recording rotated or cut by
# hand while somebody looks at it) gives a note or one clear line, never a
# signal: the reader mapped the file, and a report touching a page past the
# new end died of SIGBUS (exit 135).
#
# No timing: a small LD_PRELOAD library truncates the recording inside the
# reader's fstat() of it, after the real fstat() has returned its old size,
# i.e. between the open and the first read of its records; the reader then
# finds the file shorter than it was told.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
need gcc gcc

cat >"$T/cut.c" <<'EOF'
/* fstat() of the file named by CUT_PATH truncates it to CUT_SIZE bytes,
 * once, after the real fstat() has filled *st with its old size. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cut_done;

static void cut_maybe(int fd)
{
	const char *want = getenv("CUT_PATH"), *size = getenv("CUT_SIZE");
	char self[64], path[4096];
	ssize_t n;

	if (cut_done || !want || !size)
		return;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, path, sizeof(path) - 1);
	if (n < 0)
		return;
	path[n] = 0;
	if (strcmp(path, want))
		return;
	cut_done = 1;
	if (truncate(want, atoll(size)) == 0)
		fprintf(stderr, "cut: truncated to %s bytes\n", size);
}

int fstat(int fd, struct stat *st)
{
	int (*real)(int, struct stat *) =
	    (int (*)(int, struct stat *))dlsym(RTLD_NEXT, "fstat");
	int ret = real(fd, st);

	if (ret == 0)
		cut_maybe(fd);
	return ret;
}

int fstat64(int fd, struct stat64 *st)
{
	int (*real)(int, struct stat64 *) =
	    (int (*)(int, struct stat64 *))dlsym(RTLD_NEXT, "fstat64");
	int ret = real(fd, st);

	if (ret == 0)
		cut_maybe(fd);
	return ret;
}
EOF
gcc -shared -fPIC -o "$T/cut.so" "$T/cut.c" -ldl ||
	fail_all "cannot build the LD_PRELOAD library"

# A recording of some MiB: page faults with their stacks, in PACKED
# records, and snapshots.
"$MEMSZ" record --faults -o "$T/whole.data" -- \
	python3 -c 'b = bytearray(b"x" * (32 << 20))' 2>"$T/rec.err" ||
	fail_all "record failed: $(cat "$T/rec.err")"
size=$(stat -c %s "$T/whole.data")
"$MEMSZ" report -i "$T/whole.data" >"$T/whole.out" 2>"$T/whole.err" ||
	fail_all "report of the whole recording failed"

# run AT CMD...: CMD (report or dump) over a copy of the recording that the
# library truncates to AT bytes once CMD has opened it; prints CMD's exit
# status (128 + N: killed by signal N).
run() {
	at=$1
	shift
	cp "$T/whole.data" "$T/rec.data"
	env LD_PRELOAD="$T/cut.so" CUT_PATH="$T/rec.data" CUT_SIZE="$at" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$MEMSZ" "$@" -i "$T/rec.data" >"$T/out" 2>"$T/err"
	echo $?
}

# at a page boundary past the header, in the middle, one record short
for at in 8192 $((size / 2)) $((size - 8)); do
	rc=$(run $at report)
	check "report, cut to $at of $size bytes: the library truncated it" \
		grep -q "cut: truncated" "$T/err"
	check "report, cut to $at of $size bytes: no signal, exit 0 ($rc)" \
		test "$rc" = 0
	check "report, cut to $at: a note says the recording shrank or was cut" \
		grep -q "rec.data.*\(shrank\|cut short\|ends inside\)" \
		"$T/out" "$T/err"

	rc=$(run $at dump)
	check "dump, cut to $at of $size bytes: no signal ($rc)" \
		test "$rc" -lt 128
	check "dump, cut to $at: one line says where it stopped" \
		grep -q "\(shrank\|cut short\|ends inside\)" "$T/out" "$T/err"
done
finish
