#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2090-record-nonroot.sh — the unprivileged path: as nobody, memsz records
# its own user's process without PSS and says so once; with perf refused
# (MEMSZ_NO_PERF=1, the same path as perf_event_paranoid forbidding it) it
# polls /proc/PID/maps and writes MMAP2 and MUNMAP records; another user's
# process is a one-line error.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
[ "$(id -u)" = 0 ] || skip_all "dropping to nobody needs root"
need setpriv util-linux
need gcc gcc
chmod 777 "$T"
# setpriv execs its command: $! of "$NOBODY cmd &" is cmd itself
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
nobody() { $NOBODY "$@"; }
# The built memsz must be reachable by nobody.
nobody test -x "$MEMSZ" || fail_all "$MEMSZ not executable by nobody"

build_workload rec_sleep rec_sleep.c -lpthread
head -c 65536 /dev/zero > "$T/data.bin"
chmod 644 "$T/data.bin"
cd "$T" || fail_all "cannot cd to $T"
$NOBODY "$T/rec_sleep" "$T/data.bin" "$T/ready" 300 & P=$!
track $P
wait_file "$T/ready"
P=$(cat "$T/ready")
track $P

# Stopped by SIGINT once three snapshots are written.
$NOBODY "$MEMSZ" record -o "$T/n.data" --interval 200 -p $P 2>"$T/err" &
M=$!
track $M
wait_records "$T/n.data" ' SNAP_END ' 3
stop_and_wait INT $M
# the file written, memsz dies by the signal (t2490)
check "as nobody: record dies by SIGINT ($rc)" test $rc -eq 130
c=$(grep -c 'no CAP_SYS_ADMIN' "$T/err")
check "as nobody: 'no PSS' said exactly once ($c)" test "$c" -eq 1
nobody "$MEMSZ" dump -i "$T/n.data" > "$T/n.txt"
check "as nobody: the file dumps cleanly" test $? -eq 0
check "as nobody: snapshots recorded" test "$(grep -c SNAP_BEGIN "$T/n.txt")" -ge 3
if grep -q 'polling /proc/PID/maps' "$T/err"; then
	echo "# perf_event_open refused here: the real path is the fallback"
fi

# Polling /proc/PID/maps, stopped by SIGINT once it has seen the workload
# map its file twice and unmap it.
new_maps='MMAP2.*\(0x2000\).*data\.bin'
unmaps='MUNMAP.*\(0x2000\).*data\.bin'
MEMSZ_NO_PERF=1 $NOBODY "$MEMSZ" record -o "$T/f.data" -p $P 2>"$T/err" &
M=$!
track $M
wait_records "$T/f.data" "$new_maps" 2
wait_records "$T/f.data" "$unmaps" 1
stop_and_wait INT $M
check "fallback: record dies by SIGINT ($rc)" test $rc -eq 130
c=$(grep -c 'polling /proc/PID/maps' "$T/err")
check "fallback: said once on stderr ($c)" test "$c" -eq 1
nobody "$MEMSZ" dump -i "$T/f.data" > "$T/f.txt"
check "fallback: the file dumps cleanly" test $? -eq 0
check "fallback: a note in the file" grep -q 'polling' "$T/f.txt"
check "fallback: new mapping seen by polling" \
	test "$(grep -E "$new_maps" "$T/f.txt" | wc -l)" -ge 2
check "fallback: unmapping seen by polling" grep -qE "$unmaps" "$T/f.txt"

# Traced without CAP_SYS_PTRACE, a set-user-ID program runs without its
# privileges (the kernel's rule): said once, noted. Ground truth: passwd
# -S as nobody alone reads /etc/shadow (set-user-ID root); under memsz it
# cannot ("never -1 -1 ...").
pw=$(command -v passwd)
if [ -n "$pw" ] && [ -u "$pw" ]; then
	alone=$(nobody passwd -S nobody 2>&1)
	under=$(nobody "$MEMSZ" record -o "$T/s.data" -- passwd -S nobody \
		2>"$T/err")
	c=$(grep -c '^memsz: warning: tracing without CAP_SYS_PTRACE: a set-user-ID' "$T/err")
	check "set-user-ID passwd: said once ($c): $(cat "$T/err")" test "$c" -eq 1
	nobody "$MEMSZ" dump -i "$T/s.data" > "$T/s.txt"
	check "set-user-ID passwd: noted in the file" \
		grep -q 'NOTE .*tracing without CAP_SYS_PTRACE' "$T/s.txt"
	check "... as it is: '$under' under memsz, '$alone' alone" \
		test "$under" != "$alone"
	"$MEMSZ" record -o "$T/r.data" -- true 2>"$T/err"
	check "as root: nothing said of it" \
		test "$(grep -c CAP_SYS_PTRACE "$T/err")" -eq 0
else
	skip "no set-user-ID passwd"
fi

nobody "$MEMSZ" record -o "$T/x.data" -p 1 2>"$T/err"
rc=$?
check "another user's process: non-zero exit ($rc)" test $rc -ne 0
check "another user's process: one line on stderr" \
	test "$(wc -l < "$T/err")" -eq 1
check "another user's process: says so" grep -q '^memsz: cannot read the memory of pid 1' "$T/err"
finish
