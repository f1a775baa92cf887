# SPDX-License-Identifier: GPL-2.0-or-later
# spawner.py — a small server for attach tests: it forks children on
# request, like a database forks a backend per session.
# usage: python3 spawner.py DIR
# Writes DIR/ready (its pid) once listening, then reads commands from the
# fifo DIR/cmd, one per line:
#   spawn NAME MIB   fork a child that touches MIB MiB, writes its pid to
#                    DIR/NAME and waits until released
#   release NAME     let child NAME exit and reap it; then DIR/NAME.gone
#   exec NAME PATH   fork a child that execs PATH (no arguments), reap it;
#                    then DIR/NAME.gone
#   quit             release every child and exit
import os
import sys

d = sys.argv[1]
children = {}


def put(name, text):
    tmp = os.path.join(d, name + '.tmp')
    with open(tmp, 'w') as f:
        f.write(text)
    os.rename(tmp, os.path.join(d, name))


def spawn(name, mib):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        buf = bytearray(mib << 20)
        for i in range(0, len(buf), 4096):
            buf[i] = 1
        put(name, str(os.getpid()))
        os.read(r, 1)
        os._exit(0)
    os.close(r)
    children[name] = (pid, w)


def release(name):
    pid, w = children.pop(name)
    os.close(w)
    os.waitpid(pid, 0)
    put(name + '.gone', str(pid))


def run(name, path):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(path, [path])
    os.waitpid(pid, 0)
    put(name + '.gone', str(pid))


os.mkfifo(os.path.join(d, 'cmd'))
# Opened for reading and writing: the fifo never reaches end-of-file, so
# a command written while the previous writer closes is never dropped (a
# read-only open would see EOF, close, and lose what came meanwhile).
cmds = os.fdopen(os.open(os.path.join(d, 'cmd'), os.O_RDWR), 'r')
put('ready', str(os.getpid()))
while True:
    w = cmds.readline().split()
    if not w:
        continue
    if w[0] == 'spawn':
        spawn(w[1], int(w[2]))
    elif w[0] == 'release':
        release(w[1])
    elif w[0] == 'exec':
        run(w[1], w[2])
    elif w[0] == 'quit':
        for n in list(children):
            release(n)
        sys.exit(0)
