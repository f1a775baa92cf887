#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2093-record-output-fdlink.sh — `record -o` at a symlink that leads to a
# file descriptor's link of /proc (as /dev/stdout does: -o /dev/stdout >
# out). Such a link is never replaced by the recording: the writer replaces
# a symlink at FILE rather than follow it, and root's `-o /dev/stdout >
# out` put the recording in /dev in place of the machine's /dev/stdout.
# Without --output-special it is refused, the error naming the option;
# with it the descriptor's file is written into: a regular file the shell
# made (> out) holds the recording, a pipe carries it, and a file with data
# in it (>> out) is not written over.
#
# The links are private copies made here ($T/out -> /proc/self/fd/1, and a
# chain to it through /dev/fd's twin): the real /dev is never touched.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

[ -L /proc/self/fd/1 ] || skip_all "no /proc/self/fd"
ln -s /proc/self/fd/1 "$T/out"
ln -s /proc/self/fd "$T/fd" # as /dev/fd is
ln -s fd/1 "$T/chain"       # relative, through another link

# rec LINK ARGS...: a short recording to LINK, stdout where the caller
# redirects it; exit status in rc, stderr in $T/err.
rec() {
	rec_out=$1
	shift
	"$MEMSZ" record -o "$rec_out" "$@" -- true 2>"$T/err"
	rc=$?
}

# link_kept LINK TARGET: LINK is still a symlink to TARGET.
link_kept() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }

# is_recording FILE: FILE starts with the magic and reads whole.
is_recording() {
	[ "$(head -c 8 "$1")" = MEMSZDAT ] &&
		"$MEMSZ" dump -i "$1" 2>/dev/null | grep -q SNAP_END
}

# no_temp: nothing left beside the links (no FILE.tmp.*, FILE.old).
no_temp() { [ "$(ls "$T" | grep -c -e '\.tmp\.' -e '\.old$')" = 0 ]; }

# 1. Without --output-special, stdout a regular file: refused, link kept.
for l in out chain fd/1; do
	rec "$T/$l" >"$T/f.$$"
	check "$l, stdout a file: refused (exit $rc)" test $rc -eq 1
	check "$l: the error names --output-special" \
		grep -q "link to a file descriptor.*--output-special" "$T/err"
	check "$l: the file is not written" test ! -s "$T/f.$$"
	rm -f "$T/f.$$"
done
check "the links are kept" sh -c "$(cat <<EOF
[ -L '$T/out' ] && [ "\$(readlink '$T/out')" = /proc/self/fd/1 ] &&
[ -L '$T/chain' ] && [ "\$(readlink '$T/chain')" = fd/1 ]
EOF
)"
check "nothing made beside them" no_temp

# 2. Without it, stdout a pipe: refused too (it was: a pipe needs it).
{
	rec "$T/out"
	echo $rc >"$T/rc"
} | cat >"$T/piped0"
check "stdout a pipe: refused (exit $(cat "$T/rc"))" test "$(cat "$T/rc")" = 1
check "stdout a pipe: nothing came through" test ! -s "$T/piped0"

# 3. With --output-special, stdout a regular file the shell made: the
# recording is written into it, the link kept.
rec "$T/out" --output-special >"$T/file"
check "--output-special, stdout a file: recorded (exit $rc)" test $rc -eq 0
check "--output-special, stdout a file: the file holds the recording" \
	is_recording "$T/file"
check "--output-special: the link is kept" link_kept "$T/out" /proc/self/fd/1
rec "$T/chain" --output-special >"$T/file2"
check "--output-special through a chain of links: recorded" \
	is_recording "$T/file2"
check "--output-special: the chain is kept" link_kept "$T/chain" fd/1
check "--output-special: nothing made beside the links" no_temp

# 4. With it, stdout a pipe: the recording comes through.
rec "$T/out" --output-special | cat >"$T/piped"
check "--output-special, stdout a pipe: the recording comes through" \
	is_recording "$T/piped"

# 5. With it, stdout a file with data (>> FILE): refused, the data kept.
echo data >"$T/kept"
rec "$T/out" --output-special >>"$T/kept"
check "--output-special, >> a file with data: refused (exit $rc)" \
	test $rc -eq 1
check "--output-special, >> a file with data: the data kept" \
	test "$(cat "$T/kept")" = data
check "the link is kept after all" link_kept "$T/out" /proc/self/fd/1
finish
