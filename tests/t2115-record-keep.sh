#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2115-record-keep.sh — a failed `memsz record` never touches the previous
# recording: a command that cannot run, a bad option, a missing pid, a
# directory the user may not write, a full disk and SIGKILL all leave FILE
# and FILE.old byte-identical; only a recording that completes rotates them.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (tmpfs mount, nobody)"
need setpriv util-linux
need gcc gcc
chmod 755 "$T"
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
nobody test -x "$MEMSZ" || fail_all "$MEMSZ not executable by nobody"
build_workload rec_sleep rec_sleep.c -lpthread
head -c 65536 /dev/zero > "$T/data.bin"

cd "$T" || fail_all "cannot cd to $T"
"$MEMSZ" record -- true 2>/dev/null && "$MEMSZ" record -- true 2>/dev/null
check "two good recordings: memsz.data and memsz.data.old" \
	test -s memsz.data -a -s memsz.data.old
sum() { cat memsz.data memsz.data.old | md5sum; }
before=$(sum)
# same NAME ARGS...: record fails and both files are unchanged.
same() {
	d=$1
	shift
	"$@" > /dev/null 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(sum)" = "$before" ] &&
	   [ -z "$(ls | grep '\.tmp\.')" ]; then
		ok "$d: exit $rc, previous files byte-identical"
	else
		nok "$d: exit $rc, $(cat "$T/err"), $(ls)"
	fi
}
same "command that does not exist" "$MEMSZ" record -- /nonexistent/cmd
same "a second typo" "$MEMSZ" record -- /nonexistent/cmd2
same "bad option" "$MEMSZ" record --interval x -- true
same "missing pid" "$MEMSZ" record -p "$(cat /proc/sys/kernel/pid_max)"
same "not allowed to write the directory" \
	nobody "$MEMSZ" record -o "$T/memsz.data" -- true
check "... with one clear line" grep -q "^memsz: cannot open '$T/memsz.data'" \
	"$T/err"

# SIGKILL while recording: the previous files stay; what was being written
# is a temporary file beside them.
rm -f ready
"$MEMSZ" record -- "$T/rec_sleep" "$T/data.bin" "$T/ready" 2>/dev/null &
M=$!
track $M
check "workload started under memsz" \
	wait_for "the workload's ready file" test -s "$T/ready"
track "$(cat "$T/ready" 2>/dev/null)"
kill -9 $M
wait $M 2>/dev/null
kill "$(cat "$T/ready")" 2>/dev/null
check "SIGKILL: previous files byte-identical" test "$(sum)" = "$before"
check "SIGKILL: the unfinished recording is a temporary file" \
	test -n "$(ls | grep '^memsz\.data\.tmp\.')"
rm -f memsz.data.tmp.*

# A full disk: a 256 KiB tmpfs holding a previous recording fills up.
if mkdir "$T/mnt" && mount -t tmpfs -o size=256k tmpfs "$T/mnt" 2>/dev/null
then
	MNT=$T/mnt
	track_mount "$MNT"
	"$MEMSZ" record -o "$MNT/f.data" -- true 2>/dev/null
	old=$(md5sum < "$MNT/f.data")
	"$MEMSZ" record -o "$MNT/f.data" --interval 5 -- sleep 5 2>"$T/err"
	rc=$?
	check "full disk: non-zero exit ($rc)" test $rc -ne 0
	check "full disk: one line says so" \
		grep -q "^memsz: cannot write '$MNT/f.data': No space left.*left as it was" "$T/err"
	check "full disk: previous file byte-identical" \
		test "$(md5sum < "$MNT/f.data")" = "$old"
	# what was recorded before the disk filled may be kept as
	# f.data.partial; never a .old or a temporary file
	check "full disk: no .old made, no temporary file left" \
		test "$(ls "$MNT" | grep -v '^f\.data\.partial$')" = f.data
else
	nok "cannot mount a small tmpfs"
fi

# A good recording rotates: the previous memsz.data becomes .old.
cur=$(md5sum < memsz.data)
"$MEMSZ" record -- true 2>/dev/null
check "success: previous memsz.data is now memsz.data.old" \
	test "$(md5sum < memsz.data.old)" = "$cur"
finish
