#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build memsz and show it on a demo workload.
# On a fresh Debian 12 machine as root it first installs what it needs.
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake pkg-config libelf-dev libdw-dev \
libunwind-dev libpfm4-dev libcmocka-dev libzstd-dev libiberty-dev libdebuginfod-dev libzydis-dev \
python3 libc6-dbg \
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev liblzma-dev golang-go"
scripts/ensure-packages.sh $pkgs

autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p _build && cd _build
[ -f Makefile ] || ../configure >/dev/null
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

# The demo workload: python3 importing a few modules (libpython's code,
# sqlite's library, ...) and filling 30 MB of anonymous memory, recorded
# with a snapshot every 100 ms; the report picks the snapshot of highest RSS.
py=/usr/bin/python3
echo "== memsz record --interval 100 -- $py -c '...'"
./memsz record -o demo.data --interval 100 -- "$py" -c '
import json, sqlite3, decimal, time
x = bytearray(30_000_000)
x[::4096] = b"x" * len(x[::4096])
y = [str(i) for i in range(200000)]
time.sleep(0.5)'
echo
echo "== memsz report -i demo.data --snapshot peak --by files,sections -n 4"
./memsz report -i demo.data --snapshot peak --by files,sections -n 4
echo
echo "== memsz report -i demo.data --snapshot peak --by kinds"
./memsz report -i demo.data --snapshot peak --by kinds
echo
lib=/usr/lib/x86_64-linux-gnu/libc.so.6
echo "== memsz size --by sections,symbols -n 4 $lib   (on disk only)"
./memsz size --by sections,symbols -n 4 "$lib"
echo
echo "== memsz report -i demo.data --snapshot peak --by files,sections,symbols --format html > demo.html"
./memsz report -i demo.data --snapshot peak --by files,sections,symbols \
	--format html > demo.html
echo "open $(pwd)/demo.html in a browser (one file, works offline)"
