#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3326: a report by a fault key says when faults were sampled 1 in N.

`record --faults -c N` samples one page fault in N: the pages the other
faults made resident have no fault of their own and go to "[no fault
seen]", which memsz-report(1) defined as the pages resident before
recording began or not resident; nothing said so. A program built here
touches every page of a 30 MiB malloc and waits on its stdin (its wchan
says when); its smaps give the Rss of that region (the ground truth). It
is recorded launched, with -c 10 and with -c 1:
 - -c 10: the recording has a NOTE "events sampled 1 in 10 (--count
   10)" (`memsz dump`); `report --by faultsite` and `--by callers` say in
   a note that the pages of the faults not sampled are under [no fault
   seen]; `--by files` (no fault key) does not; and [no fault seen] does
   hold most of the region (at least 80 % of its Rss), main the rest;
 - -c 1: no such NOTE nor note, main holds at least 95 % of the region.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	char *p = malloc(30 << 20);

	for (int i = 0; i < (30 << 20); i += 4096)
		p[i] = 1;
	printf("%p\n", (void *)p);
	fflush(stdout);
	getchar();
	return p[4096] - 1; /* 0, and p stays live until here */
}
"""
NOTE = ("the pages of the faults not sampled are under "
        "[no fault seen]")


def record(exe, data, count):
    """Record exe launched with --faults -c count; returns (the region's
    smaps Rss, stderr, exit status)."""
    p = subprocess.Popen([MEMSZ, "record", "--faults", "-c", str(count),
                          "-o", data, "--", exe], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    rss = None
    try:
        line = p.stdout.readline()
        if line:
            addr = int(line, 16)
            kid = lib.children(p.pid)[0]
            lib.reading_pipe(kid)  # touched every page, waits on stdin
            rss = sum(v.get("Rss", 0) for v in lib.smaps_vmas(kid)
                      if v["start"] <= addr < v["end"])
        _, err = p.communicate("\n")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return rss, err, p.returncode


def report(data, by):
    out = subprocess.run([MEMSZ, "report", "-i", data, "--by", by, "-F",
                          "rss", "-n", "0", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    return {r["name"]: r["rss"] for r in doc["rows"]}, doc.get("notes", [])


def main():
    if os.geteuid() != 0 and not os.path.exists(
            "/proc/sys/kernel/perf_event_paranoid"):
        lib.skip("no perf events in this kernel")
        return
    with tempfile.TemporaryDirectory(prefix="memsz-t3326-") as tmp:
        src = os.path.join(tmp, "touch.c")
        exe = os.path.join(tmp, "touch")
        with open(src, "w") as f:
            f.write(SRC)
        subprocess.run(["gcc", "-O1", "-g", "-o", exe, src], check=True)
        for count in (10, 1):
            data = os.path.join(tmp, f"c{count}.data")
            rss, err, rc = record(exe, data, count)
            if rc and ("perf" in err or "permission" in err.lower()):
                lib.skip("cannot sample page faults: " + err.strip())
                return
            check(rc == 0 and rss and rss >= 29 << 20,
                  f"-c {count}: recorded (exit {rc}); the region's smaps "
                  f"Rss {rss} is its 30 MiB")
            if not rss:
                continue
            dump = subprocess.run([MEMSZ, "dump", "-i", data],
                                  capture_output=True, text=True,
                                  check=True).stdout
            want = "NOTE events sampled 1 in 10 (--count 10)"
            noted = [ln for ln in dump.splitlines() if " NOTE events " in ln]
            check(any(ln.endswith(want) for ln in noted) if count > 1
                  else not noted,
                  f"-c {count}: the recording's NOTE says the sampling "
                  f"({noted if noted else 'none'})")
            for by in ("faultsite", "callers", "files"):
                rows, notes = report(data, by)
                said = [n for n in notes if NOTE in n]
                check(bool(said) == (count > 1 and by != "files"),
                      f"-c {count} --by {by}: a note says the faults not "
                      f"sampled are under [no fault seen]: {said}")
            rows, _ = report(data, "faultsite")
            unseen, main_rss = rows.get("[no fault seen]", 0), \
                rows.get("main", 0)
            if count > 1:
                check(unseen >= 0.8 * rss and main_rss < 0.2 * rss,
                      f"-c {count}: [no fault seen] {unseen} holds at "
                      f"least 80 % of the region's {rss}, main "
                      f"{main_rss} the rest")
            else:
                check(main_rss >= 0.95 * rss,
                      f"-c 1: main {main_rss} holds at least 95 % of the "
                      f"region's {rss}")


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
