#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2453-record-duration-bounds.sh — a --duration or --interval whose
# nanoseconds would not fit in 63 bits is a usage error in one line, not
# a deadline that wraps to the past; so is a -c past 63 bits, and the
# largest -c leashes every thread.
#
# memsz computed the deadline as now + duration in unsigned 64-bit
# nanoseconds: --duration 18446744073 (2^64 ns, 584 years) wrapped it to
# a moment already past, and the recording stopped at once, exit 0, its
# summary as for any other; past 1.8e10 s the conversion from double was
# undefined. Both options now stop at INT64_MAX ns (9223372036 s,
# 9223372036854 ms). Ground truth: the exit status and the lines of
# stderr; the largest values are accepted (the pid that does not exist is
# then what stops memsz, after its options were parsed).
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

sleep 1000 &
S=$!
track $S
max=$(cat /proc/sys/kernel/pid_max)
fails() {
	d=$1 pat=$2
	shift 2
	# a hang guard, not a timing assumption: an accepted duration of
	# centuries would record until SIGTERM (exit 124, a failed check)
	expect_error "$d" "$pat" timeout 60 "$MEMSZ" record -o "$T/x.data" "$@"
}
for d in 18446744073 18446744000 9223372037 1e10 1e300; do
	fails "--duration $d" \
		"^memsz: invalid --duration '$d': expected seconds from 0 to 9223372036 (292 years)\$" \
		--duration "$d" -p $S
done
check "no recording left by the refused durations" test ! -e "$T/x.data"
for i in 9223372036855 18446744073710 18446744073709551615; do
	fails "--interval $i" \
		"^memsz: invalid --interval '$i': expected milliseconds from 1 to 9223372036854 (292 years)\$" \
		--interval "$i" -p $S
done
fails "--duration 9223372036 is accepted" "^memsz: no process with pid $max\$" \
	--duration 9223372036 -p "$max"
fails "--interval 9223372036854 is accepted" "^memsz: no process with pid $max\$" \
	--interval 9223372036854 -p "$max"
check "the attached process was not signalled" kill -0 $S

# -c: the kernel refuses a sample period with bit 63 set, which memsz
# said only once the command had started ("cannot open perf events:
# Invalid argument"); the largest accepted period times the leash's
# samples wrapped, and every thread's leash failed with EINVAL.
for c in 18446744073709551615 9223372036854775808; do
	fails "-c $c" \
		"^memsz: invalid --count '$c': expected an integer from 1 to 9223372036854775807\$" \
		-c "$c" --faults -- true
done
if "$MEMSZ" record -o "$T/f.data" --faults -- true >/dev/null 2>&1; then
	"$MEMSZ" record -o "$T/f.data" -c 9223372036854775807 --faults \
		-- true >/dev/null 2>"$T/c.err"
	rc=$?
	check "-c 9223372036854775807: recorded (exit $rc)" test $rc -eq 0
	check "-c 9223372036854775807: every thread leashed ($(cat "$T/c.err"))" \
		sh -c "! grep -q 'cannot leash' '$T/c.err'"
else
	skip "-c at its largest: perf events cannot be opened here"
fi
finish
