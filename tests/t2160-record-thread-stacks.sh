#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2160-record-thread-stacks.sh — each thread's stack is a mapping named
# [stack:TID]: a workload's threads tell their ids and the address of a
# variable on their stacks, and the snapshot must name the mapping holding
# that address after the thread; the main thread's stays [stack].
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
need gcc gcc
build_workload rec_threads rec_threads.c -lpthread

mkfifo "$T/in"
"$T/rec_threads" 4 "$T/ready" < "$T/in" & P=$!
track $P
exec 3> "$T/in"
wait_file "$T/ready"
check "4 threads ready" test "$(wc -l < "$T/ready")" -eq 4

"$MEMSZ" record -o "$T/s.data" -p $P --duration 0 2>"$T/err"
check "record exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/s.data" > "$T/s.txt"
# one line per thread: "TID ADDR yes|no" (a [stack:TID] mapping holds ADDR)
python3 - "$T/ready" "$T/s.txt" > "$T/res" <<'PY'
import re, sys
maps = []
for line in open(sys.argv[2]):
    m = re.search(r'SNAP_MAPPING \[0x([0-9a-f]+)-0x([0-9a-f]+)\).* (\S+)$', line)
    if m:
        maps.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
for line in open(sys.argv[1]):
    tid, addr = line.split()
    a = int(addr, 16)
    ok = any(s <= a < e and n == f"[stack:{tid}]" for s, e, n in maps)
    print(tid, addr, "yes" if ok else "no")
PY
while read -r tid addr found; do
	check "thread $tid: its stack ($addr) is [stack:$tid]" test "$found" = yes
done < "$T/res"
check "the main thread's stack is [stack]" \
	grep -q 'SNAP_MAPPING.* \[stack\]$' "$T/s.txt"
exec 3>&-
wait $P
finish
