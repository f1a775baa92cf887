#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1004: odd values and hostile surroundings at the command line get one
line on stderr and a non-zero exit, never a hang, a silent success or a
misleading message (the defects an audit found):

 - `memsz diff` given a FIFO (perhaps planted by another user) as OLD or
   NEW: refused at once; it waited for a writer;
 - `diff` of two ELF files: each opened only once checked a regular file
   (strace: O_PATH, then reopened); the check of their bytes used fopen;
 - `report -i`, `dump -i` and `diff` given a FIFO, pipe or device node:
   refused without opening it, in one line that says it is not a regular
   file (they said "Invalid argument", or that it was neither a recording
   nor an ELF file) (an inotify IN_OPEN watch sees no open); opening a
   device can have effects (a watchdog's open arms it), a FIFO's wakes
   the writer waiting on it;
 - --help, --version, `help CMD`, --list-keys and `dump` with stdout on a
   full disk (/dev/full): exit 1 and the reason; they exited 0 in silence
   (dump said no reason);
 - a JSON error that cannot be written to stdout is said on stderr;
 - --by with one key more than the 8 a list may hold: says so; it called a
   valid key "unknown or repeated";
 - `record -o ''`: a usage error; it wrote '.tmp.*' and '.partial' in the
   current directory;
 - `record -G ''`: a usage error; it recorded the root cgroup;
 - `size --debug-file MISSING`: one line, exit 1; it was passed over in
   silence;
 - `record` with stdout and stderr closed: the recording is whole; it
   was opened as descriptor 2, and the summary line was written into it;
 - `--filter` with a back-reference (a glibc extension to POSIX extended
   regexes): refused; '(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1Z' ran for minutes;
 - `record -p P,P,...` (one pid named 5000 times, 1024 descriptors):
   recorded once; each time it was named opened its events again, until
   'Too many open files', and said the pid had exited.
"""
import ctypes
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402


def run(*args, stdout=subprocess.PIPE, cwd=None):
    """(exit status, stdout or '', stderr lines) of memsz args, under a
    guard against hanging (124 if it hung: killed)."""
    try:
        p = subprocess.run([lib.MEMSZ, *args], stdout=stdout,
                           stderr=subprocess.PIPE, text=True, timeout=60,
                           cwd=cwd)
    except subprocess.TimeoutExpired:
        return 124, "", ["(hung: killed after 60 s)"]
    return p.returncode, p.stdout or "", p.stderr.splitlines()


def opened_by(path, *args):
    """True if memsz args opened path (an inotify IN_OPEN event; a look at
    it through O_PATH, as a check of its type, is none)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, path.encode(), 0x20) < 0:
        lib.fail("inotify: %s" % os.strerror(ctypes.get_errno()))
    run(*args)
    try:
        return len(os.read(fd, 4096)) > 0
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def one_line(what, res, rc, text):
    """res exits rc with exactly one stderr line holding text."""
    code, _, err = res
    lib.check(code == rc and len(err) == 1 and text in err[0],
              "%s: exit %d, one line with '%s' (exit %d, %r)" %
              (what, rc, text, code, err))


with tempfile.TemporaryDirectory() as tmp:
    elf = sys.executable  # some ELF file to compare with
    fifo = os.path.join(tmp, "planted.data")
    os.mkfifo(fifo)
    notreg = "'%s': not a regular file (recordings and ELF files are " \
        "read only from regular files)" % fifo
    one_line("diff FIFO ELF", run("diff", fifo, elf), 1, notreg)
    one_line("diff ELF FIFO", run("diff", elf, fifo), 1, notreg)

    data = os.path.join(tmp, "m.data")
    rec = run("record", "-o", data, "--", "true")
    if rec[0] != 0:
        lib.fail("memsz record -- true: %r" % (rec[2],))
    for what, args in (("report -i FIFO", ["report", "-i", fifo]),
                       ("dump -i FIFO", ["dump", "-i", fifo]),
                       ("diff FIFO NEW", ["diff", fifo, data]),
                       ("diff OLD FIFO", ["diff", data, fifo])):
        lib.check(not opened_by(fifo, *args),
                  "%s: the FIFO is not opened" % what)
        one_line(what, run(*args), 1, notreg)
    # a pipe, as a shell's <(cat m.data) gives it
    rfd, wfd = os.pipe()
    try:
        p = subprocess.run([lib.MEMSZ, "diff", "/dev/fd/%d" % rfd, data],
                           pass_fds=(rfd,), capture_output=True, text=True,
                           timeout=60)
        err = p.stderr.splitlines()
        lib.check(p.returncode == 1 and len(err) == 1 and
                  "'/dev/fd/%d': not a regular file" % rfd in err[0],
                  "diff PIPE NEW: one line, not a regular file (%r)" % err)
    finally:
        os.close(rfd)
        os.close(wfd)

    # diff of two ELF files, seen by strace: each is opened through O_PATH
    # (checked a regular file, then reopened) or O_NONBLOCK, never by a
    # blocking open that a path swapped for a FIFO would hang
    if shutil.which("strace"):
        a, b = os.path.join(tmp, "a.elf"), os.path.join(tmp, "b.elf")
        shutil.copy(elf, a)
        shutil.copy(elf, b)
        trace = os.path.join(tmp, "trace")
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat",
                        "-o", trace, lib.MEMSZ, "diff", a, b],
                       capture_output=True, timeout=60)
        with open(trace) as f:
            opens = [ln for ln in f if '"%s"' % a in ln or '"%s"' % b in ln]
        blocking = [ln.strip() for ln in opens
                    if "O_PATH" not in ln and "O_NONBLOCK" not in ln]
        lib.check(opens and not blocking,
                  "diff ELF ELF: no blocking open of either file (%d "
                  "opens; %s)" % (len(opens), blocking[:2]))
    else:
        lib.skip_part("opens of diff's files: no strace")

    if os.path.exists("/dev/full"):
        for args in (["--help"], ["--version"], ["help", "report"],
                     ["report", "--help"], ["report", "--list-keys"],
                     ["size", "--list-keys"]):
            with open("/dev/full", "w") as full:
                one_line(" ".join(args) + " >/dev/full",
                         run(*args, stdout=full), 1,
                         "cannot write to standard output: No space left")
        with open("/dev/full", "w") as full:
            one_line("dump >/dev/full", run("dump", "-i", data, stdout=full),
                     1, "cannot write the output: No space left")
        with open("/dev/full", "w") as full:
            one_line("json error >/dev/full",
                     run("report", "-i", os.path.join(tmp, "none.data"),
                         "--format", "json", stdout=full),
                     1, "cannot read '")
    else:
        lib.skip_part("stdout on a full disk: no /dev/full")

    nine = "pids,comms,users,files,mappings,segments,sections,symbols,kinds"
    one_line("--by with 9 keys", run("report", "-i", data, "--by", nine),
             129, "--by takes at most 8 keys; 'kinds' is one too many")
    one_line("size --by with 9 keys",
             run("size", "--by", "files,inputfiles,armembers,segments,"
                 "sections,symbols,bbs,relocs,compileunits", elf),
             129, "'compileunits' is one too many")

    one_line("--filter with a back-reference",
             run("report", "-i", data, "--by", "files,symbols", "--filter",
                 r"(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1Z"),
             129, r"back-reference '\5'")
    lib.check(run("report", "-i", data, "--filter", r"[\1]x")[0] == 0,
              r"--filter '[\1]x': a backslash in brackets is no "
              "back-reference")

    cwd = os.path.join(tmp, "cwd")
    os.mkdir(cwd)
    one_line("record -o ''", run("record", "-o", "", "--", "true", cwd=cwd),
             129, "-o wants a file name")
    lib.check(os.listdir(cwd) == [],
              "record -o '': nothing written in the current directory (%s)"
              % os.listdir(cwd))
    one_line("record -G ''", run("record", "-G", "", "--duration", "0",
                                 cwd=cwd), 129, "-G wants a cgroup")

    closed = os.path.join(tmp, "closed.data")

    def close_out():
        os.close(1)
        os.close(2)

    rc = subprocess.run([lib.MEMSZ, "record", "-o", closed, "--", "true"],
                        preexec_fn=close_out, timeout=120).returncode
    dump = run("dump", "-i", closed)
    lib.check(rc == 0 and dump[0] == 0 and not dump[2] and
              " END " in dump[1].splitlines()[-1],
              "record >&- 2>&-: the recording is whole (record exit %d, "
              "dump exit %d, %r)" % (rc, dump[0], dump[2]))

    def few_fds():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    many = os.path.join(tmp, "many.data")
    p = subprocess.run([lib.MEMSZ, "record", "-o", many, "--duration", "0",
                        "-p", ",".join([str(os.getpid())] * 5000)],
                       preexec_fn=few_fds, capture_output=True, text=True,
                       timeout=300)
    err = p.stderr.splitlines()
    lib.check(p.returncode == 0 and len(err) == 1 and
              err[0].startswith("[ memsz record: wrote"),
              "record -p P,P,... (5000 times): recorded, no warning "
              "(exit %d, %r)" % (p.returncode, err[:2]))
    dump = run("dump", "-i", many)
    lib.check(dump[1].count(" SNAP_END ") == 1,
              "record -p P,P,...: one snapshot of P")

    missing = os.path.join(tmp, "no-such.debug")
    one_line("size --debug-file MISSING",
             run("size", "--debug-file", missing, elf), 1,
             "cannot read --debug-file '%s': No such file" % missing)

sys.exit(lib.finish())
