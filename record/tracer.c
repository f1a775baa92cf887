// SPDX-License-Identifier: GPL-2.0-or-later
/* tracer.c — attach to the recorded processes with ptrace, follow their
 * threads and children, and hold (freeze) them for snapshots. */
#include "config.h"

#include "record/target.h"
#include "util/util.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long a freeze waits for every thread to stop. */
#define FREEZE_WAIT_MS 1000
/* Longest wait for a SIGCHLD before looking again (a stop whose SIGCHLD
 * was taken by someone else is still seen this soon). */
#define WAIT_STEP_US 1000

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
/* How long a new thread is kept at its first stop for its maker's clone
 * event, which comes at once unless the thread group dies meanwhile (a
 * safety net: the thread is then let go as made by nobody known). */
#define BORN_WAIT_NS (FREEZE_WAIT_MS * NSEC_PER_MSEC)

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
	uint64_t born;	    /* a new thread stopped at its first stop since
			     * (ns), before its maker's clone event: kept
			     * there until that event names its maker */
	int born_sig;	    /* WSTOPSIG of that stop: a group-stop's stop
			     * signal, resumed with PTRACE_LISTEN */
	bool in_stop;	    /* stopped, in a callback about that stop */
	int fatal;	    /* a signal that ends its process, passed on
			     * (or held for the thaw) at a
			     * signal-delivery-stop; 0 (tracer_fatal) */
};

struct tracer {
	int pid;
	bool follow, done;
	int status;
	const struct tracer_ops *ops;
	void *arg;
	struct tracee *t;
	size_t n, cap;
	int group_tgid;	    /* the process a HOLD_GROUP hold is for (0: all) */
	uint64_t delivered; /* signals seen at a tracee's
			       signal-delivery-stop (tracer_delivered) */
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
				tr->ops->at_thread(tr->arg, tid, 0, false);
			return;
		}
}

/* A tracee memsz records is traced from now on; from: the thread that
 * made it, 0 if none or unknown. */
static void thread_added(struct tracer *tr, int tid, int from)
{
	if (tr->ops->at_thread)
		tr->ops->at_thread(tr->arg, tid, from, true);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/* The signals that stop a recording (as they would memsz: Ctrl-C,
 * kill, a hang-up), and SIGQUIT: those whose end of a command the stop
 * must not take for its own SIGTERM's (tracer_fatal). */
static bool is_term_signal(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
	       sig == SIGQUIT;
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
	thread_added(tr, tid, 0);
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

/* Has thread tid of tgid exited (a zombie, or gone)? */
static bool thread_ended(int tgid, int tid)
{
	char st = target_state(tgid, tid);

	return !st || st == 'Z' || st == 'X';
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
		/* gone; or made by a seized thread since the list was read,
		 * so traced by the kernel already (its first stop and its
		 * maker's clone event make it known); or ended, not reaped
		 * yet (the kernel refuses to seize a task that has exited:
		 * a thread of a churning process, seen at attach) */
		if (ret == -ESRCH ||
		    (ret == -EPERM && (target_tracer(tids[i]) == getpid() ||
				       thread_ended(pid, tids[i]))))
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

/* Seize the threads of pid not traced yet, pass after pass until one
 * finds none: threads started by a thread not seized yet are found by the
 * next pass; those started by a seized one are traced by the kernel.
 * Returns how many were seized, or -errno. */
static int seize_passes(struct tracer *tr, int pid)
{
	int ret, seized = 0;

	do {
		ret = seize_threads(tr, pid);
		if (ret > 0)
			seized += ret;
	} while (ret > 0);
	return ret < 0 ? ret : seized;
}

int tracer_attach(struct tracer **trp, int pid, bool follow,
		  const struct tracer_ops *ops, void *arg)
{
	int ret;

	if (!*trp)
		*trp = tracer_new(0, follow, ops, arg);
	ret = seize_passes(*trp, pid);
	return ret < 0 ? ret : ret ? 0 : -ESRCH;
}

void tracer_each_thread(struct tracer *tr, void (*fn)(void *arg, int tid),
			void *arg)
{
	size_t n = 0;
	int *tids = xcalloc(tr->n + 1, sizeof(*tids));

	/* the tids first: fn may add tracees */
	for (size_t i = 0; i < tr->n; i++)
		if (!tr->t[i].exiting && !tr->t[i].unwanted && !tr->t[i].born)
			tids[n++] = tr->t[i].tid;
	for (size_t i = 0; i < n; i++)
		fn(arg, tids[i]);
	free(tids);
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

	/* gone for the caller: it takes no user-mode fault any more, and
	 * its leash could not stop it */
	if (!t->exiting && !t->unwanted && tr->ops->at_thread)
		tr->ops->at_thread(tr->arg, tid, 0, false);
	t = tracee_add(tr, tid, 0);
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

/* Let a new thread kept at its first stop go, made by from (0: unknown). */
static void born_run(struct tracer *tr, int tid, int from)
{
	struct tracee *t;

	thread_added(tr, tid, from);
	t = tracee_find(tr, tid);
	if (!t || !t->born)
		return;
	t->born = 0;
	/* the first stop may be a group-stop: the thread stays in it */
	resume(tr, tid,
	       is_stop_signal(t->born_sig) ? PTRACE_LISTEN : PTRACE_CONT, 0);
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

/* The holds a task made by tracee m (of process tgid) starts with: its
 * maker's. The maker was asked to stop while inside clone() (or stopped at
 * its clone event) and is held; the new task, which no interrupt reached,
 * must be held too, else it runs through the hold (and may make threads
 * of its own). A new process keeps a group hold only when that hold is
 * for every process: the thaw of its maker's process would not let it
 * go. */
static unsigned inherited_holds(const struct tracer *tr, const struct tracee *m,
				int tgid)
{
	unsigned holds = m ? m->holds : 0;

	if (m && tgid != m->tgid && tr->group_tgid)
		holds &= ~HOLD_GROUP;
	return holds;
}

/* Thread tid made task child (its fork, vfork or clone event). */
static void handle_new(struct tracer *tr, int tid, int child)
{
	int tgid = target_tgid(child);
	unsigned holds = inherited_holds(tr, tracee_find(tr, tid), tgid);
	bool known = tracee_find(tr, child) != NULL;
	struct tracee *t = tracee_add(tr, child, tgid);

	/* a process made by clone() is traced as a thread is; when not
	 * following, it is let go */
	if (tgid == child && !tr->follow) {
		t->unwanted = true;
	} else {
		/* A process whose first stop came before this event was let
		 * go then (unknown_stop): it runs, and is asked to stop for
		 * the holds it gets now. One not known yet is held at that
		 * first stop, a thread kept there (born) at its release. */
		if (known && (holds & ~t->holds) && !t->held && !t->born &&
		    !t->in_stop && !t->exiting)
			ptrace(PTRACE_INTERRUPT, child, 0, 0);
		t->holds |= holds;
		if (t->born)
			born_run(tr, child, tid);
		else
			thread_added(tr, child, tid);
	}
	t = tracee_add(tr, child, tgid);
	if (!t->unwanted && tgid == child && tr->ops->at_fork)
		tr->ops->at_fork(tr->arg, child, target_tgid(tid));
}

/* A stop of tid not known as a traced thread (t NULL), or kept at its
 * first stop: true if it stays stopped, not to be handled further.
 * A new task's first stop can come before its parent's clone event. A
 * thread stays stopped until that event says who made it (born_run); a
 * process is made known now, before it runs (only when following; the
 * clone event decides on the others). One stopped again before its
 * maker's event (killed, say) is made known as made by an unknown thread,
 * and this stop handled. */
static bool unknown_stop(struct tracer *tr, int tid, struct tracee *t, int ev,
			 int sig)
{
	int tgid;

	if (t && t->born) {
		t->born = 0;
		thread_added(tr, tid, 0);
		return false;
	}
	if (t || ev != PTRACE_EVENT_STOP)
		return false;
	tgid = target_tgid(tid);
	if (tgid > 0 && tgid != tid) {
		t = tracee_add(tr, tid, tgid);
		t->born = mono_ns();
		t->born_sig = sig;
		return true;
	}
	if (tgid > 0 && tr->follow) {
		tracee_add(tr, tid, tgid);
		thread_added(tr, tid, 0);
	}
	return false;
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
	if (unknown_stop(tr, tid, t, ev, sig))
		return;
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
			thread_added(tr, tid, 0);
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
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg)
			handle_new(tr, tid, (int)msg);
		resume(tr, tid, PTRACE_CONT, 0);
		break;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig))
			resume(tr, tid, PTRACE_LISTEN, 0); /* group-stop */
		else
			resume(tr, tid, PTRACE_CONT, 0);
		break;
	case 0: /* signal-delivery-stop */
		if (leash_stop(tr, tid, sig))
			sig = 0;
		if (sig > 0 && sig <= 64)
			tr->delivered |= 1ull << (sig - 1);
		/* whether it ends the process: asked of the signals that
		 * stop a recording only (a Go runtime's SIGURG or a JVM's
		 * SIGSEGV come thousands of times a second) */
		if (is_term_signal(sig) &&
		    (target_fatal_signals(tid) & (1ull << (sig - 1))))
			tracee_add(tr, tid, 0)->fatal = sig;
		resume(tr, tid, PTRACE_CONT, sig);
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
	for (size_t i = 0; i < tr->n; i++) {
		if (tr->t[i].exit_hold &&
		    mono_ns() - tr->t[i].exit_hold > LEADER_HOLD_NS)
			release_leader(tr, tr->t[i].tgid);
		if (tr->t[i].born && mono_ns() - tr->t[i].born > BORN_WAIT_NS)
			born_run(tr, tr->t[i].tid, 0);
	}
	return handled;
}

bool tracer_traces(struct tracer *tr, int tid)
{
	return tr && tracee_find(tr, tid);
}

bool tracer_done(const struct tracer *tr, int *status)
{
	if (tr->done && status)
		*status = tr->status;
	return tr->done;
}

uint64_t tracer_delivered(const struct tracer *tr)
{
	return tr ? tr->delivered : 0;
}

int tracer_fatal(const struct tracer *tr, int tgid)
{
	for (size_t i = 0; tr && i < tr->n; i++)
		if (tr->t[i].fatal && tr->t[i].tgid == tgid)
			return tr->t[i].fatal;
	return 0;
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
		    !tr->t[i].held && !tr->t[i].born)
			return false;
	return true;
}

/* Ask every live tracee of tgid (all of them when tgid is 0) to stop
 * (PTRACE_INTERRUPT) and stay stopped for reason. */
static void interrupt_group(struct tracer *tr, int tgid, unsigned reason)
{
	if (reason == HOLD_GROUP)
		tr->group_tgid = tgid;
	for (size_t i = 0; i < tr->n; i++) {
		struct tracee *t = &tr->t[i];

		if (!matches(t, tgid) || t->exiting || (t->holds & reason))
			continue;
		/* one in a stop being handled, or kept at its first stop, is
		 * held as it resumes */
		if (!t->holds && !t->in_stop && !t->born &&
		    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
			continue; /* gone */
		t->holds |= reason;
	}
}

/* interrupt_group(), then wait until each is held, at most wait_ms. */
static int freeze_group(struct tracer *tr, int tgid, unsigned reason,
			unsigned wait_ms)
{
	uint64_t until = mono_ns() + (uint64_t)wait_ms * NSEC_PER_MSEC;

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
	return freeze_group(tr, tgid, HOLD_GROUP, FREEZE_WAIT_MS);
}

int tracer_freeze_for(struct tracer *tr, int tgid, unsigned wait_ms)
{
	return freeze_group(tr, tgid, HOLD_GROUP, wait_ms);
}

/* How many times tracer_freeze_seized() looks for threads once more. */
#define SEIZED_LOOKS 8

/* seize_passes() on each process of a tracee (but unwanted ones). */
static void seize_each_process(struct tracer *tr)
{
	int *tgids = xcalloc(tr->n + 1, sizeof(*tgids));
	size_t n = 0;

	/* the processes first: a pass adds tracees */
	for (size_t k = 0; k < tr->n; k++) {
		size_t j = 0;

		while (j < n && tgids[j] != tr->t[k].tgid)
			j++;
		if (j == n && tr->t[k].tgid > 0 && !tr->t[k].unwanted)
			tgids[n++] = tr->t[k].tgid;
	}
	for (size_t j = 0; j < n; j++)
		seize_passes(tr, tgids[j]);
	free(tgids);
}

/* clone() of a 32-bit process on x86-64 and arm64 (the i386 and arm
 * number, which /proc/PID/task/TID/syscall shows): no 64-bit call there
 * has it that blocks (getresgid, sched_getscheduler). The first
 * argument holds the flags in both. */
#if defined(__x86_64__) || defined(__aarch64__)
#define COMPAT_CLONE 120
#else
#define COMPAT_CLONE SYS_clone
#endif
#ifndef SYS_clone3
#define SYS_clone3 435 /* the same on every architecture */
#endif
/* x32 system calls carry this bit in their number on x86-64 */
#if defined(__x86_64__)
#define X32_BIT 0x40000000L
#else
#define X32_BIT 0L
#endif

/* Do the flags of the clone() or clone3() thread tid is blocked in (nr,
 * first argument arg0) make a thread? Those of clone3() are read from
 * its struct clone_args, whose first field they are (in its process's
 * memory, which any of its thread ids names); unread, they are taken to.
 * The flags of clone() come first but on s390. */
static bool clone_makes_thread(int tid, long nr, uint64_t arg0)
{
	uint64_t flags = arg0;

	nr &= ~X32_BIT;
	if (nr == SYS_clone3)
		return target_read_u64(tid, arg0, &flags) < 0 ||
		       (flags & CLONE_THREAD);
#if defined(__s390__)
	flags = CLONE_THREAD;
#endif
	return (nr == SYS_clone || nr == COMPAT_CLONE) &&
	       (flags & CLONE_THREAD);
}

/* May a traced thread that has not stopped for the hold be inside a
 * clone() that makes a thread? One that runs may, and so may one blocked
 * in such a clone() or clone3(), or one whose system call cannot be
 * read. One blocked elsewhere may not: in a read from slow storage, or in
 * a vfork() or fork() waiting, which makes a process. */
static bool may_be_cloning(struct tracer *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		const struct tracee *t = &tr->t[i];
		uint64_t arg0 = 0;
		long nr = -1;
		int ret;

		if (!(t->holds & HOLD_GROUP) || t->held || t->born ||
		    t->exiting || t->unwanted)
			continue;
		ret = target_syscall(t->tgid, t->tid, &nr, &arg0);
		if (ret == -ESRCH || ret == -ENOENT)
			continue; /* gone */
		if (ret || clone_makes_thread(t->tid, nr, arg0))
			return true;
	}
	return false;
}

int tracer_freeze_seized(struct tracer *tr, unsigned wait_ms)
{
	int ret;

	/* A thread seized inside clone() can have made a thread the kernel
	 * does not trace (clone() decided that before the seize), listed
	 * only after the last pass read the thread list: that thread, and
	 * every thread it makes, would run untraced, neither held nor
	 * leashed. A thread that has reached a ptrace stop has finished the
	 * clone() it was in, so once every traced thread has stopped, a pass
	 * lists every thread made so. The threads it seizes are frozen in
	 * turn, until a pass finds none after a freeze that every thread
	 * reached, or that only threads blocked elsewhere than in a clone()
	 * missed (one that did not stop in wait_ms and may still be inside
	 * clone() is waited for again), SEIZED_LOOKS passes at most. No
	 * tracee is added between the freeze and the pass (nothing polls),
	 * so a count that did not grow means none was seized. */
	for (int i = 0;; i++) {
		size_t before;

		ret = freeze_group(tr, 0, HOLD_GROUP, wait_ms);
		if (i == SEIZED_LOOKS)
			break;
		before = tr->n;
		seize_each_process(tr);
		if (tr->n == before && (!ret || !may_be_cloning(tr)))
			break;
	}
	return ret;
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

	if (t->held || t->born) {
		ptrace(PTRACE_DETACH, t->tid, 0,
		       (void *)(long)(t->held ? t->sig : 0));
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
