#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2100-record-faults.sh — `memsz record --faults` / `-e EVENT`: a workload
# built here touches known numbers of fresh pages from three known call
# paths in three threads; every first touch is one SAMPLE record of that
# thread, with the faulting address in the buffer and the ip in the function
# that wrote (nm -S gives its size) or in libc's text (memset; the MMAP2
# records give libc's mappings). python3 allocating 50 MB records with no
# LOST record at default settings. Event names go through libpfm4; an
# unknown one is a one-line error with a suggestion.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
need gcc gcc
need nm binutils
PY=/usr/bin/python3
test -x $PY || skip_all "no $PY (python3)"
# Sampling needs perf_event_open on our own children.
"$MEMSZ" record --faults -o "$T/probe.data" -- true 2>"$T/probe.err" || {
	if grep -q 'not permitted' "$T/probe.err"; then
		skip_all "perf_event_open refused: $(cat "$T/probe.err")"
	fi
}
# Counting every fault needs a reader as fast as the workload: memsz runs
# ahead of the machine's other work (urgent), except with the tiny ring.
[ "$(id -u)" = 0 ] ||
	skip "sample loss checks without raised priority (needs root)"
build_workload fault_paths fault_paths.c -O2 -fomit-frame-pointer -g -pthread
nm -S "$T/fault_paths" > "$T/nm.txt" || fail_all "nm -S failed"

cat > "$T/check.py" <<'PY'
# check.py DUMP PATHS NM: per path, samples of its tid in its buffer
# (count, and how many have the ip in the touching code).
import re, sys
dump, paths, nmf = sys.argv[1:4]
sizes = {}
for line in open(nmf):
    f = line.split()
    if len(f) == 4:
        sizes[f[3]] = int(f[1], 16)
P = []
for line in open(paths):
    name, tid, lo, hi, func = line.split()
    num = lambda s: 0 if s == '(nil)' else int(s, 16)
    P.append((name, int(tid), num(lo), num(hi), num(func)))
samp = re.compile(r'SAMPLE (\d+)/(\d+): addr (0x[0-9a-f]+) ip (0x[0-9a-f]+)'
                  r' event (\d+) regs (\d+) sp (0x[0-9a-f]+) stack (\d+)'
                  r' \(stored \d+\) callchain (\d+)')
mm = re.compile(r'MMAP2 (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\).*\]: '
                r'r-x. (\S*libc\.so\S*)')
libc = []
S = []
for line in open(dump):
    m = samp.search(line)
    if m:
        S.append(tuple(int(x, 0) for x in m.groups()))
        continue
    m = mm.search(line)
    if m:
        s, l = int(m.group(2), 16), int(m.group(3), 16)
        libc.append((s, s + l))
for name, tid, lo, hi, func in P:
    mine = [s for s in S if s[1] == tid and lo <= s[2] < hi]
    others = [s for s in S if s[1] != tid and lo <= s[2] < hi]
    if func:
        size = sizes['touch_' + name]
        good = sum(1 for s in mine if func <= s[3] < func + size)
    else:
        good = sum(1 for s in mine if any(a <= s[3] < b for a, b in libc))
    pages = len({s[2] >> 12 for s in mine})
    print(name, len(mine), pages, good, len(others),
          min((s[5] for s in mine), default=0),
          min((s[8] for s in mine), default=0))
PY

# 1. --faults, default dwarf call graph.
urgent "$MEMSZ" record --faults -o "$T/f.data" -- "$T/fault_paths" \
	"$T/paths.txt" 2>"$T/f.err"
check "record --faults of the workload exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/f.data" > "$T/f.txt"
check "memsz dump reads the samples" test $? -eq 0
check "no LOST record" sh -c "! grep -q ' LOST ' '$T/f.txt'"
check "NOTE names event 0" grep -q 'NOTE event 0: page-faults' "$T/f.txt"
check "summary counts samples" grep -q 'samples (0 lost)' "$T/f.err"
$PY "$T/check.py" "$T/f.txt" "$T/paths.txt" "$T/nm.txt" > "$T/f.res"
cat "$T/f.res" | sed 's/^/# /'
# name samples distinct-pages ip-ok other-tids min-regs min-chain
check "path a: one sample per page (300), all in touch_a" \
	grep -qx 'a 300 300 300 0 20 0' "$T/f.res"
check "path b: one sample per page (500), all in touch_b" \
	grep -qx 'b 500 500 500 0 20 0' "$T/f.res"
check "path c: one sample per page (700), all in libc (memset)" \
	grep -qx 'c 700 700 700 0 20 0' "$T/f.res"
check "samples carry a user stack copy" \
	sh -c "grep ' SAMPLE ' '$T/f.txt' | grep -qv ' stack 0 '"

# 2. -e page-faults through libpfm4, with --call-graph fp.
urgent "$MEMSZ" record -e page-faults --call-graph fp -o "$T/e.data" -- \
	"$T/fault_paths" "$T/paths.txt" 2>"$T/e.err"
check "record -e page-faults --call-graph fp exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/e.data" > "$T/e.txt"
$PY "$T/check.py" "$T/e.txt" "$T/paths.txt" "$T/nm.txt" > "$T/e.res"
cat "$T/e.res" | sed 's/^/# /'
# with the chain, bp, sp and ip (the caller of a frameless leaf, t2197)
check "-e page-faults: path a exact, callchains, 3 regs" \
	grep -qx 'a 300 300 300 0 3 1' "$T/e.res"
check "-e page-faults: path c exact" grep -q '^c 700 700 700 0 ' "$T/e.res"

# 2b. the same event named again (--faults is -e page-faults; faults is
# its alias): opened once, with a warning, not once per name (each fault
# was sampled three times, one path's 300 pages as 900 samples).
urgent "$MEMSZ" record --faults -e page-faults,faults -o "$T/d.data" -- \
	"$T/fault_paths" "$T/paths.txt" 2>"$T/d.err"
check "record --faults -e page-faults,faults exits 0" test $? -eq 0
check "a warning names each repeated event" \
	test "$(grep -c 'given more than once: recorded once' "$T/d.err")" -eq 2
"$MEMSZ" dump -i "$T/d.data" > "$T/d.txt"
check "one event noted" test "$(grep -c 'NOTE event ' "$T/d.txt")" -eq 1
$PY "$T/check.py" "$T/d.txt" "$T/paths.txt" "$T/nm.txt" > "$T/d.res"
cat "$T/d.res" | sed 's/^/# /'
check "events named thrice: path a one sample per page (300)" \
	grep -q '^a 300 300 300 0 ' "$T/d.res"
check "-e '' is a usage error" sh -c \
	"'$MEMSZ' record -e '' -o '$T/n.data' -- true 2>/dev/null; test \$? -eq 129"

# 3. two events by libpfm4 names: every minor fault is also a page fault.
urgent "$MEMSZ" record -e perf::MINOR-FAULTS,perf::PAGE-FAULTS:u -c 1 \
	-o "$T/two.data" -- "$T/fault_paths" "$T/paths.txt" 2>"$T/two.err"
check "record -e MINOR-FAULTS,PAGE-FAULTS:u exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/two.data" > "$T/two.txt"
check "NOTE names event 1" \
	grep -q 'NOTE event 1: perf::PAGE-FAULTS:u' "$T/two.txt"
e0=$(grep -c ' SAMPLE .* event 0 ' "$T/two.txt")
e1=$(grep -c ' SAMPLE .* event 1 ' "$T/two.txt")
echo "# event 0: $e0 samples, event 1: $e1 samples"
check "both events sampled the 1500 pages" \
	test "$e0" -ge 1500 -a "$e1" -ge 1500

# 4. -c N samples every N-th fault.
urgent "$MEMSZ" record --faults -c 100 -o "$T/c.data" -- "$T/fault_paths" \
	"$T/paths.txt" 2>/dev/null
nc=$("$MEMSZ" dump -i "$T/c.data" | grep -c ' SAMPLE ')
echo "# -c 100: $nc samples"
check "-c 100 samples about 1/100 of the faults" \
	test "$nc" -ge 10 -a "$nc" -le 40

# 5. python3 allocating 50 MB: nothing lost at default settings.
urgent "$MEMSZ" record --faults -o "$T/py.data" -- $PY -c \
	'x = bytearray(50_000_000)' 2>"$T/py.err"
check "record --faults python3 exits 0" test $? -eq 0
"$MEMSZ" dump -i "$T/py.data" > "$T/py.txt"
np=$(grep -c ' SAMPLE ' "$T/py.txt")
echo "# python3 50 MB: $np samples"
check "python3 50 MB: a sample per page (>= 12207)" test "$np" -ge 12207
check "python3 50 MB: no LOST record" \
	sh -c "! grep -q ' LOST ' '$T/py.txt'"
check "python3 50 MB: no 'lost' note" \
	sh -c "! grep -q 'NOTE .*lost' '$T/py.txt'"

# 6. --lossy with a ring too small for the burst: what is lost is counted,
# and samples plus lost add up to the faults of the run (at least the 1500
# pages; the kernel's own event counts give the lost samples no LOST record
# told).
"$MEMSZ" record --faults --lossy -m 4 -o "$T/small.data" -- "$T/fault_paths" \
	"$T/paths.txt" 2>"$T/small.err"
"$MEMSZ" dump -i "$T/small.data" > "$T/small.txt"
ns=$(grep -c ' SAMPLE ' "$T/small.txt")
nl=$(awk '/ LOST /{n += $NF} END{print n + 0}' "$T/small.txt")
nall=$(grep -c ' SAMPLE ' "$T/f.txt")
echo "# -m 4: $ns samples, $nl lost; unlimited run: $nall samples"
check "tiny ring: LOST records count the loss" test "$nl" -gt 0
check "tiny ring: summary line tells the loss" \
	grep -q "samples ($nl lost)" "$T/small.err"
check "tiny ring: samples + lost = the faults of a lossless run (+-10)" \
	test $((ns + nl)) -ge $((nall - 10)) -a $((ns + nl)) -le $((nall + 10))

# 7. unknown event names.
"$MEMSZ" record -e page-fault -o "$T/u.data" -- true 2>"$T/u.err"
check "unknown event: usage exit status" test $? -eq 129
check "unknown event: one line" test "$(wc -l < "$T/u.err")" -eq 1
check "unknown event: suggests page-faults" \
	grep -q "^memsz: unknown event 'page-fault' (did you mean .*page-faults" \
	"$T/u.err"
check "unknown event: nothing recorded" test ! -e "$T/u.data"
"$MEMSZ" record -e zzzzzzzzzzzzzzzzzzzz -- true 2>"$T/z.err"
check "far-off name: one line without suggestion" \
	grep -qx "memsz: unknown event 'zzzzzzzzzzzzzzzzzzzz'" "$T/z.err"
"$MEMSZ" record --faults --call-graph lbr -- true 2>"$T/g.err"
check "bad --call-graph rejected" test $? -eq 129
"$MEMSZ" record --faults --stack-size 70000 -- true 2>"$T/s.err"
check "too big --stack-size rejected" test $? -eq 129
finish
