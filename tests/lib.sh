# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib.sh — the one helper library of the end-to-end shell tests. Every
# tests/t*.sh starts with
#	. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
# (sourced, never run). It sets
#	MEMSZ	the memsz under test (from the harness, else ./memsz)
#	W	the workload sources, tests/workloads
#	T	a fresh temporary directory, removed on exit together with the
#		background processes given to track and the mounts given to
#		track_mount
#
# Each case is one named assertion printed "ok N - name" or
# "not ok N - name". What a script cannot check here is said with
# `skip WHY` (the script goes on) or `skip_all WHY` (it ends now); a check
# that cannot be made at all is `fail_all WHY`. A script ends with `finish`:
# exit 1 if an assertion failed or none ran, else 77 (automake's SKIP) after
# one "SKIP: why" line per skip, else 0.
#
# lib.sh's own variables and helpers' locals begin with lib_ (or a
# helper's own prefix), so that a script's variables never clobber them.
#
# No fixed sleeps: wait_for polls for an event (a ready line, a record in
# the output file) and fails only when it never comes (a hang guard).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
MEMSZ=${MEMSZ:-./memsz}
W=$top_srcdir/tests/workloads
lib_n=0 lib_fail=0 lib_skipped=
lib_pids= lib_mounts=
T=$(mktemp -d "${TMPDIR:-/tmp}/memsz-$(basename "$0" .sh).XXXXXX") || {
	echo "cannot make a temporary directory" >&2
	exit 99
}

lib_cleanup() {
	for p in $lib_pids; do
		{ kill -9 "$p" && wait "$p"; } 2>/dev/null
	done
	for m in $lib_mounts; do
		umount "$m" 2>/dev/null
	done
	rm -rf "$T"
}
trap lib_cleanup EXIT
trap 'exit 1' HUP INT TERM

# ok NAME, nok NAME: one passing or failing assertion.
ok() { lib_n=$((lib_n + 1)); echo "ok $lib_n - $1"; }
nok() {
	lib_n=$((lib_n + 1)) lib_fail=$((lib_fail + 1))
	echo "not ok $lib_n - $1"
}

# check NAME CMD...: one assertion that CMD succeeds.
check() {
	lib_d=$1
	shift
	if "$@"; then ok "$lib_d"; else nok "$lib_d"; fi
}

# skip WHY: a part of the script is not checked here; the script goes on
# and finish() then exits 77 with WHY.
skip() {
	echo "# skipped: $1"
	lib_skipped="$lib_skipped$1
"
}

# skip_all WHY: nothing more can be checked here; exit 77 now (or 1 if an
# assertion already failed).
skip_all() {
	skip "$1"
	finish
}

# fail_all WHY: the check cannot go on; one failed assertion, exit 1 now.
fail_all() {
	nok "$1"
	finish
}

# finish: the exit status of the script (see the top of this file).
finish() {
	echo "# $((lib_n - lib_fail)) passed, $lib_fail failed"
	if [ "$lib_fail" -ne 0 ]; then
		exit 1
	fi
	if [ -n "$lib_skipped" ]; then
		printf '%s' "$lib_skipped" | sed 's/^/SKIP: /'
		exit 77
	fi
	if [ "$lib_n" -eq 0 ]; then
		echo "not ok - no assertion ran"
		exit 1
	fi
	exit 0
}

# need CMD [PACKAGE]: CMD must be on PATH, else the script is skipped,
# naming the Debian package that provides it.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		skip_all "no $1${2:+ ($2)}"
}

# memsz ARGS...: the memsz under test.
memsz() { "$MEMSZ" "$@"; }

# build_workload NAME SOURCE [GCC-ARGS...]: compiles tests/workloads/SOURCE
# (or an absolute SOURCE) with gcc -O1 into $T/NAME; a failure ends the
# script.
build_workload() {
	bw_out=$T/$1 bw_src=$2
	shift 2
	case $bw_src in /*) ;; *) bw_src=$W/$bw_src ;; esac
	gcc -O1 -o "$bw_out" "$bw_src" "$@" ||
		fail_all "cannot build $bw_src with gcc"
}

# track PID...: background processes killed on exit if still running.
track() { lib_pids="$lib_pids $*"; }

# track_mount DIR: a mount point unmounted on exit.
track_mount() { lib_mounts="$lib_mounts $1"; }

# wait_for WHAT CMD...: polls CMD until it succeeds. It returns 1, after
# saying so, only if WHAT has not happened in $WAIT_GUARD seconds (120 by
# default): a guard against hanging, not a timing assumption.
wait_for() {
	wf_what=$1
	shift
	wf_end=$(($(date +%s) + ${WAIT_GUARD:-120}))
	until "$@"; do
		if [ "$(date +%s)" -ge "$wf_end" ]; then
			echo "# gave up waiting for: $wf_what" >&2
			return 1
		fi
		sleep 0.02
	done
}

# wait_file FILE: until FILE exists and is not empty (written atomically by
# the workloads), or fail_all.
wait_file() {
	wait_for "'$1' written" test -s "$1" || fail_all "'$1' never written"
}

# wait_line FILE PATTERN: until FILE has a line matching PATTERN, or
# fail_all.
wait_line() {
	wait_for "'$2' in '$1'" grep -q -- "$2" "$1" ||
		fail_all "no '$2' in '$1'"
}

# dump_count DATA PATTERN: the number of lines of `memsz dump -i DATA`
# (complete records only; a record being written is not counted) that
# match the extended regular expression PATTERN.
dump_count() {
	memsz dump -i "$(recording "$1")" 2>/dev/null | grep -cE -- "$2"
}

# recording DATA: the file an unfinished `memsz record -o DATA` is writing
# (a temporary DATA.tmp.XXXXXX beside it until the recording is complete
# and renamed to DATA), else DATA.
recording() {
	for f in "$1".tmp.*; do
		[ -e "$f" ] && { echo "$f"; return; }
	done
	echo "$1"
}

# dump_has DATA PATTERN N: true once DATA holds at least N records
# matching PATTERN.
dump_has() { [ "$(dump_count "$1" "$2")" -ge "$3" ]; }

# wait_records DATA PATTERN N: until the memsz.data file DATA, still being
# written, holds at least N records matching PATTERN; or fail_all.
wait_records() {
	wait_for "$3 x '$2' in '$1'" dump_has "$1" "$2" "$3" ||
		fail_all "never $3 records '$2' in '$1'"
}

# wait_gone PID: until process PID has ended (it need not be our child);
# returns 1 if it is still there at the guard.
wait_gone() { wait_for "pid $1 gone" lib_gone "$1"; }
lib_gone() { ! kill -0 "$1" 2>/dev/null || lib_zombie "$1"; }
lib_zombie() {
	[ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" \
		2>/dev/null)" = Z ]
}

# stop_and_wait SIG PID: sends SIG to PID, a background child of this
# script (not a subshell around it), and waits for it; its exit status is
# left in $rc. If it has not ended at the guard it is killed and rc is 999.
stop_and_wait() {
	kill -"$1" "$2"
	if wait_gone "$2"; then
		wait "$2"
		rc=$?
	else
		kill -9 "$2"
		wait "$2"
		rc=999
	fi
}

# urgent CMD...: runs CMD (a memsz that samples) at nice -20 while the
# processes it forks run at the default priority, so that the reader keeps
# up with its workload however loaded the machine is. Needs root
# (CAP_SYS_NICE); otherwise CMD runs as is.
urgent() {
	if [ "$(id -u)" = 0 ]; then
		chrt --reset-on-fork --other 0 nice -n -20 "$@"
	else
		"$@"
	fi
}

# csv_col FILE COLUMN [KEY REGEX]: the values of the column named COLUMN
# in its header line, one a line, of the rows of the csv (or, when the
# header has a tab, tsv) FILE ("-": stdin) whose column KEY matches the
# python regex REGEX (every row without KEY). Columns are read by name,
# never by position, with python's csv module (quoted labels hold commas).
# A COLUMN or KEY the header does not have fails: a message on stderr,
# status 1 and no output.
csv_col() {
	python3 -c 'import csv, re, sys
f = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1], newline="")
text = f.read()
head = text.split("\n", 1)[0]
rows = list(csv.DictReader(text.splitlines(),
                           delimiter="\t" if "\t" in head else ","))
want = sys.argv[2:3] + sys.argv[3:4]
cols = next(csv.reader([head], delimiter="\t" if "\t" in head else ","),
            [])
missing = [c for c in want if c not in cols]
if missing:
    sys.exit(f"csv_col: no column {missing[0]!r} in {sys.argv[1]} "
             f"(columns: {cols})")
for r in rows:
    if len(sys.argv) < 5 or re.search(sys.argv[4], r[sys.argv[3]]):
        print(r[sys.argv[2]])' "$@"
}

# csv_sum FILE COLUMN [KEY REGEX]: the sum of csv_col's values (integers
# stay integers); fails as csv_col does, or on a value that is not a
# number.
csv_sum() {
	csv_col "$@" >"$T/csv_sum" &&
	python3 -c 'import sys
def num(x):
    for conv in (int, float):
        try:
            return conv(x)
        except ValueError:
            pass
    sys.exit(f"csv_sum: {x!r} is not a number")
s = sum(num(x) for x in open(sys.argv[1]).read().splitlines())
print(int(s) if float(s).is_integer() else s)' "$T/csv_sum"
}

# expect_error NAME PATTERN CMD...: CMD exits non-zero (not by a signal;
# 129 is memsz's usage status), prints exactly one line on stderr matching
# PATTERN and nothing on stdout. Its exit status is left in $rc.
expect_error() {
	ee_name=$1 ee_pat=$2
	shift 2
	"$@" >"$T/ee.out" 2>"$T/ee.err"
	rc=$?
	if [ "$rc" -ne 0 ] && { [ "$rc" -lt 128 ] || [ "$rc" -eq 129 ]; } &&
	   [ "$(wc -l <"$T/ee.err")" -eq 1 ] &&
	   grep -q -- "$ee_pat" "$T/ee.err" && [ ! -s "$T/ee.out" ]; then
		ok "$ee_name"
	else
		nok "$ee_name (exit $rc, stderr: $(cat "$T/ee.err"))"
	fi
}

# expect_json_error NAME RC PATTERN CMD...: CMD exits RC with nothing on
# stderr and, on stdout, one JSON object {"error": "..."} (parsed by
# python's json) whose text matches the python regex PATTERN.
expect_json_error() {
	ej_name=$1 ej_want=$2 ej_pat=$3
	shift 3
	"$@" >"$T/ej.out" 2>"$T/ej.err"
	rc=$?
	if [ "$rc" -eq "$ej_want" ] && [ ! -s "$T/ej.err" ] &&
	   python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["error"] and re.search(sys.argv[2], d["error"]), d' \
		"$T/ej.out" "$ej_pat"; then
		ok "$ej_name"
	else
		nok "$ej_name (exit $rc, want $ej_want, out: $(cat "$T/ej.out"), err: $(cat "$T/ej.err"))"
	fi
}
