#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3331: the title of `--format html` (it names the file read: "memsz
size of FILE", "memsz report of FILE") is escaped as the table escapes
labels: no control byte nor invalid UTF-8 in the page.

The page's <title> held the name raw: a file named with a newline, an
ESC [31m and a byte 0xff put them in the page as they are (`cat
report.html` ran the escape sequence; the page, declared UTF-8, was
not), and the title the page shows (from its data block) read "...ÿ"
where the table and the notes read "\\xff".

Ground truth: the name's bytes, made here, escaped by the rule
memsz-report(1) states (C0 controls, DEL and bytes that are not UTF-8
as \\xHH, C1 controls as \\uHHHH, the rest as it is). The page is read
with Python's html.parser: the text of <title> and the "title" of the
memsz-meta data block must both be "memsz size of " + that escape.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

NAME = b"t3331 nl\nesc\x1b[31m<b>&amp;\xff c1\xc2\x85 caf\xc3\xa9"


def escaped(b):
    """The documented escape of bytes b."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if c < 0x20 or c == 0x7f:
            out.append("\\x%02x" % c)
            i += 1
            continue
        if c < 0x80:
            out.append(chr(c))
            i += 1
            continue
        for n in (2, 3, 4):
            try:
                ch = b[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append("\\u%04x" % ord(ch) if 0x80 <= ord(ch) < 0xa0
                       else ch)
            i += n
            break
        else:
            out.append("\\x%02x" % c)
            i += 1
    return "".join(out)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.where, self.title, self.blocks = None, "", {}

    def handle_starttag(self, tag, attrs):
        self.where = tag if tag == "title" else dict(attrs).get("id")

    def handle_endtag(self, tag):
        self.where = None

    def handle_data(self, data):
        if self.where == "title":
            self.title += data
        elif self.where:
            self.blocks[self.where] = self.blocks.get(self.where, "") + data


def check_page(raw, what, want):
    ctrl = [hex(c) for c in raw if c < 0x20 and c not in b"\t\n"]
    check(not ctrl, "%s: no control byte in the page (%r)" % (what, ctrl))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: the page is UTF-8 (%s)" % (what, e))
        return
    p = Page()
    p.feed(text)
    check(p.title == want, "%s: <title> is %r (%r)" % (what, want, p.title))
    meta = json.loads(p.blocks.get("memsz-meta", "{}"))
    check(meta.get("title") == want, "%s: the data block's title is %r "
          "(%r)" % (what, want, meta.get("title")))


def main():
    with tempfile.TemporaryDirectory(prefix="memsz-t3331-") as tmp:
        elf = os.path.join(tmp.encode(), NAME)
        shutil.copy(shutil.which("true") or "/bin/true", elf)
        raw = subprocess.run([MEMSZ, "size", "--format", "html", elf],
                             stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
        check_page(raw, "size", "memsz size of " + escaped(elf))
        if os.geteuid() != 0:
            lib.skip("report: recording needs root")
        data = os.path.join(tmp.encode(), NAME + b".data")
        subprocess.run([MEMSZ, "record", "-o", data, "--", "true"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       check=True)
        raw = subprocess.run([MEMSZ, "report", "-i", data, "--format",
                              "html"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
        check_page(raw, "report", "memsz report of " + escaped(data))
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
