#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# git-version.sh SRCDIR: print the commit the memsz sources in SRCDIR are,
# for `memsz --version`: `git describe` of a git checkout ("636f704a1b2c",
# "v0.2.0-3-g636f704a1b2c", "-dirty" when changed), or in an unpacked
# release tarball the line `make dist` recorded in SRCDIR/.git-version.
# Exits 1, printing nothing, when it cannot tell (no git, a checkout git
# will not read): the build then keeps the version.h it has.
set -u
src=${1:-.}
if [ -e "$src/.git" ]; then
	git -C "$src" describe --tags --always --dirty --abbrev=12 \
		2>/dev/null || exit 1
elif [ -f "$src/.git-version" ]; then
	cat "$src/.git-version"
else
	exit 1
fi
