#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2096-record-enospc.sh — `record --faults` into a 64 KiB tmpfs: the disk
# fills while samples are batched. The launched command (a shell wrapper
# that forks python3) and the process it forked are ended, not left
# running; one error line says so; the recording is not committed: no
# file and no temporary file are left on the full disk. A one-shot whose
# first batch of records cannot be written leaves nothing either.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to mount a small tmpfs"
mkdir "$T/mnt" && mount -t tmpfs -o size=64k tmpfs "$T/mnt" ||
	fail_all "cannot mount a 64 KiB tmpfs"
MNT=$T/mnt
track_mount "$MNT"

# The workload faults pages for at most 600 s (the disk fills in well
# under a second), in a child of the launched shell.
printf '#!/bin/sh\necho $$ >"%s/shpid"\npython3 "$@" &\necho $! >"%s/pypid"\nwait $!\n' \
	"$T" "$T" >"$T/python3"
chmod +x "$T/python3"
"$MEMSZ" record -o "$MNT/f.data" --faults -c 50 --stack-size 512 \
	--interval 50 -- "$T/python3" -c '
import time
end = time.monotonic() + 600
while time.monotonic() < end:
    b = bytearray(1 << 20)
'  >"$T/out" 2>"$T/err"
rc=$?
check "non-zero exit ($rc)" test $rc -ne 0
check "one error line saying the command was ended and where the partial recording is" \
	grep -q "^memsz: cannot write '$MNT/f.data': No space left on device; recording stopped and the command ended, '$MNT/f.data' not written, what was recorded is in '$MNT/f.data.partial'\$" "$T/err"
[ "$(grep -c '^memsz:' "$T/err")" -eq 1 ] && ok "only one error line" ||
	nok "only one error line: $(cat "$T/err")"

check "only the partial recording on the full disk (no f.data, no temporary file)" \
	test "$(ls "$MNT")" = f.data.partial
# The partial recording reads: its complete snapshots are reported, and
# the footer says it was cut short; its samples are all whole records.
"$MEMSZ" report -i "$MNT/f.data.partial" --by files -n 3 >"$T/rep" 2>&1
check "the partial recording is reported (exit $?)" grep -q TOTAL "$T/rep"
check "its footer says it was cut short" grep -q "cut short" "$T/rep"
"$MEMSZ" dump -i "$MNT/f.data.partial" >"$T/dump" 2>&1
check "it holds a complete snapshot" grep -q "SNAP_END" "$T/dump"
left=
for f in shpid pypid; do
	p=$(cat "$T/$f" 2>/dev/null)
	check "the $f process was started" test -n "$p"
	# memsz has sent the signal when it exits; the process may take a
	# moment to die on a loaded machine: wait for it (the workload runs
	# for 600 s, far past the guard, so one left running still fails)
	[ -n "$p" ] && ! wait_gone "$p" && left="$left $p"
done
check "the command and the process it forked are not left running ($left)" \
	test -z "$left"
for k in $left; do kill -9 "$k"; done

# A one-shot gathers its records and writes them in a few batches: into
# one page of tmpfs, the first batch after the header fails, so no
# snapshot reaches the file. One error line, and no .partial recording
# that would hold no snapshot (nor any file left on the full disk).
mkdir "$T/one" && mount -t tmpfs -o size=4k tmpfs "$T/one" ||
	fail_all "cannot mount a 4 KiB tmpfs"
track_mount "$T/one"
python3 -c 'import json, decimal, sqlite3, ssl, signal, sys
open(sys.argv[1], "w").write("ready")
signal.pause()' "$T/ready" &
P=$!
track $P
wait_file "$T/ready"
"$MEMSZ" record -p $P --duration 0 -o "$T/one/o.data" >"$T/out1" 2>"$T/err1"
rc=$?
check "one-shot on a full disk: non-zero exit ($rc)" test $rc -ne 0
check "one-shot: one error line, no partial recording named" \
	grep -q "^memsz: cannot write '$T/one/o.data': No space left on device; recording stopped, '$T/one/o.data' not written\$" "$T/err1"
check "one-shot: nothing left on the full disk ($(ls "$T/one"))" \
	test -z "$(ls "$T/one")"
kill $P
finish
