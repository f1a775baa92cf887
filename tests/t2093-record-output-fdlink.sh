#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2093-record-output-fdlink.sh — `record -o` at a symlink that leads to a
# file descriptor's link of /proc (as /dev/stdout does: -o /dev/stdout >
# out). Such a link is never replaced by the recording: the writer replaces
# a symlink at FILE rather than follow it, and root's `-o /dev/stdout >
# out` put the recording in /dev in place of the machine's /dev/stdout.
# Without --output-special it is refused, the error naming the option;
# with it memsz writes to a copy of its own descriptor (sharing the shell's
# offset): a regular file the shell made (> out) holds the recording, a
# pipe carries it. Refused even then: a file with data in it (>> out), the
# file that is also memsz's stderr (2>&1) or the launched command's output
# (-- CMD, which inherits stdout), a stdout that was closed (>&-), another
# process's descriptor or another link of /proc, a link another user
# planted, a chain through one. A pipe whose reader left is a write error
# said in one line (EPIPE), not a silent SIGPIPE.
#
# The links are private copies made here ($T/out -> /proc/self/fd/1, and a
# chain to it through /dev/fd's twin): the real /dev is never touched. The
# recordings attach to a waiting process for one snapshot (--duration 0),
# as a command launched would write to the same stdout.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

[ -L /proc/self/fd/1 ] || skip_all "no /proc/self/fd"
ln -s /proc/self/fd/1 "$T/out"
ln -s /proc/self/fd "$T/fd" # as /dev/fd is
ln -s fd/1 "$T/chain"       # relative, through another link
sleep 3600 </dev/null >"$T/victim" 2>&1 & # a target to attach to
TGT=$!
track $TGT

# rec LINK ARGS...: a short recording to LINK, stdout where the caller
# redirects it; exit status in rc, stderr in $T/err.
rec() {
	rec_out=$1
	shift
	"$MEMSZ" record -o "$rec_out" "$@" -- true 2>"$T/err"
	rc=$?
}

# link_kept LINK TARGET: LINK is still a symlink to TARGET.
link_kept() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }

# is_recording FILE: FILE starts with the magic and reads whole.
is_recording() {
	[ "$(head -c 8 "$1")" = MEMSZDAT ] &&
		"$MEMSZ" dump -i "$1" 2>/dev/null | grep -q SNAP_END
}

# no_temp: nothing left beside the links (no FILE.tmp.*, FILE.old).
no_temp() { [ "$(ls "$T" | grep -c -e '\.tmp\.' -e '\.old$')" = 0 ]; }

# 1. Without --output-special, stdout a regular file: refused, link kept.
for l in out chain fd/1; do
	rec "$T/$l" >"$T/f.$$"
	check "$l, stdout a file: refused (exit $rc)" test $rc -eq 1
	check "$l: the error names --output-special" \
		grep -q "link to a file descriptor.*--output-special" "$T/err"
	check "$l: the file is not written" test ! -s "$T/f.$$"
	rm -f "$T/f.$$"
done
check "the links are kept" sh -c "$(cat <<EOF
[ -L '$T/out' ] && [ "\$(readlink '$T/out')" = /proc/self/fd/1 ] &&
[ -L '$T/chain' ] && [ "\$(readlink '$T/chain')" = fd/1 ]
EOF
)"
check "nothing made beside them" no_temp

# one LINK ARGS...: one snapshot of TGT to LINK with --output-special,
# stdout where the caller redirects it; exit status in rc, stderr in
# $T/err.
one() {
	one_out=$1
	shift
	"$MEMSZ" record -o "$one_out" --output-special --duration 0 -p $TGT \
		"$@" 2>"$T/err"
	rc=$?
}

# 2. Without it, stdout a pipe: refused too (it was: a pipe needs it).
{
	rec "$T/out"
	echo $rc >"$T/rc"
} | cat >"$T/piped0"
check "stdout a pipe: refused (exit $(cat "$T/rc"))" test "$(cat "$T/rc")" = 1
check "stdout a pipe: nothing came through" test ! -s "$T/piped0"

# 3. With --output-special, stdout a regular file the shell made: the
# recording is written into it, the link kept.
one "$T/out" >"$T/file"
check "--output-special, stdout a file: recorded (exit $rc)" test $rc -eq 0
check "--output-special, stdout a file: the file holds the recording" \
	is_recording "$T/file"
check "--output-special: the link is kept" link_kept "$T/out" /proc/self/fd/1
one "$T/chain" >"$T/file2"
check "--output-special through a chain of links: recorded" \
	is_recording "$T/file2"
check "--output-special: the chain is kept" link_kept "$T/chain" fd/1
check "--output-special: nothing made beside the links" no_temp
# the shell's descriptor and memsz's share the offset: what the shell
# writes after memsz comes after the recording, not over its header
{
	one "$T/out"
	echo after
} >"$T/file3"
check "the shell's offset is memsz's: the recording kept before it" \
	sh -c "[ \"\$(head -c 8 '$T/file3')\" = MEMSZDAT ] &&
		[ \"\$(tail -c 6 '$T/file3')\" = after ]"

# 4. With it, stdout a pipe: the recording comes through.
one "$T/out" | cat >"$T/piped"
check "--output-special, stdout a pipe: the recording comes through" \
	is_recording "$T/piped"

# 5. With it, stdout a file with data (>> FILE): refused, the data kept.
echo data >"$T/kept"
one "$T/out" >>"$T/kept"
check "--output-special, >> a file with data: refused (exit $rc)" \
	test $rc -eq 1
check "--output-special, >> a file with data: the data kept" \
	test "$(cat "$T/kept")" = data
check "the link is kept after all" link_kept "$T/out" /proc/self/fd/1

# 6. The file is also memsz's stderr (2>&1, into a file or a pipe):
# refused, the messages would be mixed into the recording.
"$MEMSZ" record -o "$T/out" --output-special --duration 0 -p $TGT \
	>"$T/mixed" 2>&1
rc=$?
check "2>&1 into a file: refused (exit $rc)" test $rc -eq 1
check "2>&1 into a file: says why, in one line" sh -c "
	grep -q \"also memsz's standard error\" '$T/mixed' &&
	[ \$(wc -l <'$T/mixed') -eq 1 ]"
{
	"$MEMSZ" record -o "$T/out" --output-special --duration 0 -p $TGT 2>&1
	echo $? >"$T/rc"
} | cat >"$T/mixedp"
check "2>&1 into a pipe: refused (exit $(cat "$T/rc"))" \
	test "$(cat "$T/rc")" = 1
check "2>&1 into a pipe: no recording came through" \
	sh -c "! grep -q MEMSZDAT '$T/mixedp'"

# 7. The file is also the launched command's stdout: refused before the
# command runs (it would write over the recording, or into it).
"$MEMSZ" record -o "$T/out" --output-special -- sh -c 'echo hello' \
	>"$T/cmdout" 2>"$T/err"
rc=$?
check "-- CMD writing to the same stdout: refused (exit $rc)" test $rc -eq 1
check "-- CMD: says the recording would mix with its output" \
	grep -q "also the command's output" "$T/err"
check "-- CMD: refused before it ran" test ! -s "$T/cmdout"

# 8. Standard output closed (>&-): memsz put /dev/null there; refused.
one "$T/out" >&-
check ">&-: refused (exit $rc)" test $rc -eq 1
check ">&-: says the descriptor was closed when memsz started" \
	grep -q "descriptor was closed when memsz started" "$T/err"

# 9. Another process's descriptor, another link of /proc, a /proc link
# that leads nowhere (as where no /proc is mounted): refused even with
# --output-special, the links kept, the other process's file not written.
ln -s "/proc/$TGT/fd/1" "$T/other"
ln -s /proc/meminfo "$T/meminfo"
ln -s /proc/no-such-pid/fd/1 "$T/gone"
for l in other meminfo gone; do
	one "$T/$l" >"$T/f.$l"
	check "$l: refused (exit $rc)" test $rc -eq 1
	check "$l: says it is a link of /proc" \
		grep -q "link to a file descriptor" "$T/err"
	check "$l: the link is kept" test -L "$T/$l"
done
check "another process's file is not written" test ! -s "$T/victim"

# 10. A pipe with no reader (its reader closed before memsz writes): the
# usual one-line write error, not a silent death by SIGPIPE.
mkfifo "$T/fifo"
(
	exec 4<>"$T/fifo" 5>"$T/fifo" 4<&-
	"$MEMSZ" record -o /dev/fd/5 --output-special --duration 0 -p $TGT \
		2>"$T/err"
	echo $? >"$T/rc"
)
check "no reader: exit 1, not SIGPIPE (exit $(cat "$T/rc"))" \
	test "$(cat "$T/rc")" = 1
check "no reader: one line says Broken pipe" sh -c "
	grep -q 'Broken pipe' '$T/err' && [ \$(wc -l <'$T/err') -eq 1 ]"
# a FIFO whose reader leaves in the middle: the launched command is
# ended, memsz says why (it died of SIGPIPE, 141). The reader's end is
# opened here, before memsz opens the FIFO (no race with head's open),
# and head holds the only one once the shell closes its own.
exec 7<>"$T/fifo"
head -c 8 <&7 >"$T/head" &
H=$!
track $H
exec 7<&-
"$MEMSZ" record -o "$T/fifo" --output-special -- \
	sh -c "while kill -0 $H 2>/dev/null; do :; done" 2>"$T/err"
rc=$?
check "reader gone mid-recording: exit 1, not SIGPIPE (exit $rc)" \
	test $rc -eq 1
check "reader gone mid-recording: the write error said" \
	grep -q "cannot write.*Broken pipe; recording stopped" "$T/err"
check "reader gone mid-recording: not 'left as it was' (the reader got some)" \
	grep -q "received is an incomplete recording" "$T/err"

# 12. Only a descriptor memsz was given: not one of its own (fd 3 is
# closed here, so memsz's fd 3 is one it opened itself, with
# FD_CLOEXEC), nor one open for reading only (< /dev/null).
one "$T/fd/3" 3>&-
check "memsz's own fd 3: refused (exit $rc)" test $rc -eq 1
check "memsz's own fd 3: says only a descriptor memsz was given" \
	grep -q "only to a descriptor memsz was given" "$T/err"
one "$T/fd/0" </dev/null
check "stdin read-only: refused (exit $rc)" test $rc -eq 1
check "stdin read-only: says it is not open for writing" \
	grep -q "not open for writing" "$T/err"

# 13. A non-blocking pipe (an event loop's) that fills: memsz waits for
# the reader, as a blocking write would, rather than fail with EAGAIN.
# The pipe is cut to one page; the reader starts once memsz has written
# some and waits in poll(2) for room (an event, not a delay: its
# /proc/PID/syscall), or has ended (it failed), and the recording reads
# whole.
python3 - "$MEMSZ" "$TGT" "$T/nb.data" "$T/nb.rc" <<'PY'
import fcntl, os, select, struct, subprocess, sys, termios
memsz, tgt, out, rcf = sys.argv[1:]
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([memsz, "record", "-o", "/dev/stdout", "--output-special",
                      "--duration", "0", "-p", tgt], stdout=w,
                     stderr=subprocess.DEVNULL)
os.close(w)
def queued():
    b = fcntl.ioctl(r, termios.FIONREAD, struct.pack("i", 0))
    return struct.unpack("i", b)[0]
def in_poll():
    try:
        nr = open("/proc/%d/syscall" % p.pid).read().split()[0]
    except (OSError, IndexError):
        return False
    return nr in ("7", "271")  # poll, ppoll (x86-64)
while p.poll() is None and not (queued() > 0 and in_poll()):
    select.select([], [], [], 0.01)
data = b""
while True:
    chunk = os.read(r, 65536)
    if not chunk:
        break
    data += chunk
open(out, "wb").write(data)
open(rcf, "w").write("%d %d" % (p.wait(), len(data)))
PY
read nbrc nblen <"$T/nb.rc"
check "non-blocking pipe: recorded (exit $nbrc)" test "$nbrc" = 0
check "non-blocking pipe: more than the pipe held came through ($nblen)" \
	test "$nblen" -gt 4096
check "non-blocking pipe: the recording reads whole" is_recording "$T/nb.data"

# 14. The launched command gets SIGPIPE as memsz found it: ignored when
# memsz was started with it ignored (memsz ignores it for its own writes).
(
	trap '' PIPE
	"$MEMSZ" record -o "$T/sig.data" -- \
		sh -c 'grep "^SigIgn" /proc/self/status' >"$T/sigign" 2>/dev/null
)
check "SIGPIPE ignored when memsz was started so: the command ignores it" \
	python3 -c 'import sys; m = int(open(sys.argv[1]).read().split()[1], 16)
sys.exit(0 if m & (1 << 12) else 1)' "$T/sigign"
"$MEMSZ" record -o "$T/sig.data" -- \
	sh -c 'grep "^SigIgn" /proc/self/status' >"$T/sigign" 2>/dev/null
check "SIGPIPE by default otherwise: the command does not ignore it" \
	python3 -c 'import sys; m = int(open(sys.argv[1]).read().split()[1], 16)
sys.exit(1 if m & (1 << 12) else 0)' "$T/sigign"

# 11. Links another user planted in a sticky directory: never followed to
# a descriptor (the link would be replaced by the recording otherwise),
# nor through a chain to a FIFO root owns.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
	D=$T/sticky
	mkdir "$D" && chmod 1777 "$D" && chmod 755 "$T"
	$NOBODY ln -s /proc/self/fd/1 "$D/x.data"
	for o in "" --output-special; do
		"$MEMSZ" record -o "$D/x.data" $o -- true >"$T/f.x" 2>"$T/err"
		rc=$?
		check "planted link to /proc ${o:-plain}: refused (exit $rc)" \
			test $rc -eq 1
		check "planted link to /proc ${o:-plain}: says whose link" \
			grep -q "symlink another user owns" "$T/err"
		check "planted link to /proc ${o:-plain}: kept, nothing written" \
			sh -c "[ -L '$D/x.data' ] && [ ! -s '$T/f.x' ]"
	done
	# root's link -> nobody's link -> root's FIFO, a reader holding it
	mkfifo "$T/rfifo"
	$NOBODY ln -s "$T/rfifo" "$D/hop"
	ln -s "$D/hop" "$T/mine"
	exec 6<>"$T/rfifo"
	one "$T/mine"
	check "chain through a planted link: refused (exit $rc)" test $rc -eq 1
	check "chain through a planted link: says whose link" \
		grep -q "symlink another user owns" "$T/err"
	check "chain through a planted link: the FIFO got nothing" test \
		"$(dd if=/dev/fd/6 iflag=nonblock bs=65536 count=1 2>/dev/null |
			wc -c)" -eq 0
	exec 6<&-
else
	skip "needs root and setpriv to plant links as nobody"
fi
finish
