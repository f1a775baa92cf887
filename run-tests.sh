#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build memsz and run its whole test suite (what CI runs, via .ci/run).
# On a fresh Debian 12 machine as root it first installs what it needs:
# every test runs all its checks there, so the skip count is 0. Tests that
# skip say why ("SKIP: ..." lines, repeated at the end).
set -eu
cd "$(dirname "$0")"

# What the tests need beyond the build:
#   elfutils     eu-readelf, eu-strip (test_ehframe, test_elf_debug)
#   binutils     readelf, nm, objcopy, c++filt, strip (most tests)
#   linux-perf   perf record/script, the ground truth of t2050
#   python3      the t*.py tests, t2100's allocating workload
#   clang llvm-14  bb-addr-map programs and llvm-readobj (test_bbaddrmap),
#                clang's foreign-target objects (test_elf_images)
#   g++          C++ fixtures (test_ehframe, t3010)
#   gcc-multilib -m32 fixtures (test_elf_*, test_ehframe, test_relocs, t1000,
#                t1181)
#   libc6-dbg    libc's debug file (test_elf_debug, t1100's libc acceptance,
#                t1182's MiniDebugInfo made from it)
#   nodejs       /usr/bin/node, one of t1000's big real files
#   util-linux mount  setpriv to run as nobody (t1001, t2090,
#                test_snapshot), tmpfs mounts for a full disk (t2095,
#                test_datafile_nospace)
#   procps       ps, kill
#   libprotobuf-c-dev protobuf-c-compiler zlib1g-dev  --format pprof (build)
#   libzstd-dev  PACKED sample records (build)
#   liblzma-dev  .gnu_debugdata (MiniDebugInfo) inflated with bounds
#                (build; libdw links liblzma already)
#   xz-utils     xz, to make MiniDebugInfo as Fedora does (t1180-t1182)
#   golang-go    go tool pprof, the ground truth of t3300
#   chromium     headless page loads of t3310's html report
#   libiberty-dev libzydis-dev libdebuginfod-dev  demangler, code->data
#                references (x86-64),
#                debuginfod client (build)
#   debuginfod   the real server t1200 starts on 127.0.0.1
#   dwz          dwz-compressed DWARF (t1106, t1305)
#   smem         the ground truth of t2320 (record -a)
#   clang-format t0004: the C sources keep .clang-format's layout
#   postgresql   the server t2140 records
#   default-jdk-headless  java and javac, the JVM t2111 records
#   bash-completion zsh  t1003's completion
#   debhelper dpkg-dev fakeroot lintian man-db  the release tarball's and
#                the Debian package's checks (scripts/check-dist.sh,
#                scripts/check-deb.sh)
pkgs="build-essential autoconf automake pkg-config libelf-dev libdw-dev \
libunwind-dev libpfm4-dev libcmocka-dev libzstd-dev libiberty-dev libdebuginfod-dev \
libzydis-dev elfutils binutils linux-perf python3 debuginfod clang llvm-14 \
libclang-rt-14-dev g++ gcc-multilib libc6-dbg nodejs util-linux mount procps \
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev liblzma-dev xz-utils golang-go chromium smem \
postgresql default-jdk-headless clang-format bash-completion zsh debhelper dpkg-dev \
fakeroot lintian man-db strace dwz"
scripts/ensure-packages.sh $pkgs

jobs=$(nproc 2>/dev/null || echo 2)
autoreconf -fi >/dev/null 2>&1 || autoreconf -fi

# check DIR TARGET CONFIGURE-ARGS...: a fresh build in DIR and its
# `make TARGET` (check, or fuzz-check: the fuzz targets' short runs).
total_pass=0 total_fail=0 total_skip=0 status=0 skips= failed=
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
	# each failed test with its failed checks and its last lines, printed
	# again at the very end: CI shows a long output's head and tail only
	for trs in "$dir"/tests/*.trs "$dir"/fuzz/*.trs; do
		grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" 2>/dev/null ||
			continue
		t=${trs%.trs}
		failed="$failed== failed: $t
$(grep -m 20 -E 'NOT OK|^not ok|Error|error:' "$t.log")
-- its last lines:
$(tail -n 12 "$t.log")
"
	done
	# each skipped test with its reasons
	for trs in "$dir"/tests/*.trs; do
		grep -q '^:test-result: SKIP' "$trs" 2>/dev/null || continue
		t=${trs%.trs}
		reasons=$(sed -n 's/^SKIP: //p' "$t.log" | paste -sd ';' -)
		skips="$skips$dir: ${t#"$dir"/}: ${reasons:-no reason given}
"
	done
}

# The suite runs twice: a plain build, and one with AddressSanitizer and
# UndefinedBehaviorSanitizer. Then each libFuzzer target runs for
# FUZZ_SECONDS (7) in a clang build (fuzz/, README.md "Fuzzing").
check _build check --enable-werror
check _build-san check --enable-werror --enable-sanitizers
check _build-fuzz fuzz-check CC=clang --enable-werror --enable-fuzzing

# step NAME CMD...: one check more in the summary, passed if CMD succeeds.
step() {
	echo "== $1"
	shift
	if "$@"; then
		total_pass=$((total_pass + 1))
	else
		total_fail=$((total_fail + 1))
		status=1
	fi
}
# What a user installs: the release tarball built and installed on its
# own, and the Debian package built from it, checked by lintian,
# installed and run (each a minute or two).
step "release tarball" scripts/check-dist.sh _build-dist
step "Debian package" scripts/check-deb.sh _build-deb-check
printf '%s' "$failed"
printf '%s' "$skips" | sed 's/^/SKIP: /'
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit "$status"
