#!/bin/sh
# t2080-record-sigint.sh — SIGINT/SIGTERM to memsz leave a valid file with a
# final snapshot, in attach and launch mode; --freeze leaves targets running.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
W=$top_srcdir/tests/workloads
T=$(mktemp -d "${TMPDIR:-/tmp}/memsz-t2080.XXXXXX") || exit 1
P=
trap '[ -n "$P" ] && kill $P 2>/dev/null; rm -rf "$T"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
}
snaps() { grep -c 'SNAP_BEGIN' "$1"; }

command -v gcc >/dev/null 2>&1 || { echo "gcc not found" >&2; exit 77; }
gcc -O1 -o "$T/rec_sleep" "$W/rec_sleep.c" -lpthread || exit 1
head -c 65536 /dev/zero > "$T/data.bin"

# Attach, then SIGINT: start and final snapshot, target untouched.
"$T/rec_sleep" "$T/data.bin" "$T/ready" & P=$!
wait_file "$T/ready"
"$MEMSZ" record -o "$T/a.data" -p $P 2>"$T/err" & M=$!
sleep 0.5
kill -INT $M
wait $M
check "SIGINT: memsz exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/a.data" > "$T/a.txt"
check "SIGINT: the file dumps cleanly" test $? -eq 0
check "SIGINT: start and final snapshots ($(snaps "$T/a.txt") == 2)" \
	test "$(snaps "$T/a.txt")" -eq 2
check "SIGINT: the target runs on" kill -0 $P

# --freeze with SIGTERM: the target is stopped only during snapshots.
"$MEMSZ" record -o "$T/z.data" --freeze --interval 100 -p $P 2>"$T/err" &
M=$!
sleep 0.6
kill -TERM $M
wait $M
check "SIGTERM with --freeze: memsz exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/z.data" > "$T/z.txt"
check "SIGTERM: the file dumps cleanly" test $? -eq 0
check "--freeze: several snapshots ($(snaps "$T/z.txt") >= 3)" \
	test "$(snaps "$T/z.txt")" -ge 3
st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$P/status)
check "--freeze: target left running (state $st)" test "$st" != T
kill $P; wait $P 2>/dev/null; P=

# Launch, then SIGINT to memsz alone: the command is ended and its exit
# snapshot written.
rm -f "$T/ready"
"$MEMSZ" record -o "$T/l.data" -- "$T/rec_sleep" "$T/data.bin" "$T/ready" \
	2>"$T/err" & M=$!
wait_file "$T/ready"
C=$(cat "$T/ready")
sleep 0.2
kill -INT $M
wait $M
check "launch + SIGINT: memsz reports the command's death by SIGTERM" \
	test $? -eq 143
check "launch + SIGINT: the command is gone" test ! -d /proc/$C/task
"$MEMSZ" dump -i "$T/l.data" > "$T/l.txt"
check "launch + SIGINT: the file dumps cleanly" test $? -eq 0
check "launch + SIGINT: start, final and exit snapshots" \
	test "$(snaps "$T/l.txt")" -ge 3
exit $fail
