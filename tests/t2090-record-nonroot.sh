#!/bin/sh
# t2090-record-nonroot.sh — the unprivileged path: as nobody, memsz records
# its own user's process without PSS and says so once; with perf refused
# (MEMSZ_NO_PERF=1, the same path as perf_event_paranoid forbidding it) it
# polls /proc/PID/maps and writes MMAP2 and MUNMAP records; another user's
# process is a one-line error.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
W=$top_srcdir/tests/workloads
[ "$(id -u)" = 0 ] || { echo "needs root to drop to nobody" >&2; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "no setpriv" >&2; exit 77; }
command -v gcc >/dev/null 2>&1 || { echo "gcc not found" >&2; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/memsz-t2090.XXXXXX") || exit 1
chmod 777 "$T"
P=
trap '[ -n "$P" ] && kill $P 2>/dev/null; rm -rf "$T"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
}
# The built memsz must be reachable by nobody.
nobody test -x "$MEMSZ" || { echo "$MEMSZ not executable by nobody" >&2; exit 77; }

gcc -O1 -o "$T/rec_sleep" "$W/rec_sleep.c" -lpthread || exit 1
head -c 65536 /dev/zero > "$T/data.bin"
chmod 644 "$T/data.bin"
cd "$T" || exit 1
nobody "$T/rec_sleep" "$T/data.bin" "$T/ready" 300 & P=$!
wait_file "$T/ready"
P=$(cat "$T/ready")

nobody "$MEMSZ" record -o "$T/n.data" --interval 200 --duration 0.7 -p $P \
	2>"$T/err"
check "as nobody: record exits 0" test $? -eq 0
c=$(grep -c 'no CAP_SYS_ADMIN' "$T/err")
check "as nobody: 'no PSS' said exactly once ($c)" test "$c" -eq 1
nobody "$MEMSZ" dump -i "$T/n.data" > "$T/n.txt"
check "as nobody: the file dumps cleanly" test $? -eq 0
check "as nobody: snapshots recorded" test "$(grep -c SNAP_BEGIN "$T/n.txt")" -ge 3
if grep -q 'polling /proc/PID/maps' "$T/err"; then
	echo "# perf_event_open refused here: the real path is the fallback"
fi

MEMSZ_NO_PERF=1 nobody "$MEMSZ" record -o "$T/f.data" --duration 1.2 -p $P \
	2>"$T/err"
check "fallback: record exits 0" test $? -eq 0
c=$(grep -c 'polling /proc/PID/maps' "$T/err")
check "fallback: said once on stderr ($c)" test "$c" -eq 1
nobody "$MEMSZ" dump -i "$T/f.data" > "$T/f.txt"
check "fallback: the file dumps cleanly" test $? -eq 0
check "fallback: a note in the file" grep -q 'polling' "$T/f.txt"
check "fallback: new mapping seen by polling" \
	test "$(grep -E 'MMAP2.*\(0x2000\).*data\.bin' "$T/f.txt" | wc -l)" -ge 2
check "fallback: unmapping seen by polling" \
	grep -qE 'MUNMAP.*\(0x2000\).*data\.bin' "$T/f.txt"

nobody "$MEMSZ" record -o "$T/x.data" -p 1 2>"$T/err"
rc=$?
check "another user's process: non-zero exit ($rc)" test $rc -ne 0
check "another user's process: one line on stderr" \
	test "$(wc -l < "$T/err")" -eq 1
check "another user's process: says so" grep -q '^memsz: cannot trace pid 1' "$T/err"
exit $fail
