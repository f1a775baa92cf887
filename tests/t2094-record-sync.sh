#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2094-record-sync.sh — when a recording is synced to disk, as README
# and memsz-record(1) say, seen by strace (-y names each descriptor's
# file): a recording written to a new name is not synced (left to
# writeback); one that replaces a recording is synced, and so is the
# recording it moves to FILE.old, both before the renames. A one-shot's
# file is unnamed (O_TMPFILE) until it is linked in as FILE.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
need strace strace

sleep 600 &
tgt=$!
track $tgt

# traced OUT: one one-shot of the target into OUT under strace; its
# fsync and rename calls, one per line, in $T/trace
traced() {
	strace -f -y -qq -e trace=fsync,rename,linkat -o "$T/trace" \
		"$MEMSZ" record --duration 0 -o "$1" -p $tgt 2>"$T/err"
}

out=$T/sync.data
traced "$out"
check "first recording written" test -s "$out"
check "a new name: no fsync" \
	test "$(grep -c '^[0-9]* *fsync(' "$T/trace")" -eq 0
check "a new name: the unnamed file linked in" \
	grep -q "linkat(.*\"$out\"" "$T/trace"

traced "$out"
check "second recording written, the first kept as .old" \
	test -s "$out" -a -s "$out.old"
# the fsyncs, in order: the new recording's temporary file, then the old
check "replacing: the new recording synced" \
	grep -q "fsync([0-9]*<$T/#[0-9]*>(deleted))" "$T/trace"
check "replacing: the recording moved to .old synced" \
	grep -q "fsync([0-9]*<$out>" "$T/trace"
last_sync=$(grep -n 'fsync(' "$T/trace" | tail -1 | cut -d: -f1)
first_rename=$(grep -n 'rename(' "$T/trace" | head -1 | cut -d: -f1)
check "both synced before the first rename" \
	test "${last_sync:-9999}" -lt "${first_rename:-0}"
check "the old one renamed to .old" \
	grep -q "rename(\"$out\", \"$out.old\")" "$T/trace"
finish
