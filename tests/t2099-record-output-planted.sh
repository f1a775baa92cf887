#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2099-record-output-planted.sh — `record -o` through a path another user
# planted in a sticky world-writable directory (as /tmp is): a FIFO there
# neither receives root's recording nor blocks memsz; a symlink nobody owns
# to a block device is not followed, even with --output-special; a regular
# file's symlink is replaced, not followed. A pipe the user names with
# --output-special is written, and one with no reader fails at once.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to act as nobody"
need setpriv util-linux
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
D=$T/sticky
mkdir "$D" && chmod 1777 "$D"
chmod 755 "$T"

# rec OUT ARGS...: a short recording to OUT under a hang guard (SIGKILL:
# a blocked memsz ignored SIGTERM); exit status in rc (124: it hung).
rec() {
	rec_out=$1
	shift
	timeout -s KILL 30 "$MEMSZ" record -o "$rec_out" "$@" -- true \
		>"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 137 ] && rc=124
}

# 1. A FIFO nobody planted, with a nobody reader: refused, nothing read.
$NOBODY mkfifo "$D/x.data"
$NOBODY sh -c "exec cat '$D/x.data' >'$D/stolen'" &
R=$!
track $R
rec "$D/x.data"
check "planted FIFO: refused (exit $rc)" test $rc -eq 1
check "planted FIFO: the error says why" \
	grep -q "x.data.*pipe, device or socket.*--output-special" "$T/err"
kill $R 2>/dev/null
wait $R 2>/dev/null
check "planted FIFO: the reader got nothing" test ! -s "$D/stolen"

# 2. The same FIFO with no reader: refused at once, no hang.
rec "$D/x.data"
check "planted FIFO, no reader: refused, not blocked (exit $rc)" \
	test $rc -eq 1
# even when the user asks for a pipe, the open does not wait for a reader
rec "$D/x.data" --output-special
check "FIFO with --output-special, no reader: fails, not blocked ($rc)" \
	test $rc -eq 1
check "FIFO with --output-special, no reader: says so" \
	grep -q "No such device or address" "$T/err"

# 3. A nobody symlink to a block device: never written.
if truncate -s 1M "$T/disk" && L=$(losetup -f --show "$T/disk"); then
	$NOBODY ln -s "$L" "$D/y.data"
	rec "$D/y.data"
	check "planted device symlink: refused (exit $rc)" test $rc -eq 1
	rec "$D/y.data" --output-special
	check "planted device symlink with --output-special: refused ($rc)" \
		test $rc -eq 1
	check "planted device symlink: says it is not followed" \
		grep -q "symlink another user owns" "$T/err"
	check "the device was not written" \
		sh -c "! head -c 4096 '$L' | grep -q MEMSZ"
	losetup -d "$L"
else
	skip "no loop device"
fi

# 4. A nobody symlink to a regular file root owns: the recording replaces
# the link; the file it pointed to is untouched.
echo keep >"$T/victim"
$NOBODY ln -s "$T/victim" "$D/z.data"
rec "$D/z.data"
check "symlink to a regular file: recorded (exit $rc)" test $rc -eq 0
check "the link was replaced by the recording" test ! -L "$D/z.data"
check "the file it named is untouched" test "$(cat "$T/victim")" = keep

# 5. A pipe root names, with --output-special: the recording goes there.
mkfifo "$T/p"
cat "$T/p" >"$T/piped" &
R=$!
track $R
# memsz opens the pipe without waiting for a reader: wait until cat is in
# its open(2) of the FIFO (a reader waiting there counts as one)
case $(uname -m) in
x86_64) OPENS="257 2" ;; # openat, open
i?86) OPENS="295 5" ;;
*) OPENS="56" ;; # the generic table (aarch64, riscv64, ...)
esac
in_open() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = cat ] &&
		read -r nr _ <"/proc/$1/syscall" 2>/dev/null &&
		case " $OPENS " in *" $nr "*) true ;; *) false ;; esac
}
wait_for "cat in open() of the FIFO" in_open $R ||
	fail_all "cat never opened '$T/p'"
rec "$T/p" --output-special
check "own pipe with --output-special: exit 0 ($rc)" test $rc -eq 0
[ $rc -eq 0 ] || kill $R # never opened: no end of file comes
wait $R
check "own pipe: the recording arrives whole" \
	sh -c "'$MEMSZ' dump -i '$T/piped' | grep -q SNAP_END"
finish
