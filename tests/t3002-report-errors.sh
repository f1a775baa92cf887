#!/bin/sh
# t3002: `memsz report` on damaged recordings and images that changed:
# clear messages, and the rest of the report still right.
#  - not a memsz.data file, an empty one: one line on stderr, exit 1;
#  - a recording cut short: read up to the cut, said in the footer;
#  - an image deleted after recording: footer says it could not be opened,
#    its bytes go to [LOAD #?], the TOTAL RSS is unchanged;
#  - an image replaced by another build (different build-id): footer says
#    so, nothing is charged to its symbols.
MEMSZ=${MEMSZ:-memsz}
srcdir=${top_srcdir:-$(dirname "$0")/..}
tmp=$(mktemp -d /tmp/memsz-t3002-XXXXXX)
fail=0
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { echo "ok     $1"; }
notok() { echo "NOT OK $1"; fail=1; }
check() { if eval "$1"; then ok "$2"; else notok "$2"; fi; }
total_rss() { awk -F, 'NR > 1 { s += $(NF-4) } END { print s }'; }

# --- not a recording ---
echo "hello, this is not memsz data, just text of some length......" \
	>"$tmp/bad.data"
"$MEMSZ" report -i "$tmp/bad.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && \
grep -q \"^memsz: cannot read '$tmp/bad.data'\" '$tmp/err'" \
	"bad magic: one line, exit 1 ($(cat "$tmp/err"))"
: >"$tmp/empty.data"
"$MEMSZ" report -i "$tmp/empty.data" >/dev/null 2>"$tmp/err"
check "[ $? -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ]" \
	"empty file: one line, exit 1 ($(cat "$tmp/err"))"
"$MEMSZ" report -i "$tmp/nonexistent.data" >/dev/null 2>"$tmp/err"
check "[ $? -eq 1 ] && grep -q 'No such file' '$tmp/err' && \
[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"'memsz record -p PID'\" '$tmp/err'" \
	"missing file: one line, exit 1, says how to make one"
# json_err NAME RC CMD...: exit RC, nothing on stderr, stdout one JSON
# object {"error": "..."} (python's json), its text matching $pat
json_err() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && [ ! -s "$tmp/err" ] &&
	   python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["error"] and re.search(sys.argv[2], d["error"]), d' \
		"$tmp/out" "$pat"; then
		ok "$name"
	else
		notok "$name (rc=$rc, out: $(cat "$tmp/out"), err: $(cat "$tmp/err"))"
	fi
}
mkdir "$tmp/empty"
(cd "$tmp/empty" && "$MEMSZ" report >"$tmp/out" 2>"$tmp/err")
check "[ $? -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && \
grep -q \"cannot read 'memsz.data': No such file.*memsz record\" '$tmp/err'" \
	"no memsz.data here: says so and how to make one ($(cat "$tmp/err"))"
pat="cannot read 'memsz.data': No such file.*memsz record"
json_err "json: no memsz.data is a JSON error, exit 1" 1 \
	sh -c "cd '$tmp/empty' && '$MEMSZ' report --format json"
pat="unknown option '--bogus'"
json_err "json: unknown option, exit 129" 129 \
	"$MEMSZ" report --bogus --format json
pat="unknown or repeated key 'nope'"
json_err "json: unknown key, exit 129" 129 \
	"$MEMSZ" report --format json --by nope
pat="--snapshot wants"
json_err "json: bad --snapshot, exit 129" 129 \
	"$MEMSZ" report --format=json --snapshot sometimes
pat="needs a value"
json_err "json: option without a value, exit 129" 129 \
	"$MEMSZ" report --format json -i
pat="unexpected argument 'extra'"
json_err "json: a stray argument, exit 129" 129 \
	"$MEMSZ" report --format json extra
pat="not in --by"
json_err "json: --filter on a key not in --by, exit 129" 129 \
	"$MEMSZ" report --format json --filter symbols=x
"$MEMSZ" report --bogus >"$tmp/out" 2>"$tmp/err"
check "[ $? -eq 129 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && [ ! -s '$tmp/out' ] && \
grep -q \"unknown option '--bogus'; see 'memsz help report'\" '$tmp/err'" \
	"unknown option: one line, exit 129"

# --- a workload run from a copy we can delete or replace ---
gcc -O1 -fPIE -pie -Wl,--build-id -o "$tmp/app" \
	"$srcdir/tests/workloads/rep_layout.c" || exit 1
cp "$tmp/app" "$tmp/app.orig"
"$tmp/app" >"$tmp/ready" &
pid=$!
for i in $(seq 100); do grep -q ready "$tmp/ready" && break; sleep 0.05; done
kill -STOP "$pid"
"$MEMSZ" record -p "$pid" -o "$tmp/m.data" --duration 0.1 >/dev/null 2>&1 ||
	notok "memsz record"
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
"$MEMSZ" report -i "$tmp/m.data" --by files,symbols -n 0 --format csv \
	>"$tmp/good.csv" 2>/dev/null
good=$(total_rss <"$tmp/good.csv")
check "grep -q '^$tmp/app,big,' '$tmp/good.csv'" "intact: symbols of the image"

# truncated: cut inside the last record
size=$(stat -c %s "$tmp/m.data")
head -c $((size - 3)) "$tmp/m.data" >"$tmp/cut.data"
"$MEMSZ" report -i "$tmp/cut.data" >"$tmp/out" 2>"$tmp/err"
check "[ $? -eq 0 ] && grep -q 'damaged at offset' '$tmp/out'" \
	"truncated: report made, footer says where the file is damaged"

# deleted image (the recording's open path goes through /proc/PID/root of
# a process that is gone, so only the path is left)
rm "$tmp/app"
"$MEMSZ" report -i "$tmp/m.data" --by files,symbols -n 0 --format csv \
	>"$tmp/del.csv" 2>"$tmp/err"
check "[ $? -eq 0 ] && grep -q \"cannot open '$tmp/app'\" '$tmp/err'" \
	"deleted image: note says it cannot be opened"
check "grep -q '^$tmp/app,\\[LOAD #?\\],' '$tmp/del.csv'" \
	"deleted image: its bytes charged to [LOAD #?]"
check "[ \"$(total_rss <"$tmp/del.csv")\" = '$good' ]" \
	"deleted image: TOTAL RSS unchanged ($good)"

# replaced image: same path, another build
sed 's/return x \* 3 + 1;/return x * 9 + 4;/' \
	"$srcdir/tests/workloads/rep_layout.c" >"$tmp/app2.c"
gcc -O1 -fPIE -pie -Wl,--build-id -o "$tmp/app" "$tmp/app2.c" || exit 1
"$MEMSZ" report -i "$tmp/m.data" --by files,symbols -n 0 --format csv \
	>"$tmp/rep.csv" 2>"$tmp/err"
check "[ $? -eq 0 ] && grep -q 'build-id' '$tmp/err'" \
	"replaced image: note names the build-id mismatch"
check "! grep -q '^$tmp/app,big,' '$tmp/rep.csv'" \
	"replaced image: nothing charged to its symbols"
check "[ \"$(total_rss <"$tmp/rep.csv")\" = '$good' ]" \
	"replaced image: TOTAL RSS unchanged"

# usage errors
"$MEMSZ" report --by nope >/dev/null 2>"$tmp/err"
check "[ $? -eq 129 ] && grep -q \"unknown or repeated key 'nope'\" '$tmp/err'" \
	"unknown key: usage error"
"$MEMSZ" report --sort bogus >/dev/null 2>"$tmp/err"
check "[ $? -eq 129 ] && grep -q \"cannot sort by 'bogus' (columns: file, vm, rss, pss, uss, dirty, swap, relocs)\" '$tmp/err'" \
	"bad --sort: usage error naming the columns"
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
check "[ '$listed' = '$helped ' ] && [ -z '$bad' ] && [ \$(wc -l <'$tmp/keys') -eq 13 ]" \
	"report --list-keys: the keys --help lists, each accepted"
"$MEMSZ" report --snapshot sometimes >/dev/null 2>&1
check "[ $? -eq 129 ]" "bad --snapshot: usage error"
"$MEMSZ" report -i "$tmp/m.data" --pid 1 >/dev/null 2>"$tmp/err"
check "[ $? -eq 1 ] && grep -q 'no complete snapshot of pid 1' '$tmp/err'" \
	"--pid not recorded: one line, exit 1"
# --snapshot N past the last: says how many there are (counted in dump)
nsnap=$("$MEMSZ" dump -i "$tmp/m.data" | grep -c ' SNAP_END ')
"$MEMSZ" report -i "$tmp/m.data" --snapshot 99 >"$tmp/out" 2>"$tmp/err"
check "[ $? -eq 1 ] && [ $nsnap -ge 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && \
grep -q \"\-\-snapshot 99: '$tmp/m.data' has $nsnap complete snapshots\\?, numbered 0 to $((nsnap - 1))\" '$tmp/err'" \
	"--snapshot 99 of $nsnap: says how many ($(cat "$tmp/err"))"
pat="has $nsnap complete snapshot"
json_err "json: --snapshot out of range, exit 1" 1 \
	"$MEMSZ" report -i "$tmp/m.data" --snapshot 99 --format json
"$MEMSZ" report -i "$tmp/m.data" --snapshot $((nsnap - 1)) >/dev/null 2>&1
check "[ $? -eq 0 ]" "--snapshot $((nsnap - 1)), the last: reported"
exit $fail
