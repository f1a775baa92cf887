#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Static archives: `memsz size lib.a`, keys armembers and inputfiles,
`memsz diff old.a new.a`, hostile archives.

Ground truth is binutils, which shares no code with memsz:
  - --by armembers names exactly the members `ar t` lists (a GNU long
    name, a non-ELF member), plus "[AR Headers]" and "[AR Symbol Table]";
  - a member's FILE SIZE is its size in `ar tv` plus the pad byte after an
    odd-sized member, and FILE SIZE sums to the archive's size (stat);
  - a member's VM SIZE is the sum of `size -A`'s sizes of the sections
    `readelf -SW` flags A (.tbss aside), as for a .o file;
  - under --by armembers,symbols each function owns its `nm -S` size in VM
    (outside .eh_frame, where it also holds its FDE);
  - --by inputfiles with two FILEs: two rows, each its file's size;
  - diff old.a new.a --by armembers: the member that grew by N bytes in
    `ar tv` is the one row, +N;
  - Bloaty's -d armembers gives the same FILE SIZE and VM SIZE per row, on
    the fixture and on libc_nonshared.a (only where Bloaty is built: else
    that part is skipped, saying so);
  - truncated, overflowing, overrunning and thin archives and a huge
    long-name offset are one error line naming the archive, never a
    crash; a corrupt ELF member is a labelled row and a note.
"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import check  # noqa: E402

MEMSZ = os.environ.get("MEMSZ", "./memsz")
LONG = "a_member_with_a_long_name.o"  # > 15 bytes: in the "//" table


def run(args, ok_status=False):
    """stdout of args; ok_status: a failing status is fine (binutils say
    so of the non-ELF member, and go on)."""
    return subprocess.run(args, check=not ok_status, capture_output=True,
                          text=True).stdout


def memsz(*args):
    return subprocess.run([MEMSZ, *args], capture_output=True, text=True)


def rows(path, by, *extra):
    """{label path tuple: (file, vm)} of memsz size --format csv."""
    out = memsz("size", "--by", by, "-n", "0", "--format", "csv", *extra,
                *([path] if isinstance(path, str) else path))
    if out.returncode:
        lib.fail("memsz size --by %s %s: %s" % (by, path, out.stderr))
    got = {}
    nkeys = len(by.split(","))
    for r in csv.reader(io.StringIO(out.stdout)):
        if r[0] == by.split(",")[0]:
            continue
        got[tuple(x for x in r[:nkeys] if x)] = (int(r[nkeys]),
                                                 int(r[nkeys + 1]))
    return got


def build(tmp, name, big=64):
    """An archive of three objects (one with a long name), a 3-byte text
    member (odd: padded) and a symbol index; big sizes one array."""
    srcs = {
        "small.c": "int small(int x) { return x * 3; }\n",
        "data.c": "const char big_table[%d] = {1};\n"
                  "int get(int i) { return big_table[i]; }\n" % big,
        LONG[:-2] + ".c": "__thread long tls_a[8] = {1};\n"
                          "__thread long tls_b[16];\n"
                          "long bump(void) { return ++tls_a[0] + "
                          "tls_b[1]; }\n",
    }
    objs = []
    for src, text in srcs.items():
        with open(os.path.join(tmp, src), "w") as f:
            f.write(text)
        obj = os.path.join(tmp, src[:-2] + ".o")
        run(["gcc", "-O2", "-c", "-o", obj, os.path.join(tmp, src)])
        objs.append(obj)
    note = os.path.join(tmp, "notes.txt")
    with open(note, "w") as f:
        f.write("abc")
    ar = os.path.join(tmp, name)
    if os.path.exists(ar):
        os.unlink(ar)
    run(["ar", "rcs", ar] + objs + [note])
    return ar


def ar_sizes(ar):
    """{member: size} from ar tv, and the member names in order."""
    sizes, names = {}, []
    for line in run(["ar", "tv", ar]).splitlines():
        m = re.match(r"\S+\s+\S+\s+(\d+)\s+.*\d\d:\d\d \d+ (.+)$", line)
        sizes[m.group(2)] = int(m.group(1))
        names.append(m.group(2))
    return sizes, names


def size_a_vm(ar, tbss=None):
    """{member: VM size}: size -A's sizes of the sections readelf flags A
    (not .tbss: a per-thread template, not in the image; its size goes
    to tbss[member] if tbss is given)."""
    sizes, cur = {}, None
    for line in run(["size", "-A", ar], True).splitlines():
        m = re.match(r"(\S+)\s+\(ex .*\):$", line)
        if m:
            cur = m.group(1)
            sizes[cur] = {}
            continue
        f = line.split()
        if cur and len(f) == 3 and f[1].isdigit() and f[0] != "Total":
            sizes[cur][f[0]] = int(f[1])
    vm, cur = {}, None
    for line in run(["readelf", "-SW", ar], True).splitlines():
        m = re.match(r"File: .*\((.+)\)$", line)
        if m:
            cur = m.group(1)
            vm[cur] = 0
            continue
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(\S*A\S*)\s", line)
        if not cur or not m:
            continue
        if m.group(2) == "NOBITS" and "T" in m.group(3):
            if tbss is not None:
                tbss[cur] = tbss.get(cur, 0) + sizes[cur].get(m.group(1), 0)
            continue
        vm[cur] += sizes[cur].get(m.group(1), 0)
    return vm


def check_members(ar):
    sizes, names = ar_sizes(ar)
    got = rows(ar, "armembers")
    members = {k[0] for k in got if not k[0].startswith("[AR ")}
    check(members == set(names) and LONG in members,
          "armembers are the members ar t lists: %s" % sorted(members))
    check(("[AR Headers]",) in got and ("[AR Symbol Table]",) in got,
          "the archive's own bytes: [AR Headers], [AR Symbol Table]")
    check(sum(v[0] for v in got.values()) == os.path.getsize(ar),
          "FILE SIZE sums to the archive's size %d" % os.path.getsize(ar))
    pos, want = 8, {}
    for n in names:  # the pad byte after an odd member: but the last
        pos += 60 + sizes[n]
        pad = sizes[n] & 1 and pos < os.path.getsize(ar)
        want[n] = sizes[n] + pad
        pos += pad
    bad = [n for n in names if got[(n,)][0] != want[n]]
    check(not bad, "each member's FILE SIZE is ar tv's size (+ pad): "
          "wrong for %s" % bad)
    vm = size_a_vm(ar)
    bad = [n for n in vm if got[(n,)][1] != vm[n]]
    check(vm and not bad, "each member's VM SIZE is size -A's (loaded "
          "sections): wrong for %s" % [(n, got[(n,)], vm[n]) for n in bad])
    check(got[("notes.txt",)] == (4, 0),
          "a non-ELF member: its 3 bytes and pad, no VM")
    secs = rows(ar, "sections")
    check(secs.get(("[AR Non-ELF Member File]",)) == (4, 0),
          "under sections it is [AR Non-ELF Member File]")
    return got


def check_symbols(ar, tmp):
    # outside .eh_frame: a function's row also holds its FDE (t1196)
    got = {}
    for k, (_, v) in rows(ar, "armembers,sections,symbols").items():
        if len(k) == 3 and k[1] != ".eh_frame":
            got[(k[0], k[2])] = (0, got.get((k[0], k[2]), (0, 0))[1] + v)
    obj = os.path.join(tmp, "data.o")
    want = {}
    for line in run(["nm", "-S", obj]).splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in ("get", "big_table"):
            want[f[3]] = int(f[1], 16)
    ok = len(want) == 2 and all(got.get(("data.o", s), (0, -1))[1] == n
                                for s, n in want.items())
    check(ok, "armembers,symbols: data.o's symbols own their nm -S sizes "
          "%s" % want)


def check_inputfiles(ar, tmp):
    other = os.path.join(tmp, "small.o")
    got = rows([ar, other], "inputfiles")
    check(got == {(ar,): (os.path.getsize(ar), got.get((ar,), (0, 0))[1]),
                  (other,): (os.path.getsize(other),
                             got.get((other,), (0, 0))[1])},
          "inputfiles: one row per FILE, each its size")


def check_diff(tmp):
    old = build(tmp, "old.a", 64)
    os.mkdir(os.path.join(tmp, "new"))
    new = build(os.path.join(tmp, "new"), "new.a", 64 + 4096)
    so, _ = ar_sizes(old)
    sn, _ = ar_sizes(new)
    out = memsz("diff", "--by", "armembers", "--format", "csv", old, new)
    check(out.returncode == 0, "diff old.a new.a runs: %s" % out.stderr)
    changed = {}
    for r in csv.DictReader(io.StringIO(out.stdout)):
        if r["armembers"] and not r["armembers"].startswith("[AR "):
            changed[r["armembers"]] = int(r["file_size_new"]) - \
                int(r["file_size_old"])
    want = sn["data.o"] - so["data.o"] + (sn["data.o"] & 1) - \
        (so["data.o"] & 1)
    check(changed == {"data.o": want},
          "diff --by armembers: data.o grew by %d as in ar tv: %s"
          % (want, changed))


def check_bsd(tmp):
    """A BSD archive (llvm-ar --format=bsd: "#1/LEN" names in the data,
    a __.SYMDEF index): the members llvm-ar t lists, of llvm-ar tv's
    sizes."""
    # llvm-14 (run-tests.sh installs it) has llvm-ar-14; llvm, llvm-ar
    llvm_ar = shutil.which("llvm-ar") or shutil.which("llvm-ar-14")
    if not llvm_ar:
        lib.skip_part("llvm-ar not installed (llvm-14): no BSD archive "
                      "checked")
        return
    objs = [os.path.join(tmp, n) for n in ("small.o", "data.o", LONG)]
    bsd = os.path.join(tmp, "bsd.a")
    run([llvm_ar, "--format=bsd", "rcs", bsd] + objs)
    want = {}
    for line in run([llvm_ar, "tv", bsd]).splitlines():
        f = line.split()
        want[f[-1]] = int(f[2])
    got = rows(bsd, "armembers")
    members = {k[0]: v[0] for k, v in got.items()
               if not k[0].startswith("[AR ")}
    check(members == want and ("[AR Symbol Table]",) in got and
          sum(v[0] for v in got.values()) == os.path.getsize(bsd),
          "BSD archive: the members and sizes llvm-ar tv lists %s, "
          "__.SYMDEF as [AR Symbol Table], summing to its size" % members)


def check_bloaty(ar):
    bloaty = lib.bloaty_path()
    if not bloaty:
        # Bloaty is not in Debian: the comparison with it is an extra
        # beside the binutils checks above, which always run
        print("# Bloaty is not built here (set BLOATY=PATH): "
              "armembers not compared with bloaty -d armembers")
        return
    for path in (ar, "/usr/lib/x86_64-linux-gnu/libc_nonshared.a"):
        if not os.path.exists(path):
            continue
        out = run([bloaty, "--csv", "-d", "armembers", "-n", "0", path])
        want = {}
        for r in csv.DictReader(io.StringIO(out)):
            want[(r["armembers"],)] = (int(r["filesize"]), int(r["vmsize"]))
        got = rows(path, "armembers")
        # Bloaty does not name a non-ELF member: it is its own row there
        if ("notes.txt",) in got:
            got[("[AR Non-ELF Member File]",)] = got.pop(("notes.txt",))
        # Bloaty gives a .o's .tbss VM (memsz, as size -A, does not)
        tbss = {}
        size_a_vm(path, tbss)
        for k, (f, v) in got.items():
            got[k] = (f, v + tbss.get(k[0], 0))
        check(got == want, "%s: armembers equal bloaty -d armembers, "
              ".tbss aside (%d rows; tbss %s)"
              % (os.path.basename(path), len(want), tbss))


def hostile(tmp, name, data, what):
    """A broken archive: one error line naming it, status 1, no crash."""
    p = os.path.join(tmp, name)
    with open(p, "wb") as f:
        f.write(data)
    out = memsz("size", "--by", "armembers", p)
    lines = out.stderr.strip().splitlines()
    check(out.returncode == 1 and len(lines) == 1 and p in lines[0]
          and what in lines[0],
          "%s: one error line '%s' (status %d)"
          % (name, out.stderr.strip(), out.returncode))


def hdr(name, size, fmag=b"`\n"):
    return (name.ljust(16) + "0".ljust(12) + "0".ljust(6) + "0".ljust(6) +
            "644".ljust(8)).encode() + size.ljust(10).encode() + fmag


def check_hostile(tmp, ar):
    obj = open(os.path.join(tmp, "small.o"), "rb").read()
    magic = b"!<arch>\n"
    hostile(tmp, "trunc-hdr.a", magic + hdr("a.o/", "4")[:30],
            "truncated")
    hostile(tmp, "past-end.a", magic + hdr("a.o/", "9999999999") + obj,
            "truncated")
    hostile(tmp, "size-nan.a", magic + hdr("a.o/", "12x4") + obj,
            "corrupt archive member header")
    hostile(tmp, "bad-fmag.a", magic + hdr("a.o/", "4", b"ab") + b"abcd",
            "corrupt archive member header")
    hostile(tmp, "long-off.a", magic + hdr("//", "8") + b"x.o/\n\n\n\n" +
            hdr("/999999999999999", "%d" % len(obj)) + obj,
            "corrupt archive member header")
    hostile(tmp, "no-table.a", magic + hdr("/0", "%d" % len(obj)) + obj,
            "corrupt archive member header")
    thin = os.path.join(tmp, "thin.a")
    run(["ar", "rcT", thin, os.path.join(tmp, "small.o")])
    hostile(tmp, "thin.a", open(thin, "rb").read(), "thin archive")
    # a member that says it is ELF but is not readable as such
    bad = obj[:64] + b"\xff" * (len(obj) - 64)
    bad = bad[:0x28] + b"\xff" * 8 + bad[0x30:]  # e_shoff past the end
    p = os.path.join(tmp, "bad-member.a")
    with open(p, "wb") as f:
        f.write(magic + hdr("bad.o/", "%d" % len(bad)) + bad)
    out = memsz("size", "--by", "armembers,sections", "--format", "csv", p)
    check(out.returncode == 0 and "[AR Unreadable Member]" in out.stdout
          and "bad-member.a(bad.o)" in out.stderr,
          "a corrupt ELF member: a labelled row and a note (%s)"
          % out.stderr.strip())


def main():
    for tool in ("gcc", "ar", "size", "nm", "readelf"):
        if not shutil.which(tool):
            lib.skip("%s not installed" % tool)
    with tempfile.TemporaryDirectory() as tmp:
        ar = build(tmp, "lib.a")
        check_members(ar)
        check_symbols(ar, tmp)
        check_inputfiles(ar, tmp)
        check_diff(tmp)
        check_hostile(tmp, ar)
        check_bsd(tmp)
        check_bloaty(ar)
    sys.exit(lib.finish())


if __name__ == "__main__":
    main()
