#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2120-record-follow.sh — `record -p` follows the processes its targets
# fork after attach (a server forking a child per request): their events,
# snapshots at intervals, at their exit and at the end, under their own pid
# and name; --no-inherit does not. Bad targets (a kernel thread, a zombie)
# are one-line errors; --duration 0 is one snapshot. A child that execs a
# set-user-ID program is recorded or named in a note, never dropped
# silently. --freeze and fault sampling hold the followed processes on the
# same tracer.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to drop to nobody"
need setpriv util-linux
# as nobody: the system python, not a per-user shim
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (python3)"
chmod 777 "$T"
# Not a function: "$NOBODY cmd &" must leave the command's pid in $!.
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
# snapshot_in DATA [PID]: the unfinished recording DATA holds a complete
# snapshot (of PID); for wait_for.
snapshot_in() { dump_has "$1" "SNAP_END${2:+ pid $2 }" 1; }
$NOBODY test -x "$MEMSZ" || fail_all "$MEMSZ not executable by nobody"

# start_server DIR: the spawner, as nobody, in DIR.
start_server() {
	mkdir -p "$1" && chmod 777 "$1"
	$NOBODY "$PY" "$W/spawner.py" "$1" & S=$!
	track $S
	wait_file "$1/ready"
}
cmd() { echo "$2" > "$1/cmd"; }

# 1. Follow: one child lives on to the end, one exits while recorded, one
# execs a set-user-ID program.
D=$T/f
start_server "$D"
P=$(cat "$D/ready")
$NOBODY "$MEMSZ" record -o "$D/f.data" -p "$P" --interval 100 2>"$T/err" &
M=$!
track $M
check "memsz attached" wait_for "a snapshot in f.data" snapshot_in "$D/f.data"
cmd "$D" "spawn a 8"
wait_file "$D/a"
cmd "$D" "spawn b 4"
wait_file "$D/b"
cmd "$D" "release b"
wait_file "$D/b.gone"
cmd "$D" "exec c /bin/mount"
wait_file "$D/c.gone"
A=$(cat "$D/a") B=$(cat "$D/b") C=$(cat "$D/c.gone")
kill -INT $M
wait $M
# written, memsz dies by the SIGINT (t2490)
check "record dies by SIGINT" test $? -eq 130
M=
"$MEMSZ" dump -i "$D/f.data" > "$T/f.txt"
check "the file dumps cleanly" test $? -eq 0
for p in $A $B; do
	check "child $p: FORK record" grep -q "FORK $p/$p: parent $P/" "$T/f.txt"
	check "child $p: COMM record" grep -q "COMM $p/$p: python3" "$T/f.txt"
done
c=$(grep -c "SNAP_BEGIN pid $A " "$T/f.txt")
check "child $A: snapshots at intervals and at the end ($c >= 2)" \
	test "$c" -ge 2
check "exited child $B: a snapshot at its exit" \
	grep -q "SNAP_BEGIN pid $B .*at-exit" "$T/f.txt"
check "server: CMDLINE with its arguments" \
	grep -q "CMDLINE $P/$P: .*python3 .*spawner\.py $D" "$T/f.txt"
"$MEMSZ" report -i "$D/f.data" --by pids --format tsv > "$T/f.tsv" \
	2>"$T/f.err"
for p in $P $A $B; do
	check "report --by pids lists $p" grep -q "^$p[ 	]" "$T/f.tsv"
done
# The child's peak holds its 8 MiB: RSS of the last snapshot >= 8 MiB.
rss=$(csv_col "$T/f.tsv" rss pids "^$A( |\$)")
check "child $A: its 8 MiB are resident in the report ($rss)" \
	test "${rss:-0}" -ge 8388608
if grep -q "SNAP_BEGIN pid $C " "$T/f.txt"; then
	ok "set-user-ID child $C recorded"
else
	check "set-user-ID child $C named in a note" \
		grep -q "NOTE pid $C " "$T/f.txt"
fi
check "the server was left running" kill -0 "$S"
check "... and so was its child" kill -0 "$A"
cmd "$D" quit
wait $S
S=

# 1b. One tracer: --freeze and fault sampling (backpressure holds) on the
# same ptrace tracer that follows the children: a child forked after
# attach is snapshot frozen and at its exit, its faults are sampled, and
# every process runs on afterwards.
D=$T/z
start_server "$D"
P=$(cat "$D/ready")
"$MEMSZ" record -o "$D/z.data" -p "$P" --freeze --faults --interval 100 \
	2>"$T/zerr" &
M=$!
track $M
check "--freeze --faults: memsz attached" \
	wait_for "a snapshot in z.data" snapshot_in "$D/z.data"
cmd "$D" "spawn a 4"
wait_file "$D/a"
A=$(cat "$D/a")
check "--freeze --faults: the child is snapshot while it lives" \
	wait_for "a snapshot of $A in z.data" snapshot_in "$D/z.data" "$A"
cmd "$D" "release a"
# frozen at every 100 ms tick, the child still gets to exit
check "--freeze --faults: the child exits while frozen at intervals" \
	wait_for "child $A to exit" test -s "$D/a.gone"
kill -INT $M
wait $M
check "--freeze --faults: record dies by SIGINT" test $? -eq 130
M=
"$MEMSZ" dump -i "$D/z.data" > "$T/z.txt"
check "--freeze --faults: the server's snapshots are frozen" \
	grep -q "SNAP_BEGIN pid $P .*frozen" "$T/z.txt"
check "--freeze --faults: the child's interval snapshot is frozen" \
	grep -q "SNAP_BEGIN pid $A .*frozen" "$T/z.txt"
check "--freeze --faults: the child's exit snapshot" \
	grep -q "SNAP_BEGIN pid $A .*at-exit" "$T/z.txt"
check "--freeze --faults: the child's faults are sampled" \
	grep -q "SAMPLE $A/$A" "$T/z.txt"
check "--freeze --faults: no ptrace warning" \
	test -z "$(grep 'cannot ptrace' "$T/zerr")"
st=$(awk '{ print $3 }' "/proc/$P/stat")
check "--freeze --faults: the server runs on (state $st)" \
	test "$st" != T -a "$st" != t
# --freeze at an interval shorter than a snapshot takes (512 MiB resident
# take several ms): the child is held at most half of the time. By
# memsz's own clock in the recording, each interval snapshot begins at
# least as long after the previous one ended as that one lasted (the
# final snapshot is not an interval one).
cmd "$D" "spawn h 512"
wait_file "$D/h"
H=$(cat "$D/h")
# recorded until it holds 4 frozen snapshots of the child, however
# long a loaded machine makes them take (no fixed duration)
"$MEMSZ" record -o "$D/h.data" -p "$H" --freeze --interval 1 \
	2>"$T/herr" &
M=$!
track $M
check "--freeze --interval 1: 4 frozen snapshots are taken" \
	wait_for "4 frozen snapshots of $H" dump_has "$D/h.data" \
	"SNAP_BEGIN pid $H .*frozen" 4
kill -INT $M
wait $M
check "--freeze --interval 1: record dies by SIGINT" test $? -eq 130
M=
"$MEMSZ" dump -i "$D/h.data" > "$T/h.txt"
n=$(grep -c "SNAP_BEGIN pid $H .*frozen" "$T/h.txt")
check "--freeze --interval 1: frozen snapshots ($n >= 4)" test "$n" -ge 4
bad=$(awk -v p="$H" '
	$4 == "SNAP_BEGIN" && $6 == p { nb++; b[nb] = $3 }
	$4 == "SNAP_END" && $6 == p { e[nb] = $3 }
	END {
		for (k = 2; k < nb; k++)
			if (b[k] - e[k - 1] < e[k - 1] - b[k - 1])
				bad++
		print bad + 0
	}' "$T/h.txt")
check "--freeze --interval 1: never held more than it ran ($bad late)" \
	test "$bad" -eq 0
cmd "$D" "release h"
check "--freeze --interval 1: the child runs on to its exit" \
	wait_for "child $H to exit" test -s "$D/h.gone"
cmd "$D" quit
wait $S
S=

# 2. --no-inherit: the children are not recorded.
D=$T/n
start_server "$D"
P=$(cat "$D/ready")
$NOBODY "$MEMSZ" record -o "$D/n.data" --no-inherit -p "$P" 2>"$T/err" &
M=$!
track $M
check "--no-inherit: memsz attached" \
	wait_for "a snapshot in n.data" snapshot_in "$D/n.data"
cmd "$D" "spawn a 1"
wait_file "$D/a"
A=$(cat "$D/a")
kill -INT $M
wait $M
M=
"$MEMSZ" dump -i "$D/n.data" > "$T/n.txt"
check "--no-inherit: the child has no snapshot" \
	test "$(grep -c "SNAP_BEGIN pid $A " "$T/n.txt")" -eq 0

# 3. One-shot: one snapshot, memsz exits, the target runs on.
"$MEMSZ" record -o "$T/o.data" -p "$P" --duration 0 2>"$T/err"
check "--duration 0: exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/o.data" > "$T/o.txt"
check "--duration 0: exactly one snapshot" \
	test "$(grep -c SNAP_BEGIN "$T/o.txt")" -eq 1
check "--duration 0: with its name" grep -q "CMDLINE $P/$P: .*python3" "$T/o.txt"
check "--duration 0: the target runs on" kill -0 "$P"
"$MEMSZ" record -o "$T/o2.data" --duration 0 -- true 2>"$T/err"
check "--duration 0 with a command: a usage error" test $? -eq 129
cmd "$D" quit
wait $S
S=

# 4. Bad targets.
# fails NAME PATTERN ARGS...: non-zero exit, exactly one line matching.
fails() {
	d=$1 pat=$2
	shift 2
	"$MEMSZ" record -o "$T/bad.data" "$@" > /dev/null 2> "$T/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
	   grep -q "$pat" "$T/err" && [ ! -e "$T/bad.data" ]; then
		ok "$d"
	else
		nok "$d (exit $rc: $(cat "$T/err"))"
	fi
}
K=$(ps -eo pid=,comm= | awk '$2 == "kthreadd" { print $1; exit }')
if [ -n "$K" ]; then
	fails "kernel thread" "^memsz: pid $K is a kernel thread" -p "$K"
else
	nok "no kthreadd to try"
fi
python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os._exit(0)
print(pid, flush=True)
time.sleep(3600)
' > "$T/zombie" & Z=$!
track $Z
wait_file "$T/zombie"
zp=$(cat "$T/zombie")
wait_for "pid $zp to be a zombie" lib_zombie "$zp" ||
	fail_all "pid $zp never became a zombie"
fails "zombie" "^memsz: pid $zp is a zombie" -p "$zp"
finish
