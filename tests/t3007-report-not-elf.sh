#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t3007-report-not-elf.sh — a file mapped as an image that is not ELF is
# labelled by its path; when it is mapped executable or other users may
# not read it (a recording may name /etc/shadow) a note says it is not an
# ELF file; a world-readable data file (as locale-archive is) gets none.
set -u
: "${MEMSZ:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/lib.sh"

head -c 8192 /dev/urandom >"$T/private"
chmod 600 "$T/private"
head -c 8192 /dev/urandom >"$T/public"
chmod 644 "$T/public"
python3 -c '
import mmap, os, sys, time
ms = [mmap.mmap(os.open(f, os.O_RDONLY), 0, prot=mmap.PROT_READ)
      for f in sys.argv[1:3]]
for m in ms:
    m[0]
open(sys.argv[3] + ".tmp", "w").write("1")
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
time.sleep(600)' "$T/private" "$T/public" "$T/ready" &
P=$!
track $P
wait_file "$T/ready"
"$MEMSZ" record -o "$T/n.data" --duration 0 -p $P 2>"$T/err" ||
	fail_all "record failed: $(cat "$T/err")"
"$MEMSZ" report -v -i "$T/n.data" --by files -n 100 --width 400 >"$T/out" 2>&1
check "the private file is a row" grep -q " $T/private$" "$T/out"
check "a note says it is not an ELF file" \
	grep -q "^$T/private: not an ELF file" "$T/out"
check "the world-readable data file gets no note" \
	sh -c "! grep -q '^$T/public:' '$T/out'"
finish
