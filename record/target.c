// SPDX-License-Identifier: GPL-2.0-or-later
/* target.c — launch, attach, ptrace and freeze the recorded processes. */
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child's exit status when the command cannot be run, as a shell's. */
#define EXIT_EXEC_FAILED 127
/* How long a freeze waits for every thread to stop. */
#define FREEZE_WAIT_MS 1000
/* Longest wait for a SIGCHLD before looking again (a stop whose SIGCHLD
 * was taken by someone else is still seen this soon). */
#define WAIT_STEP_US 1000

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

int target_comm(int pid, char *buf, size_t size)
{
	ssize_t len = read_proc(buf, size, "/proc/%d/comm", pid);

	if (len < 0)
		return (int)len;
	buf[strcspn(buf, "\n")] = 0;
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

ssize_t target_status_read(int pid, char *buf, size_t size, char **big)
{
	ssize_t len = read_proc(buf, size, "/proc/%d/status", pid);
	char path[64];

	*big = NULL;
	if (len < (ssize_t)size - 1)
		return len;
	/* the buffer is full: the file may go on */
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	len = read_small_file(path, 1 << 20, big);
	return len;
}

int target_status_open(int pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

ssize_t target_status_reread(int fd, int pid, char *buf, size_t size,
			     char **big)
{
	ssize_t len = pread(fd, buf, size - 1, 0);
	char path[64];

	*big = NULL;
	if (len < 0)
		return -errno;
	buf[len] = 0;
	if (len < (ssize_t)size - 1)
		return len;
	/* the buffer is full: the file may go on */
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return read_small_file(path, 1 << 20, big);
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

uint64_t target_busy_signals(int tid)
{
	char path[64], line[256];
	uint64_t mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7) ||
		    !strncmp(line, "SigCgt:", 7))
			mask |= strtoull(line + 7, NULL, 16);
	fclose(f);
	return mask;
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

/* The user stack pointer of thread tid of pid from
 * /proc/PID/task/TID/syscall ("NR ARG1..ARG6 SP PC", or "-1 SP PC" when
 * blocked outside a system call; "running" gives none). 0 if unknown. */
static uint64_t thread_sp(int pid, int tid)
{
	char buf[256], *tok[10], *save = NULL;
	int n = 0;

	if (read_proc(buf, sizeof(buf), "/proc/%d/task/%d/syscall", pid, tid) <=
	    0)
		return 0;
	for (char *t = strtok_r(buf, " \n", &save); t && n < 10;
	     t = strtok_r(NULL, " \n", &save))
		tok[n++] = t;
	if (n != 3 && n != 9)
		return 0;
	return strtoull(tok[n - 2], NULL, 16);
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

int target_launch(char **argv)
{
	int go[2], err[2];
	struct launch_pipes *l;
	sigset_t none;
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
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(EXIT_EXEC_FAILED);
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

/* Wait until a child changes state (SIGCHLD), at most us microseconds.
 * A tracee's stop sends its tracer SIGCHLD; the recording session blocks
 * SIGCHLD (it reads it from a signalfd), so sigtimedwait() returns as soon
 * as the stop happens instead of after a fixed sleep. The signal taken
 * here is not lost to the session: the caller then reaps every pending
 * state change with waitpid(). Where SIGCHLD is not blocked this is a
 * sleep of us. */
static void wait_child(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	sigset_t chld, cur;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, NULL, &cur) == 0 &&
	    sigismember(&cur, SIGCHLD) == 1)
		sigtimedwait(&chld, NULL, &ts);
	else
		nanosleep(&ts, NULL);
}

/* --- ptrace --- */

#define LEADER_HOLD_NS (100 * NSEC_PER_MSEC)

/* Why a tracee is held: a snapshot of its process (tracer_freeze), or
 * every traced thread (tracer_interrupt_all, backpressure). Each is released
 * on its own; a tracee runs again once no reason is left. */
#define HOLD_GROUP 1u
#define HOLD_ALL 2u

struct tracee {
	int tid, tgid;
	bool exiting;	/* seen at PTRACE_EVENT_EXIT */
	unsigned holds; /* HOLD_* reasons to keep it stopped: hold it at
			 * its next stop while any is set */
	bool held;	/* stopped; resume with req/sig at thaw */
	bool unwanted;	/* a process cloned while not following: detach
			 * it at its first stop */
	int req, sig;
	uint64_t exit_hold; /* leader held at its exit stop since (ns) */
	bool in_stop;	    /* stopped, in a callback about that stop */
};

struct tracer {
	int pid;
	bool follow, done;
	int status;
	const struct tracer_ops *ops;
	void *arg;
	struct tracee *t;
	size_t n, cap;
};

static struct tracee *tracee_find(struct tracer *tr, int tid)
{
	for (size_t i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid)
			return &tr->t[i];
	return NULL;
}

static struct tracee *tracee_add(struct tracer *tr, int tid, int tgid)
{
	struct tracee *t = tracee_find(tr, tid);

	if (t) {
		if (tgid > 0)
			t->tgid = tgid;
		return t;
	}
	xgrow(&tr->t, &tr->cap, tr->n + 1, sizeof(*tr->t));
	t = &tr->t[tr->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tgid > 0 ? tgid : target_tgid(tid);
	return t;
}

static void tracee_del(struct tracer *tr, int tid)
{
	for (size_t i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid) {
			bool unwanted = tr->t[i].unwanted;

			tr->t[i] = tr->t[--tr->n];
			if (!unwanted && tr->ops->at_thread)
				tr->ops->at_thread(tr->arg, tid, false);
			return;
		}
}

/* A tracee memsz records is traced from now on. */
static void thread_added(struct tracer *tr, int tid)
{
	if (tr->ops->at_thread)
		tr->ops->at_thread(tr->arg, tid, true);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static void resume(struct tracer *tr, int tid, int req, int sig)
{
	struct tracee *t = tracee_add(tr, tid, 0);

	/* A stop signal is delivered at once even while freezing: the task
	 * then stops in its group-stop (and is held there). Held back, it
	 * would be delivered at the thaw, after a SIGCONT sent meanwhile by
	 * someone who took the ptrace hold for that stop, and stop the
	 * process for good. */
	if (t->holds && !(req == PTRACE_CONT && is_stop_signal(sig))) {
		t->held = true;
		t->req = req;
		t->sig = sig;
		return;
	}
	ptrace(req, tid, 0, (void *)(long)sig);
}

/* Every thread of a traced process is traced (so that all can be held),
 * with its exec and exit; forked processes too when following. */
static long trace_options(bool follow)
{
	long opts =
	    PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE;

	if (follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	return opts;
}

static struct tracer *tracer_new(int pid, bool follow,
				 const struct tracer_ops *ops, void *arg)
{
	struct tracer *tr = xcalloc(1, sizeof(*tr));

	tr->pid = pid;
	tr->follow = follow;
	tr->ops = ops;
	tr->arg = arg;
	return tr;
}

/* PTRACE_SEIZE tid, a thread of tgid. Returns 0 or -errno. */
static int seize_one(struct tracer *tr, int tid, int tgid)
{
	if (ptrace(PTRACE_SEIZE, tid, 0, (void *)trace_options(tr->follow)) < 0)
		return -errno;
	tracee_add(tr, tid, tgid);
	thread_added(tr, tid);
	return 0;
}

int tracer_seize(int pid, bool follow, const struct tracer_ops *ops, void *arg,
		 struct tracer **out)
{
	struct tracer *tr = tracer_new(pid, follow, ops, arg);
	int ret = seize_one(tr, pid, pid);

	if (ret < 0) {
		free(tr);
		return ret;
	}
	tracee_add(tr, pid, pid);
	*out = tr;
	return 0;
}

/* Seize every thread of pid not traced yet; returns how many were seized
 * or -errno (threads that exit meanwhile are skipped). */
static int seize_threads(struct tracer *tr, int pid)
{
	int *tids = NULL, n = target_threads(pid, &tids), got = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int ret;

		if (tracee_find(tr, tids[i]))
			continue;
		ret = seize_one(tr, tids[i], pid);
		if (ret == -ESRCH)
			continue;
		if (ret < 0) {
			got = ret;
			break;
		}
		got++;
	}
	free(tids);
	return got;
}

int tracer_attach(struct tracer **trp, int pid, bool follow,
		  const struct tracer_ops *ops, void *arg)
{
	int ret, seized = 0;

	if (!*trp)
		*trp = tracer_new(0, follow, ops, arg);
	/* Threads started by a thread not seized yet are found by the next
	 * pass; those started by a seized one are traced by the kernel. */
	do {
		ret = seize_threads(*trp, pid);
		if (ret > 0)
			seized += ret;
	} while (ret > 0);
	if (!ret && !seized)
		ret = -ESRCH;
	return ret < 0 ? ret : 0;
	return ret;
}

/* Is any thread of tgid other than tid still running toward its exit or
 * not exiting at all? Threads seen at their exit stop and zombies are not. */
static bool others_live(struct tracer *tr, int tgid, int tid)
{
	int *tids = NULL;
	int n = target_threads(tgid, &tids);
	bool live = false;

	for (int i = 0; i < n && !live; i++) {
		struct tracee *u;
		char st;

		if (tids[i] == tid)
			continue;
		u = tracee_find(tr, tids[i]);
		if (u && u->exiting)
			continue;
		st = target_state(tgid, tids[i]);
		live = st && st != 'Z' && st != 'X';
	}
	free(tids);
	return live;
}

/* Release a leader held at its exit stop. */
static void release_leader(struct tracer *tr, int tgid)
{
	struct tracee *l = tracee_find(tr, tgid);

	if (!l || !l->exit_hold)
		return;
	l->exit_hold = 0;
	if (l->holds)
		return; /* the thaw resumes it */
	l->held = false;
	ptrace(PTRACE_CONT, l->tid, 0, 0);
}

/* A thread reached its exit stop. The leader is held there (at most
 * LEADER_HOLD_NS) while other threads live, because /proc/TGID/maps reads
 * the leader's mm: so the last thread's exit can still be snapshot through
 * the tgid. Other threads are resumed at once. */
static void handle_exit(struct tracer *tr, int tid)
{
	struct tracee *t = tracee_add(tr, tid, 0);
	struct tracee *l;

	t->exiting = true;
	if (t->tgid <= 0) {
		resume(tr, tid, PTRACE_CONT, 0);
		return;
	}
	if (others_live(tr, t->tgid, tid)) {
		if (tid == t->tgid && !t->holds) {
			t->held = true;
			t->req = PTRACE_CONT;
			t->sig = 0;
			t->exit_hold = mono_ns();
		} else {
			resume(tr, tid, PTRACE_CONT, 0);
		}
		return;
	}
	l = tracee_find(tr, t->tgid);
	if (tr->ops->at_exit)
		tr->ops->at_exit(tr->arg, t->tgid,
				 tid == t->tgid || (l && l->exit_hold) ? t->tgid
								       : tid);
	if (tid != t->tgid)
		release_leader(tr, t->tgid);
	resume(tr, tid, PTRACE_CONT, 0);
}

/* Is this signal-delivery-stop for sig one of memsz's leash signals? The
 * callback is told, with the tracee marked as stopped meanwhile. */
static bool leash_stop(struct tracer *tr, int tid, int sig)
{
	struct tracee *t;
	siginfo_t si;
	bool mine;

	if (!tr->ops->at_leash || sig < 1 || sig > 64 ||
	    !(tr->ops->leash_sigs & (1ull << (sig - 1))) ||
	    ptrace(PTRACE_GETSIGINFO, tid, 0, &si) < 0 || si.si_code != POLL_IN)
		return false;
	t = tracee_add(tr, tid, 0);
	t->in_stop = true;
	mine = tr->ops->at_leash(tr->arg, tid, sig, si.si_fd);
	/* the callback may have added tracees: find it again */
	t = tracee_add(tr, tid, 0);
	t->in_stop = false;
	return mine;
}

static void handle_stop(struct tracer *tr, int tid, int status)
{
	/* PTRACE_EVENT_* in bits 16 and up (ptrace(2)) */
	int sig = WSTOPSIG(status), ev = (unsigned)status >> 16;
	unsigned long msg = 0;
	struct tracee *t = tracee_find(tr, tid);

	if (t && t->unwanted) {
		ptrace(PTRACE_DETACH, tid, 0, (void *)(long)(ev ? 0 : sig));
		tracee_del(tr, tid);
		return;
	}
	/* A new task's first stop can come before its parent's clone
	 * event: it is made known now, before it runs (a process only when
	 * following; the clone event decides on the others). */
	if (!t && ev == PTRACE_EVENT_STOP) {
		int tgid = target_tgid(tid);

		if (tgid > 0 && (tgid != tid || tr->follow)) {
			tracee_add(tr, tid, tgid);
			thread_added(tr, tid);
		}
	}
	switch (ev) {
	case PTRACE_EVENT_EXIT:
		handle_exit(tr, tid);
		break;
	case PTRACE_EVENT_EXEC:
		/* After a non-leader exec, the task now has the leader's id:
		 * its former id and the former leader are gone, unseen by
		 * waitpid(), and what was known of tid was the leader's. */
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg &&
		    (int)msg != tid) {
			tracee_del(tr, (int)msg);
			tracee_del(tr, tid);
			tracee_add(tr, tid, 0);
			thread_added(tr, tid);
		}
		t = tracee_add(tr, tid, 0);
		t->tgid = target_tgid(tid);
		if (tr->ops->at_exec)
			tr->ops->at_exec(tr->arg, t->tgid > 0 ? t->tgid : tid);
		resume(tr, tid, PTRACE_CONT, 0);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg) {
			int child = msg, tgid = target_tgid(child);

			t = tracee_add(tr, child, tgid);
			/* a process made by clone() is traced as a thread
			 * is; when not following, it is let go */
			if (tgid == child && !tr->follow)
				t->unwanted = true;
			else
				thread_added(tr, child);
			if (!t->unwanted && tgid == child && tr->ops->at_fork)
				tr->ops->at_fork(tr->arg, child,
						 target_tgid(tid));
		}
		resume(tr, tid, PTRACE_CONT, 0);
		break;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig))
			resume(tr, tid, PTRACE_LISTEN, 0); /* group-stop */
		else
			resume(tr, tid, PTRACE_CONT, 0);
		break;
	case 0: /* signal-delivery-stop */
		resume(tr, tid, PTRACE_CONT,
		       leash_stop(tr, tid, sig) ? 0 : sig);
		break;
	default:
		resume(tr, tid, PTRACE_CONT, 0);
		break;
	}
}

int tracer_poll(struct tracer *tr)
{
	int handled = 0, status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		handled++;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			tracee_del(tr, tid);
			if (tid == tr->pid) {
				tr->done = true;
				tr->status = status;
			}
		} else if (WIFSTOPPED(status)) {
			handle_stop(tr, tid, status);
		}
	}
	for (size_t i = 0; i < tr->n; i++)
		if (tr->t[i].exit_hold &&
		    mono_ns() - tr->t[i].exit_hold > LEADER_HOLD_NS)
			release_leader(tr, tr->t[i].tgid);
	return handled;
}

bool tracer_done(const struct tracer *tr, int *status)
{
	if (tr->done && status)
		*status = tr->status;
	return tr->done;
}

static bool matches(const struct tracee *t, int tgid)
{
	return !tgid || t->tgid == tgid;
}

/* Is every tracee of tgid (all when 0) held for reason stopped? */
static bool group_held(struct tracer *tr, int tgid, unsigned reason)
{
	for (size_t i = 0; i < tr->n; i++)
		if (matches(&tr->t[i], tgid) && (tr->t[i].holds & reason) &&
		    !tr->t[i].held)
			return false;
	return true;
}

/* Ask every live tracee of tgid (all of them when tgid is 0) to stop
 * (PTRACE_INTERRUPT) and stay stopped for reason. */
static void interrupt_group(struct tracer *tr, int tgid, unsigned reason)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct tracee *t = &tr->t[i];

		if (!matches(t, tgid) || t->exiting || (t->holds & reason))
			continue;
		/* one in a stop being handled is held as it resumes */
		if (!t->holds && !t->in_stop &&
		    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
			continue; /* gone */
		t->holds |= reason;
	}
}

/* interrupt_group(), then wait until each is held, at most
 * FREEZE_WAIT_MS. */
static int freeze_group(struct tracer *tr, int tgid, unsigned reason)
{
	uint64_t until = mono_ns() + FREEZE_WAIT_MS * NSEC_PER_MSEC;

	interrupt_group(tr, tgid, reason);
	for (;;) {
		tracer_poll(tr);
		if (group_held(tr, tgid, reason))
			return 0;
		if (mono_ns() >= until)
			return -ETIMEDOUT;
		wait_child(WAIT_STEP_US);
	}
}

/* Drop reason from the tracees of tgid (all when 0); those left with no
 * reason run on. */
static void thaw_group(struct tracer *tr, int tgid, unsigned reason)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct tracee *t = &tr->t[i];

		if (!matches(t, tgid) || !(t->holds & reason))
			continue;
		t->holds &= ~reason;
		if (!t->holds && t->held) {
			t->held = false;
			ptrace(t->req, t->tid, 0, (void *)(long)t->sig);
		}
	}
}

void tracer_interrupt(struct tracer *tr, int tgid)
{
	interrupt_group(tr, tgid, HOLD_GROUP);
}

int tracer_freeze(struct tracer *tr, int tgid)
{
	return freeze_group(tr, tgid, HOLD_GROUP);
}

void tracer_thaw(struct tracer *tr, int tgid)
{
	thaw_group(tr, tgid, HOLD_GROUP);
}

void tracer_interrupt_all(struct tracer *tr)
{
	interrupt_group(tr, 0, HOLD_ALL);
}

void tracer_release_all(struct tracer *tr)
{
	thaw_group(tr, 0, HOLD_ALL);
}

/* Wait (at most 1 s) for tracee tid to stop after PTRACE_INTERRUPT and
 * detach it, handing back a signal it was stopped for (but a leash
 * signal): a SIGSTOP caught in its signal-delivery-stop must still stop
 * it, and a process in a group-stop stays stopped after the detach. */
static void detach_one(struct tracer *tr, struct tracee *t)
{
	int status, sig = 0;

	if (t->held) {
		ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->sig);
		return;
	}
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
		return; /* gone */
	for (uint64_t until = mono_ns() + FREEZE_WAIT_MS * NSEC_PER_MSEC;
	     mono_ns() < until;) {
		pid_t w = waitpid(t->tid, &status, __WALL | WNOHANG);

		if (w < 0 || (w > 0 && !WIFSTOPPED(status)))
			return; /* exited */
		if (w > 0) {
			if (((unsigned)status >> 16) == 0 &&
			    !leash_stop(tr, t->tid, WSTOPSIG(status)))
				sig = WSTOPSIG(status);
			ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)sig);
			return;
		}
		wait_child(WAIT_STEP_US);
	}
}

void tracer_free(struct tracer *tr)
{
	if (!tr)
		return;
	/* Handle the stops already reported (a signal a tracee is stopped
	 * for is delivered), then detach every tracee: the kernel's own
	 * detach when memsz exits would drop such a signal, and would let a
	 * process stopped by the user run on. */
	tracer_poll(tr);
	for (size_t i = 0; i < tr->n; i++)
		detach_one(tr, &tr->t[i]);
	free(tr->t);
	free(tr);
}
