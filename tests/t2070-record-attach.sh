#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2070-record-attach.sh — `memsz record -p PID`: mappings that exist at
# attach are the start snapshot's (== /proc/PID/maps; it stands for their
# MMAP2 records), new ones come from perf, and a target killed mid-record
# leaves a valid file with a note.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
need gcc gcc
build_workload rec_sleep rec_sleep.c -lpthread
head -c 65536 /dev/zero > "$T/data.bin"
P=
start_target() {
	rm -f "$T/ready"
	"$T/rec_sleep" "$T/data.bin" "$T/ready" "$@" &
	P=$!
	track $P
	wait_file "$T/ready"
}
# perf_maps_ge DATA N: DATA holds N MMAP2 records of the workload's 2-page
# mappings that came from perf (not synthesized at attach).
perf_maps_ge() {
	[ "$(memsz dump -i "$(recording "$1")" 2>/dev/null |
		grep -E 'MMAP2.*\(0x2000\).*data\.bin' | grep -vc synth)" -ge "$2" ]
}

# 1. Attach until SIGINT: stable mappings in the start snapshot; ended
# once the file holds 3 snapshots and 2 mappings made after the attach.
start_target 100
grep -v ' .*data.bin$' /proc/$P/maps > "$T/maps.before"
"$MEMSZ" record -o "$T/a.data" --interval 250 -p $P 2>"$T/err" &
M=$!
track $M
wait_records "$T/a.data" ' SNAP_END ' 3
wait_for "2 new mappings" perf_maps_ge "$T/a.data" 2 ||
	fail_all "no new mapping recorded"
stop_and_wait INT $M
# the file written, memsz dies by the signal (t2490)
check "attach ended by SIGINT: dies by it ($rc)" test $rc -eq 130
"$MEMSZ" dump -i "$T/a.data" > "$T/a.txt"
check "dump reads the file" test $? -eq 0
python3 - "$T/maps.before" "$T/a.txt" $P <<'PY'
import re, sys
maps, dump, pid = sys.argv[1], sys.argv[2], sys.argv[3]
want = set()
for l in open(maps):
    f = l.split(None, 5)
    s, e = (int(x, 16) for x in f[0].split('-'))
    name = f[5].strip() if len(f) > 5 else '//anon'
    if name == '[vsyscall]':
        continue   # not in the mm's VMA list perf reports either
    want.add((s, e - s, f[1], name))
# the start snapshot stands for the mappings at attach (flag "maps"):
# its SNAP_MAPPING records, no MMAP2 record synthesized from maps
begin = re.compile(r' SNAP_BEGIN pid (\d+) .* flags (\S+)$')
smap = re.compile(r' SNAP_MAPPING \[(0x[0-9a-f]+)-(0x[0-9a-f]+)\) '
                  r'([r-][w-][x-][ps]) .* runs \d+ ?(.*)$')
got, state, synth = [], None, 0
for l in open(dump):
    l = l.rstrip('\n')
    m = begin.search(l)
    if m:
        state = 'in' if (m.group(1) == pid and state is None and
                         'maps' in m.group(2).split(',')) else \
                (state and 'done')
        continue
    if ' SNAP_END ' in l and state == 'in':
        state = 'done'
    m = smap.search(l)
    if m and state == 'in':
        s, e = int(m.group(1), 16), int(m.group(2), 16)
        name = m.group(4).strip()
        if not name or name.startswith('[stack:'):
            name = '//anon'   # unnamed in maps; the snapshot names stacks
        got.append((s, e - s, m.group(3), name))
    if re.search(r' MMAP2 %s/.* synth\]' % pid, l):
        synth += 1
if state is None:
    print('the first snapshot is not flagged maps', file=sys.stderr)
if synth:
    print(synth, 'MMAP2 records synthesized', file=sys.stderr)
missing = want - set(got)
dups = [g for g in set(got) if g in want and got.count(g) > 1]
for x in sorted(missing):
    print('missing', x, file=sys.stderr)
for x in dups:
    print('twice', x, file=sys.stderr)
sys.exit(1 if missing or dups or synth or state is None else 0)
PY
check "every mapping of /proc/PID/maps at attach in the start snapshot (maps)" test $? -eq 0
c=$(grep -c 'SNAP_BEGIN' "$T/a.txt")
check "snapshots at start, every interval and at the end ($c >= 4)" \
	test "$c" -ge 4
c=$(grep -E 'MMAP2.*\(0x2000\).*data\.bin' "$T/a.txt" | grep -vc synth)
check "new mappings come from perf events ($c >= 2)" test "$c" -ge 2
check "target still running afterwards" kill -0 $P

# --duration ends the recording by itself: start and final snapshots.
"$MEMSZ" record -o "$T/d.data" --duration 0.2 -p $P 2>"$T/err"
check "attach with --duration exits 0" test $? -eq 0
c=$(dump_count "$T/d.data" ' SNAP_END ')
check "--duration: start and final snapshots ($c >= 2)" test "$c" -ge 2
check "target still running after --duration" kill -0 $P
kill $P; wait $P 2>/dev/null; P=

# 2. The target is killed mid-record, once its start snapshot is written:
# memsz ends, the file is valid.
start_target
"$MEMSZ" record -o "$T/k.data" -p $P 2>"$T/err" &
M=$!
track $M
wait_records "$T/k.data" ' SNAP_END ' 1
kill -9 $P; wait $P 2>/dev/null; P=
if wait_gone $M; then
	ok "memsz ends when its target exits"
else
	kill $M; nok "memsz ends when its target exits"
fi
wait $M
check "... with status 0" test $? -eq 0
"$MEMSZ" dump -i "$T/k.data" > "$T/k.txt"
check "file of a target killed mid-record dumps cleanly" test $? -eq 0
check "... with its start snapshot" grep -q SNAP_BEGIN "$T/k.txt"
# Held under ptrace, a target killed with SIGKILL still stops at its exit:
# its last snapshot is taken there; where that stop is not seen, a note
# says the process exited before the final snapshot.
if grep -q 'SNAP_BEGIN.*at-exit' "$T/k.txt"; then
	ok "... and a snapshot at its exit"
else
	check "... and a note that it exited first" grep -q 'exited before' \
		"$T/k.txt"
fi
finish
