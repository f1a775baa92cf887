#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-deb.sh [DIR]: the Debian package builds from the release tarball,
# lintian finds no error in it, and once installed it runs and has its man
# pages and completions. In DIR (default _build-deb-check): `make dist`,
# the tarball unpacked, `dpkg-buildpackage -us -uc -b` with
# DEB_BUILD_OPTIONS=nocheck (run-tests.sh runs the suite), `lintian
# --fail-on error`, then as root `apt-get install ./memsz_*.deb` and
# `memsz record -p` of a process, `memsz report`, `memsz size`, `man` of
# each page; the package is removed again if it was not installed before.
# Prints one "ok"/"not ok" line per check; exits 1 if one failed.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/_build-deb-check}
fail=0
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; fail=1; }

"$src/scripts/ensure-packages.sh" debhelper dpkg-dev fakeroot lintian \
	man-db
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
rm -rf "$dir"
mkdir -p "$dir/make-dist"
dir=$(cd "$dir" && pwd)
cd "$dir/make-dist"
"$src/configure" >configure.log
make dist >dist.log 2>&1 || { tail -20 dist.log; exit 1; }
tarball=$(ls memsz-*.tar.gz)
version=${tarball#memsz-}
version=${version%.tar.gz}
cd "$dir"
tar xzf "make-dist/$tarball"
cd "memsz-$version"
if DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b \
	>"$dir/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b"
else
	tail -40 "$dir/build.log"
	nok "dpkg-buildpackage -us -uc -b"
	exit 1
fi
cd "$dir"
deb=$(ls memsz_"$version"_*.deb)
ok "built $deb"

# lintian leaves Berkeley DB files (mldbm-elf-*) in its TMPDIR: ours, in
# $dir, removed with it
mkdir -p "$dir/tmp"
if TMPDIR="$dir/tmp" lintian --fail-on error --info ./*.changes \
	>lintian.log 2>&1; then
	ok "lintian: no error ($(grep -c '^[WIP]:' lintian.log) other tags)"
else
	nok "lintian: errors"
fi
sed 's/^/# lintian: /' lintian.log

installed_before=false
dpkg-query -W -f='${Status}' memsz 2>/dev/null | grep -q 'ok installed' &&
	installed_before=true
if apt-get -o DPkg::Lock::Timeout=900 install -y -qq "./$deb" \
	>install.log 2>&1; then
	ok "apt-get install ./$deb"
else
	tail -20 install.log
	nok "apt-get install ./$deb"
	exit 1
fi

m=/usr/bin/memsz
v=$($m --version)
case $v in
"memsz $version"*) ok "installed: $v" ;;
*) nok "installed memsz --version: $v" ;;
esac
sleep 60 &
pid=$!
# the forked shell becomes sleep at its exec: record only after that,
# or the snapshot is of the shell (polled, at most two minutes)
end=$(($(date +%s) + 120))
until [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = /usr/bin/sleep ]; do
	if [ "$(date +%s)" -ge "$end" ]; then
		nok "sleep $pid never ran /usr/bin/sleep"
		exit 1
	fi
	sleep 0.02
done
if $m record -p "$pid" --duration 0 -o rec.data >record.log 2>&1; then
	ok "memsz record -p"
else
	cat record.log
	nok "memsz record -p"
fi
kill "$pid" 2>/dev/null || :
wait "$pid" 2>/dev/null || :
if $m report -i rec.data --by files >report.out 2>&1 &&
	grep -q '/usr/bin/sleep' report.out && grep -q TOTAL report.out; then
	ok "memsz report: sleep's files"
else
	cat report.out
	nok "memsz report"
fi
if $m size /usr/bin/sleep >size.out 2>&1 && grep -q '\.text' size.out; then
	ok "memsz size"
else
	cat size.out
	nok "memsz size"
fi
for page in memsz memsz-size memsz-record memsz-report memsz-diff \
	memsz-dump memsz-data; do
	if MANWIDTH=80 man "$page" 2>/dev/null | grep -q .; then
		ok "man $page"
	else
		nok "man $page"
	fi
done
for f in /usr/share/bash-completion/completions/memsz \
	/usr/share/zsh/vendor-completions/_memsz \
	/usr/share/doc/memsz/copyright; do
	if [ -s "$f" ]; then ok "$f"; else nok "$f"; fi
done

if ! $installed_before; then
	apt-get -o DPkg::Lock::Timeout=900 purge -y -qq memsz \
		>>install.log 2>&1
fi
cd "$src"
[ "$fail" -eq 0 ] && rm -rf "$dir"
exit "$fail"
