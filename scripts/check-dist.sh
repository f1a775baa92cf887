#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-dist.sh [DIR]: the release tarball builds and installs on its own.
# `make dist` in a fresh out-of-tree build (in DIR, default _build-dist),
# then from the unpacked tarball alone, made read-only as `make distcheck`
# does: configure out of tree, build, `make install DESTDIR=...`; the
# installed memsz must say the version and commit of this tree, every
# installed man page must format with `man -l`, the bash and zsh
# completions must be installed, and `make uninstall` must remove what
# install put there. The test suite is not run from the tarball (it is
# run-tests.sh's job; `make distcheck` would run it once more).
# Prints one "ok"/"not ok" line per check; exits 1 if one failed.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/_build-dist}
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2
fail=0
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; fail=1; }

[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
if [ -d "$dir" ]; then
	chmod -R u+w "$dir"
	rm -rf "$dir"
fi
mkdir -p "$dir/make-dist"
dir=$(cd "$dir" && pwd)
cd "$dir/make-dist"
"$src/configure" >configure.log
make -j"$jobs" dist >dist.log 2>&1 || { tail -20 dist.log; exit 1; }
tarball=$(ls memsz-*.tar.gz)
version=${tarball#memsz-}
version=${version%.tar.gz}
ok "make dist: $tarball"

# From the tarball alone: sources read-only, built out of tree.
cd "$dir"
tar xzf "make-dist/$tarball"
chmod -R a-w "memsz-$version"
mkdir build
cd build
if ../"memsz-$version"/configure --prefix=/usr >configure.log 2>&1 &&
	make -j"$jobs" >make.log 2>&1; then
	ok "the tarball configures and builds out of tree"
else
	tail -30 configure.log make.log
	nok "the tarball configures and builds out of tree"
	exit 1
fi
root=$dir/root
if make install DESTDIR="$root" >install.log 2>&1; then
	ok "make install DESTDIR=$root"
else
	tail -20 install.log
	nok "make install DESTDIR=$root"
	exit 1
fi

# The installed memsz names the version and commit of this tree.
got=$("$root/usr/bin/memsz" --version)
if want=$(sh "$src/scripts/git-version.sh" "$src"); then
	want="memsz $version (git $want)"
else
	want="memsz $version"
fi
if [ "$got" = "$want" ]; then
	ok "installed memsz --version: $got"
else
	nok "installed memsz --version: '$got', want '$want'"
fi

# Every man page the tarball installs formats without a warning.
pages=$(find "$root/usr/share/man" -type f | sort)
n=0
for p in $pages; do
	n=$((n + 1))
	if MANWIDTH=80 man -l --warnings "$p" >man.out 2>man.err &&
		[ -s man.out ] && [ ! -s man.err ]; then
		ok "man -l ${p#"$root"}"
	else
		cat man.err
		nok "man -l ${p#"$root"}"
	fi
done
if [ "$n" -ge 7 ]; then
	ok "$n man pages installed"
else
	nok "$n man pages installed (want memsz, its commands', data)"
fi

for f in usr/share/bash-completion/completions/memsz \
	usr/share/zsh/site-functions/_memsz; do
	if [ -s "$root/$f" ]; then
		ok "/$f installed"
	else
		nok "/$f installed"
	fi
done

make uninstall DESTDIR="$root" >uninstall.log 2>&1
left=$(find "$root" -type f)
if [ -z "$left" ]; then
	ok "make uninstall removes every file"
else
	nok "make uninstall left: $left"
fi

cd "$src"
chmod -R u+w "$dir"
[ "$fail" -eq 0 ] && rm -rf "$dir"
exit "$fail"
