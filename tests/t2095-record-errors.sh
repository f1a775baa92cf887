#!/bin/sh
# t2095-record-errors.sh — bad arguments, missing processes, a command that
# cannot run and a full disk: one line on stderr, non-zero exit, and a file
# that stays valid.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/memsz-t2095.XXXXXX") || exit 1
MNT=
trap '[ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"' EXIT
. "$top_srcdir/tests/lib.sh"

# fails NAME PATTERN ARGS...: non-zero exit, exactly one line matching.
fails() {
	d=$1 pat=$2
	shift 2
	(cd "$T" && "$MEMSZ" record "$@") > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
	   grep -q "$pat" "$T/err"; then
		ok "$d"
	else
		nok "$d (exit $rc: $(cat "$T/err"))"
	fi
}

# A pid that does not exist: the highest pid + 1 is free for a moment;
# pid_max itself is never handed out while we look.
max=$(cat /proc/sys/kernel/pid_max)
fails "missing pid" "^memsz: no process with pid $max\$" -p "$max"
fails "missing pid in a list" "^memsz: no process with pid $max\$" \
	-p "$$,$max"
fails "no target" "^memsz: nothing to record"
fails "both -p and a command" "^memsz: give one of -p PID, -a, -G CGROUP or a command" \
	-p $$ -- true
fails "-a with --freeze" "^memsz: --freeze cannot be used with -a" -a --freeze
fails "-G with --freeze" "^memsz: --freeze cannot be used with -G" \
	-G / --freeze
fails "pid list that is not numbers" "^memsz: invalid pid list 'abc'" -p abc
fails "zero interval" "^memsz: invalid --interval '0'" --interval 0 -p $$
fails "bad duration" "^memsz: invalid --duration 'x'" --duration x -p $$
check "no memsz.data left by failed attaches" test ! -e "$T/memsz.data"
fails "command that does not exist" \
	"^memsz: cannot run 'memsz-no-such-cmd': No such file" \
	-- memsz-no-such-cmd
check "... exits 127 like a shell" test $rc -eq 127
fails "unwritable output" "^memsz: cannot open '/nonexistent/x.data'" \
	-o /nonexistent/x.data -- true

# Options after the command are the command's.
(cd "$T" && "$MEMSZ" record -- sh -c 'exit 0' -o foo) 2>/dev/null
check "options after CMD belong to CMD" test $? -eq 0 -a -s "$T/memsz.data"

# A full disk: a 256 KiB tmpfs fills up while recording.
if [ "$(id -u)" = 0 ] && mkdir "$T/mnt" &&
   mount -t tmpfs -o size=256k tmpfs "$T/mnt" 2>/dev/null; then
	MNT=$T/mnt
	"$MEMSZ" record -o "$MNT/full.data" --interval 5 -- sleep 5 2>"$T/err"
	rc=$?
	check "full disk: non-zero exit ($rc)" test $rc -ne 0
	check "full disk: one error line" \
		grep -q "^memsz: cannot write '$MNT/full.data': No space left" "$T/err"
	"$MEMSZ" dump -i "$MNT/full.data" > /dev/null 2>"$T/derr"
	check "full disk: the file reads up to its last complete record" \
		test $? -eq 0 -o "$(grep -c . "$T/derr")" -eq 1
else
	echo "# cannot mount a small tmpfs: full-disk case skipped"
fi
exit $fail
