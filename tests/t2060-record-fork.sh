#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2060-record-fork.sh — forked children of a launched command are recorded:
# their mmaps under their own pids, and a snapshot at each process's exit.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
need gcc gcc
build_workload rec_fork rec_fork.c -lpthread
head -c 65536 /dev/zero > "$T/data.bin"

"$MEMSZ" record -o "$T/f.data" -- "$T/rec_fork" "$T/data.bin" 3 \
	2>"$T/err"
check "record exits with the workload's status 0" test $? -eq 0
"$MEMSZ" dump -i "$T/f.data" > "$T/f.txt"
check "dump reads the file" test $? -eq 0

# Per child: the pid that mapped data.bin with (i+1) pages; each of those
# pids and the parent have a snapshot taken at exit.
python3 - "$T/f.txt" > "$T/res" <<'PY'
import re, sys
mm = re.compile(r'MMAP2\S*\s+(\d+)/\d+:?\s+\[0x[0-9a-f]+\((0x[0-9a-f]+)\).*'
                r'\s(\S*data\.bin)$')
snap = re.compile(r'SNAP_BEGIN\b.*?\bpid[ =:]*(\d+)')
fork = re.compile(r'FORK\S*[ (]+(\d+)[:/](\d+)')
child, atexit, forks = {}, set(), set()
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    m = mm.search(line)
    if m:
        child[int(m.group(2), 16) // 4096] = m.group(1)
    m = snap.search(line)
    if m:
        fl = re.search(r'flags[ =:]*(0x[0-9a-f]+)', line)
        if (fl and int(fl.group(1), 16) & 8) or re.search(r'at.?exit', line, re.I):
            atexit.add(m.group(1))
    m = fork.search(line)
    if m and m.group(1) == m.group(2):
        forks.add(m.group(1))
print('children', ' '.join(child.get(i, '-') for i in (1, 2, 3)))
print('distinct', len(set(child.values())))
print('atexit', ' '.join(sorted(atexit)))
print('forks', ' '.join(sorted(forks)))
PY
set -- $(sed -n 's/^children //p' "$T/res")
c1=$1 c2=$2 c3=$3
check "each child's mmap of the file recorded under its own pid" \
	test "$(sed -n 's/^distinct //p' "$T/res")" = 3 -a "$c1" != - \
	-a "$c2" != - -a "$c3" != -
ax=" $(sed -n 's/^atexit //p' "$T/res") "
fk=" $(sed -n 's/^forks //p' "$T/res") "
for c in "$c1" "$c2" "$c3"; do
	check "child $c has a snapshot taken at its exit" \
		test "${ax#* $c }" != "$ax"
	check "child $c has a FORK record" test "${fk#* $c }" != "$fk"
done
set -- $ax
check "the parent has an exit snapshot too (4 processes)" test $# -eq 4
finish
