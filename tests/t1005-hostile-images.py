#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""t1005: a path memsz reads an image from that names a FIFO or a device
node is looked at (its type), never opened: opening a device can have
effects (a watchdog's open arms it), a FIFO's wakes the writer waiting on
it. An inotify IN_OPEN watch on the node is the ground truth.

 - `report -i` of a recording whose image was replaced by such a node
   after recording (as a forged recording that names one would do):
   the image is 'not an ELF file now'; it was opened (by root too);
 - `size NODE`: 'not an ELF file', not opened; it was opened twice (the
   archive check, then the ELF open);
 - `size` where /proc/self/fd is not there (no /proc in a chroot or a
   sandbox): the image is still read; it was 'No such file or
   directory'; where it names other files, the image is read, not them.
"""
import ctypes
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memsz_testlib as lib  # noqa: E402

IN_OPEN = 0x20


def run(*args):
    """(exit status, stdout, stderr) of memsz args, under a guard against
    hanging (124 if it hung: killed)."""
    try:
        p = subprocess.run([lib.MEMSZ, *args], capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 124, "", "(hung: killed after 120 s)"
    return p.returncode, p.stdout, p.stderr


def opened_by(path, *args):
    """(True if memsz args opened path, their result): an inotify IN_OPEN
    event; a look at the node through O_PATH, as a check of its type, is
    none."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, path.encode(), IN_OPEN) < 0:
        lib.fail("inotify: %s" % os.strerror(ctypes.get_errno()))
    res = run(*args)
    try:
        return len(os.read(fd, 4096)) > 0, res
    except BlockingIOError:
        return False, res
    finally:
        os.close(fd)


def nodes(tmp):
    """(name, maker) of the nodes to plant: a FIFO; a character device
    (the one /dev/null is) where this user may make one."""
    out = [("FIFO", os.mkfifo)]
    try:
        probe = os.path.join(tmp, "probe")
        os.mknod(probe, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        os.unlink(probe)
        out.append(("device", lambda p: os.mknod(
            p, 0o600 | stat.S_IFCHR, os.makedev(1, 3))))
    except PermissionError:
        lib.skip_part("cannot make a device node (not root): FIFO only")
    return out


def size_fd_dir(d):
    """`memsz size true` with directory d mounted over its
    /proc/self/fd (in a mount namespace of its own)."""
    return subprocess.run(
        ["unshare", "-m", "sh", "-c",
         'mount --bind "$0" /proc/$$/fd && exec "$1" size "$2"',
         d, lib.MEMSZ, shutil.which("true")],
        capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory() as tmp:
    prog = os.path.join(tmp, "prog")
    shutil.copy(shutil.which("true"), prog)
    data = os.path.join(tmp, "m.data")
    rc, _, err = run("record", "-o", data, "--", prog)
    if rc != 0:
        lib.fail("memsz record -- %s: %s" % (prog, err))
    # --width 0: the whole label, however long the temporary path is
    # (the table cuts a label wider than its column in the middle)
    rc, out, err = run("report", "-i", data, "--by", "files", "--width",
                       "0")
    if rc != 0 or prog not in out:
        lib.fail("the recording does not name %s: %s%s" % (prog, out, err))

    for what, make in nodes(tmp):
        os.unlink(prog)
        make(prog)
        seen, (rc, out, err) = opened_by(prog, "report", "-i", data,
                                         "--by", "files")
        lib.check(not seen and rc == 0 and "not an ELF file now" in out,
                  "report -i, image now a %s: not opened, 'not an ELF "
                  "file now' (exit %d, %r)" % (what, rc, err))
        seen, (rc, out, err) = opened_by(prog, "size", prog)
        lib.check(not seen and rc == 1 and "not an ELF file" in err,
                  "size %s: not opened, 'not an ELF file' (exit %d, %r)" %
                  (what, rc, err))

    # without /proc/self/fd (a chroot or build sandbox without /proc):
    # open_regular_at opens the path again and checks it is the same
    # file. An empty directory is mounted over the fd directory of the
    # shell that then becomes memsz (the rest of /proc stays, which a
    # sanitizer build needs)
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    if os.geteuid() != 0 or not shutil.which("unshare"):
        lib.skip_part("no case without /proc/self/fd: needs root, unshare")
    else:
        r = size_fd_dir(empty)
        lib.check(r.returncode == 0 and "TOTAL" in r.stdout,
                  "size without /proc/self/fd: the table (exit %d, %r)" %
                  (r.returncode, r.stderr))
        # a /proc/self/fd that is not the kernel's names other files:
        # the inode looked at is the one read
        other = os.path.join(tmp, "other")
        os.mkdir(other)
        for n in range(64):
            with open(os.path.join(other, str(n)), "w") as f:
                f.write("not the image\n")
        r = size_fd_dir(other)
        lib.check(r.returncode == 0 and "TOTAL" in r.stdout,
                  "size with other files at /proc/self/fd: the image's "
                  "table (exit %d, %r)" % (r.returncode, r.stderr))

sys.exit(lib.finish())
