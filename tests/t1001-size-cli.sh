#!/bin/sh
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
total=$($MEMSZ size --format csv --by files "$MEMSZ" "$MEMSZ" | awk -F, 'NR>1{s+=$2}END{print s}')
[ "$total" -eq $((2 * size)) ] && ok "two files add up" || nok "two files: $total"

finish
