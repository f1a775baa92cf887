#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3020: what `memsz report` shows and how: --fields, the table's width,
per-key --filter/--exclude, the footer grouped by kind, totals of files
several processes map.

The workload (built here) links three stripped shared libraries (only
.dynsym) and forks three children that each map a data file; it is
recorded from launch to exit, so every process has a snapshot at its exit.
Ground truth: os.stat() for file sizes, readelf for which images lack a
.symtab, Python's re on the unfiltered csv for what a filter keeps, and
Python's json/csv modules for the formats.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

# A directory name long enough that image paths do not fit a label column.
LONGDIR = "a_directory_with_a_name_long_enough_to_be_cut_in_the_table_" \
          "0123456789"

MAIN_C = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
int f1(void); int f2(void); int f3(void);
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY), sum = f1() + f2() + f3();
	if (fd < 0)
		return 3;
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			volatile char *p = mmap(NULL, 8 * 4096, PROT_READ,
						MAP_PRIVATE, fd, 0);
			if (p == MAP_FAILED)
				_exit(4);
			for (int k = 0; k < 8; k++)
				sum += p[k * 4096];
			_exit(sum & 0);
		}
		if (pid < 0)
			return 6;
		/* one child after the other: each exits before the next
		 * one's snapshot, so no two peaks are one moment */
		wait(NULL);
	}
	return 0;
}
"""


def run(args, env=None, check_rc=True):
    p = subprocess.run([MEMSZ] + args, capture_output=True, text=True,
                       env=env)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"memsz {' '.join(args)}: rc {p.returncode}: "
                           f"{p.stderr}")
    return p


def rows_csv(text, delim=","):
    return list(csv.DictReader(io.StringIO(text), delimiter=delim))


def json_rows(node, path=()):
    """(path, row) for every row of a json report, depth first."""
    for r in node.get("rows", []):
        yield path + (r["name"],), r
        yield from json_rows(r, path + (r["name"],))


def build(tmp):
    d = os.path.join(tmp, LONGDIR)
    os.mkdir(d)
    for i in (1, 2, 3):
        src = os.path.join(d, f"l{i}.c")
        with open(src, "w") as f:
            f.write(f"int f{i}(void) {{ return {i}; }}\n"
                    f"int g{i}(int x) {{ return x * {i} + 1; }}\n")
        so = os.path.join(d, f"libview{i}.so")
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", so, src],
                       check=True)
        subprocess.run(["strip", "--strip-all", so], check=True)
    src = os.path.join(d, "main.c")
    with open(src, "w") as f:
        f.write(MAIN_C)
    exe = os.path.join(d, "viewfork")
    subprocess.run(["gcc", "-O1", "-o", exe, src, "-L" + d, "-lview1",
                    "-lview2", "-lview3", "-Wl,-rpath," + d], check=True)
    data = os.path.join(d, "data.bin")
    with open(data, "wb") as f:
        f.write(b"\1" * (16 * 4096))
    return d, exe, data


def has_symtab(path):
    out = subprocess.run(["readelf", "-W", "-S", path], capture_output=True,
                         text=True).stdout
    return " .symtab " in out


def debug_by_build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        return False
    b = m.group(1)
    dbg = f"/usr/lib/debug/.build-id/{b[:2]}/{b[2:]}.debug"
    return os.path.exists(dbg) and has_symtab(dbg)


def check_totals(rec):
    """FILE SIZE of a file several processes map counts once in a TOTAL;
    every (pid, file) row has the whole file."""
    files = [r for r in lib.report(rec, "files")
             if int(r["file_size"]) > 0]
    sizes = {r["files"]: os.stat(r["files"]).st_size for r in files}
    bad = [r["files"] for r in files
           if int(r["file_size"]) != sizes[r["files"]]]
    check(not bad and len(sizes) >= 5,
          f"--by files: FILE SIZE of each of {len(sizes)} files == stat "
          f"size (bad: {bad})")
    j = json.loads(run(["report", "-i", rec, "--by", "pids,files", "-n",
                        "0", "--format", "json"]).stdout)
    total = int(j["total"]["file_size"])
    check(total == sum(sizes.values()),
          f"--by pids,files: TOTAL FILE SIZE {total} == the distinct files' "
          f"stat sizes summed once {sum(sizes.values())}")
    per_pid = sum(int(r["file_size"]) for r in j["rows"])
    check(len(j["rows"]) == 4 and per_pid > total,
          f"4 processes; their rows add up to more ({per_pid}) than the "
          "TOTAL: each has the files it maps")
    bad = [(p, r["file_size"]) for p, r in json_rows(j)
           if len(p) == 2 and p[1] in sizes
           and int(r["file_size"]) != sizes[p[1]]]
    check(not bad, f"every (pid, file) row has the file's stat size ({bad})")
    vm_rows = sum(int(r["vm_size"]) for r in j["rows"])
    check(int(j["total"]["vm_size"]) < vm_rows,
          "TOTAL VM SIZE counts shared file mappings once (less than the "
          "processes' rows summed)")
    rss_rows = sum(int(r["rss"]) for r in j["rows"])
    check(int(j["total"]["rss"]) == rss_rows,
          "TOTAL RSS is still the sum of the processes' RSS")
    check(any("counts a file on disk several processes map once" in n
              for n in j["notes"]), "the footer says files count once")
    over = [(p, r["res_pct"]) for p, r in json_rows(j)
            if r["res_pct"] is not None and float(r["res_pct"]) > 100.0]
    jf = json.loads(run(["report", "-i", rec, "--by", "files,symbols",
                         "-n", "0", "--format", "json"]).stdout)
    over += [(p, r["res_pct"]) for p, r in json_rows(jf)
             if r["res_pct"] is not None and float(r["res_pct"]) > 100.0]
    check(not over, f"RES% never above 100% ({over[:3]})")
    bad = [p for p, r in json_rows(jf) if len(p) == 1 and "rows" in r and
           int(r["vm_size"]) != sum(int(c["vm_size"]) for c in r["rows"])]
    check(not bad, "--by files,symbols: each file's VM SIZE is the sum of "
          f"its symbols' ({bad[:3]})")
    # snapshots of several processes are not one moment
    j = json.loads(run(["report", "-i", rec, "--snapshot", "peak",
                        "--format", "json"]).stdout)
    check(any("peak snapshot of each of 4 processes" in n
              for n in j["notes"]),
          "--snapshot peak: the footer says the TOTAL adds 4 peaks")


def check_fields(rec):
    p = run(["report", "-i", rec, "--by", "files", "-n", "0", "--format",
             "csv", "--fields", "dirty,rss,res"])
    rows = rows_csv(p.stdout)
    check(list(rows[0].keys()) == ["files", "dirty", "rss", "res_pct"],
          f"csv --fields dirty,rss,res: header {list(rows[0].keys())}")
    full = {r["files"]: r for r in lib.report(rec, "files")}
    bad = [r["files"] for r in rows
           if (r["dirty"], r["rss"], r["res_pct"]) !=
           (full[r["files"]]["dirty"], full[r["files"]]["rss"],
            full[r["files"]]["res_pct"])]
    check(not bad, f"csv --fields: the same values as all columns ({bad})")
    p = run(["report", "-i", rec, "--by", "files", "-n", "0", "--format",
             "tsv", "-F", "pss,vm"])
    rows = rows_csv(p.stdout, "\t")
    check(list(rows[0].keys()) == ["files", "pss", "vm_size"],
          "tsv -F pss,vm: header files, pss, vm_size")
    j = json.loads(run(["report", "-i", rec, "--by", "files,sections",
                        "--format", "json", "-F", "uss,file"]).stdout)
    keys = {k for _, r in json_rows(j) for k in r
            if k not in ("name", "rows", "others", "aliases")}
    check(j["columns"] == ["uss", "file_size"] and
          keys == {"uss", "file_size"} and
          set(j["total"]) == {"uss", "file_size"},
          f"json -F uss,file: columns {j['columns']}, row fields {keys}")
    order = [int(r["uss"]) for r in j["rows"] if not r.get("others")]
    check(order == sorted(order, reverse=True),
          "without --sort, rows are sorted by the first field")
    fold = run(["report", "-i", rec, "--by", "files", "--format", "folded",
                "-F", "dirty,rss"]).stdout
    fsum = sum(int(line.rsplit(" ", 1)[1]) for line in fold.splitlines())
    dsum = sum(int(r["dirty"]) for r in full.values())
    check(fsum == dsum, f"folded -F dirty,rss: the dirty bytes ({fsum} == "
          f"{dsum})")
    p = run(["report", "-i", rec, "-F", "rss,bogus"], check_rc=False)
    check(p.returncode == 129 and "unknown or repeated field 'bogus'" in
          p.stderr, f"-F with an unknown field: usage error ({p.stderr})")
    p = run(["report", "-i", rec, "-F", "relocs"], check_rc=False)
    check(p.returncode == 129 and "needs the relocs key" in p.stderr,
          "-F relocs without --by relocs: usage error")


def table_lines(text):
    """The header and rows of a table (up to TOTAL), without the notes."""
    out = []
    for line in text.splitlines():
        out.append(line)
        if line.rstrip().endswith("TOTAL"):
            break
    return out


def check_table(rec, exe):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    t = run(["report", "-i", rec, "--by", "files,symbols"], env=env).stdout
    lines = table_lines(t)
    wide = [len(x) for x in lines if len(x) > 120]
    check(lines[-1].rstrip().endswith("TOTAL") and not wide,
          f"COLUMNS unset: every table line fits 120 columns ({wide})")
    head = lines[0].split()
    check(" ".join(head) == "FILE SIZE VM SIZE RSS PSS DIRTY",
          f"default table columns: {' '.join(head)}")
    # a label follows the five columns and three spaces (79 characters)
    cut = [x[79:].strip() for x in lines if "\u2026" in x]
    ok = False
    for lab in cut:
        h, tail = lab.split("\u2026", 1)
        if exe.startswith(h) and exe.endswith(tail) and len(h) > 5:
            ok = True
    check(ok, "the long image path is cut in the middle with an ellipsis, "
          "its head and tail kept")
    env["COLUMNS"] = "80"
    t80 = run(["report", "-i", rec, "--by", "files,symbols"], env=env).stdout
    wide = [len(x) for x in table_lines(t80) if len(x) > 80]
    check(not wide, f"COLUMNS=80: every table line fits 80 ({wide})")
    head = table_lines(t80)[0].split()
    check(head == ["RSS", "PSS", "DIRTY"],
          f"COLUMNS=80: VM SIZE and FILE SIZE left out for the labels "
          f"({head})")
    env.pop("COLUMNS")
    tw = run(["report", "-i", rec, "--by", "files,symbols", "--width", "80"],
             env=env).stdout
    check(tw == t80, "--width 80 is COLUMNS=80")
    env["COLUMNS"] = "200"
    tw = run(["report", "-i", rec, "--by", "files,symbols", "--width", "80"],
             env=env).stdout
    check(tw == t80, "--width wins over COLUMNS")
    t0 = run(["report", "-i", rec, "--by", "files,symbols", "--width", "0"],
             env=env).stdout
    check("\u2026" not in t0 and exe in t0, "--width 0: labels whole")
    for fmt in ("csv", "json", "tsv", "folded"):
        o = run(["report", "-i", rec, "--by", "files,symbols", "--format",
                 fmt, "--width", "30"]).stdout
        check("\u2026" not in o and exe in o,
              f"{fmt}: labels never cut, whatever the width")
    t = run(["report", "-i", rec, "--by", "files", "-F", "rss,res,swap",
             "--width", "0"]).stdout
    check(table_lines(t)[0].split() == ["RSS", "RES%", "SWAP"],
          "table -F rss,res,swap: those columns in that order")


def check_filters(rec, d):
    full = lib.report(rec, "files,symbols")

    def keep(rows, pred):
        return sorted(tuple(r.values()) for r in rows if pred(r))

    def got(*args):
        return sorted(tuple(r.values()) for r in
                      lib.report(rec, "files,symbols", *args))
    g = got("--filter", "files=libview2", "--filter", "symbols=^g")
    want = keep(full, lambda r: re.search("libview2", r["files"]) and
                re.search("^g", r["symbols"]))
    check(g == want and len(g) >= 1,
          f"--filter files=libview2 --filter symbols=^g: rows of both "
          f"({len(g)} rows)")
    g = got("--filter", "g2")
    want = keep(full, lambda r: re.search("g2", r["files"]) or
                re.search("g2", r["symbols"]))
    check(g == want, "a bare --filter matches a label at any level")
    # "start" is in symbols (_start, __libc_start_main), in no file name
    g = got("--filter", "files=start")
    bare = got("--filter", "start")
    want = keep(full, lambda r: re.search("start", r["files"]) or
                re.search("start", r["symbols"]))
    check(g == [] and bare == want and len(bare) >= 2,
          f"files=start matches file names only (none); bare 'start' the "
          f"symbols ({len(bare)} rows)")
    g = got("--exclude", r"files=^\[", "--exclude", "symbols=^f")
    want = keep(full, lambda r: not re.search(r"^\[", r["files"]) and
                not re.search("^f", r["symbols"]))
    check(g == want and len(g) > 0, "--exclude files=^\\[ --exclude "
          "symbols=^f: neither")
    g = got("--filter", "files=libview", "--exclude", "files=libview3")
    want = keep(full, lambda r: "libview" in r["files"] and
                "libview3" not in r["files"])
    check(g == want, "--filter and --exclude together")
    for args, msg in ((["--filter", "flies=x"], "unknown key 'flies'"),
                      (["--filter", "sections=x"],
                       "--filter key 'sections' is not in --by"),
                      (["--exclude", "files=("], "bad --exclude")):
        p = run(["report", "-i", rec, "--by", "files,symbols"] + args,
                check_rc=False)
        check(p.returncode == 129 and msg in p.stderr and not p.stdout,
              f"{' '.join(args)}: usage error '{msg}' ({p.stderr.strip()})")


def check_notes(rec, d):
    imgs = sorted(r["files"] for r in lib.report(rec, "files")
                  if int(r["file_size"]) > 0 and
                  open(r["files"], "rb").read(4) == b"\x7fELF")
    dyn = [p for p in imgs if not has_symtab(p) and
           not debug_by_build_id(p)]
    check(sum("libview" in p for p in dyn) == 3,
          f"readelf: the three libraries have no .symtab ({dyn})")
    j = json.loads(run(["report", "-i", rec, "--by", "files,symbols",
                        "--format", "json"]).stdout)
    lines = [n for n in j["notes"] if "only .dynsym symbols" in n]
    check(len(lines) == 1 and
          lines[0].startswith(f"{len(dyn)} images have only .dynsym "
                              "symbols: ") and
          "install their debug symbols" in lines[0],
          f"one line for the {len(dyn)} images without .symtab: {lines}")
    named = [os.path.basename(p) for p in dyn
             if os.path.basename(p) in lines[0]] if lines else []
    check(len(named) == min(3, len(dyn)) and
          (("\u2026" in lines[0]) if lines else False) == (len(dyn) > 3),
          f"it names {min(3, len(dyn))} of them, '\u2026' if more")
    check(not any("no .symtab" in n for n in j["notes"]),
          "without -v no per-image dynsym line")
    jv = json.loads(run(["report", "-i", rec, "--by", "files,symbols",
                         "--format", "json", "-v"]).stdout)
    per = sorted(n.split(": no .symtab")[0] for n in jv["notes"]
                 if ": no .symtab" in n)
    check(per == sorted(dyn), f"-v: one line per image, the same images "
          f"({len(per)} == {len(dyn)})")
    jf = json.loads(run(["report", "-i", rec, "--by", "files,symbols",
                         "--format", "json", "--filter",
                         "files=libview1"]).stdout)
    other = [n for n in jf["notes"] if "libview2" in n or "libview3" in n or
             "libc.so" in n]
    check(not other, f"--filter files=libview1: nothing about the images "
          f"filtered out ({other})")
    check(any(n.endswith("libview1.so: no .symtab, only the dynamic "
                         "symbols (.dynsym) are named") for n in
              jf["notes"]),
          "--filter files=libview1: its own note in full")
    t = run(["report", "-i", rec, "--by", "files,symbols"]).stdout
    foot = t.split("TOTAL\n", 1)[1].splitlines()
    kinds = [re.sub(r"^\d+ ", "", x.split(":")[0]) for x in foot]
    check(len(kinds) == len(set(kinds)) and len(foot) <= 8,
          f"table footer: one line per kind of note ({len(foot)} lines)")


def check_nonroot(tmp, d, exe, data):
    """As nobody (no PFNs): one line about PSS, not two."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        lib.skip_part("no PSS said once as nobody: needs root and setpriv "
                      "(util-linux)")
        return
    os.chmod(tmp, 0o755)
    rec = os.path.join(tmp, "nobody")
    os.mkdir(rec)
    os.chmod(rec, 0o777)
    p = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                        "--clear-groups", MEMSZ, "record", "-o",
                        os.path.join(rec, "n.data"), "--", exe, data],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"as nobody: record ({p.stderr.strip()})")
    j = json.loads(run(["report", "-i", os.path.join(rec, "n.data"),
                        "--format", "json"]).stdout)
    pss = [n for n in j["notes"] if "PSS" in n]
    check(len(pss) == 1 and "pss" not in j["columns"],
          f"as nobody: one note about PSS ({pss}), no pss column")
    t = run(["report", "-i", os.path.join(rec, "n.data")]).stdout
    check(t.split()[:8] == ["FILE", "SIZE", "VM", "SIZE", "RSS", "USS",
                            "DIRTY", "-" * 14],
          "as nobody: the table has USS in place of PSS")


def check_sampling(tmp, exe, data):
    rec = os.path.join(tmp, "faults.data")
    p = subprocess.run([MEMSZ, "record", "--faults", "-o", rec, "--", exe,
                        data], capture_output=True, text=True)
    if p.returncode != 0 and "not permitted" in p.stderr:
        lib.skip_part("sampling notes: perf sampling not permitted: " +
                      p.stderr.strip())
        return
    check(p.returncode == 0, f"record --faults ({p.stderr.strip()})")
    j = json.loads(run(["report", "-i", rec, "--format", "json"]).stdout)
    check(not any(n.startswith("event ") for n in j["notes"]),
          "--by files: no 'event 0: ...' note")
    j = json.loads(run(["report", "-i", rec, "--by", "callers",
                        "--format", "json"]).stdout)
    check(any(n.startswith("event 0: ") for n in j["notes"]),
          "--by callers: the sampled events are named")


def main():
    for tool, pkg in (("gcc", "gcc"), ("strip", "binutils"),
                      ("readelf", "binutils")):
        if not shutil.which(tool):
            lib.skip(f"{tool} ({pkg}) is not installed")
    tmp = tempfile.mkdtemp(prefix="memsz-t3020-")
    try:
        d, exe, data = build(tmp)
        rec = os.path.join(tmp, "v.data")
        p = subprocess.run([MEMSZ, "record", "-o", rec, "--", exe, data],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            lib.fail(f"record failed: {p.stderr}")
        check_totals(rec)
        check_fields(rec)
        check_table(rec, exe)
        check_filters(rec, d)
        check_notes(rec, d)
        check_nonroot(tmp, d, exe, data)
        check_sampling(tmp, exe, data)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
