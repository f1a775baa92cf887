#!/bin/sh
# Build memsz and show it on a demo workload.
# On a fresh Debian 12 machine as root it first installs what it needs.
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake pkg-config libelf-dev libdw-dev \
libunwind-dev libpfm4-dev libcmocka-dev python3"
scripts/ensure-packages.sh $pkgs

autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p _build && cd _build
[ -f Makefile ] || ../configure >/dev/null
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

echo "== memsz size --by segments,sections -n 6 ./memsz"
./memsz size --by segments,sections -n 6 ./memsz
echo
lib=/usr/lib/x86_64-linux-gnu/libc.so.6
echo "== memsz size --by sections,symbols -n 4 $lib"
./memsz size --by sections,symbols -n 4 "$lib"
