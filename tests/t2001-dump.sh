#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2001-dump: `memsz dump` prints every record of a recorded file; a file
# cut at or inside any record prints every complete record before the cut,
# and a cut inside a record is one error line with its offset, exit 1.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
tmp=$T
fail() { fail_all "$*"; }

"$MEMSZ" record -o "$tmp/rec.data" -- /bin/true \
	>"$tmp/record.out" 2>&1 || {
	cat "$tmp/record.out" >&2
	fail "memsz record failed"
}

# 1. the whole file dumps, exit 0
"$MEMSZ" dump -i "$tmp/rec.data" >"$tmp/all" 2>"$tmp/err" ||
	fail "dump of a complete file failed: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "dump printed errors: $(cat "$tmp/err")"
for t in MMAP2 SNAP_BEGIN SNAP_MAPPING SNAP_END; do
	grep -q " $t " "$tmp/all" || fail "no $t record in the dump"
done
grep -q ' MMAP2 [0-9]*/[0-9]*: \[0x[0-9a-f]*(0x[0-9a-f]*) @ 0x[0-9a-f]* ' \
	"$tmp/all" || fail "MMAP2 lines are not perf-like"
size=$(stat -c %s "$tmp/rec.data")
nrec=$(grep -c '^0x' "$tmp/all")
[ "$nrec" -gt 3 ] || fail "only $nrec records"
# the last record ends at the file size
last=$(grep '^0x' "$tmp/all" | tail -n 1 |
	sed 's/^\(0x[0-9a-f]*\) \[\(0x[0-9a-f]*\)\].*/\1 \2/')
set -- $last
[ $(($1 + $2)) -eq "$size" ] || fail "records end at $(($1 + $2)), file $size"
ok "the whole file dumps: $nrec records, the last ending at the file size"

# -v prints runs
"$MEMSZ" dump -v -i "$tmp/rec.data" | grep -q '^    run 0x' ||
	fail "dump -v prints no runs"
ok "dump -v prints runs"

# 2. cut at every record boundary, and 8 bytes into every record
i=0
grep '^0x' "$tmp/all" | sed 's/^\(0x[0-9a-f]*\) .*/\1/' >"$tmp/offsets"
while read -r off; do
	off=$((off))
	head -c "$off" "$tmp/rec.data" >"$tmp/cut"
	"$MEMSZ" dump -i "$tmp/cut" >"$tmp/out" 2>"$tmp/err" ||
		fail "cut at boundary $off: exit non-zero: $(cat "$tmp/err")"
	[ "$(grep -c '^0x' "$tmp/out")" -eq "$i" ] ||
		fail "cut at boundary $off: not $i records"
	head -n $((i + 1)) "$tmp/all" | cmp -s - "$(grep -v '^# cut' \
		"$tmp/out" >"$tmp/recs"; echo "$tmp/recs")" ||
		fail "cut at boundary $off: records differ"
	# before the END record, the last line says the file was cut short
	tail -n 1 "$tmp/out" | grep -q "^# cut short at offset $off: no END" ||
		fail "cut at boundary $off: not said to be cut short"
	head -c $((off + 8)) "$tmp/rec.data" >"$tmp/cut"
	"$MEMSZ" dump -i "$tmp/cut" >"$tmp/out" 2>"$tmp/err" &&
		fail "cut inside the record at $off: exit 0"
	[ "$(grep -c '^0x' "$tmp/out")" -eq "$i" ] ||
		fail "cut inside the record at $off: not $i records"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
		fail "cut inside the record at $off: not one error line"
	grep -q "^memsz: '$tmp/cut': .* at offset $off (.*)\$" "$tmp/err" ||
		fail "cut at $off: wrong message: $(cat "$tmp/err")"
	i=$((i + 1))
done <"$tmp/offsets"
ok "cut at each of the $i record boundaries and inside each record"

# 3. not a memsz.data file; a newer version
printf 'hello, this is not a memsz.data file at all, really not. ok......' \
	>"$tmp/bad"
"$MEMSZ" dump -i "$tmp/bad" >/dev/null 2>"$tmp/err" && fail "bad magic: exit 0"
grep -q "^memsz: '$tmp/bad': not a memsz.data file" "$tmp/err" ||
	fail "bad magic: $(cat "$tmp/err")"
ok "not a memsz.data file: one error line"
{ head -c 8 "$tmp/rec.data"; printf '\011\000\000\000'
  tail -c +13 "$tmp/rec.data"; } >"$tmp/newer"
"$MEMSZ" dump -i "$tmp/newer" >/dev/null 2>"$tmp/err" && fail "newer: exit 0"
grep -q "newer memsz" "$tmp/err" || fail "newer: $(cat "$tmp/err")"
ok "a newer version: says so"
"$MEMSZ" dump -i "$tmp/none" >/dev/null 2>"$tmp/err" && fail "missing: exit 0"
grep -q "^memsz: cannot open '$tmp/none': No such file" "$tmp/err" ||
	fail "missing: $(cat "$tmp/err")"
ok "a missing file: cannot open"
finish
