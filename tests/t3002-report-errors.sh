#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t3002: `memsz report` on damaged recordings and images that changed:
# clear messages, and the rest of the report still right.
#  - not a memsz.data file, an empty one: one line on stderr, exit 1;
#  - a recording cut short: read up to the cut, said in the footer;
#  - an image deleted after recording: footer says it was deleted, its
#    bytes go to one row "[deleted] PATH", the TOTAL RSS is unchanged;
#  - an image replaced by another build (different build-id): footer says
#    so, nothing is charged to its symbols.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
srcdir=$top_srcdir
tmp=$T
# expect EXPR NAME: one assertion that the shell expression EXPR is true
# (EXPR comes first so that a $? in it is the previous command's).
expect() { check "$2" eval "$1"; }
# total_rss CSV: the sum of the rss column of the report CSV (by name).
total_rss() { csv_sum "$1" rss; }

# --- not a recording ---
echo "hello, this is not memsz data, just text of some length......" \
	>"$tmp/bad.data"
"$MEMSZ" report -i "$tmp/bad.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && \
grep -q \"^memsz: cannot read '$tmp/bad.data'\" '$tmp/err'" \
	"bad magic: one line, exit 1 ($(cat "$tmp/err"))"
: >"$tmp/empty.data"
"$MEMSZ" report -i "$tmp/empty.data" >/dev/null 2>"$tmp/err"
expect "[ $? -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ]" \
	"empty file: one line, exit 1 ($(cat "$tmp/err"))"
"$MEMSZ" report -i "$tmp/nonexistent.data" >/dev/null 2>"$tmp/err"
expect "[ $? -eq 1 ] && grep -q 'No such file' '$tmp/err' && \
[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"'memsz record -p PID'\" '$tmp/err'" \
	"missing file: one line, exit 1, says how to make one"
mkdir "$tmp/empty"
(cd "$tmp/empty" && "$MEMSZ" report >"$tmp/out" 2>"$tmp/err")
expect "[ $? -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && \
grep -q \"cannot read 'memsz.data': No such file.*memsz record\" '$tmp/err'" \
	"no memsz.data here: says so and how to make one ($(cat "$tmp/err"))"
expect_json_error "json: no memsz.data is a JSON error, exit 1" 1 \
	"cannot read 'memsz.data': No such file.*memsz record" \
	sh -c "cd '$tmp/empty' && '$MEMSZ' report --format json"
expect_json_error "json: unknown option, exit 129" 129 \
	"unknown option '--bogus'" \
	"$MEMSZ" report --bogus --format json
expect_json_error "json: unknown key, exit 129" 129 \
	"unknown or repeated key 'nope'" \
	"$MEMSZ" report --format json --by nope
expect_json_error "json: bad --snapshot, exit 129" 129 "--snapshot wants" \
	"$MEMSZ" report --format=json --snapshot sometimes
expect_json_error "json: option without a value, exit 129" 129 "needs a value" \
	"$MEMSZ" report --format json -i
expect_json_error "json: a stray argument, exit 129" 129 \
	"unexpected argument 'extra'" \
	"$MEMSZ" report --format json extra
expect_json_error "json: --filter on a key not in --by, exit 129" 129 \
	"not in --by" \
	"$MEMSZ" report --format json --filter symbols=x
"$MEMSZ" report --bogus >"$tmp/out" 2>"$tmp/err"
expect "[ $? -eq 129 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && [ ! -s '$tmp/out' ] && \
grep -q \"unknown option '--bogus'; see 'memsz help report'\" '$tmp/err'" \
	"unknown option: one line, exit 129"

# --- a workload run from a copy we can delete or replace ---
need gcc gcc
build_workload app rep_layout.c -fPIE -pie -Wl,--build-id
cp "$tmp/app" "$tmp/app.orig"
"$tmp/app" >"$tmp/ready" &
pid=$!
track $pid
wait_line "$tmp/ready" ready
kill -STOP "$pid"
"$MEMSZ" record -p "$pid" -o "$tmp/m.data" --duration 0.1 >/dev/null 2>&1 ||
	nok "memsz record"
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
"$MEMSZ" report -i "$tmp/m.data" --by files,symbols -n 0 --format csv \
	>"$tmp/good.csv" 2>/dev/null
good=$(total_rss "$tmp/good.csv")
expect "grep -q '^$tmp/app,big,' '$tmp/good.csv'" "intact: symbols of the image"
expect "[ '${good:-0}' -gt 0 ]" "intact: a resident total to compare with ($good)"

# truncated: cut inside the last record
size=$(stat -c %s "$tmp/m.data")
head -c $((size - 3)) "$tmp/m.data" >"$tmp/cut.data"
"$MEMSZ" report -i "$tmp/cut.data" >"$tmp/out" 2>"$tmp/err"
expect "[ $? -eq 0 ] && grep -q 'damaged at offset' '$tmp/out'" \
	"truncated: report made, footer says where the file is damaged"

# deleted image (the recording's open path goes through /proc/PID/root of
# a process that is gone, so only the path is left)
rm "$tmp/app"
"$MEMSZ" report -i "$tmp/m.data" --by files,symbols -n 0 --format csv \
	>"$tmp/del.csv" 2>"$tmp/err"
expect "[ $? -eq 0 ] && grep -q \"$tmp/app: deleted since it was mapped\" '$tmp/err'" \
	"deleted image: note says it was deleted"
expect "grep -q '^\\[deleted\\] $tmp/app,,' '$tmp/del.csv'" \
	"deleted image: its bytes charged to one row [deleted] PATH"
expect "[ -n '$good' ] && [ \"$(total_rss "$tmp/del.csv")\" = '$good' ]" \
	"deleted image: TOTAL RSS unchanged ($good)"

# replaced image: same path, another build
sed 's/return x \* 3 + 1;/return x * 9 + 4;/' \
	"$srcdir/tests/workloads/rep_layout.c" >"$tmp/app2.c"
build_workload app "$tmp/app2.c" -fPIE -pie -Wl,--build-id
"$MEMSZ" report -i "$tmp/m.data" --by files,symbols -n 0 --format csv \
	>"$tmp/rep.csv" 2>"$tmp/err"
expect "[ $? -eq 0 ] && grep -q 'build-id' '$tmp/err'" \
	"replaced image: note names the build-id mismatch"
expect "! grep -q '^$tmp/app,big,' '$tmp/rep.csv'" \
	"replaced image: nothing charged to its symbols"
expect "[ -n '$good' ] && [ \"$(total_rss "$tmp/rep.csv")\" = '$good' ]" \
	"replaced image: TOTAL RSS unchanged"

# usage errors
"$MEMSZ" report --by nope >/dev/null 2>"$tmp/err"
expect "[ $? -eq 129 ] && grep -q \"unknown or repeated key 'nope'\" '$tmp/err'" \
	"unknown key: usage error"
"$MEMSZ" report --sort bogus >/dev/null 2>"$tmp/err"
expect "[ $? -eq 129 ] && grep -q \"cannot sort by 'bogus' (columns: file, vm, rss, pss, uss, dirty, swap, relocs, shclean, shdirty, thp, locked, procs, charge; orders: addr, name)\" '$tmp/err'" \
	"bad --sort: usage error naming the columns and orders"
# --list-keys: every key --help lists, one line each, each accepted by --by
"$MEMSZ" report --list-keys >"$tmp/keys"
listed=$(cut -d' ' -f1 "$tmp/keys" | tr '\n' ' ')
helped=$("$MEMSZ" report --help | sed -n '/--by KEY.*keys,/{n;p;}' |
	tr -d ',' | sed 's/^ *//')
bad=""
for k in $listed; do
	"$MEMSZ" report -i "$tmp/m.data" --by "$k" -n 1 >/dev/null 2>&1 ||
		bad="$bad $k"
done
expect "[ '$listed' = '$helped ' ] && [ -z '$bad' ] && [ \$(wc -l <'$tmp/keys') -eq 15 ]" \
	"report --list-keys: the keys --help lists, each accepted"
"$MEMSZ" report --snapshot sometimes >/dev/null 2>&1
expect "[ $? -eq 129 ]" "bad --snapshot: usage error"
"$MEMSZ" report -i "$tmp/m.data" --pid 1 >/dev/null 2>"$tmp/err"
expect "[ $? -eq 1 ] && grep -q 'no complete snapshot of pid 1' '$tmp/err'" \
	"--pid not recorded: one line, exit 1"
# --snapshot N past the last: says how many there are (counted in dump)
nsnap=$("$MEMSZ" dump -i "$tmp/m.data" | grep -c ' SNAP_END ')
"$MEMSZ" report -i "$tmp/m.data" --snapshot 99 >"$tmp/out" 2>"$tmp/err"
expect "[ $? -eq 1 ] && [ $nsnap -ge 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && \
grep -q \"\-\-snapshot 99: '$tmp/m.data' has $nsnap complete snapshots\\?, numbered 0 to $((nsnap - 1))\" '$tmp/err'" \
	"--snapshot 99 of $nsnap: says how many ($(cat "$tmp/err"))"
expect_json_error "json: --snapshot out of range, exit 1" 1 \
	"has $nsnap complete snapshot" \
	"$MEMSZ" report -i "$tmp/m.data" --snapshot 99 --format json
"$MEMSZ" report -i "$tmp/m.data" --snapshot $((nsnap - 1)) >/dev/null 2>&1
expect "[ $? -eq 0 ]" "--snapshot $((nsnap - 1)), the last: reported"
# a FIFO given as the recording (perhaps planted by another user): refused
# at once, never waited on for a writer
mkfifo "$T/fifo.data"
expect_error "-i FIFO: refused, not waited on" "cannot read '$T/fifo.data'" \
	timeout -s KILL 60 "$MEMSZ" report -i "$T/fifo.data"
finish
