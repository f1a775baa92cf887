#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2095-record-errors.sh — bad arguments, missing processes, a command that
# cannot run and a full disk: one line on stderr, non-zero exit, and no
# file left behind.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u

# fails NAME PATTERN ARGS...: `memsz record ARGS` (run in $T) exits
# non-zero with exactly one line on stderr matching PATTERN.
fails() {
	d=$1 pat=$2
	shift 2
	expect_error "$d" "$pat" lib_in_T "$MEMSZ" record "$@"
}
lib_in_T() { (cd "$T" && "$@"); }

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
# found but not executable (EACCES: a file without x, a directory): 126,
# as env, timeout and the shell say; memsz said 127, "not found"
for f in /etc/passwd /tmp; do
	env "$f" 2>/dev/null
	want=$?
	fails "command $f" "^memsz: cannot run '$f': Permission denied" \
		-- "$f"
	check "... exits $rc like env ($want: found, cannot be run)" \
		test $rc -eq $want -a $want -eq 126
done
# Under a tracer that follows children (strace -f), the command is that
# tracer's from its fork: refused, naming it (strace's own pid, $!), where
# "Operation not permitted" said nothing of why.
if command -v strace >/dev/null; then
	# (a sanitizer build's LeakSanitizer cannot run under ptrace)
	(cd "$T" &&
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" &&
		exec strace -f -o /dev/null "$MEMSZ" record -- true) \
		> /dev/null 2> "$T/err" &
	S=$!
	wait $S
	rc=$?
	check "under strace -f: exit 1 ($rc)" test $rc -eq 1
	check "... one line naming strace's pid $S: $(cat "$T/err")" \
		test "$(grep -c "^memsz: cannot trace 'true': it is traced already, by pid $S (strace)" "$T/err")" -eq 1 -a "$(wc -l < "$T/err")" -eq 1
else
	skip "strace is not installed"
fi
fails "unwritable output" "^memsz: cannot open '/nonexistent/x.data'" \
	-o /nonexistent/x.data -- true
# a sample ring that holds under two samples (dwarf's 8 KiB stack copy):
# refused, where every sample was lost and each loss stopped the command
# (-m 2), or a leash of one sample made each fault retry (-m 4)
for m in 2 4; do
	fails "sample ring of -m $m" "^memsz: cannot open perf events: a sample ring too small for two samples" \
		-m $m --faults -o "$T/ring.data" -- true
done
# a kernel's file: refused as such, not as the temporary file's ENOENT
fails "output in /proc" "^memsz: cannot open '/proc/sys/vm/drop_caches': on a file system of the kernel's" \
	-o /proc/sys/vm/drop_caches -p $$ --duration 0
fails "output in /sys" "^memsz: cannot open '/sys/kernel/x.data': on a file system of the kernel's" \
	-o /sys/kernel/x.data -p $$ --duration 0

# Options after the command are the command's.
(cd "$T" && "$MEMSZ" record -- sh -c 'exit 0' -o foo) 2>/dev/null
check "options after CMD belong to CMD" test $? -eq 0 -a -s "$T/memsz.data"

# A full disk: a 256 KiB tmpfs fills up while recording a command that
# runs until it reads end-of-file on a FIFO this script holds open. The
# recording is not committed: one line says so and nothing is left behind.
[ "$(id -u)" = 0 ] || skip_all "full disk: mounting a small tmpfs needs root"
mkdir "$T/mnt" && mount -t tmpfs -o size=256k tmpfs "$T/mnt" ||
	skip_all "full disk: cannot mount a small tmpfs"
MNT=$T/mnt
track_mount "$MNT"
mkfifo "$T/hold"
exec 3<>"$T/hold"
"$MEMSZ" record -o "$MNT/full.data" --interval 5 -- cat <"$T/hold" \
	>/dev/null 2>"$T/err" 3>&- &
M=$!
track $M
if wait_gone $M; then
	wait $M
	rc=$?
else
	rc=999
	kill -9 $M
fi
exec 3>&-
check "full disk: memsz stops by itself with a non-zero exit ($rc)" \
	test $rc -ne 0 -a $rc -ne 999
check "full disk: one error line" \
	grep -q "^memsz: cannot write '$MNT/full.data': No space left" "$T/err"
# (what was recorded before the disk filled may be kept as .partial)
check "full disk: no file and no temporary file left" \
	test -z "$(ls "$MNT" | grep -v '^full\.data\.partial$')"
finish
