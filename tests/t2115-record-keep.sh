#!/bin/sh
# t2115-record-keep.sh — a failed `memsz record` never touches the previous
# recording: a command that cannot run, a bad option, a missing pid, a
# directory the user may not write, a full disk and SIGKILL all leave FILE
# and FILE.old byte-identical; only a recording that completes rotates them.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root (tmpfs mount, nobody)" >&2; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "no setpriv" >&2; exit 77; }
command -v gcc >/dev/null 2>&1 || { echo "gcc not found" >&2; exit 77; }
chmod 755 "$T"
MNT= M=
trap '[ -n "$M" ] && kill -9 $M 2>/dev/null; [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; lib_cleanup' EXIT
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
}
nobody test -x "$MEMSZ" || { echo "$MEMSZ not executable by nobody" >&2; exit 77; }
gcc -O1 -o "$T/rec_sleep" "$W/rec_sleep.c" -lpthread || exit 1
head -c 65536 /dev/zero > "$T/data.bin"

cd "$T" || exit 1
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
wait_file "$T/ready"
check "workload started under memsz" test -s "$T/ready"
kill -9 $M
wait $M 2>/dev/null
M=
kill "$(cat "$T/ready")" 2>/dev/null
check "SIGKILL: previous files byte-identical" test "$(sum)" = "$before"
check "SIGKILL: the unfinished recording is a temporary file" \
	test -n "$(ls | grep '^memsz\.data\.tmp\.')"
rm -f memsz.data.tmp.*

# A full disk: a 256 KiB tmpfs holding a previous recording fills up.
if mkdir "$T/mnt" && mount -t tmpfs -o size=256k tmpfs "$T/mnt" 2>/dev/null
then
	MNT=$T/mnt
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
