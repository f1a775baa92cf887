#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2098-record-jitmap-planted.sh — /tmp/perf-PID.map is controlled by the
# target's user (and, in a sticky /tmp, planted by anyone): root's memsz
# reads it only as a regular file owned by that user or root, never follows
# a symlink there, never blocks on it, and reads a bounded amount. The
# target runs as nobody; what it plants: a FIFO (which hung memsz), a
# symlink to /dev/zero (which grew memsz without end), a symlink to a
# root-only file, a file owned by another user. A nobody-owned map is read.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to run a target as nobody"
need setpriv util-linux
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
printf '1000 10 SECRET_OF_ROOT\n' >"$T/secret"
chmod 600 "$T/secret"

start_target() {
	$NOBODY sleep 600 &
	P=$!
	track $P
	wait_for "target runs as nobody" sh -c \
		"grep -q '^Uid:[[:space:]]*65534' /proc/$P/status" ||
		fail_all "the target never ran as nobody"
	MAP=/tmp/perf-$P.map
}

# record NAME: one snapshot of the target, under a hang guard (SIGKILL:
# the unfixed memsz blocked SIGTERM while stuck) and a 1.5 GiB address
# space (1.5 GiB of RSS for a sanitized build); prints memsz's exit status and peak RSS in KiB to $T/NAME.rc.
record() {
	python3 - "$T/$1.rc" "$MEMSZ" record -o "$T/$1.data" --duration 0 \
		-p $P 2>"$T/$1.err" <<'PY'
import os, resource, subprocess, sys
# AddressSanitizer reserves terabytes of shadow address space, which an
# address-space limit refuses: a sanitized memsz is held to 1.5 GiB of
# RSS by the sanitizer's own limit instead.
ldd = subprocess.run(["ldd", sys.argv[2]], capture_output=True, text=True)
asan = "libasan" in ldd.stdout
env = dict(os.environ)
if asan:
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                           ":hard_rss_limit_mb=1536").lstrip(":")
def lim():
    if not asan:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))
try:
    rc = subprocess.run(sys.argv[2:], timeout=60, preexec_fn=lim,
                        env=env).returncode
except subprocess.TimeoutExpired:
    rc = "hung"
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write("%s %d\n" % (rc, rss))
PY
	read rc rss <"$T/$1.rc"
}

# planted NAME WHAT WHY: memsz ended, small, recorded the target without a
# symbol from the map, and said why the map was not read (a warning and
# a NOTE in the recording: its JIT symbols are left unnamed); WHY empty:
# it said nothing of a map another user planted (none of the process's,
# maybe left by a process that had the pid before).
planted() {
	record "$1"
	check "$2: memsz ends (exit $rc)" test "$rc" = 0
	check "$2: memsz stays small (peak RSS $rss KiB)" test "$rss" -lt 131072
	"$MEMSZ" dump -v -i "$T/$1.data" >"$T/$1.dump" 2>&1
	check "$2: the target is recorded (dump exit $?)" \
		grep -q SNAP_END "$T/$1.dump"
	check "$2: nothing of it is recorded" \
		sh -c "! grep -q JITMAP '$T/$1.dump'"
	if [ -n "$3" ]; then
		why="its perf map '$MAP' is not read: $3"
		check "$2: a warning says '$3' ($(cat "$T/$1.err"))" \
			grep -q "warning: pid $P (sleep): $why" "$T/$1.err"
		check "$2: a NOTE in the recording says it" \
			grep -q "NOTE.*$why" "$T/$1.dump"
	else
		check "$2: nothing is said of it ($(cat "$T/$1.err"))" \
			sh -c "! grep -q 'perf map' '$T/$1.err' '$T/$1.dump'"
	fi
	rm -f "$MAP"
	kill -9 $P
	wait $P 2>/dev/null
}

start_target
$NOBODY mkfifo "$MAP"
planted fifo "a FIFO" "not a regular file"

start_target
$NOBODY ln -s /dev/zero "$MAP"
planted zero "a symlink to /dev/zero" "a symbolic link, not followed"

start_target
$NOBODY ln -s "$T/secret" "$MAP"
planted link "a symlink to a root-only file" \
	"a symbolic link, not followed"

start_target
cp "$T/secret" "$MAP"
chown 1:1 "$MAP"
planted other "a file owned by another user (daemon)" ""

start_target
ln -s "$T/secret" "$MAP"
chown -h 1:1 "$MAP"
planted otherlink "a symlink another user (daemon) planted" ""

# own NAME WHAT SYMBOL SAID: the target's own map (written by the caller)
# is read: memsz ends, SYMBOL is recorded and stderr says SAID.
own() {
	record "$1"
	check "$2: exit 0 ($rc)" test "$rc" = 0
	check "$2: its symbol is recorded" \
		sh -c "'$MEMSZ' dump -v -i '$T/$1.data' | grep -q '$3'"
	check "$2: said ($(cat "$T/$1.err"))" \
		grep -q "perf map '$MAP' $4" "$T/$1.err"
	rm -f "$MAP"
	kill -9 $P
	wait $P 2>/dev/null
}

# The target's own map is read; its malformed line is skipped, and said.
start_target
$NOBODY sh -c "printf '2000 10 JS:own_symbol\nnot a symbol\n' >$MAP"
own own "the target's own map, a malformed line" own_symbol \
	"has lines that are not START SIZE NAME, skipped (1 in the first read that met any)"

# A map past 256 MiB (sparse here) is read up to there, and that is said.
start_target
$NOBODY sh -c "printf '2000 10 JS:first_symbol\n' >$MAP && truncate -s 300M $MAP"
own big "a map of 300 MiB, cut" first_symbol \
	"is read up to 256 MiB: the symbols past that are not recorded"
finish
