#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t2106: `memsz record --faults` loses nothing while it snapshots a large
process that keeps faulting.

tests/workloads/fault_churn.c writes every page of a 3 GiB mapping, so
that each snapshot reads 786 432 pagemap entries and lasts long, then maps,
touches and unmaps 16 MiB twenty times from churn(), faulting all along.
memsz takes a snapshot every 10 ms, with sample rings of 32 MiB per cpu
(-m 8192), which those snapshots would overflow: memsz cannot drain
inside a snapshot, so between its chunks of pages it holds the workload
once a ring is 1/8 full, until the drain after the snapshot.
 - the summary line says 0 lost, and `memsz dump` has no LOST record;
 - there is a sample for every page the workload wrote (its own count);
 - the summary says the workload was held.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

BIG_MIB, ROUNDS, CHUNK_MIB = 3072, 20, 16


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t2106-") as tmp:
        exe = lib.workload(tmp, "fault_churn")
        data = os.path.join(tmp, "memsz.data")
        p = subprocess.run(lib.urgent() +
                           [MEMSZ, "record", "--faults", "-m", "8192",
                            "--interval", "10", "-o", data, "--", exe,
                            str(BIG_MIB), str(ROUNDS), str(CHUNK_MIB)],
                           capture_output=True, text=True, timeout=600)
        if "not permitted" in p.stderr:
            lib.skip("cannot sample page faults: " + p.stderr.strip())
        err = p.stderr.strip()
        check(p.returncode == 0, "record exits 0: " + err)
        churned = int(p.stdout.split()[0]) if p.stdout.strip() else 0
        check(churned == ROUNDS * (CHUNK_MIB << 8),
              f"the workload churned {churned} pages")
        check("(0 lost)" in err, "summary: 0 lost: " + err)
        m = re.search(r"targets held ([\d.]+) s \((\d+) times\)", err)
        check(m is not None and int(m.group(2)) > 0,
              "summary: the workload was held: " + err)
        dump = subprocess.run([MEMSZ, "dump", "-i", data],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout
        nsamples = dump.count(" SAMPLE ")
        nsnaps = dump.count(" SNAP_BEGIN ")
        check(" LOST " not in dump, f"no LOST record ({nsamples} samples)")
        want = (BIG_MIB << 8) + churned
        check(nsamples >= want,
              f"a sample per page written ({nsamples} >= {want})")
        check(nsnaps >= 10, f"snapshots taken meanwhile ({nsnaps})")


main()
sys.exit(lib.finish())
