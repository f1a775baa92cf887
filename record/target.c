/* target.c — launch, attach, ptrace and freeze the recorded processes. */
#include "config.h"

#include "record/target.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
/* How long a freeze waits for every thread to stop (polled each ms). */
#define FREEZE_WAIT_MS 1000

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

char target_state(int tgid, int tid)
{
	char path[64], buf[512], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
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
	char path[64], line[256];
	int tgid = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = atoi(line + 5);
			break;
		}
	fclose(f);
	return tgid;
}

/* --- launch --- */

struct launch_pipes {
	int pid;
	int go;    /* write end: one byte lets the child exec */
	int err;   /* read end: errno of a failed exec, EOF after exec */
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

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* --- ptrace --- */

#define LEADER_HOLD_NS (100 * NSEC_PER_MSEC)

struct tracee {
	int tid, tgid;
	bool exiting;     /* seen at PTRACE_EVENT_EXIT */
	bool want_freeze; /* hold at the next stop */
	bool held;        /* stopped; resume with req/sig at thaw */
	int req, sig;
	uint64_t exit_hold; /* leader held at its exit stop since (ns) */
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
			tr->t[i] = tr->t[--tr->n];
			return;
		}
}

static void resume(struct tracer *tr, int tid, int req, int sig)
{
	struct tracee *t = tracee_add(tr, tid, 0);

	if (t->want_freeze) {
		t->held = true;
		t->req = req;
		t->sig = sig;
		return;
	}
	ptrace(req, tid, 0, (void *)(long)sig);
}

static struct tracer *tracer_new(bool follow, const struct tracer_ops *ops,
				 void *arg)
{
	struct tracer *tr = xcalloc(1, sizeof(*tr));

	tr->follow = follow;
	tr->ops = ops;
	tr->arg = arg;
	return tr;
}

int tracer_seize(int pid, bool follow, const struct tracer_ops *ops,
		 void *arg, struct tracer **out)
{
	long opts = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC;
	struct tracer *tr;

	if (follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			PTRACE_O_TRACECLONE;
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)opts) < 0)
		return -errno;
	tr = tracer_new(follow, ops, arg);
	tr->pid = pid;
	tracee_add(tr, pid, pid);
	*out = tr;
	return 0;
}

int tracer_holder(bool follow, const struct tracer_ops *ops, void *arg,
		  struct tracer **out)
{
	*out = tracer_new(follow, ops, arg);
	return 0;
}

int tracer_attach(struct tracer *tr, int pid)
{
	/* New threads (and, when following, new processes) are traced so
	 * that they can be held too; no exit or exec events stop it. */
	long opts = PTRACE_O_TRACECLONE;
	int ret = 0, seized = 0;

	if (tr->follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;

	/* Threads started while seizing are seized through CLONE events of
	 * the seized ones; a second pass catches those that raced. */
	for (int pass = 0; pass < 2; pass++) {
		int *tids = NULL, n = target_threads(pid, &tids);

		if (n < 0) {
			ret = n;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (tracee_find(tr, tids[i]))
				continue;
			if (ptrace(PTRACE_SEIZE, tids[i], 0,
				   (void *)opts) < 0) {
				if (errno != ESRCH && !seized) {
					ret = -errno;
					break;
				}
				continue;
			}
			tracee_add(tr, tids[i], pid);
			seized++;
		}
		free(tids);
		if (ret < 0)
			break;
	}
	if (!ret && !seized)
		ret = -ESRCH;
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
	if (l->want_freeze)
		return; /* tracer_thaw resumes it */
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
		if (tid == t->tgid && !t->want_freeze) {
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
				 tid == t->tgid || (l && l->exit_hold) ?
					 t->tgid : tid);
	if (tid != t->tgid)
		release_leader(tr, t->tgid);
	resume(tr, tid, PTRACE_CONT, 0);
}

static void handle_stop(struct tracer *tr, int tid, int status)
{
	/* PTRACE_EVENT_* in bits 16 and up (ptrace(2)) */
	int sig = WSTOPSIG(status), ev = (unsigned)status >> 16;
	unsigned long msg = 0;
	struct tracee *t;

	switch (ev) {
	case PTRACE_EVENT_EXIT:
		handle_exit(tr, tid);
		break;
	case PTRACE_EVENT_EXEC:
		/* After a non-leader exec, the task now has the leader's id. */
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

			tracee_add(tr, child, tgid);
			if (tgid == child && tr->ops->at_fork)
				tr->ops->at_fork(tr->arg, child,
						 target_tgid(tid));
		}
		resume(tr, tid, PTRACE_CONT, 0);
		break;
	case PTRACE_EVENT_STOP:
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU)
			resume(tr, tid, PTRACE_LISTEN, 0); /* group-stop */
		else
			resume(tr, tid, PTRACE_CONT, 0);
		break;
	case 0:
		resume(tr, tid, PTRACE_CONT, sig); /* signal-delivery-stop */
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

static bool group_held(struct tracer *tr, int tgid)
{
	for (size_t i = 0; i < tr->n; i++)
		if ((!tgid || tr->t[i].tgid == tgid) &&
		    tr->t[i].want_freeze && !tr->t[i].held)
			return false;
	return true;
}

/* Interrupt every live tracee of tgid (all of them when tgid is 0) and
 * wait until each is held, at most FREEZE_WAIT_MS. */
static int freeze_group(struct tracer *tr, int tgid)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct tracee *t = &tr->t[i];

		if ((tgid && t->tgid != tgid) || t->exiting || t->want_freeze)
			continue;
		t->want_freeze = true;
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
			t->want_freeze = false; /* gone */
	}
	for (int i = 0; i < FREEZE_WAIT_MS * 10; i++) {
		tracer_poll(tr);
		if (group_held(tr, tgid))
			return 0;
		sleep_us(100);
	}
	return -ETIMEDOUT;
}

static void thaw_group(struct tracer *tr, int tgid)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct tracee *t = &tr->t[i];

		if ((tgid && t->tgid != tgid) || !t->want_freeze)
			continue;
		t->want_freeze = false;
		if (t->held) {
			t->held = false;
			ptrace(t->req, t->tid, 0, (void *)(long)t->sig);
		}
	}
}

int tracer_freeze(struct tracer *tr, int tgid)
{
	return freeze_group(tr, tgid);
}

void tracer_thaw(struct tracer *tr, int tgid)
{
	thaw_group(tr, tgid);
}

int tracer_hold_all(struct tracer *tr)
{
	return freeze_group(tr, 0);
}

void tracer_release_all(struct tracer *tr)
{
	thaw_group(tr, 0);
}

bool tracer_has(const struct tracer *tr, int tgid)
{
	for (size_t i = 0; i < tr->n; i++)
		if (tr->t[i].tgid == tgid)
			return true;
	return false;
}

void tracer_free(struct tracer *tr)
{
	if (!tr)
		return;
	for (size_t i = 0; i < tr->n; i++)
		if (tr->t[i].held)
			ptrace(tr->t[i].req, tr->t[i].tid, 0,
			       (void *)(long)tr->t[i].sig);
	/* Tracees are detached by the kernel when memsz exits; PTRACE_DETACH
	 * would need each of them stopped first. */
	free(tr->t);
	free(tr);
}
