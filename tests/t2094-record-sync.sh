#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2094-record-sync.sh — when a recording is synced to disk, as README
# and memsz-record(1) say, seen by strace (-y names each descriptor's
# file): a recording written to a new name is not synced (left to
# writeback); one that replaces a recording is synced, and so is the
# recording it moves to FILE.old, both before the renames. A one-shot's
# file is unnamed (O_TMPFILE) until it is linked in as FILE; where no
# link can be made (strace injects the failures) its bytes are copied to
# a named file, and a rename that fails after leaves FILE.partial. Every
# name is made and moved in FILE's directory opened once (linkat and
# renameat relative to it: the names in the trace are FILE's last
# component and the names made from it).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
set -u
need strace strace

sleep 600 &
tgt=$!
track $tgt

# traced OUT: one one-shot of the target into OUT under strace; its
# fsync and rename calls, one per line, in $T/trace
traced() {
	strace -f -y -qq -e trace=fsync,rename,renameat,renameat2,linkat \
		-o "$T/trace" \
		"$MEMSZ" record --duration 0 -o "$1" -p $tgt 2>"$T/err"
}

out=$T/sync.data
b=sync.data
Tp=$(cd "$T" && pwd -P) # as strace -y names the directory
traced "$out"
check "first recording written" test -s "$out"
check "a new name: no fsync" \
	test "$(grep -c '^[0-9]* *fsync(' "$T/trace")" -eq 0
check "a new name: the unnamed file linked in" \
	grep -q "linkat(.*<$Tp>, \"$b\"" "$T/trace"

traced "$out"
check "second recording written, the first kept as .old" \
	test -s "$out" -a -s "$out.old"
# the fsyncs, in order: the new recording's temporary file, then the old
check "replacing: the new recording synced" \
	sh -c 'grep "^[0-9]* *fsync(" "$1" | grep -vq "<$2>"' sh "$T/trace" "$out"
check "replacing: the recording moved to .old synced" \
	grep -q "fsync([0-9]*<$out>" "$T/trace"
last_sync=$(grep -n 'fsync(' "$T/trace" | tail -1 | cut -d: -f1)
first_rename=$(grep -n 'rename' "$T/trace" | head -1 | cut -d: -f1)
check "both synced before the first rename" \
	test "${last_sync:-9999}" -lt "${first_rename:-0}"
# FILE.old a link of FILE (under a free name renamed over FILE.old), then
# the new recording renamed over FILE: FILE is never missing (t2479)
check "the old one linked as .old" \
	grep -q "linkat(.*<$Tp>, \"$b\", .*<$Tp>, \"$b.old\.[A-Za-z0-9]\{6\}\"" \
	"$T/trace"
check "the link renamed over .old" \
	grep -q "renameat2*(.*<$Tp>, \"$b.old\.[A-Za-z0-9]\{6\}\", .*<$Tp>, \"$b.old\"" \
	"$T/trace"

# injected OUT SPEC: a one-shot into OUT with the system calls SPEC names
# failing (strace -e inject=SPEC, traced in $T/itrace); its exit code in
# $rc
injected() {
	rc=0
	# LeakSanitizer cannot run under ptrace: a sanitizer build's leak
	# check is left to the other tests
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=linkat,rename,renameat,renameat2 \
		-e inject="$2" -o "$T/itrace" \
		"$MEMSZ" record --duration 0 -o "$1" -p $tgt 2>"$T/err" || rc=$?
}

out=$T/nolink.data
injected "$out" linkat:error=EPERM
check "no link at all, a new name: the links refused" \
	grep -q 'linkat(.*(INJECTED)' "$T/itrace"
check "no link at all, a new name: exit 0" test $rc -eq 0
check "no link at all, a new name: the recording copied in" \
	"$MEMSZ" report -i "$out" -n 1
injected "$out" linkat:error=EPERM
check "no link at all, replacing: exit 0" test $rc -eq 0
check "no link at all, replacing: both recordings readable" \
	sh -c '"$1" report -i "$2" -n 1 && "$1" report -i "$2.old" -n 1' \
	sh "$MEMSZ" "$out"

out=$T/norename.data
traced "$out"
# renames: FILE's link to FILE.old, then the named file to FILE (fails),
# then to FILE.partial
injected "$out" rename,renameat,renameat2:error=EPERM:when=2
check "the rename over FILE fails: refused" \
	grep -q "rename.*(.*\"norename.data\").*(INJECTED)" "$T/itrace"
check "the rename over FILE fails: exit 1" test $rc -eq 1
check "the rename over FILE fails: the recording kept in .partial" \
	"$MEMSZ" report -i "$out.partial" -n 1
check "the rename over FILE fails: no temporary file left" \
	sh -c '! ls "$1".tmp.* 2>/dev/null' sh "$out"
# FILE never left its place; FILE.old is a link of it by then
check "the rename over FILE fails: the previous recording still FILE" \
	sh -c '"$2" report -i "$1" -n 1 >/dev/null &&
		{ ! test -e "$1.old" || test "$1" -ef "$1.old"; }' sh "$out" "$MEMSZ"

out=$T/norenames.data
traced "$out"
# no rename at all: neither to FILE.old nor to FILE.partial
injected "$out" rename,renameat,renameat2:error=EPERM
tmpf=$(ls "$out".tmp.* 2>/dev/null | head -1)
check "no rename at all: exit 1" test $rc -eq 1
check "no rename at all: the recording left under its temporary name" \
	"$MEMSZ" report -i "${tmpf:-$out.none}" -n 1
# the error came at the commit: the recording kept there is complete
check "no rename at all: the error names where it is" \
	grep -q "the complete recording is in '$out.tmp." "$T/err"
finish
