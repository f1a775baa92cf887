// SPDX-License-Identifier: GPL-2.0-or-later
/* target.c — launch the recorded processes and read their /proc files;
 * tracer.c holds them with ptrace. */
#include "config.h"

#include "record/target.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child's exit status when the command cannot be run, as a shell's. */
#define EXIT_EXEC_FAILED 127

int target_parse_pids(const char *s, int **pids)
{
	size_t n = 0, cap = 0;
	char *copy = xstrdup(s), *tok, *save = NULL;

	*pids = NULL;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (parse_u64(tok, &v) < 0 || v == 0 || v > INT32_MAX) {
			free(copy);
			free(*pids);
			*pids = NULL;
			return -MEMSZ_EUSAGE;
		}
		xgrow(pids, &cap, n + 1, sizeof(**pids));
		(*pids)[n++] = v;
	}
	free(copy);
	if (!n)
		return -MEMSZ_EUSAGE;
	return n;
}

/* Read the /proc file named by fmt (at most size - 1 bytes, one read)
 * into buf, NUL-terminated. Returns the length (0: empty) or -errno. */
static ssize_t read_proc(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ssize_t read_proc(char *buf, size_t size, const char *fmt, ...)
{
	char path[64];
	ssize_t len;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	if (len < 0)
		len = -errno;
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	return len;
}

char target_state(int tgid, int tid)
{
	char buf[512], *p;

	if (read_proc(buf, sizeof(buf), "/proc/%d/task/%d/stat", tgid, tid) <=
	    0)
		return 0;
	/* "pid (comm) S ..." — comm may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	return p[2];
}

int target_check_pid(int pid)
{
	char path[64];
	char st;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	st = target_state(pid, pid);
	if (!st)
		return -ESRCH;
	if (st == 'Z' || st == 'X') {
		int *tids = NULL;
		int n = target_threads(pid, &tids);

		free(tids);
		/* A zombie leader with live threads is still a process. */
		if (n <= 1)
			return -ESRCH;
	}
	/* Reading maps needs PTRACE_MODE_READ, as pagemap does. */
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* PF_KTHREAD in the flags field (the 9th) of /proc/PID/stat. */
#define STAT_PF_KTHREAD 0x00200000u

bool target_is_kthread(int pid)
{
	char buf[1024], *p;
	unsigned long flags = 0;

	if (read_proc(buf, sizeof(buf), "/proc/%d/stat", pid) <= 0)
		return false;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & STAT_PF_KTHREAD;
}

bool target_is_zombie(int pid)
{
	char st = target_state(pid, pid);
	int *tids = NULL, n;

	if (st != 'Z' && st != 'X')
		return false;
	n = target_threads(pid, &tids);
	free(tids);
	return n <= 1;
}

int target_start_time(int pid, uint64_t *ticks)
{
	char buf[512], *p, *end;
	ssize_t len = read_proc(buf, sizeof(buf), "/proc/%d/stat", pid);

	if (len < 0)
		return len == -ENOENT ? -ESRCH : (int)len;
	/* "pid (comm) S ppid ...": starttime is the 20th field after the
	 * comm, which may hold spaces and parentheses */
	p = strrchr(buf, ')');
	for (int i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EINVAL;
	errno = 0;
	*ticks = strtoull(p + 1, &end, 10);
	return end == p + 1 || errno ? -EINVAL : 0;
}

int target_comm(int pid, char *buf, size_t size)
{
	ssize_t len = read_proc(buf, size, "/proc/%d/comm", pid);

	if (len < 0)
		return (int)len;
	/* the kernel ends the name with one '\n'; one before it is the
	 * name's own (PR_SET_NAME takes every byte but 0) */
	if (len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	return 0;
}

/* Longest command line kept: the kernel's own limit for the arguments of
 * one exec is far larger, but a label needs no more. */
#define CMDLINE_MAX 4096

int target_cmdline(int pid, char **out)
{
	char path[64], *buf = xmalloc(CMDLINE_MAX + 1);
	ssize_t len, got = 0;
	int fd;

	*out = NULL;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while (got < CMDLINE_MAX &&
	       (len = read(fd, buf + got, CMDLINE_MAX - got)) > 0)
		got += len;
	close(fd);
	while (got > 0 && (buf[got - 1] == 0 || buf[got - 1] == ' '))
		got--;
	for (ssize_t i = 0; i < got; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	buf[got] = 0;
	*out = buf;
	return 0;
}

int target_status_open(int pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t target_status_reread(int fd, char *buf, size_t size, char **big)
{
	ssize_t len = pread(fd, buf, size - 1, 0);

	*big = NULL;
	if (len < 0)
		return -errno;
	buf[len] = 0;
	if (len < (ssize_t)size - 1)
		return len;
	/* the buffer is full: the file may go on; through the same
	 * descriptor, so that it is still this process's */
	return read_small_fd(fd, 1 << 20, big);
}

ssize_t target_status_read(int pid, char *buf, size_t size, char **big)
{
	int fd = target_status_open(pid);
	ssize_t len;

	*big = NULL;
	if (fd < 0) {
		buf[0] = 0;
		return fd;
	}
	len = target_status_reread(fd, buf, size, big);
	close(fd);
	return len;
}

int64_t target_status_field(const char *buf, const char *field)
{
	size_t n = strlen(field);

	for (const char *l = buf; l && *l;) {
		if (!strncmp(l, field, n) && l[n] == ':')
			return strtoll(l + n + 1, NULL, 10);
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return -ENOENT;
}

/* The number after "Field:" on the field line of /proc/PID/status, or
 * -errno (-ENOENT: no such line), from one read of the file. */
static int64_t status_value(int pid, const char *field)
{
	char buf[TARGET_STATUS_MAX], *big;
	ssize_t len = target_status_read(pid, buf, sizeof(buf), &big);
	int64_t v = len < 0 ? len : target_status_field(big ? big : buf, field);

	free(big);
	return v;
}

int64_t target_status_kb(int pid, const char *field)
{
	return status_value(pid, field);
}

int target_tracer(int pid)
{
	return (int)status_value(pid, "TracerPid");
}

/* Bit of signal n in a /proc/PID/status mask. */
#define SIGBIT(n) (1ull << ((n)-1))

/* Fields of /proc/PID/status (or /proc/PID/task/TID/status) read by
 * signal_masks(). */
struct sig_masks {
	uint64_t blocked, pending, ignored, caught; /* SigBlk ShdPnd SigIgn
						       SigCgt */
};

/* The signal masks of the status file at path, in one pass; false if it
 * cannot be read or lacks one. */
static bool signal_masks(const char *path, struct sig_masks *m)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
	    {"SigBlk:", offsetof(struct sig_masks, blocked)},
	    {"ShdPnd:", offsetof(struct sig_masks, pending)},
	    {"SigIgn:", offsetof(struct sig_masks, ignored)},
	    {"SigCgt:", offsetof(struct sig_masks, caught)},
	};
	char line[256];
	size_t found = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
			if (!strncmp(line, fields[i].name, 7)) {
				*(uint64_t *)((char *)m + fields[i].off) =
				    strtoull(line + 7, NULL, 16);
				found++;
			}
	fclose(f);
	return found == ARRAY_SIZE(fields);
}

void target_signal_masks(int tid, uint64_t *blocked, uint64_t *caught)
{
	char path[64];
	struct sig_masks m;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	(void)signal_masks(path, &m);
	*blocked = m.blocked;
	*caught = m.caught;
}

/* Of the signals, those that end the process masks m are of. */
static uint64_t fatal_of(const struct sig_masks *m)
{
	/* what the default action does not end: ignore, stop, continue */
	const uint64_t harmless = SIGBIT(SIGCHLD) | SIGBIT(SIGCONT) |
				  SIGBIT(SIGURG) | SIGBIT(SIGWINCH) |
				  SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) |
				  SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU);

	return ~(harmless | m->ignored | m->caught);
}

uint64_t target_fatal_signals(int pid)
{
	char path[64];
	struct sig_masks m;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return signal_masks(path, &m) ? fatal_of(&m) : 0;
}

/* The signals every thread of pid blocks (SigBlk of each task): one
 * pending for the process waits for a thread that does not; all ones if
 * no task can be read. */
static uint64_t blocked_by_all(int pid)
{
	char path[64];
	uint64_t all = ~0ull;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return all;
	while ((d = readdir(dir))) {
		struct sig_masks m;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", pid,
			 d->d_name);
		if (signal_masks(path, &m))
			all &= m.blocked;
	}
	closedir(dir);
	return all;
}

int target_fatal_pending(int pid, uint64_t *pending)
{
	char path[64];
	struct sig_masks m;
	uint64_t fatal;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	*pending = 0;
	if (!signal_masks(path, &m))
		return 0;
	*pending = m.pending;
	fatal = fatal_of(&m) & m.pending;
	/* a signal every thread blocks is not delivered: it ends nothing
	 * yet (a program reading SIGINT through a signalfd or sigwait) */
	if (fatal)
		fatal &= ~blocked_by_all(pid);
	return fatal ? __builtin_ctzll(fatal) + 1 : 0;
}

int64_t target_rss(int pid)
{
	char buf[256];
	unsigned long long size, res;
	ssize_t len = read_proc(buf, sizeof(buf), "/proc/%d/statm", pid);

	if (len < 0)
		return len;
	if (!len)
		return -ESRCH;
	if (sscanf(buf, "%llu %llu", &size, &res) != 2)
		return -EINVAL;
	return (int64_t)res * sysconf(_SC_PAGESIZE);
}

/* /proc/PID/task/TID/syscall of thread tid of pid (/proc/TID/task/TID
 * when pid is not known, <= 0), split: 1 if it runs ("running"); 0 with
 * *nr, *arg0 and *sp from "NR ARG1..ARG6 SP PC", or from "-1 SP PC"
 * when it is blocked outside a system call (*arg0 0 then); or -errno. */
static int syscall_line(int pid, int tid, long *nr, uint64_t *arg0,
			uint64_t *sp)
{
	char buf[256], *tok[10], *save = NULL;
	ssize_t len;
	int n = 0;

	len = read_proc(buf, sizeof(buf), "/proc/%d/task/%d/syscall",
			pid > 0 ? pid : tid, tid);
	if (len <= 0)
		return len < 0 ? (int)len : -ESRCH;
	if (!strncmp(buf, "running", 7))
		return 1;
	for (char *t = strtok_r(buf, " \n", &save); t && n < 10;
	     t = strtok_r(NULL, " \n", &save))
		tok[n++] = t;
	if (n != 3 && n != 9)
		return -EINVAL;
	*nr = strtol(tok[0], NULL, 10);
	*arg0 = n == 9 ? strtoull(tok[1], NULL, 16) : 0;
	*sp = strtoull(tok[n - 2], NULL, 16);
	return 0;
}

/* The user stack pointer of thread tid of pid; 0 if unknown (it runs). */
static uint64_t thread_sp(int pid, int tid)
{
	uint64_t arg0, sp;
	long nr;

	return syscall_line(pid, tid, &nr, &arg0, &sp) ? 0 : sp;
}

int target_syscall(int tgid, int tid, long *nr, uint64_t *arg0)
{
	uint64_t sp;

	return syscall_line(tgid, tid, nr, arg0, &sp);
}

int target_read_u64(int pid, uint64_t addr, uint64_t *v)
{
	struct iovec local = {.iov_base = v, .iov_len = sizeof(*v)};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr,
			       .iov_len = sizeof(*v)};

	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return n == sizeof(*v) ? 0 : -EIO;
}

int target_thread_sps(int pid, struct target_sp **out)
{
	int *tids = NULL, n = target_threads(pid, &tids), k = 0;

	*out = NULL;
	if (n < 0)
		return n;
	*out = xcalloc((size_t)n + 1, sizeof(**out));
	for (int i = 0; i < n; i++) {
		uint64_t sp = thread_sp(pid, tids[i]);

		if (!sp)
			continue;
		(*out)[k].tid = tids[i];
		(*out)[k++].sp = sp;
	}
	free(tids);
	return k;
}

int target_threads(int pid, int **tids)
{
	char path[64];
	struct dirent *de;
	size_t n = 0, cap = 0;
	DIR *d;

	*tids = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t v;

		if (parse_u64(de->d_name, &v) < 0)
			continue;
		xgrow(tids, &cap, n + 1, sizeof(**tids));
		(*tids)[n++] = v;
	}
	closedir(d);
	return n;
}

int target_tgid(int tid)
{
	int64_t tgid = status_value(tid, "Tgid");

	return tgid == -ENOENT ? -ESRCH : (int)tgid;
}

/* --- launch --- */

struct launch_pipes {
	int pid;
	int go;	 /* write end: one byte lets the child exec */
	int err; /* read end: errno of a failed exec, EOF after exec */
	struct launch_pipes *next;
};

static struct launch_pipes *launches;

/* SIGPIPE and SIGXFSZ as memsz found them: ignored, or by default (a
 * handler of the parent's does not survive its exec anyway) */
static void (*sigpipe_found)(int) = SIG_DFL;
static void (*sigxfsz_found)(int) = SIG_DFL;

void target_ignore_write_signals(void)
{
	if (signal(SIGPIPE, SIG_IGN) == SIG_IGN)
		sigpipe_found = SIG_IGN;
	if (signal(SIGXFSZ, SIG_IGN) == SIG_IGN)
		sigxfsz_found = SIG_IGN;
}

int target_launch(char **argv, const sigset_t *mask)
{
	int go[2], err[2];
	struct launch_pipes *l;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		/* the mask memsz found, not memsz's own (nor none: what
		 * the user's shell or service blocked stays blocked, as it
		 * would for the command run without memsz) */
		sigprocmask(SIG_SETMASK, mask, NULL);
		signal(SIGPIPE, sigpipe_found);
		signal(SIGXFSZ, sigxfsz_found);
		if (read(go[0], &c, 1) != 1)
			_exit(EXIT_EXEC_FAILED);
		/* the standard descriptors as memsz was given them: one it
		 * found closed (and put /dev/null on) is closed again, so
		 * that the command's writes fail as they would without
		 * memsz, not vanish into /dev/null */
		for (int fd = 0; fd <= 2; fd++)
			if (std_fd_nulled(fd))
				close(fd);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(EXIT_EXEC_FAILED);
		_exit(EXIT_EXEC_FAILED);
	}
	close(go[0]);
	close(err[1]);
	l = xcalloc(1, sizeof(*l));
	l->pid = pid;
	l->go = go[1];
	l->err = err[0];
	l->next = launches;
	launches = l;
	return pid;
}

int target_launch_go(int pid)
{
	struct launch_pipes **pp, *l;
	ssize_t n;
	int e = 0;

	for (pp = &launches; *pp && (*pp)->pid != pid; pp = &(*pp)->next)
		;
	l = *pp;
	if (!l)
		return -ESRCH;
	*pp = l->next;
	if (write(l->go, "g", 1) != 1)
		e = errno;
	close(l->go);
	if (!e) {
		do
			n = read(l->err, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e))
			e = 0;
	}
	close(l->err);
	free(l);
	return -e;
}
