#!/bin/sh
# Build memsz and run its whole test suite (what CI runs, via .ci/run).
# On a fresh Debian 12 machine as root it first installs what it needs.
set -eu
cd "$(dirname "$0")"

pkgs="build-essential autoconf automake pkg-config libelf-dev libdw-dev \
libunwind-dev libpfm4-dev libcmocka-dev libzstd-dev elfutils binutils \
linux-perf python3 clang llvm-14 libclang-rt-14-dev g++ gcc-multilib \
libc6-dbg util-linux procps libprotobuf-c-dev protobuf-c-compiler \
zlib1g-dev golang-go chromium nodejs"
scripts/ensure-packages.sh $pkgs

jobs=$(nproc 2>/dev/null || echo 2)
autoreconf -fi >/dev/null 2>&1 || autoreconf -fi

# check DIR TARGET CONFIGURE-ARGS...: a fresh build in DIR and its
# `make TARGET` (check, or fuzz-check: the fuzz targets' short runs).
total_pass=0 total_fail=0 total_skip=0 status=0
check() {
	dir=$1 target=$2
	shift 2
	rm -rf "$dir" && mkdir "$dir"
	(cd "$dir" && ../configure "$@" >/dev/null && make -j"$jobs" >/dev/null)
	rc=0
	(cd "$dir" && make -j"$jobs" "$target") || rc=$?
	log="$dir/test-suite.log"
	p=$(sed -n 's/^# PASS: *//p' "$log" 2>/dev/null | head -1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" 2>/dev/null | head -1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" 2>/dev/null | head -1)
	s=$(sed -n 's/^# SKIP: *//p' "$log" 2>/dev/null | head -1)
	if [ "$rc" -ne 0 ]; then
		cat "$log" 2>/dev/null
		status=1
		[ -n "$f$e" ] || f=1
	fi
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-0} + ${e:-0}))
	total_skip=$((total_skip + ${s:-0}))
}

# The suite runs twice: a plain build, and one with AddressSanitizer and
# UndefinedBehaviorSanitizer. Then each libFuzzer target runs for
# FUZZ_SECONDS (15) in a clang build (fuzz/, README.md "Fuzzing").
check _build check --enable-werror
check _build-san check --enable-werror --enable-sanitizers
check _build-fuzz fuzz-check CC=clang --enable-fuzzing
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit "$status"
