#!/bin/sh
# t2070-record-attach.sh — `memsz record -p PID`: mappings that exist at
# attach are synthesized (== /proc/PID/maps), new ones come from perf, and a
# target killed mid-record leaves a valid file with a note.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
W=$top_srcdir/tests/workloads
T=$(mktemp -d "${TMPDIR:-/tmp}/memsz-t2070.XXXXXX") || exit 1
P=
trap '[ -n "$P" ] && kill $P 2>/dev/null; rm -rf "$T"' EXIT
. "$top_srcdir/tests/lib.sh"

command -v gcc >/dev/null 2>&1 || { echo "gcc not found" >&2; exit 77; }
gcc -O1 -o "$T/rec_sleep" "$W/rec_sleep.c" -lpthread || exit 1
head -c 65536 /dev/zero > "$T/data.bin"
start_target() {
	rm -f "$T/ready"
	"$T/rec_sleep" "$T/data.bin" "$T/ready" "$@" &
	P=$!
	i=0
	while [ ! -s "$T/ready" ] && [ $i -lt 500 ]; do
		sleep 0.01; i=$((i + 1))
	done
}

# 1. Attach for a fixed time: stable mappings synthesized, exactly once.
start_target 100
grep -v ' .*data.bin$' /proc/$P/maps > "$T/maps.before"
"$MEMSZ" record -o "$T/a.data" --duration 1 --interval 250 -p $P 2>"$T/err"
check "attach with --duration exits 0" test $? -eq 0
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
pat = re.compile(r'MMAP2\S*\s+(\d+)/\d+:?\s+\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\)'
                 r'[^\]]*\]:?\s+([r-][w-][x-][ps])\s+(.*)$')
got = []
for l in open(dump):
    m = pat.search(l.rstrip('\n'))
    if m and m.group(1) == pid:
        got.append((int(m.group(2), 16), int(m.group(3), 16), m.group(4),
                    m.group(5).strip()))
missing = want - set(got)
dups = [g for g in set(got) if g in want and got.count(g) > 1]
for x in sorted(missing):
    print('missing', x, file=sys.stderr)
for x in dups:
    print('twice', x, file=sys.stderr)
sys.exit(1 if missing or dups else 0)
PY
check "every mapping of /proc/PID/maps at attach recorded once" test $? -eq 0
c=$(grep -c 'SNAP_BEGIN' "$T/a.txt")
check "snapshots at start, every interval and at the end ($c >= 4)" \
	test "$c" -ge 4
c=$(grep -E 'MMAP2.*\(0x2000\).*data\.bin' "$T/a.txt" | grep -vc synth)
check "new mappings come from perf events ($c >= 2)" test "$c" -ge 2
check "target still running afterwards" kill -0 $P
kill $P; wait $P 2>/dev/null; P=

# 2. The target is killed mid-record: memsz ends, the file is valid.
start_target
"$MEMSZ" record -o "$T/k.data" -p $P 2>"$T/err" &
M=$!
sleep 0.5
kill -9 $P; wait $P 2>/dev/null; P=
i=0
while kill -0 $M 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 $M 2>/dev/null && { kill $M; nok "memsz ends when its target exits"; } ||
	ok "memsz ends when its target exits"
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
exit $fail
