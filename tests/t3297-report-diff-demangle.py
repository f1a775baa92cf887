#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t3297: --demangle in report and diff, as in size.

`memsz size --demangle full|short|none` spells symbol labels as c++filt,
c++filt -p or as stored; report and diff had no such option, so the same
program's symbols could only be compared to size's short names by hand. A
C++ program (a function template in a namespace) is built twice here, the
second with a larger table, and recorded; ground truth is nm (the stored
names) and c++filt / c++filt -p of them:
 - report --by files,symbols of the program with --demangle none, short
   and full labels its function template as nm, c++filt -p and c++filt;
 - diff --by symbols of the two builds with --demangle none labels the
   changed table as nm does, with short as c++filt -p;
 - diff --by symbols of recordings of the two builds (the recordings'
   path: image maps opened for each recording) labels it as nm, c++filt
   -p and c++filt with none, short and full, and in no other spelling;
 - a bad value is a usage error (129).
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402
from memsz_testlib import MEMSZ, check  # noqa: E402

SRC = r"""
#include <vector>
namespace ns {
template <class T> T sum(const std::vector<T> &v, int k)
{
	T s = 0;
	for (auto x : v)
		s += x * k;
	return s;
}
static const long table[%d] = {1};
}
int main(int argc, char **)
{
	std::vector<long> v(1000, argc);
	return (int)(ns::sum(v, argc) + ns::table[argc]) & 1;
}
"""


def run(*args, rc=0):
    r = subprocess.run([MEMSZ, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != rc:
        lib.fail(" ".join(args) + f" exits {rc}: " + r.stderr[-200:])
    return r.stdout


def nm_names(path, part):
    out = subprocess.run(["nm", path], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return [ln.split()[-1] for ln in out.splitlines() if part in ln]


def cxxfilt(name, *flags):
    return subprocess.run(["c++filt", *flags, name], stdout=subprocess.PIPE,
                          text=True, check=True).stdout.strip()


def labels(out, key):
    return {r[key] for r in csv.DictReader(io.StringIO(out))}


def main():
    for tool in ("g++", "nm", "c++filt"):
        if not shutil.which(tool):
            lib.skip(f"no {tool}")
    with tempfile.TemporaryDirectory(prefix="memsz-t3297-") as tmp:
        exes = []
        for n, size in (("one", 100), ("two", 20000)):
            src, exe = os.path.join(tmp, n + ".cc"), os.path.join(tmp, n)
            with open(src, "w") as f:
                f.write(SRC % size)
            subprocess.run(["g++", "-O0", "-o", exe, src], check=True)
            exes.append(exe)
        mangled = nm_names(exes[0], "3sum")
        if len(mangled) != 1:
            lib.skip(f"nm finds no one ns::sum instance: {mangled}")
        want = {"none": mangled[0], "short": cxxfilt(mangled[0], "-p"),
                "full": cxxfilt(mangled[0])}
        data = os.path.join(tmp, "memsz.data")
        run("record", "-o", data, "--", exes[0])
        for how, name in want.items():
            out = run("report", "-i", data, "--by", "files,symbols",
                      "--filter", "files=/one$", "-n", "0", "--format",
                      "csv", "--demangle", how)
            check(name in labels(out, "symbols"),
                  f"report --demangle {how}: the template is '{name}'")
        table = nm_names(exes[0], "table")
        if len(table) == 1:
            for how, name in (("none", table[0]),
                              ("short", cxxfilt(table[0], "-p"))):
                out = run("diff", "--by", "symbols", "-n", "0", "--format",
                          "csv", "--demangle", how, *exes)
                check(name in labels(out, "symbols"),
                      f"diff --demangle {how}: the changed table is "
                      f"'{name}'")
            # the recordings' path of diff (image maps of recordings,
            # not of ELF files): both builds recorded
            data2 = os.path.join(tmp, "two.data")
            run("record", "-o", data2, "--", exes[1])
            tbl = {"none": table[0], "short": cxxfilt(table[0], "-p"),
                   "full": cxxfilt(table[0])}
            for how, name in tbl.items():
                out = run("diff", "--by", "symbols", "-n", "0", "--format",
                          "csv", "--demangle", how, data, data2)
                got = labels(out, "symbols")
                check(name in got, f"diff --demangle {how} of the "
                      f"recordings: the changed table is '{name}'")
                other = {n for sp in (tbl, want) for k, n in sp.items()
                         if n != sp[how]} & got
                check(not other, f"diff --demangle {how} of the "
                      f"recordings: no other spelling ({sorted(other)})")
        else:
            lib.skip_part(f"nm finds no one ns::table: {table}")
        run("report", "-i", data, "--demangle", "bogus", rc=129)
        run("diff", "--demangle", "bogus", *exes, rc=129)


if __name__ == "__main__":
    main()
    sys.exit(lib.finish())
