#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# spdx.sh [--check] [DIR]: put the line
#     SPDX-License-Identifier: GPL-2.0-or-later
# at the top of every source, script and build file of the memsz tree in
# DIR (default: the tree this script is in), in the comment syntax of the
# file's type (the table in style_of), after a first line that must stay
# first (#!, zsh's #compdef, roff's '\" preprocessor line). A file that
# has the line in its first three lines is left alone, so running it twice
# changes nothing.
# --check changes nothing: it lists the files without the line and exits 1
# if there is one (tests/t0002-spdx.sh runs it in `make check`).
#
# The files are git's (tracked and untracked, less what .gitignore
# ignores) in a checkout, else every file under DIR but build output (an
# unpacked release tarball).
set -eu

ID='SPDX-License-Identifier: GPL-2.0-or-later'
check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi
root=${1:-$(dirname "$0")/..}
cd "$root"

# style_of PATH: the comment style of a file (c, cblock, hash, dnl, roff),
# or nothing for a file that carries no license line (data, docs, code
# the build generates, first row).
style_of() {
	case $1 in
	*.pb-c.c | *.pb-c.h | rows/html_assets.c | builtin/version.h) ;;
	build-aux/* | debian/memsz/* | debian/tmp/* | debian/.debhelper/*) ;;
	*.c | *.cc | *.proto | *.js) echo c ;;
	*.h | *.css) echo cblock ;;
	*.sh | *.py | *.mk | */Makefile.am | Makefile.am) echo hash ;;
	.ci/run | debian/rules | completion/*) echo hash ;;
	configure.ac) echo dnl ;;
	man/*.[1-8]) echo roff ;;
	esac
}

list_files() {
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -type f ! -path './.git/*' ! -path './_b*' \
			! -path '*/autom4te.cache/*' | sed 's|^\./||'
	fi
}

# line_for STYLE: the license line in that comment syntax.
line_for() {
	case $1 in
	c) echo "// $ID" ;;
	cblock) echo "/* $ID */" ;;
	hash) echo "# $ID" ;;
	dnl) echo "dnl $ID" ;;
	roff) echo ".\\\" $ID" ;;
	esac
}

# add FILE STYLE: insert the line, after a first line that must stay
# first; the file keeps its mode.
add() {
	tmp="$1.spdx.$$"
	line=$(line_for "$2")
	first=$(head -n 1 "$1")
	case $first in
	'#!'* | '#compdef'* | "'\\\""*)
		{ printf '%s\n' "$first"; printf '%s\n' "$line"; \
		  tail -n +2 "$1"; } > "$tmp" ;;
	*)
		{ printf '%s\n' "$line"; cat "$1"; } > "$tmp" ;;
	esac
	chmod "$(stat -c %a "$1")" "$tmp"
	mv "$tmp" "$1"
}

missing=0
for f in $(list_files); do
	[ -f "$f" ] || continue # deleted but still in the index
	style=$(style_of "$f")
	[ -n "$style" ] || continue
	head -n 3 "$f" | grep -q "$ID" && continue
	if $check; then
		echo "$f"
		missing=$((missing + 1))
	else
		add "$f" "$style"
	fi
done
if $check && [ "$missing" -gt 0 ]; then
	echo "spdx.sh: $missing files lack '$ID' (scripts/spdx.sh adds it)" >&2
	exit 1
fi
exit 0
