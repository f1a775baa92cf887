#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2097-record-attach-endings.sh — memsz never signals a process it did not
# launch: an attached target (-p, with and without --faults, which traces
# it) survives every way a recording can end — a full disk (ENOSPC), a
# write error (EIO, on a pty whose other side is closed), SIGINT, SIGTERM or SIGKILL of memsz, the target
# ending on its own — and is never left stopped. memsz runs in a process
# group of its own beside a sentinel process: a kill(0, ...) (the whole
# group of memsz's caller) would end the sentinel.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to mount a small tmpfs"
mkdir "$T/mnt" && mount -t tmpfs -o size=64k tmpfs "$T/mnt" ||
	fail_all "cannot mount a 64 KiB tmpfs"
track_mount "$T/mnt"

# The target: faults a MiB every few milliseconds until $T/$1.stop exists.
start_target() {
	rm -f "$T/ready"
	python3 -c '
import os, sys, time
open(sys.argv[1] + ".tmp", "w").write("%d" % os.getpid())
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while not os.path.exists(sys.argv[2]):
    b = bytearray(1 << 20)
    time.sleep(0.005)
' "$T/ready" "$T/$1.stop" &
	P=$!
	track $P
	wait_file "$T/ready"
}

# start_memsz NAME OUT ARGS...: memsz recording the target into OUT, in a
# new session with a sentinel in its process group; M is memsz's pid.
start_memsz() {
	sm_name=$1 sm_out=$2
	shift 2
	rm -f "$T/sentinel"
	setsid sh -c 'sleep 600 & echo $! >"$1.tmp"; mv "$1.tmp" "$1"
		shift; exec "$@"' sh "$T/sentinel" \
		"$MEMSZ" record -o "$sm_out" --interval 20 "$@" -p $P \
		>"$T/$sm_name.out" 2>"$T/$sm_name.err" &
	M=$!
	track $M
	wait_file "$T/sentinel"
	S=$(cat "$T/sentinel")
	track $S
}

alive() { kill -0 "$1" 2>/dev/null; }

# survived NAME: the target and the sentinel run, the target not stopped.
survived() {
	check "$1: the attached target still runs" alive $P
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$P/status 2>/dev/null)
	check "$1: the attached target is not left stopped (state $st)" \
		test "$st" != T -a "$st" != t
	check "$1: memsz's process group was not signalled" alive $S
	kill -9 $P $S 2>/dev/null
	wait $P 2>/dev/null
}

for faults in "" --faults; do
	f=${faults:+-f}
	# A full disk: one error, exit 1, the target runs on.
	start_target enospc$f
	start_memsz enospc "$T/mnt/f.data" $faults
	wait_gone $M || fail_all "memsz did not stop on a full disk"
	wait $M
	rc=$?
	check "ENOSPC$faults: exit 1 ($rc)" test $rc -eq 1
	check "ENOSPC$faults: says no space" \
		grep -q "No space left on device" "$T/enospc.err"
	check "ENOSPC$faults: does not claim a command was ended" \
		sh -c "! grep -q 'command ended' '$T/enospc.err'"
	survived "ENOSPC$faults"
	rm -f "$T"/mnt/*

	# A write error: the output is a pty (--output-special) whose master
	# side is closed once snapshots flow; every later write fails (EIO).
	start_target eio$f
	python3 - "$T" "$MEMSZ" $P $faults <<'PY'
import os, pty, select, subprocess, sys, tty
T, memsz, pid = sys.argv[1:4]
m, s = pty.openpty()
tty.setraw(s)
p = subprocess.Popen(
    ["setsid", "sh", "-c", 'sleep 600 & echo $! >"$1.tmp"; mv "$1.tmp" "$1"'
     '; shift; exec "$@"', "sh", T + "/sentinel", memsz, "record",
     "--output-special", "-o", os.ttyname(s), "--interval", "20"]
    + sys.argv[4:] + ["-p", pid],
    stdout=open(T + "/eio.out", "w"), stderr=open(T + "/eio.err", "w"))
got = 0
while got < 32768 and p.poll() is None:
    if select.select([m], [], [], 1)[0]:
        got += len(os.read(m, 65536))
os.close(m)
try:
    rc = p.wait(timeout=120)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "hung"
open(T + "/eio.rc", "w").write("%s\n" % rc)
PY
	rc=$(cat "$T/eio.rc")
	check "EIO$faults: exit 1 ($rc)" test "$rc" = 1
	check "EIO$faults: says why" grep -q "Input/output error" "$T/eio.err"
	S=$(cat "$T/sentinel")
	track $S
	survived "EIO$faults"

	for sig in INT TERM KILL; do
		start_target $sig$f
		start_memsz $sig "$T/$sig$f.data" $faults
		wait_records "$T/$sig$f.data" ' SNAP_END ' 2
		stop_and_wait $sig $M
		# INT, TERM: the file written, memsz dies by it (t2490)
		case $sig in
		INT) want=130 ;;
		TERM) want=143 ;;
		KILL) want=137 ;;
		esac
		check "SIG$sig$faults: exit $want ($rc)" test $rc -eq $want
		survived "SIG$sig$faults"
	done

	# The target ends on its own: memsz ends with it, exit 0.
	start_target exit$f
	start_memsz exit "$T/exit$f.data" $faults
	wait_records "$T/exit$f.data" ' SNAP_END ' 2
	touch "$T/exit$f.stop"
	wait_gone $M || fail_all "memsz did not end with its target"
	wait $M
	rc=$?
	check "target exit$faults: memsz exits 0 ($rc: $(cat "$T/exit.err"))" \
		test $rc -eq 0
	check "target exit$faults: memsz's process group was not signalled" \
		alive $S
	kill -9 $S 2>/dev/null
done
finish
