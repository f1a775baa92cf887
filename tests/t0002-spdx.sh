#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# memsz is GPL-2.0-or-later: every source, script and build file says so
# on its first lines (scripts/spdx.sh --check), and scripts/spdx.sh adds
# the line in each type's comment syntax, after a #! line, once.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
spdx=$top_srcdir/scripts/spdx.sh
ID='SPDX-License-Identifier: GPL-2.0-or-later'
# first2 FILE LINE1 LINE2: FILE's first two lines are these.
first2() {
	[ "$(sed -n 1p "$1")" = "$2" ] && [ "$(sed -n 2p "$1")" = "$3" ]
}

if sh "$spdx" --check "$top_srcdir" >"$T/missing" 2>"$T/err"; then
	ok "every source, script and build file has the license line"
else
	sed 's/^/# no license line: /' "$T/missing"
	nok "every source, script and build file has the license line"
fi
check "COPYING holds the GPL version 2" \
	first2 "$top_srcdir/COPYING" \
	'                    GNU GENERAL PUBLIC LICENSE' \
	'                       Version 2, June 1991'

# A tree of each kind of file, outside any git checkout: --check lists
# those without the line, then spdx.sh adds it.
s=$T/tree
mkdir -p "$s/man" "$s/rows" "$s/.ci"
printf '#include <stdio.h>\n' >"$s/a.c"
printf '#ifndef A_H\n' >"$s/a.h"
printf '#!/bin/sh\necho hi\n' >"$s/run.sh"
chmod 755 "$s/run.sh"
printf '#!/usr/bin/env python3\nprint(1)\n' >"$s/t.py"
printf 'AC_INIT([x], [1])\n' >"$s/configure.ac"
printf '.TH X 1\n' >"$s/man/x.1"
mkdir "$s/completion"
printf '#compdef x\n_x\n' >"$s/completion/_x"
printf 'int generated;\n' >"$s/rows/profile.pb-c.c"
printf '# readme\n' >"$s/README.md"
printf '%s\n' "// $ID" 'int done;' >"$s/done.c"
sh "$spdx" --check "$s" >"$T/list" 2>/dev/null
rc=$?
check "--check exits 1 when a file lacks the line" [ "$rc" -eq 1 ]
printf '%s\n' a.c a.h completion/_x configure.ac man/x.1 run.sh t.py \
	>"$T/want"
sort "$T/list" >"$T/got"
check "--check lists exactly the sources without the line" \
	cmp -s "$T/want" "$T/got"

sh "$spdx" "$s"
check "spdx.sh then leaves no file without the line" \
	sh "$spdx" --check "$s"
check "C source: a // line first" \
	[ "$(head -n 1 "$s/a.c")" = "// $ID" ]
check "header: a /* */ line first" \
	[ "$(head -n 1 "$s/a.h")" = "/* $ID */" ]
check "script: the #! line stays first, the license line second" \
	first2 "$s/run.sh" '#!/bin/sh' "# $ID"
check "script keeps its mode" [ -x "$s/run.sh" ]
check "zsh completion: #compdef stays first" \
	first2 "$s/completion/_x" '#compdef x' "# $ID"
check "configure.ac: a dnl line" \
	[ "$(head -n 1 "$s/configure.ac")" = "dnl $ID" ]
check "man page: a roff comment" \
	[ "$(head -n 1 "$s/man/x.1")" = ".\\\" $ID" ]
check "generated code and docs are left alone" \
	first2 "$s/rows/profile.pb-c.c" 'int generated;' ''
check "... README.md too" first2 "$s/README.md" '# readme' ''
cp -r "$s" "$T/before"
sh "$spdx" "$s"
check "running it again changes nothing" diff -r "$T/before" "$s"
finish
