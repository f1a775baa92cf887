#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3333: `memsz diff` of an ELF file and a recording says which side is
which.

The usage error read "cannot compare a recording with an ELF file ('a',
'r.data')" whatever the order: with the ELF file first it named the
ELF file as the recording.

Ground truth: the files made here (an ELF file that cc builds, a
recording of `true`, as root): the message must name each path with
its own kind, in both orders and in json mode, and exit 129. And
`--sort addr` (report's positions) is refused for ELF files, as `memsz
size` refuses it (diff sorted them by name), and taken for recordings.
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


def main():
    if os.geteuid() != 0:
        lib.skip("a recording is made with memsz record: run as root")
    with tempfile.TemporaryDirectory(prefix="memsz-t3333-") as tmp:
        elf = os.path.join(tmp, "prog")
        src = elf + ".c"
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        subprocess.run(["cc", "-o", elf, src], check=True)
        data = os.path.join(tmp, "r.data")
        subprocess.run([MEMSZ, "record", "-o", data, "--", "true"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       check=True)
        kind = {elf: "the ELF file", data: "the recording"}
        for old, new in ((elf, data), (data, elf)):
            want = "cannot compare %s '%s' with %s '%s'" % (
                kind[old], old, kind[new], new)
            r = subprocess.run([MEMSZ, "diff", old, new],
                               capture_output=True, text=True)
            check(r.returncode == 129 and want in r.stderr,
                  "diff %s %s: exit 129, %r (%d, %r)"
                  % (os.path.basename(old), os.path.basename(new), want,
                     r.returncode, r.stderr.strip()))
            r = subprocess.run([MEMSZ, "diff", "--format", "json", old,
                                new], capture_output=True, text=True)
            err = json.loads(r.stdout or "{}").get("error")
            check(r.returncode == 129 and err == want,
                  "diff --format json: exit 129, error %r (%d, %r)"
                  % (want, r.returncode, err))
        # --sort addr orders report's positions (mappings, pids): ELF
        # files have none, as `memsz size --sort addr` says
        r = subprocess.run([MEMSZ, "diff", "--sort", "addr", elf, elf],
                           capture_output=True, text=True)
        check(r.returncode == 129 and "not 'addr'" in r.stderr,
              "diff --sort addr of ELF files: exit 129, refused (%d, %r)"
              % (r.returncode, r.stderr.strip()))
        r = subprocess.run([MEMSZ, "diff", "--sort", "addr", data, data],
                           capture_output=True, text=True)
        check(r.returncode == 0,
              "diff --sort addr of recordings: exit 0 (%d, %r)"
              % (r.returncode, r.stderr.strip()))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
