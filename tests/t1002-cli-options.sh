#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every command's options come from one table (builtin/options.h): a bad
# option is one line and exit 129 in every command, --help is `memsz help
# CMD`, and every long option of a command's table is in its --help and
# accepted.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
tmp=$T
src=$top_srcdir/builtin

# table_longs CMD: the long names of the rows of CMD's table, read from
# its source: rows written out, and the rows of the VIEW_ROW_* macros of
# view.h it names.
table_longs() {
	sed -n "/^static const struct opt $1_opts\[\] = {/,/OPT_END/p" \
		"$src/cmd_$1.c" >"$tmp/rows"
	macros=$(grep -o 'VIEW_ROW_[A-Z_]*' "$tmp/rows" | sort -u)
	for m in $macros; do
		sed -n "/^#define $m\b/,/[^\\\\]\$/p" "$src/view.h"
	done >>"$tmp/rows"
	grep -o '"[a-z][a-z-]*", OPT_' "$tmp/rows" | cut -d'"' -f2 | sort -u
}

for cmd in size report diff dump record; do
	# one stderr line, nothing on stdout, exit 129
	for bad in --bogus -Z; do
		$MEMSZ $cmd $bad >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ "$rc" -eq 129 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
			[ ! -s "$tmp/out" ] &&
			grep -q "unknown option '$bad'; see 'memsz help $cmd'" \
				"$tmp/err" &&
			ok "$cmd $bad: one line, exit 129" ||
			nok "$cmd $bad: rc=$rc, $(wc -l <"$tmp/err") lines"
	done
	$MEMSZ help $cmd >"$tmp/h1" 2>&1
	$MEMSZ $cmd --help >"$tmp/h2" 2>&1 &&
		cmp -s "$tmp/h1" "$tmp/h2" && [ -s "$tmp/h1" ] &&
		ok "memsz $cmd --help == memsz help $cmd" ||
		nok "memsz $cmd --help differs from memsz help $cmd"
	$MEMSZ $cmd -h >"$tmp/h2" 2>&1 && cmp -s "$tmp/h1" "$tmp/h2" &&
		ok "memsz $cmd -h == memsz help $cmd" ||
		nok "memsz $cmd -h differs from memsz help $cmd"
	longs=$(table_longs $cmd)
	[ "$(echo "$longs" | wc -w)" -ge 2 ] &&
		ok "$cmd: its table read from its source" ||
		nok "$cmd: no table read from $src/cmd_$cmd.c"
	# the long options of the help's option list (not its synopsis)
	listed=$(grep -o '^    \(-[a-zA-Z], \)\?--[a-z][a-z-]*' "$tmp/h1" |
		 sed 's/.*--//')
	missing=
	for l in $longs; do
		echo "$listed" | grep -qx -- "$l" || missing="$missing --$l"
	done
	[ -z "$missing" ] && ok "$cmd: every long option is in --help" ||
		nok "$cmd: not in --help:$missing"
	# each option of the help's list is one the parser knows (a bad
	# option after it stops the command before it does anything)
	unknown=
	for l in $listed; do
		$MEMSZ $cmd --$l --zz-bogus >/dev/null 2>"$tmp/err" </dev/null
		grep -q "unknown option '--$l'" "$tmp/err" &&
			unknown="$unknown --$l"
	done
	[ -z "$unknown" ] && ok "$cmd: every option of --help is accepted" ||
		nok "$cmd: --help lists unknown options:$unknown"
done

# a missing value: one line naming the option, exit 129
for cmd_opt in "size --by" "report -i" "diff --snapshot" "dump -i" \
	"record -o"; do
	$MEMSZ $cmd_opt >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 129 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "option '${cmd_opt#* }' needs a value" "$tmp/err" &&
		ok "$cmd_opt without its value: one line, exit 129" ||
		nok "$cmd_opt without its value: rc=$rc"
done

# in json mode the line is the JSON error on stdout
for cmd in size report diff; do
	$MEMSZ $cmd --bogus --format json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 129 ] && [ ! -s "$tmp/err" ] &&
		grep -q '^{"error":"unknown option' "$tmp/out" &&
		ok "$cmd --bogus --format json: a JSON error, exit 129" ||
		nok "$cmd --bogus --format json: rc=$rc"
done

# a launched command's options are its own
$MEMSZ record -o "$tmp/r.data" --bogus-cmd 2>"$tmp/err"
grep -q "unknown option '--bogus-cmd'" "$tmp/err" &&
	ok "record: an option before the command is memsz's" ||
	nok "record: --bogus-cmd not refused"
$MEMSZ record -o "$tmp/r.data" -- true --bogus >/dev/null 2>"$tmp/err"
! grep -q "unknown option" "$tmp/err" &&
	ok "record: options after -- are the command's" ||
	nok "record: took the command's option as its own"
finish
