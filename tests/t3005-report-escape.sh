#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t3005-report-escape.sh — names a process's owner chooses (its command
# name, its command line, its file names) reach no terminal and no
# spreadsheet raw: dump and every text format of report escape control
# characters (\xHH), csv and tsv neutralise a label that starts with =,
# +, - or @ (a leading ', quoted in csv).
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

# The launched command: /bin/sh under a name that starts a formula and
# holds ESC and BEL (so does its command name), given a formula and an
# escape sequence as arguments.
NAME=$(printf '=x\033]0;p\007w')
cp /bin/sh "$T/$NAME" || fail_all "cannot copy /bin/sh"
"$MEMSZ" record -o "$T/e.data" -- "$T/$NAME" -c 'sleep 0.2' \
	"=cmd|'/C calc'!A0" "$(printf '\033[31mred\a')" 2>"$T/err" ||
	fail_all "record failed: $(cat "$T/err")"

# raw FILE [ALLOWED...]: FILE holds a control byte other than a line feed
# and the ALLOWED byte values (9: tsv's tab).
raw() {
	python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
ok = {10} | {int(x) for x in sys.argv[2:]}
sys.exit(0 if any((c < 32 or c == 127) and c not in ok for c in b) else 1)
' "$@"
}

"$MEMSZ" dump -v -i "$T/e.data" >"$T/dump" 2>&1
check "dump: no raw control byte" eval '! raw "$T/dump"'
check "dump: the command name shown escaped" \
	grep -q 'COMM.*=x\\x1b\]0;p\\x07w' "$T/dump"
check "dump: the command line shown escaped" \
	grep -q 'CMDLINE.*\\x1b\[31mred\\x07' "$T/dump"

for fmt in table csv tsv folded json; do
	"$MEMSZ" report -i "$T/e.data" --by comms,files --format $fmt \
		>"$T/r.$fmt" 2>&1
	check "report $fmt: exit 0 ($?)" test $? -eq 0
	if [ $fmt = tsv ]; then
		check "report $fmt: no raw control byte" eval '! raw "$T/r.tsv" 9'
	else
		check "report $fmt: no raw control byte" eval '! raw "$T/r.$fmt"'
	fi
done
check "csv: the formula label is quoted behind a '" \
	grep -q "^\"'=x\\\\x1b\]0;p\\\\x07w\"," "$T/r.csv"
check "tsv: the formula label starts with a '" \
	grep -q "^'=x\\\\x1b\]0;p\\\\x07w	" "$T/r.tsv"
check "csv: no cell starts a formula" eval "! grep -qE '(^|,)[=+@-]' '$T/r.csv'"
finish
