#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz/smoke.sh TARGET — run fuzz/fuzz_TARGET for FUZZ_SECONDS (7) over
# its seed corpus (made by `make fuzz`) and the corpus grown by earlier
# runs; pass if it found no crash, undefined behaviour, leak or timeout.
# Prints the executions and executions per second. The target's own
# output is closed (-close_fd_mask=3); libFuzzer keeps a copy of stderr
# for its own and the sanitizers' reports, so a crash is in the log.
set -u
: "${top_builddir:?}" "${top_srcdir:?}"
t=$1
secs=${FUZZ_SECONDS:-7}
bin=$top_builddir/fuzz/fuzz_$t
seeds=$top_builddir/fuzz/seeds
# the ELF readers share the ELF seeds and dictionary
case $t in
elfhdr | elfsym | dwarf | relocs) kind=elf ;;
*) kind=$t ;;
esac
if [ ! -x "$bin" ] || [ ! -d "$seeds/$kind" ]; then
	echo "fuzz: no $bin or seeds: run make fuzz (configure --enable-fuzzing CC=clang)"
	exit 1
fi
corpus=$top_builddir/fuzz/corpus/$t
mkdir -p "$corpus"
dict=
case $kind in
elf | dwp) dict=-dict=$top_srcdir/fuzz/elf.dict ;;
datafile) dict=-dict=$top_srcdir/fuzz/memsz.dict ;;
procmaps) dict=-dict=$top_srcdir/fuzz/maps.dict ;;
archive) dict=-dict=$top_srcdir/fuzz/ar.dict ;;
esac
log=$top_builddir/fuzz/libfuzzer-$t.out
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -timeout=10 -error_exitcode=1 \
	-timeout_exitcode=1 -print_final_stats=1 -close_fd_mask=3 $dict \
	-artifact_prefix="$top_builddir/fuzz/crash-$t-" \
	"$corpus" "$seeds/$kind" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
echo "fuzz_$t: ${runs:-?} executions in ${secs} s, ${rate:-?} execs/s, exit $rc"
if [ $rc -ne 0 ]; then
	tail -n 60 "$log"
	exit 1
fi
exit 0
