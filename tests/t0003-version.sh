#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# memsz --version names the release and the commit the build was made
# from: `git describe` of a checkout, or what a release tarball recorded
# in .git-version.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

out=$($MEMSZ --version)
rel=$(sed -n 's/^AC_INIT(\[memsz\], \[\([^]]*\)\].*/\1/p' \
	"$top_srcdir/configure.ac")
echo "# $out"
case $out in
"memsz $rel" | "memsz $rel (git "*")") ok "--version names release $rel" ;;
*) nok "--version names release $rel" ;;
esac
check "-v says the same" [ "$($MEMSZ -v)" = "$out" ]
check "version says the same" [ "$($MEMSZ version)" = "$out" ]

want=$(sh "$top_srcdir/scripts/git-version.sh" "$top_srcdir") ||
	skip_all "the tree's commit is unknown (no git, no .git-version)"
# the build may be older than the tree's last change: compare the commit
want=${want%-dirty}
got=${out#*(git }
got=${got%)}
got=${got%-dirty}
check "--version names the commit $want" [ "$got" = "$want" ]
finish
