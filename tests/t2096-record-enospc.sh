#!/bin/sh
# t2096-record-enospc.sh — `record --faults` into a 64 KiB tmpfs: the disk
# fills while samples are batched. The launched command (a shell wrapper
# that forks python3) and the process it forked are ended, not left
# running; the summary counts the samples the file holds; the file reads
# up to its last whole record and report and dump say it was cut short.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/memsz-t2096.XXXXXX") || exit 1
MNT=
trap '[ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"' EXIT
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "# needs root to mount a small tmpfs"
	exit 77
fi
mkdir "$T/mnt" && mount -t tmpfs -o size=64k tmpfs "$T/mnt" || {
	echo "# cannot mount a 64 KiB tmpfs"
	exit 1
}
MNT=$T/mnt

# The workload faults pages for at most 60 s (the disk fills in well
# under a second), in a child of the launched shell.
printf '#!/bin/sh\npython3 "$@"\nexit $?\n' >"$T/python3"
chmod +x "$T/python3"
"$MEMSZ" record -o "$MNT/f.data" --faults -c 50 --stack-size 512 \
	--interval 50 -- "$T/python3" -c '
import time
end = time.monotonic() + 60
while time.monotonic() < end:
    b = bytearray(1 << 20)
' >"$T/out" 2>"$T/err"
rc=$?
check "non-zero exit ($rc)" test $rc -ne 0
check "one error line saying the command was ended" \
	grep -q "^memsz: cannot write '$MNT/f.data': No space left on device; recording stopped and the command ended\$" "$T/err"
[ "$(grep -c '^memsz:' "$T/err")" -eq 1 ] && ok "only one error line" ||
	nok "only one error line: $(cat "$T/err")"

"$MEMSZ" dump -i "$MNT/f.data" >"$T/dump" 2>"$T/derr"
check "dump reads the file (exit 0)" test $? -eq 0
# the snapshot at exec names the command's pid
pid=$(sed -n 's/.* SNAP_BEGIN pid \([0-9]*\) .*/\1/p' "$T/dump" | head -n 1)
check "the file holds the exec-time snapshot" test -n "$pid"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	nok "the command is not left running (pid $pid alive)"
	kill -9 "$pid"
else
	ok "the command is not left running"
fi
# every process it forked that the file names is gone too
kids=$(sed -n 's/.* FORK \([0-9]*\)\/.*/\1/p' "$T/dump" | sort -u)
check "the file names the forked python3" test -n "$kids"
left=
for k in $kids; do
	kill -0 "$k" 2>/dev/null && left="$left $k"
done
check "no forked process left running ($left)" test -z "$left"
for k in $left; do kill -9 "$k"; done
check "dump says the file was cut short" grep -q '^# cut short at offset' "$T/dump"
held=$(grep -c ' SAMPLE ' "$T/dump")
said=$(sed -n 's/.*wrote [0-9]* events, \([0-9]*\) samples.*/\1/p' "$T/err")
check "the summary says how many samples ($said)" test -n "$said"
check "the summary's samples ($said) are the file's ($held)" \
	test "${said:-x}" = "$held"
check "samples were written before the disk filled ($held)" test "$held" -gt 0

"$MEMSZ" report -i "$MNT/f.data" >"$T/rep" 2>&1
check "report on the file exits 0" test $? -eq 0
check "report's footer says the recording was cut short" \
	grep -q "was cut short at offset" "$T/rep"
exit $fail
