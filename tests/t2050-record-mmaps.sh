#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2050-record-mmaps.sh — `memsz record -- CMD` sees every mmap2 of a
# dlopen/dlclose + mmap/munmap workload, in order, exactly as `perf record`
# + `perf script --show-mmap-events` report them for the same workload.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
need gcc gcc
need perf linux-perf
gcc -O1 -shared -fPIC -o "$T/librec.so" "$W/rec_lib.c" ||
	fail_all "cannot build rec_lib.c"
build_workload rec_dlopen rec_dlopen.c -ldl
head -c 65536 /dev/zero > "$T/data.bin"
ROUNDS=7
run() { "$T/rec_dlopen" "$T/librec.so" "$T/data.bin" $ROUNDS; }

# Our side.
"$MEMSZ" record -o "$T/m.data" -- "$T/rec_dlopen" "$T/librec.so" \
	"$T/data.bin" $ROUNDS 2>"$T/m.err"
check "record of a successful command exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/m.data" > "$T/m.txt" 2>"$T/dump.err"
check "memsz dump reads the file" test $? -eq 0
check "summary line printed" grep -q '^\[ memsz record: wrote' "$T/m.err"

# mmap2 lines as (pid index, filename, pgoff for files, len, prot+flags).
cat > "$T/seq.py" <<'PY'
import re, sys
pat = re.compile(r'MMAP2\S*\s+(\d+)/(\d+):?\s+\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\)'
                 r'\s+@\s+(0x[0-9a-f]+|0)\b[^\]]*\]:?\s+([r-][w-][x-][ps])\s+(.*)$')
def seqs(path):
    order, d = [], {}
    for line in open(path, errors='replace'):
        m = pat.search(line.rstrip('\n'))
        if not m:
            continue
        pid, name = m.group(1), m.group(7).strip()
        if pid not in d:
            d[pid] = []
            order.append(pid)
        isfile = name.startswith('/') and not name.startswith('//')
        pg = int(m.group(5), 16) if isfile else 0
        # The initial stack's length depends on where ASLR put its top
        # within a page and on the environment: two runs of one program
        # may differ by a page, so the stack is compared without it.
        ln = 0 if name == '[stack]' else int(m.group(4), 16)
        d[pid].append((name, pg, ln, m.group(6)))
    return [d[p] for p in order]
if sys.argv[1] == 'count':
    s = seqs(sys.argv[2])
    print(sum(1 for p in s for e in p if e[0].endswith(sys.argv[3])
              and e[3] == sys.argv[4]))
    sys.exit(0)
a, b = seqs(sys.argv[1]), seqs(sys.argv[2])
for i, (x, y) in enumerate(zip(a, b)):
    for j, (u, v) in enumerate(zip(x, y)):
        if u != v:
            print('process %d, mmap %d: perf %s, memsz %s' % (i, j, u, v),
                  file=sys.stderr)
            break
    if len(x) != len(y):
        print('process %d: perf %d mmaps, memsz %d' % (i, len(x), len(y)),
              file=sys.stderr)
if len(a) != len(b):
    print('perf %d processes, memsz %d' % (len(a), len(b)), file=sys.stderr)
sys.exit(0 if a == b and a else 1)
PY

# Ground truth independent of perf: one r-xp mapping of the library per
# dlopen, and the child's shared mapping of the file.
c=$(python3 "$T/seq.py" count "$T/m.txt" librec.so r-xp)
check "one r-xp mapping of the library per dlopen ($c == $ROUNDS)" \
	test "$c" = "$ROUNDS"
c=$(python3 "$T/seq.py" count "$T/m.txt" data.bin r--s)
check "the forked child's shared mapping is seen" test "$c" = 1
c=$(python3 "$T/seq.py" count "$T/m.txt" data.bin r--p)
check "every private file mmap seen ($c == $ROUNDS)" test "$c" = "$ROUNDS"

# perf's side, same workload: the comparison is the point of this test, so
# a perf that cannot record here is a failure, not a skip.
if perf record -q -d -e dummy:u -o "$T/perf.data" -- "$T/rec_dlopen" \
	"$T/librec.so" "$T/data.bin" $ROUNDS >/dev/null 2>"$T/perf.err" &&
   perf script -i "$T/perf.data" --show-mmap-events > "$T/p.txt" \
	2>>"$T/perf.err"
then
	python3 "$T/seq.py" "$T/p.txt" "$T/m.txt"
	check "mmap2 sequence per process equals perf script's" test $? -eq 0
else
	nok "perf record + perf script of the workload: $(cat "$T/perf.err")"
fi

# The command's exit status is memsz record's.
"$MEMSZ" record -o "$T/m.data" -- "$T/rec_dlopen" 2>/dev/null
check "command's exit status passed through" test $? -eq 2
check "existing output kept as FILE.old" test -s "$T/m.data.old"
"$MEMSZ" record -o "$T/m.data" --no-inherit -- "$T/rec_dlopen" \
	"$T/librec.so" "$T/data.bin" 1 2>/dev/null
"$MEMSZ" dump -i "$T/m.data" > "$T/n.txt"
c=$(python3 "$T/seq.py" count "$T/n.txt" data.bin r--s)
check "--no-inherit: the child's mmap is not recorded" test "$c" = 0
finish
