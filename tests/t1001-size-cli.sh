#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# memsz's command line and `memsz size` on good and bad input: exit codes,
# one-line errors naming the file, help texts, output formats.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
tmp=$T

$MEMSZ --version | grep -q '^memsz [0-9]' && ok "--version" || nok "--version"
$MEMSZ --help | grep -q 'size' && ok "--help lists commands" || nok "--help"
$MEMSZ help size >"$tmp/h1" && $MEMSZ size --help >"$tmp/h2" &&
	cmp -s "$tmp/h1" "$tmp/h2" && grep -q -- '--by' "$tmp/h1" &&
	ok "memsz size --help == memsz help size" || nok "help size"
# --help after other options prints the same usage as `memsz help CMD`
for cmd_opt in "size -n 3" "report -n 3" "record -o $tmp/x.data" "dump -v"; do
	cmd=${cmd_opt%% *}
	$MEMSZ help "$cmd" >"$tmp/h1" 2>&1
	$MEMSZ $cmd_opt --help >"$tmp/h2" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/h1" "$tmp/h2" &&
		ok "memsz $cmd_opt --help == memsz help $cmd" ||
		nok "memsz $cmd_opt --help (rc=$rc)"
done
expect_error "unknown command names the valid ones" "Commands are:.*size" \
	$MEMSZ frobnicate
# expect_rc NAME RC CMD...: exit status exactly RC
expect_rc() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want" ] && ok "$name" || nok "$name (rc=$rc, want $want)"
}
expect_rc "unknown command: exit 129 (as memsz(1) says)" 129 $MEMSZ frobnicate
expect_rc "help for an unknown command: exit 129" 129 $MEMSZ help frobnicate
expect_rc "no command: exit 129" 129 $MEMSZ
expect_json_error "json: unknown command is a JSON error, exit 129" 129 . \
	$MEMSZ frobnicate --format json
expect_json_error "json: unknown option before --format, exit 129" 129 . \
	$MEMSZ size --bogus --format json "$MEMSZ"
expect_json_error "json: unknown key, exit 129" 129 . \
	$MEMSZ size --format=json --by bogus "$MEMSZ"
expect_json_error "json: bad -n, exit 129" 129 \
	. $MEMSZ size --format json -n x "$MEMSZ"
expect_json_error "json: option without its value, exit 129" 129 . \
	$MEMSZ size "$MEMSZ" --format json --by
expect_json_error "json: no FILE, exit 129" 129 . $MEMSZ size --format json
expect_json_error "json: unknown field, exit 129" 129 . \
	$MEMSZ size --format json --fields rss "$MEMSZ"
expect_json_error "json: missing file, exit 1" 1 \
	. $MEMSZ size --format json "$tmp/nope"
expect_error "unknown option: one line, 129" "unknown option '--bogus'" \
	$MEMSZ size --bogus "$MEMSZ"
expect_error "size has no rss field" "unknown or repeated field 'rss'" \
	$MEMSZ size --fields rss "$MEMSZ"
expect_error "--filter with an unknown key" "unknown key 'flies'" \
	$MEMSZ size --filter flies=x "$MEMSZ"
expect_error "--filter key not in --by" "key 'symbols' is not in --by" \
	$MEMSZ size --filter symbols=x "$MEMSZ"
expect_error "bad --width" "--width wants a number" \
	$MEMSZ size --width wide "$MEMSZ"
expect_error "missing file" "'$tmp/nope': No such file" $MEMSZ size "$tmp/nope"
expect_error "directory" "'$tmp': Is a directory" $MEMSZ size "$tmp"
echo "hello, not an ELF" >"$tmp/text"
expect_error "not an ELF" "'$tmp/text': not an ELF file" $MEMSZ size "$tmp/text"
: >"$tmp/empty"
expect_error "empty file" "'$tmp/empty': " $MEMSZ size "$tmp/empty"
expect_error "unknown key" "unknown or repeated key 'bogus'" \
	$MEMSZ size --by bogus "$MEMSZ"
expect_error "repeated key" "unknown or repeated key 'sections'" \
	$MEMSZ size --by sections,sections "$MEMSZ"
expect_error "bad format" "unknown format 'xml'" $MEMSZ size --format xml "$MEMSZ"
expect_error "bad -n" "-n wants a number" $MEMSZ size -n lots "$MEMSZ"
expect_error "a report-only key" "unknown or repeated key 'pids'" \
	$MEMSZ size --by sections,pids "$MEMSZ"
expect_error "bad --sort" "cannot sort by 'rss' (columns: file, vm; orders: name, both)" \
	$MEMSZ size --sort rss "$MEMSZ"

# --list-keys: one line per key, the same keys --help lists, each of them
# accepted by --by and summing to the file size.
$MEMSZ size --list-keys >"$tmp/keys"
listed=$(cut -d' ' -f1 "$tmp/keys" | tr '\n' ' ')
helped=$($MEMSZ size --help | sed -n '/--by KEY.*keys,/{n;p;}' | tr -d ',' |
	sed 's/^ *//')
fsize=$(stat -c %s "$MEMSZ")
bad=""
for k in $listed; do
	t=$($MEMSZ size --by "$k" --format csv "$MEMSZ" 2>/dev/null |
		csv_sum - file_size)
	[ "$t" = "$fsize" ] || bad="$bad $k($t)"
done
[ "$listed" = "$helped " ] && [ "$(wc -l <"$tmp/keys")" -eq 10 ] &&
	[ -z "$bad" ] && ok "size --list-keys: 10 keys, as --help, each sums to the file" ||
	nok "size --list-keys (listed '$listed', help '$helped', bad:$bad)"

# A FIFO is refused at once, never opened for reading and waited on:
# given directly, and named by a .gnu_debuglink. timeout(1) only guards
# against that hang (exit 124); nothing here depends on how long it takes.
mkfifo "$tmp/fifo"
expect_error "fifo" "'$tmp/fifo': not an ELF file" \
	timeout 120 $MEMSZ size "$tmp/fifo"
mkdir "$tmp/fl"
objcopy --only-keep-debug "$MEMSZ" "$tmp/fl/m.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$tmp/fl/m.debug" \
		"$MEMSZ" "$tmp/fl/m" && rm "$tmp/fl/m.debug" &&
	mkfifo "$tmp/fl/m.debug"
timeout 120 $MEMSZ size --by symbols --debug-root "$tmp/fl" "$tmp/fl/m" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] &&
	grep -q "debug file '$tmp/fl/m.debug' rejected: not an ELF file" "$tmp/out" &&
	ok "debuglink naming a fifo: refused with a note" ||
	nok "debuglink naming a fifo (rc=$rc, $(cat "$tmp/err"))"

# A .gnu_debuglink candidate is read whole for its CRC (an image without
# a build-id): one larger than 64 GiB, or past 1 GiB and mostly holes (a
# sparse file reads as zeros for hours at 16 TiB), is refused unread with
# a note saying why. The same candidate whole is taken first.
mkdir "$tmp/sp"
printf 'int sparse_f(int x) { return x * 3; }\nint main(int c, char **v) { (void)v; return sparse_f(c); }\n' >"$tmp/sp/m.c"
gcc -g -O1 -Wl,--build-id=none -o "$tmp/sp/full" "$tmp/sp/m.c" &&
	objcopy --only-keep-debug "$tmp/sp/full" "$tmp/sp/m.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$tmp/sp/m.debug" \
		"$tmp/sp/full" "$tmp/sp/m"
$MEMSZ size --by symbols --debug-root "$tmp/sp" "$tmp/sp/m" \
	>"$tmp/out" 2>"$tmp/err"
grep -q "symbols from debug file '$tmp/sp/m.debug'" "$tmp/out" &&
	ok "debuglink without a build-id: the debug file is taken (CRC)" ||
	nok "debuglink without a build-id ($(cat "$tmp/out" "$tmp/err" | tail -3))"
for sparse in "8G:mostly holes (a sparse file)" "1T:larger than 64 GiB"; do
	truncate -s "${sparse%%:*}" "$tmp/sp/m.debug" || continue
	timeout 120 $MEMSZ size --by symbols --debug-root "$tmp/sp" \
		"$tmp/sp/m" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] &&
		grep -q "debug file '$tmp/sp/m.debug' rejected: ${sparse#*:}: its CRC was not read" "$tmp/out" &&
		ok "debuglink candidate of ${sparse%%:*}: refused unread, with a note" ||
		nok "debuglink candidate of ${sparse%%:*} (rc=$rc, $(grep rejected "$tmp/out"; cat "$tmp/err"))"
done
rm -rf "$tmp/sp"

# Two PT_LOADs overlapping in VM: a one-line error, not a wrong VM total.
python3 - "$MEMSZ" "$tmp/overlap" <<'EOF_PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
assert b[4] == 2 and b[5] == 1  # ELF64 little-endian
phoff, = struct.unpack_from("<Q", b, 32)
phnum, = struct.unpack_from("<H", b, 56)
loads = [phoff + 56 * i for i in range(phnum)
         if struct.unpack_from("<I", b, phoff + 56 * i)[0] == 1]
first, = struct.unpack_from("<Q", b, loads[0] + 16)
struct.pack_into("<Q", b, loads[1] + 16, first)
open(sys.argv[2], "wb").write(b)
EOF_PY
expect_error "overlapping PT_LOADs" "'$tmp/overlap': corrupt program header table" \
	$MEMSZ size "$tmp/overlap"

# Truncations of a real ELF at the header boundaries and a sweep of offsets:
# each is a clean one-line error or a valid report, never a crash.
cp "$MEMSZ" "$tmp/elf"
size=$(stat -c %s "$tmp/elf")
crashes=0
for cut in 0 1 4 16 52 63 64 65 120 200 4096 8192 65536 $((size / 2)) \
	   $((size - 4096)) $((size - 1)); do
	head -c "$cut" "$tmp/elf" >"$tmp/cut"
	$MEMSZ size --by sections,symbols "$tmp/cut" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ge 128 ] || { [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; }; then
		crashes=$((crashes + 1))
		echo "# cut at $cut: rc=$rc $(cat "$tmp/err")"
	fi
done
[ "$crashes" -eq 0 ] && ok "truncated ELF files: no crash, one line" ||
	nok "truncated ELF files: $crashes bad exits"

# No permission: root reads anything, so drop to nobody.
if [ "$(id -u)" -ne 0 ]; then
	skip "no permission: reading as nobody needs root"
elif ! command -v setpriv >/dev/null; then
	skip "no permission: no setpriv (util-linux)"
else
	cp "$tmp/elf" "$tmp/secret" && chmod 600 "$tmp/secret" && chmod 755 "$tmp"
	expect_error "no permission" "'$tmp/secret': Permission denied" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		$MEMSZ size "$tmp/secret"
fi

# Formats.
$MEMSZ size --format json --by sections,symbols -n 3 "$MEMSZ" >"$tmp/j" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["rows"]' "$tmp/j" &&
	ok "json parses" || nok "json parses"
$MEMSZ size --format csv -n 0 "$MEMSZ" | head -1 | grep -q '^sections,file_size,vm_size$' &&
	ok "csv header" || nok "csv header"
$MEMSZ size --format tsv -n 0 "$MEMSZ" | head -1 | grep -q "^sections	file_size	vm_size$" &&
	ok "tsv header" || nok "tsv header"
$MEMSZ size -n 3 "$MEMSZ" >"$tmp/t" && grep -q '\[[0-9]* others\]' "$tmp/t" &&
	grep -q 'TOTAL' "$tmp/t" && ok "table folds into [N others] and has TOTAL" ||
	nok "table -n"
fsum=$($MEMSZ size --format folded --by sections,symbols -n 0 "$MEMSZ" | awk '{s+=$NF}END{print s}')
[ "$fsum" -eq "$size" ] && ok "folded lines sum to the file size" ||
	nok "folded: $fsum != $size"
cp "$MEMSZ" "$tmp/copy"
total=$($MEMSZ size --format csv --by files "$MEMSZ" "$tmp/copy" | csv_sum - file_size)
[ "$total" -eq $((2 * size)) ] && ok "two files add up" || nok "two files: $total"

# --fields: chosen columns in order, in every format.
$MEMSZ size --format csv -n 0 --fields vm,file "$MEMSZ" | head -1 |
	grep -q '^sections,vm_size,file_size$' && ok "csv --fields vm,file" ||
	nok "csv --fields vm,file"
$MEMSZ size --format tsv -n 0 -F vm "$MEMSZ" | head -1 |
	grep -q "^sections	vm_size$" && ok "tsv -F vm" || nok "tsv -F vm"
$MEMSZ size --format json -F vm,file "$MEMSZ" >"$tmp/j" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["columns"] == ["vm_size", "file_size"], d["columns"]
assert all([k for k in r if k in ("vm_size", "file_size")] ==
           ["vm_size", "file_size"] and len(r) == 3 + ("others" in r)
           for r in d["rows"]), d["rows"]' \
	"$tmp/j" && ok "json -F vm,file: columns and row fields in order" ||
	nok "json -F vm,file"
vmsum=$($MEMSZ size --format csv -n 0 "$MEMSZ" | csv_sum - vm_size)
fvsum=$($MEMSZ size --format folded -F vm -n 0 "$MEMSZ" |
	awk '{ s += $NF } END { print s }')
[ "$fvsum" -eq "$vmsum" ] && ok "folded -F vm: the VM bytes ($vmsum)" ||
	nok "folded -F vm: $fvsum != $vmsum"
$MEMSZ size -F vm,file "$MEMSZ" | head -1 | grep -q 'VM SIZE  *FILE SIZE' &&
	ok "table -F vm,file: VM SIZE first" || nok "table -F vm,file"

# --filter KEY=REGEX and --exclude against readelf's section sizes.
# section_size REGEX: bytes of the sections whose name matches, per readelf
section_size() {
	readelf -W -S "$MEMSZ" | python3 -c 'import re, sys
s = 0
for line in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+(\S+)", line)
    if m and m.group(2) != "NOBITS" and re.search(sys.argv[1], m.group(1)):
        s += int(m.group(3), 16)
print(s)' "$1"
}
text=$(section_size '^\.text$')
$MEMSZ size --by sections,symbols -n 0 --format csv \
	--filter 'sections=^\.text$' "$MEMSZ" >"$tmp/f.csv"
fsec=$(csv_col "$tmp/f.csv" sections | grep -vxF .text | sort -u)
fsum=$(csv_sum "$tmp/f.csv" file_size)
[ -z "$fsec" ] && [ "$fsum" = "$text" ] &&
	ok "--filter sections=^\.text\$: only .text, its readelf size $text" ||
	nok "--filter sections: sections '$fsec', $fsum != $text"
debug=$(section_size '^\.debug')
esum=$($MEMSZ size --by sections -n 0 --format csv \
	--exclude 'sections=^\.debug' "$MEMSZ" | csv_sum - file_size)
[ "$debug" -gt 0 ] && [ "$esum" -eq $((size - debug)) ] &&
	ok "--exclude sections=^\.debug: the file less its .debug sections" ||
	nok "--exclude: $esum != $size - $debug"
$MEMSZ size --by sections,symbols -n 0 --format csv \
	--filter 'sections=^\.text$' --exclude 'symbols=^main$' "$MEMSZ" \
	>"$tmp/esym.csv"
esyms=$(csv_col "$tmp/esym.csv" symbols) || esyms=
esym=$(printf '%s\n' "$esyms" | grep -cxF main)
$MEMSZ size --by sections,symbols -n 0 --format csv \
	--filter 'sections=^\.text$' --filter 'symbols=^main$' "$MEMSZ" \
	>"$tmp/fsym.csv"
fsym=$(csv_col "$tmp/fsym.csv" sections),$(csv_col "$tmp/fsym.csv" symbols)
[ -n "$esyms" ] && [ "$esym" -eq 0 ] && [ "$fsym" = ".text,main" ] &&
	ok "filters on two keys AND together; --exclude drops" ||
	nok "two keys: '$fsym', excluded main rows: $esym"

# The table's width: a long path is cut in the middle to fit; csv never.
long="$tmp/a_file_name_long_enough_that_it_cannot_fit_in_a_narrow_table.elf"
cp "$MEMSZ" "$long"
COLUMNS=60 $MEMSZ size --by files,sections "$long" >"$tmp/t60"
wide=$(sed '/TOTAL$/q' "$tmp/t60" | python3 -c 'import sys
print(max(len(l.rstrip("\n")) for l in sys.stdin))')
[ "$wide" -le 60 ] && python3 -c 'import sys
path = sys.argv[2]
cut = [l.split("   ")[-1].strip() for l in open(sys.argv[1])
       if "\u2026" in l and l.rstrip().endswith(".elf")]
assert cut, "no cut label"
h, t = cut[0].split("\u2026")
assert path.startswith(h) and path.endswith(t) and len(h) > 5, cut' \
	"$tmp/t60" "$long" &&
	ok "COLUMNS=60: lines fit ($wide), the path cut in the middle" ||
	nok "COLUMNS=60: widest $wide"
unset COLUMNS
$MEMSZ size --by files,sections --width 60 "$long" | cmp -s - "$tmp/t60" &&
	ok "--width 60 is COLUMNS=60" || nok "--width 60"
$MEMSZ size --by files,sections --width 0 "$long" | grep -q "^ .*   $long\$" &&
	ok "--width 0: whole labels" || nok "--width 0"
$MEMSZ size --by files,sections --format csv --width 20 "$long" |
	grep -q "^$long," && ok "csv: whole labels whatever the width" ||
	nok "csv cut a label"
# widths in characters (python), not bytes: a cut label holds a 3-byte "\u2026"
w=$($MEMSZ size --by files "$long" | sed '/TOTAL$/q' | python3 -c 'import sys
print(max(len(l.rstrip("\n")) for l in sys.stdin))')
[ "$w" -le 120 ] && ok "COLUMNS unset: the table fits 120 columns ($w)" ||
	nok "120 columns: widest $w"

# The footer: one line per kind with a count; -v in full; nothing about a
# file the filter left nothing of.
$MEMSZ size --by files,symbols "$MEMSZ" "$long" >"$tmp/t2"
grep -q '^2 files have bytes under fallback labels: memsz, a_file_name' \
	"$tmp/t2" && [ "$(grep -c 'under fallback labels' "$tmp/t2")" -eq 1 ] &&
	ok "footer: one line for two files' fallback notes" ||
	nok "grouped footer: $(sed -n '/TOTAL$/,$p' "$tmp/t2")"
$MEMSZ size -v --by files,symbols "$MEMSZ" "$long" >"$tmp/t2v"
[ "$(grep -c ': symbols: .* under fallback labels' "$tmp/t2v")" -eq 2 ] &&
	ok "-v: each file's note in full" || nok "-v footer"
$MEMSZ size --by files,symbols --filter 'files=elf$' "$MEMSZ" "$long" \
	>"$tmp/tf"
! grep -q "^$MEMSZ:" "$tmp/tf" && grep -q "^$long: symbols:" "$tmp/tf" &&
	ok "--filter files=: no note about the file filtered out" ||
	nok "--filter notes: $(sed -n '/TOTAL$/,$p' "$tmp/tf")"

finish
