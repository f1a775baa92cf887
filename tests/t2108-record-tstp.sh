#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2108-record-tstp.sh — Ctrl-Z (SIGTSTP) of a `record --faults`: memsz
# says that its traced targets wait at their next ptrace stop until it
# continues, then stops; continued (SIGCONT) it records on and ends as
# usual.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

"$MEMSZ" record -o "$T/z.data" --faults -c 100 --interval 100 -- \
	python3 -c '
import time
while True:
    b = bytearray(1 << 20)
    time.sleep(0.01)
' 2>"$T/err" &
M=$!
track $M
wait_records "$T/z.data" ' SNAP_END ' 2
kill -TSTP $M
memsz_stopped() {
	grep -q '^State:[[:space:]]*T' /proc/$M/status
}
wait_for "memsz stopped" memsz_stopped
check "memsz stops on SIGTSTP" memsz_stopped
check "and says the traced targets wait until it continues" \
	grep -q "warning: stopped: the traced targets wait .* until memsz continues" \
	"$T/err"
kill -CONT $M
n=$(dump_count "$T/z.data" ' SNAP_END ')
wait_records "$T/z.data" ' SNAP_END ' $((n + 2))
stop_and_wait INT $M
# SIGINT ends the command with SIGTERM; memsz then dies by the SIGINT
check "continued, it ends as usual (exit $rc)" test $rc -eq 130
check "and commits its recording" grep -q '^\[ memsz record: wrote' "$T/err"
finish
