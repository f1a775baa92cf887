#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3009: the footer notes and error lines quote names others chose (an
image's path in a recording, a path on the command line) and must not
pass their control bytes to a terminal: rows were escaped, but a note
about an image deleted since it was recorded printed its path raw, in
the table's footer and (csv) on stderr, and an error line printed a path
with a newline as two lines.

A copy of `sleep` whose name holds ESC [31m and the byte 0xff (not
UTF-8; both kept as they are in /proc/PID/maps, which escapes only the
newline) is recorded, then deleted: the report's note about it must hold
the escaped name (\\x1b[31m, \\xff) and no ESC byte in the table's
footer and on stderr (csv); in JSON, where the encoder escapes strings,
the note must hold the name as the row holds it (notes used to be
escaped twice there: \\\\x1b, and the name no longer matched). The
summary line of `record -o PATH` names PATH escaped too (it was raw).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402


def run(*args):
    p = subprocess.run([lib.MEMSZ, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def controls(b, allowed=b"\n"):
    """The control bytes of b other than those allowed."""
    return sorted({c for c in b if (c < 0x20 or c == 0x7f)
                   and c not in allowed})


sleep = shutil.which("sleep")
if not sleep:
    lib.skip("no sleep(1)")
with tempfile.TemporaryDirectory() as tmp:
    name = os.path.join(tmp.encode(), b"sl\x1b[31m-\xff-p")
    shutil.copy(sleep, name)
    data = os.path.join(tmp, "m.data")
    rc, _, err = run("record", "-o", data, "--", name, "0.1")
    if rc != 0:
        lib.fail("memsz record: %r" % err)
    os.unlink(name)
    esc = b"sl\\x1b[31m-\\xff-p"

    rc, out, err = run("report", "-i", data)
    lib.check(rc == 0 and b"deleted since it was mapped" in out,
              "table: a footer note about the deleted image (exit %d)" % rc)
    lib.check(not controls(out) and not controls(err),
              "table: no control byte in the output (%s %s)" %
              (controls(out), controls(err)))
    lib.check(out.count(esc) >= 2,
              "table: row and note show the name escaped")

    rc, out, err = run("report", "-i", data, "--format", "csv")
    note = [ln for ln in err.splitlines() if b"deleted since" in ln]
    lib.check(rc == 0 and len(note) == 1,
              "csv: the note is on stderr (exit %d)" % rc)
    lib.check(not controls(err) and note and esc in note[0],
              "csv: the stderr note shows the name escaped (%s)" %
              controls(err))

    rc, out, err = run("report", "-i", data, "--format", "json")
    strs = []

    def strings(x):
        if isinstance(x, str):
            strs.append(x)
        for y in x.values() if isinstance(x, dict) else \
                x if isinstance(x, list) else ():
            strings(y)
    strings(json.loads(out) if rc == 0 else {})
    names = [x for x in strs if x.startswith("[deleted] ") and
             x.endswith("-p") and "\x1b[31m" in x]
    note = [x for x in strs if "deleted since" in x]
    lib.check(names and note and note[0].startswith(names[0] + ": "),
              "json: the note holds the name as the row does (%r %r)" %
              (names[:1], note[:1]))

    # record's summary line names the -o path as error lines do
    odd = os.path.join(tmp, "o\x1b[2J.data")
    rc, _, err = run("record", "-o", odd, "--", "true")
    lib.check(rc == 0 and not controls(err) and
              b"to '%s'" % odd.replace("\x1b", "\\x1b").encode() in err,
              "record: the summary line shows the -o path escaped (%r)" %
              err)

    rc, out, err = run("report", "-i", os.path.join(tmp, "a\nb\x1b[2J"))
    lib.check(rc == 1 and len(err.splitlines()) == 1 and not controls(err)
              and b"a\\x0ab\\x1b[2J" in err,
              "error line: one line, the path escaped (%r)" % err)

sys.exit(lib.finish())
