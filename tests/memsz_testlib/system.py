# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib.system: the machine resources a test borrows and gives
back: a short directory for unix sockets (socket_dir), the hugetlb pool's
lock, a swap file, TCP ports and servers (free_port, BlackHole,
wait_served: debuginfod), fanotify permission events that hold memsz in
an open(), block devices and the page cache (block_device_dir,
fincore_bytes).
"""
import contextlib
import ctypes
import fcntl
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time

from .core import check, skip, wait_until


@contextlib.contextmanager
def hugetlb_pool_lock():
    """Held by every test that changes the machine's hugetlb pool
    (nr_hugepages) while it reads, raises, uses and restores it: two such
    tests run at once (make -j2 check) would restore each other's pages
    away (t2170 and t2172). Blocks until the other test is done."""
    fd = os.open("/tmp/memsz-tests-hugetlb.lock",
                 os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def socket_dir(owner=None):
    """A new directory for unix sockets (a server's, a browser's) whose
    paths fit in sun_path (108 bytes with its NUL) however long TMPDIR is:
    made by mkdtemp under /tmp, mode 0700 (owner: a user name that then
    owns it, for a server that runs as that user). Yields its path; on
    leaving, even on a failure, removes it with what is in it."""
    d = tempfile.mkdtemp(prefix="memsz-sock-", dir="/tmp")
    try:
        if owner:
            shutil.chown(d, owner)
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def free_port():
    """A TCP port on 127.0.0.1 nothing listens on (just now)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class BlackHole:
    """A listening socket on 127.0.0.1 that accepts and never answers
    (a debuginfod server that hangs); conns: the connections taken."""

    def __init__(self):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)

    def count(self):
        return len(self.conns)


@contextlib.contextmanager
def swap_file(d, name, mib):
    """A swap file d/NAME of mib MiB, turned on (a skip where that cannot
    be done). Yields its path; on leaving, even on a failure, turns it off
    and checks that swapoff exits 0 (d's owner removes the file)."""
    path = os.path.join(d, name)
    try:
        subprocess.run(["fallocate", "-l", f"{mib}M", path], check=True,
                       capture_output=True)
        os.chmod(path, 0o600)
        subprocess.run(["mkswap", path], check=True, capture_output=True)
        r = subprocess.run(["swapon", path], capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        skip(f"cannot make a swap file in {d}: {e}")
    if r.returncode:
        skip(f"swapon {path} failed: {r.stderr.strip()}")
    try:
        yield path
    finally:
        r = subprocess.run(["swapoff", path], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"swapoff {path}: {r.stderr.strip()}")


def wait_served(proc, url):
    """Waits (see wait_until) until url answers 200 (a debuginfod server
    proc has scanned the file); False if the server exits first, or at
    the hang guard."""
    import urllib.error
    import urllib.request
    up = []

    def ready():
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    up.append(url)
                    return True
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        return proc.poll() is not None
    try:
        wait_until(ready, "debuginfod to serve " + url)
    except TimeoutError as e:
        print("# " + str(e))
    return bool(up)


# fanotify(7) permission events: a test holds memsz in an open() of a
# file until it answers, so that it can change the tree meanwhile
FAN_CLOEXEC, FAN_CLASS_CONTENT = 0x1, 0x4
FAN_MARK_ADD, FAN_OPEN_PERM, FAN_EVENT_ON_CHILD = 0x1, 0x10000, 0x8000000
FAN_ACCESS_PERM = 0x20000
FAN_ALLOW = 0x1
AT_FDCWD = -100
FAN_EVENT = struct.Struct("=IBBHQii")  # struct fanotify_event_metadata


def fanotify(*paths, mask=FAN_OPEN_PERM | FAN_EVENT_ON_CHILD):
    """A fanotify descriptor holding every open of a file in the
    directories paths until answered (or what mask names: FAN_ACCESS_PERM
    on a file, each read of it), or a skip where that is not permitted
    or built."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint,
                                   ctypes.c_uint64, ctypes.c_int,
                                   ctypes.c_char_p]
    fd = libc.fanotify_init(FAN_CLOEXEC | FAN_CLASS_CONTENT, os.O_RDONLY)
    if fd < 0:
        skip("fanotify permission events: %s" %
             os.strerror(ctypes.get_errno()))
    for path in paths:
        if libc.fanotify_mark(fd, FAN_MARK_ADD, mask,
                              AT_FDCWD, path.encode()) < 0:
            skip("fanotify permission events: %s" %
                 os.strerror(ctypes.get_errno()))
    return fd


def fan_events(fd):
    """The (pid, file descriptor) of the open events waiting on fd."""
    buf = os.read(fd, 4096)
    out = []
    while len(buf) >= FAN_EVENT.size:
        length, _, _, _, _, efd, pid = FAN_EVENT.unpack_from(buf)
        out.append((pid, efd))
        buf = buf[length:]
    return out


def fan_allow(fd, efd):
    """Let the open of event descriptor efd go on, and close it."""
    os.write(fd, struct.pack("=iI", efd, FAN_ALLOW))
    os.close(efd)


def fan_serve(fd, rec, on_open, guard=120):
    """Answers every open the fanotify descriptor fd holds (rec's and any
    other process's: fan_allow) until the process rec (a Popen, stderr a
    text pipe) ends or guard seconds pass (a guard against hanging, not a
    timing assumption), calling on_open(efd) before it lets each of rec's
    own go on; then closes fd, kills rec if it still runs and returns its
    stderr."""
    end = time.monotonic() + guard
    try:
        while rec.poll() is None and time.monotonic() < end:
            if not select.select([fd], [], [], 0.1)[0]:
                continue
            for pid, efd in fan_events(fd):
                if pid == rec.pid:
                    on_open(efd)
                fan_allow(fd, efd)
    finally:
        os.close(fd)
        if rec.poll() is None:
            rec.kill()
    return rec.communicate()[1]


def block_device_dir(*dirs):
    """The first of dirs on a block device (not tmpfs or another file
    system of device major 0), or None: where a test's files must be page
    cache of a disk, or have a device and inode memsz records."""
    for d in dirs:
        if os.major(os.stat(d).st_dev) != 0:
            return d
    return None


def fincore_bytes(path):
    """The bytes of path in the page cache, as fincore says (None
    without fincore)."""
    try:
        fc = subprocess.run(["fincore", "-b", "-n", "-o", "RES", path],
                            capture_output=True, text=True)
    except FileNotFoundError:
        return None
    return int(fc.stdout.split()[0]) if fc.returncode == 0 else None


def uncached_file(path, size):
    """Writes size bytes (whole MiB of random bytes) to path, on disk
    (fsync), and drops them from the page cache (POSIX_FADV_DONTNEED); a
    skip if fincore says some of it stays cached."""
    with open(path, "wb") as f:
        for _ in range(size >> 20):
            f.write(os.urandom(1 << 20))
        f.flush()
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    if fincore_bytes(path):
        skip(f"{path} stays in the page cache after POSIX_FADV_DONTNEED")


def roots_file(tmp, size):
    """In tmp (made 0755), an output directory anyone may write and a
    file of root's, mode 0644, of size bytes dropped from the page cache
    (uncached_file()); returns (the directory, the file)."""
    os.chmod(tmp, 0o755)
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    os.chmod(out, 0o777)
    path = os.path.join(tmp, "roots.bin")
    uncached_file(path, size)
    os.chmod(path, 0o644)
    return out, path
