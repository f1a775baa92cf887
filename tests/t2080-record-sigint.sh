#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2080-record-sigint.sh — SIGINT/SIGTERM to memsz leave a valid file with a
# final snapshot, in attach and launch mode; --freeze leaves targets running.
# Each signal is sent once the file shows memsz is recording (its start
# snapshot, or a snapshot of each interval), never after a fixed delay.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
snaps() { grep -c 'SNAP_BEGIN' "$1"; }

need gcc gcc
build_workload rec_sleep rec_sleep.c -lpthread
head -c 65536 /dev/zero > "$T/data.bin"

# Attach, then SIGINT once the start snapshot is written: start and final
# snapshot, target untouched.
"$T/rec_sleep" "$T/data.bin" "$T/ready" & P=$!
track $P
wait_file "$T/ready"
"$MEMSZ" record -o "$T/a.data" -p $P 2>"$T/err" & M=$!
track $M
wait_records "$T/a.data" ' SNAP_END ' 1
stop_and_wait INT $M
# written, memsz dies by the signal, as perf record does (t2490)
check "SIGINT: memsz dies by SIGINT ($rc)" test $rc -eq 130
"$MEMSZ" dump -i "$T/a.data" > "$T/a.txt"
check "SIGINT: the file dumps cleanly" test $? -eq 0
check "SIGINT: start and final snapshots ($(snaps "$T/a.txt") == 2)" \
	test "$(snaps "$T/a.txt")" -eq 2
check "SIGINT: the target runs on" kill -0 $P

# --freeze with SIGTERM once two snapshots are written: the target is
# stopped only during snapshots.
"$MEMSZ" record -o "$T/z.data" --freeze --interval 100 -p $P 2>"$T/err" &
M=$!
track $M
wait_records "$T/z.data" ' SNAP_END ' 2
stop_and_wait TERM $M
check "SIGTERM with --freeze: memsz dies by SIGTERM ($rc)" test $rc -eq 143
"$MEMSZ" dump -i "$T/z.data" > "$T/z.txt"
check "SIGTERM: the file dumps cleanly" test $? -eq 0
check "--freeze: several snapshots ($(snaps "$T/z.txt") >= 3)" \
	test "$(snaps "$T/z.txt")" -ge 3
st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$P/status)
check "--freeze: target left running (state $st)" test "$st" != T
kill $P; wait $P 2>/dev/null

# Launch, then SIGINT to memsz alone once the command is set up: the
# command is ended and its exit snapshot written.
rm -f "$T/ready"
"$MEMSZ" record -o "$T/l.data" -- "$T/rec_sleep" "$T/data.bin" "$T/ready" \
	2>"$T/err" & M=$!
track $M
wait_file "$T/ready"
C=$(cat "$T/ready")
track $C
wait_records "$T/l.data" ' SNAP_END ' 1
stop_and_wait INT $M
# memsz ended the command with SIGTERM; it dies by its own SIGINT
check "launch + SIGINT: memsz dies by the SIGINT it got ($rc)" \
	test $rc -eq 130
check "launch + SIGINT: the command is gone" test ! -d /proc/$C/task
"$MEMSZ" dump -i "$T/l.data" > "$T/l.txt"
check "launch + SIGINT: the file dumps cleanly" test $? -eq 0
check "launch + SIGINT: start, final and exit snapshots" \
	test "$(snaps "$T/l.txt")" -ge 3
finish
