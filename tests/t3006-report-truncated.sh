#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t3006-report-truncated.sh — an image truncated while `report --by
# files,symbols` reads it (a package upgrade, a build tree) gives a note,
# never a signal (it died of SIGBUS, exit 135, when the image was mapped).
# The report is stopped at each read of the image it makes (an inotify
# IN_ACCESS event), and the image truncated at the K-th, or as soon as the
# report has it mapped; no fixed sleeps.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"
need gcc gcc

# An image with 100 000 symbols, mapped by a running process.
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write(".text\n")
    for i in range(100000):
        f.write(".globl fn_%d\n.type fn_%d,@function\nfn_%d:\n ret\n"
                ".size fn_%d,1\n" % (i, i, i, i))
' "$T/big.s"
gcc -shared -Wl,-z,noexecstack -o "$T/libbig.so" "$T/big.s" ||
	fail_all "cannot build the image"
cp "$T/libbig.so" "$T/libbig.orig"
python3 -c '
import ctypes, os, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2] + ".tmp", "w").write("1")
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(600)' "$T/libbig.so" "$T/ready" &
P=$!
track $P
wait_file "$T/ready"
"$MEMSZ" record -o "$T/big.data" --duration 0 -p $P 2>"$T/rec.err" ||
	fail_all "record failed: $(cat "$T/rec.err")"
kill $P

# cut WHEN: a report over a fresh copy of the image, which is truncated
# at the WHEN-th read (a number) or once mapped ("mapped"); prints the
# report's exit status (negative: killed by that signal) and whether the
# image was truncated.
cut() {
	cp "$T/libbig.orig" "$T/libbig.so"
	python3 - "$T/libbig.so" "$1" "$T/out" "$T/err" "$MEMSZ" report -v \
		-i "$T/big.data" --by files,symbols -n 3 <<'PY'
import ctypes, os, select, signal, struct, subprocess, sys
img, when, out, err = sys.argv[1:5]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
if fd < 0 or libc.inotify_add_watch(fd, img.encode(), 0x01) < 0:
    sys.exit("inotify: %s" % os.strerror(ctypes.get_errno()))
p = subprocess.Popen(sys.argv[5:], stdout=open(out, "w"),
                     stderr=open(err, "w"))
def stopped():
    return open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()[0]
n, cut = 0, False
while not cut and p.poll() is None:
    if not select.select([fd], [], [], 0.5)[0]:
        continue
    os.read(fd, 4096)
    n += 1
    os.kill(p.pid, signal.SIGSTOP)
    while stopped() not in "Tt":
        pass
    mapped = img in open("/proc/%d/maps" % p.pid).read()
    if (when == "mapped" and mapped) or (when != "mapped" and n == int(when)):
        os.truncate(img, 0)
        cut = True
    os.kill(p.pid, signal.SIGCONT)
print(p.wait(), "cut" if cut else "whole")
PY
}

# The report of the whole image: what a report that had read all it needed
# before the cut must print. The process is stopped after the read that
# raised the event, not at it: under load or a sanitizer the report may
# be past its last read of the image by then.
"$MEMSZ" report -v -i "$T/big.data" --by files,symbols -n 3 >"$T/whole" \
	2>"$T/whole.err" || fail_all "report failed: $(cat "$T/whole.err")"

for when in mapped 1 2 3 4 5 6; do
	set -- $(cut $when)
	rc=$1 how=$2
	check "truncated at $when: the report ends normally (exit $rc)" \
		test "$rc" = 0
	if [ "$how" = cut ]; then
		check "truncated at $when: a note names the image, or the report is the whole image's" \
			sh -c 'grep -q "libbig.so.*\(changed\|cannot\|truncated\)\|\(changed\|cannot\).*libbig.so" \
			"$1" "$2" || cmp -s "$1" "$3"' - \
			"$T/out" "$T/err" "$T/whole"
	fi
done

# Truncated before the report opens it (or between two of its opens): an
# empty file is no ELF file, but the recording's was one, with a
# build-id: the image changed, and the report says so (it once called it
# a data file "not an ELF file" and labelled its bytes by its path).
: >"$T/libbig.so"
"$MEMSZ" report -v -i "$T/big.data" --by files,symbols -n 3 >"$T/out" \
	2>"$T/err"
rc=$?
check "emptied before the report: it ends normally (exit $rc)" test $rc -eq 0
check "emptied before the report: the image changed since the recording" \
	grep -q "^\[changed since recording\] $T/libbig.so: not an ELF file now" \
	"$T/out" "$T/err"
finish
