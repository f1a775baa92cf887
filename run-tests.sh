#!/bin/sh
# Build memsz and run its whole test suite (what CI runs, via .ci/run).
# On a fresh Debian 12 machine as root it first installs what it needs.
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake pkg-config libelf-dev libdw-dev \
libunwind-dev libpfm4-dev libcmocka-dev elfutils binutils linux-perf \
python3 clang gcc-multilib libc6-dbg util-linux procps"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "run-tests.sh: installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
rm -rf _build && mkdir _build && cd _build
../configure --enable-werror >/dev/null
make -j"$jobs" >/dev/null
status=0
make -j"$jobs" check || status=$?
# One plain closing line from automake's summary.
pass=$(sed -n 's/^# PASS: *//p' test-suite.log 2>/dev/null | head -1)
fail=$(sed -n 's/^# FAIL: *//p' test-suite.log 2>/dev/null | head -1)
skip=$(sed -n 's/^# SKIP: *//p' test-suite.log 2>/dev/null | head -1)
err=$(sed -n 's/^# ERROR: *//p' test-suite.log 2>/dev/null | head -1)
[ "$status" -eq 0 ] || cat test-suite.log
echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
exit "$status"
