#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t0001: the layers are a tree, and every #include "dir/file.h" of the
sources keeps to it (DESIGN.md, "Layers"; README.md draws the same tree).

    builtin/ memsz.c   the commands: may include every layer below
    record/  report/   side by side, never each other: they meet only in
                       the data format; record/ takes from elf/ only the
                       build-id (elf/elfimg.h)
    data/  elf/  rows/ siblings that do not include each other; data/ uses
                       only util/, the row tree knows no ELF, process or
                       file format
    maps/              RangeMap / DualMap, interned labels
    util/              the bottom: includes nothing of memsz

ALLOWED below is the whole rule, one row per layer: the layers (or single
headers, "dir/file.h") its files may include. A header named *priv.h is
private to its own folder. A folder the table does not know,
an include that climbs out of its folder ("../"), or a bare "file.h" that
is not in the including file's own folder fails too. tests/, fuzz/ and
bench/ link the whole library and are not checked.

Each failure names the file and line. Before the real tree, the checker is
run on a small planted tree with one bad include of each kind, and must
find exactly those: a checker that finds nothing fails.
"""
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

# layer: what its files may include (layers, or "dir/file.h" headers).
# A layer always includes its own folder.
ALLOWED = {
    "builtin": {"record", "report", "data", "elf", "rows", "maps", "util"},
    "record": {"data", "elf/elfimg.h", "maps", "util"},
    "report": {"data", "elf", "rows", "maps", "util"},
    "data": {"util"},
    "elf": {"maps", "util"},
    "rows": {"maps", "util"},
    "maps": {"util"},
    "util": set(),
}
# folders read as another layer (none since out/ became rows/)
ALIASES = {}
# files at the top of the tree and their layer
TOP_FILES = {"memsz.c": "builtin"}
# bare includes every file may make: the configure header
BARE_OK = {"config.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(folder):
    """The layer of a top-level folder name, or None if the table does
    not know it."""
    folder = ALIASES.get(folder, folder)
    return folder if folder in ALLOWED else None


def source_files(top):
    """[(path relative to top, layer)] of every .c and .h file of the
    layers' folders (subfolders included) and of TOP_FILES."""
    out = [(f, layer) for f, layer in TOP_FILES.items()
           if os.path.exists(os.path.join(top, f))]
    for folder in sorted(os.listdir(top)):
        layer = layer_of(folder)
        if layer is None or not os.path.isdir(os.path.join(top, folder)):
            continue
        for d, _, files in os.walk(os.path.join(top, folder)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    out.append((os.path.relpath(os.path.join(d, f), top),
                                layer))
    return out


def why_not(top, src, layer, inc):
    """None if file src (of layer) may #include "inc", else why not."""
    if inc.startswith("/") or ".." in inc.split("/"):
        return "climbs out of its folder"
    if "/" not in inc:
        if inc in BARE_OK or os.path.exists(
                os.path.join(top, os.path.dirname(src), inc)):
            return None
        return "a bare include of a file not in its own folder"
    folder = inc.split("/", 1)[0]
    target = layer_of(folder)
    if target is None:
        return f"{folder}/ is not a layer of the table"
    if target == layer:
        return None
    if os.path.basename(inc).endswith("priv.h"):
        return f"{inc} is private to {folder}/"
    header = target + "/" + inc.split("/", 1)[1]
    if target in ALLOWED[layer] or header in ALLOWED[layer]:
        return None
    return (f"{layer}/ may not include {target}/ (it may include "
            f"{', '.join(sorted(ALLOWED[layer])) or 'nothing else'})")


def violations(top):
    """(number of files, number of includes, ["file:line: #include "x":
    why"]) over the tree at top."""
    files = source_files(top)
    nincs, bad = 0, []
    for src, layer in files:
        with open(os.path.join(top, src), errors="replace") as f:
            for ln, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                nincs += 1
                why = why_not(top, src, layer, m.group(1))
                if why:
                    bad.append(f'{src}:{ln}: #include "{m.group(1)}": {why}')
    return len(files), nincs, bad


def plant(top, files):
    """Writes {relative path: text} under top."""
    for rel, text in files.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def self_test():
    """The checker on a planted tree: every good include passes, each bad
    one is found, with its file and line."""
    good = {
        "memsz.c": '#include "config.h"\n#include "builtin/b.h"\n',
        "builtin/b.h": '#include "report/r.h"\n#include "record/c.h"\n',
        "record/c.c": '#include "config.h"\n#include "elf/elfimg.h"\n'
                      '#include "data/d.h"\n#include "c.h"\n',
        "record/c.h": "",
        "report/r.h": '#include "elf/elfimg.h"\n#include "rows/rows.h"\n',
        "rows/rows.h": '#include "maps/m.h"\n',
        "elf/elfimg.h": '#include "maps/m.h"\n',
        "elf/elfimg.c": '#include "elf/elfpriv.h"\n',
        "elf/elfpriv.h": "",
        "data/d.h": '#include "util/u.h"\n',
        "maps/m.h": '#include "util/u.h"\n',
        "util/u.h": "",
    }
    bad = {
        "record/bad1.c": '\n#include "report/r.h"\n',
        "record/bad2.c": '#include "elf/dwarf.h"\n',
        "report/bad3.c": '#include "record/c.h"\n',
        "report/bad4.c": '#include "elf/elfpriv.h"\n',
        "data/bad5.c": '#include "maps/m.h"\n',
        "rows/bad6.c": '#include "elf/elfimg.h"\n',
        "elf/bad7.c": '#include "data/d.h"\n',
        "util/bad8.c": '#include "maps/m.h"\n',
        "maps/bad9.c": '#include "notalayer/x.h"\n',
        "util/bad10.c": '#include "../maps/m.h"\n',
        "util/bad11.c": '#include "m.h"\n',
    }
    with tempfile.TemporaryDirectory(prefix="memsz-t0001.") as tmp:
        plant(tmp, good)
        _, _, found = violations(tmp)
        check(not found, f"self-test: a tree that keeps the layers passes "
              f"({found})")
        plant(tmp, bad)
        nfiles, _, found = violations(tmp)
        where = sorted(v.split(": ", 1)[0] for v in found)
        want = sorted(f"{f}:{2 if f == 'record/bad1.c' else 1}"
                      for f in bad)
        check(where == want, "self-test: each planted bad include is found "
              f"with its file and line ({len(found)} of {len(bad)}"
              + (")" if where == want else f": {found})"))
        check(nfiles == len(good) + len(bad),
              f"self-test: every planted file is read ({nfiles})")


def main():
    self_test()
    top = os.path.abspath(lib.SRCDIR)
    nfiles, nincs, bad = violations(top)
    for v in bad:
        print("# " + v)
    layers = {layer for _, layer in source_files(top)}
    check(layers == set(ALLOWED),
          f"the sources have every layer of the table: "
          f"missing {sorted(set(ALLOWED) - layers)}")
    check(nfiles >= 50 and nincs >= 200,
          f"{nfiles} source files read, {nincs} includes")
    check(not bad, f"every #include keeps to the layers ({len(bad)} do not"
          + (": " + "; ".join(bad[:20]) if bad else "") + ")")
    return lib.finish()


if __name__ == "__main__":
    sys.exit(main())
