#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The C sources keep the checked-in .clang-format (kernel style: tabs, 80
# columns): clang-format changes nothing in any of them. A file that
# breaks the layout fails with the lines clang-format would change.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need clang-format clang-format

# sources FILE: the C files of the tree into FILE (git's list in a
# checkout, else every .c and .h outside the build and generated files)
sources() {
	if git -C "$top_srcdir" rev-parse --is-inside-work-tree \
		>/dev/null 2>&1; then
		git -C "$top_srcdir" ls-files '*.c' '*.h'
	else
		(cd "$top_srcdir" && find . -name '*.[ch]' ! -path './_build*' \
			! -name '*.pb-c.[ch]' ! -name config.h | sed 's|^\./||')
	fi >"$1"
}
sources "$T/files"
check "there are C sources to check" test -s "$T/files"
bad=0
while read -r f; do
	if ! (cd "$top_srcdir" && clang-format --style=file --dry-run \
		--Werror "$f") >"$T/out" 2>&1; then
		bad=$((bad + 1))
		head -20 "$T/out" | sed 's/^/# /'
	fi
done <"$T/files"
check "every C source is as clang-format lays it out ($bad are not)" \
	test "$bad" -eq 0

# the check can fail: a file laid out otherwise is found
printf 'int  f( void ){return 0;}\n' >"$T/x.c"
cp "$top_srcdir/.clang-format" "$T/"
check "a badly laid out file is found" \
	sh -c '! (cd "$1" && clang-format --style=file --dry-run --Werror x.c) \
		2>/dev/null' sh "$T"
finish
