#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2101-record-lost-count.sh — the summary's "S samples (L lost)" counts
# samples only: MMAP2 records the kernel drops from the mapping history's
# ring (64 KiB per cpu, memsz stopped while the target maps and unmaps
# 300 000 times: far more than the ring holds) are counted apart, as "N
# mapping records lost", not as lost samples.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
need gcc gcc
build_workload churn mmap_churn.c

"$MEMSZ" record -o "$T/c.data" --faults -c 1000000 --lossy -m 16 \
	-- "$T/churn" "$T/go" 300000 2>"$T/err" &
M=$!
track $M
wait_records "$T/c.data" ' SNAP_END ' 1
C=$(pgrep -P $M churn) || fail_all "no workload"
kill -STOP $M
touch "$T/go"
# the workload ends (held at its exit by the stopped tracer)
wait_for "the workload done" sh -c \
	"grep -q '^State:[[:space:]]*t' /proc/$C/status" ||
	fail_all "the workload never ended"
kill -CONT $M
wait $M
rc=$?
check "record exits 0 ($rc)" test $rc -eq 0
line=$(grep '^\[ memsz record' "$T/err")
echo "# $line"
lost=$(echo "$line" | sed -n 's/.* samples (\([0-9]*\) lost.*/\1/p')
# 300 000 faults at one sample per 1 000 000: no sample to lose
check "no sample counted as lost (${lost:-?})" test "${lost:-99}" -le 1
check "the kernel dropped records from the 64 KiB ring (LOST records)" \
	sh -c "'$MEMSZ' dump -i '$T/c.data' | grep -q ' LOST '"
check "the records the kernel dropped are counted as mapping records" \
	sh -c "echo '$line' | grep -q '[1-9][0-9]* mapping records lost'"
# the report tells the loss once: its own count of the LOST records, not
# also the recording's note of the same number
"$MEMSZ" report -i "$T/c.data" -n 1 >"$T/rep" 2>&1
sed "s/^/# /" "$T/rep"
check "the report says once that records were lost" \
	test "$(grep -c 'records.* lost' "$T/rep")" -eq 1
finish
