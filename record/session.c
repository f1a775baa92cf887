// SPDX-License-Identifier: GPL-2.0-or-later
/* session.c — one `memsz record` run (see session.h): opening, launching
 * or attaching to the targets with their perf capture, the end of the
 * recording, and freeing it. The event loop, the targets, the capture
 * and the snapshot triggers live beside it (session_int.h).
 */
#include "config.h"

#include "record/session_int.h"

#include "data/datafile.h"
#include "record/perf.h"
#include "record/snapshot.h"
#include "record/target.h"
#include "record/targets_scan.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The most names PATH.partial[.N] tried after a write error: each one an
 * earlier failed run left is kept; past these the recording is lost. */
#define PARTIAL_MAX 1000u

/* snapper_set_tell's fn with -v: say msg, not as a warning. */
static void rec_tell(void *arg, const char *msg)
{
	rec_say(arg, false, msg);
}

void rec_note_v(struct session *r, enum md_note_kind kind, const char *text)
{
	char *msg;

	rec_note(r, kind, text);
	if (!r->o.verbose || r->werr)
		return;
	msg = xasprintf("note: %s", text);
	rec_say(r, false, msg);
	free(msg);
}

/* Set the explanation of a failure and return err. */
int rec_fail(struct session *r, int err, const char *fmt, ...)
{
	va_list ap;

	free(r->why);
	va_start(ap, fmt);
	r->why = xvasprintf(fmt, ap);
	va_end(ap);
	return err;
}

static bool perf_disabled_by_env(void)
{
	const char *e = getenv("MEMSZ_NO_PERF");

	return e && *e && strcmp(e, "0");
}

static void fallback(struct session *r, const char *why)
{
	char *msg = xasprintf("%s: polling /proc/PID/maps instead (mappings "
			      "that live less than %d ms may be missed)",
			      why, POLL_MS);

	perf_capture_free(r->cap.pc);
	r->cap.pc = NULL;
	rec_say(r, false, msg);
	rec_note(r, MD_NOTE_POLLING, msg);
	free(msg);
}

static const char *paranoid_reason(int err, char *buf, size_t size)
{
	char val[16] = "?";
	int fd =
	    open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, val, sizeof(val) - 1);

		val[n > 0 ? n : 0] = 0;
		val[strcspn(val, "\n")] = 0;
		close(fd);
	}
	snprintf(buf, size,
		 "perf_event_open not permitted (%s, perf_event_paranoid=%s)",
		 memsz_strerror(err), val);
	return buf;
}

/* Open perf events on every thread of every attached target (disabled:
 * capture_held() enables them). */
static int attach_perf(struct session *r, unsigned ring_pages)
{
	struct perf_capture_opts o = {
	    .inherit = r->inherit,
	    .samples = r->cap.sattr,
	    .nsamples = r->cap.nsattr,
	    .sample_ring_pages = ring_pages,
	    .growth_period = trigger_growth_period(r),
	    /* no leash with --lossy: a ring needs room for one sample */
	    .leash_room_permille = r->bp.hold ? LEASH_ROOM_PERMILLE : 0,
	};
	int ret = perf_capture_new(&o, &r->cap.pc);

	for (size_t i = 0; !ret && i < r->tg.n; i++) {
		int *seen = NULL, nseen = 0;

		/* Threads created while we open are caught by a rescan
		 * (inherit covers those created after); with ptrace the
		 * threads are held meanwhile (capture_held), so that none
		 * made by a thread opened already, which inherited its
		 * events, is opened again. */
		for (int pass = 0; pass < 2 && !ret; pass++) {
			int *tids = NULL;
			int n = target_threads(r->tg.t[i]->pid, &tids);

			for (int k = 0; k < n && !ret; k++) {
				bool done = false;

				for (int j = 0; j < nseen && !done; j++)
					done = seen[j] == tids[k];
				if (done)
					continue;
				ret = perf_capture_add_task(r->cap.pc, tids[k]);
				if (ret == -ESRCH)
					ret = 0; /* thread already gone */
				seen =
				    xrealloc(seen, (nseen + 1) * sizeof(*seen));
				seen[nseen++] = tids[k];
			}
			free(tids);
		}
		free(seen);
	}
	return ret;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* NOTE "event N: NAME" for each sampling event, in -e order; and, when
 * they are sampled 1 in N (--count, the same for every event), a NOTE
 * saying N: the faults not sampled leave pages no fault explains. */
static void note_events(struct session *r, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *name;
	uint64_t period = r->o.nsamples ? r->o.samples[0].sample_period : 1;
	unsigned n = 0;

	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		char *msg = xasprintf("event %u: %s", n++, name);

		rec_note_v(r, MD_NOTE_EVENT, msg);
		free(msg);
	}
	free(copy);
	if (period > 1) {
		char *msg = xasprintf("events sampled 1 in %" PRIu64
				      " (--count %" PRIu64 ")",
				      period, period);

		rec_note_v(r, MD_NOTE_SAMPLED, msg);
		free(msg);
	}
}

/* Say when sampling is less than asked: user-mode faults only, or sample
 * or side-band rings smaller than asked (perf_event_mlock_kb, ulimit -l). */
static void note_samples_user_only(struct session *r, unsigned ring_pages)
{
	const char *msg = "kernel-mode faults not permitted "
			  "(perf_event_paranoid): sampling faults taken "
			  "in user mode only";
	uint64_t got, want;
	char *m;

	if (!r->cap.pc || !r->cap.nsattr)
		return;
	if (perf_capture_samples_user_only(r->cap.pc)) {
		rec_say(r, true, msg);
		rec_note(r, MD_NOTE_USER_FAULTS_ONLY, msg);
	}
	got = perf_capture_sample_ring_size(r->cap.pc);
	want = ring_pages ? (uint64_t)ring_pages * sysconf(_SC_PAGESIZE)
			  : 8ull << 20;
	if (got && got < want) {
		m = xasprintf("sample ring buffers limited to %llu KiB per "
			      "cpu (perf_event_mlock_kb, ulimit -l): samples "
			      "may be lost",
			      (unsigned long long)got >> 10);
		rec_say(r, true, m);
		rec_note(r, MD_NOTE_RING_SMALL, m);
		free(m);
	}
	got = perf_capture_sideband_limited(r->cap.pc);
	if (got) {
		m = xasprintf("side-band ring buffers limited to %llu KiB per "
			      "cpu (perf_event_mlock_kb, ulimit -l): mapping "
			      "records may be lost",
			      (unsigned long long)got >> 10);
		rec_say(r, true, m);
		rec_note(r, MD_NOTE_RING_SMALL, m);
		free(m);
	}
}

/* Samples the kernel dropped without telling (no LOST record follows a
 * loss until the ring is written again, and it is not after the target
 * exits): the events' counts minus what arrived and what LOST records
 * told. Written as one more LOST record. */
static void unreported_lost(struct session *r)
{
	uint64_t *counts, expected = 0, got;
	struct md_lost l = {.time = mono_ns()};

	if (!r->cap.pc || !r->cap.nsattr || r->werr)
		return;
	counts = xcalloc(r->cap.nsattr, sizeof(*counts));
	if (perf_capture_sample_counts(r->cap.pc, counts) == 0) {
		for (size_t i = 0; i < r->cap.nsattr; i++)
			expected += counts[i] / r->cap.sattr[i].sample_period;
		/* samples only: a LOST record of the mapping history's
		 * ring counts no sample */
		got = r->cap.nsamples + r->cap.lost - r->cap.lost_sideband;
		if (expected > got) {
			l.count = expected - got;
			r->cap.lost += l.count;
			if (!rec_wfail(r, md_write_lost(r->w, &l)))
				r->nevents++;
		}
	}
	free(counts);
}

/* Open the perf events for a launched child (pid > 0) or for the attached
 * targets (pid 0), or fall back to polling /proc when perf is refused or
 * MEMSZ_NO_PERF is set. Sampling (--faults, -e) has no fallback. Returns 0,
 * or a negative code with r->why. */
static int start_capture(struct session *r, unsigned ring_pages, int pid)
{
	/* a launched command's events start counting at its exec */
	struct perf_capture_opts o = {
	    .inherit = r->inherit,
	    .enable_on_exec = pid > 0,
	    .samples = r->cap.sattr,
	    .nsamples = r->cap.nsattr,
	    .sample_ring_pages = ring_pages,
	    .growth_period = trigger_growth_period(r),
	    /* no leash with --lossy: a ring needs room for one sample */
	    .leash_room_permille = r->bp.hold ? LEASH_ROOM_PERMILLE : 0,
	};
	char reason[160];
	int err;

	if (perf_disabled_by_env()) {
		if (r->cap.nsattr)
			return rec_fail(r, -MEMSZ_ENOTSUP,
					"cannot sample events: "
					"MEMSZ_NO_PERF is set");
		fallback(r, "MEMSZ_NO_PERF is set");
		return 0;
	}
	if (pid > 0) {
		err = perf_capture_new(&o, &r->cap.pc);
		if (!err)
			err = perf_capture_add_task(r->cap.pc, pid);
	} else {
		err = attach_perf(r, ring_pages);
	}
	if (err == -EACCES || err == -EPERM || err == -MEMSZ_EMLOCK) {
		/* a ring refused by the locked-memory limit is not
		 * perf_event_paranoid's doing */
		if (err == -MEMSZ_EMLOCK)
			snprintf(reason, sizeof(reason), "%s",
				 memsz_strerror(err));
		else
			paranoid_reason(err, reason, sizeof(reason));
		if (r->cap.nsattr)
			return rec_fail(r, err, "cannot sample events: %s",
					reason);
		fallback(r, reason);
	} else if (err < 0) {
		return rec_fail(r, err, "cannot open perf events: %s",
				memsz_strerror(err));
	}
	return 0;
}

/* Add sig to set unless memsz found it ignored: Linux queues a blocked
 * signal even when ignored, so the signalfd read what nohup (SIGHUP) or a
 * parent (SIGXCPU) meant to be ignored, and the recording stopped. */
static void add_unless_ignored(sigset_t *set, int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		sigaddset(set, sig);
}

/* The signals that stop the recording: SIGINT, SIGTERM, SIGHUP and
 * SIGXCPU, the soft CPU time limit (ulimit -t, systemd's LimitCPU=)
 * passed: by default it killed memsz and lost the recording; the kernel
 * sends it to be heeded before the hard limit's SIGKILL. SIGINT and
 * SIGTERM are taken even if found ignored, as perf record takes them: a
 * script's background job (`memsz record ... &`) has SIGINT ignored, and
 * `kill -INT $!` is how scripts end such a recording. */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	add_unless_ignored(set, SIGHUP);
	add_unless_ignored(set, SIGXCPU);
}

int session_open(const struct session_opts *o, struct session **out)
{
	struct session *r = xcalloc(1, sizeof(*r));
	sigset_t mask;
	int err;

	*out = r;
	r->o = *o;
	r->path = o->path;
	r->name = o->name ? xstrdup(o->name) : xasprintf("'%s'", o->path);
	r->sn.freeze = o->freeze;
	r->inherit = o->inherit;
	r->bp.hold = o->nsamples && !o->lossy;
	r->loop.sfd = -1;
	r->loop.tfd = -1;
	if (o->nsamples) {
		r->cap.sattr = xcalloc(o->nsamples, sizeof(*r->cap.sattr));
		memcpy(r->cap.sattr, o->samples,
		       o->nsamples * sizeof(*r->cap.sattr));
		r->cap.nsattr = o->nsamples;
	}
	stop_signals(&r->loop.stopset);
	mask = r->loop.stopset;
	add_unless_ignored(&mask, SIGTSTP); /* Ctrl-Z: said, then stopped */
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &r->loop.oldmask);
	r->loop.masked = true;
	r->loop.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->loop.sfd < 0)
		return rec_fail(r, -errno, "cannot create a signalfd: %s",
				strerror(errno));
	/* the wait hook from the header on: a reader that reads nothing
	 * stalls it, and the stop signals are blocked already */
	err = md_writer_open_wait(
	    r->path,
	    (o->output_special ? MD_WRITER_SPECIAL : 0) |
		(o->one_shot ? MD_WRITER_BATCH | MD_WRITER_UNNAMED : 0) |
		(o->launch ? MD_WRITER_CMDOUT : 0),
	    rec_output_wait, r, &r->w);
	if (err < 0)
		return rec_fail(r, err, "cannot open %s: %s", r->name,
				memsz_strerror(err));
	err = snapper_new(r->w, &r->sn.s);
	if (err < 0)
		return rec_fail(r, err, "cannot start snapshots: %s",
				memsz_strerror(err));
	snapper_set_tick(r->sn.s, rec_snapshot_tick, r);
	if (o->verbose)
		snapper_set_tell(r->sn.s, rec_tell, r);
	if (o->names)
		note_events(r, o->names);
	return 0;
}

/* Kill and reap a launched child that will not be recorded. */
static void reap_child(struct session *r)
{
	kill(r->child, SIGKILL);
	while (waitpid(r->child, &r->loop.status, __WALL) < 0 && errno == EINTR)
		;
}

/* A launch that failed (err) because of a stop signal: Ctrl-C reaches
 * the command being started too, which dies of it before it is seized
 * or its events are opened ("cannot trace: Operation not permitted",
 * "cannot open perf events: No such process"). Says the interruption
 * instead when a stop signal is pending (taken: session_stop_signal()
 * tells it, and memsz dies by it). Returns the code. */
static int launch_interrupted(struct session *r, const char *cmd, int err)
{
	rec_take_pending_signals(r);
	if (!r->loop.int_sig)
		return err;
	r->exec_failed = 0;
	return rec_fail(r, -EINTR,
			"interrupted by SIG%s while starting '%s': nothing "
			"recorded",
			sigabbrev_np(r->loop.int_sig), cmd);
}

/* Whether memsz has CAP_SYS_PTRACE in its effective set (CapEff of
 * /proc/self/status, bit 19); true if it cannot be read. */
static bool may_trace_privileged(void)
{
	char line[256];
	bool yes = true;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			yes = strtoull(line + 7, NULL, 16) & (1ull << 19);
	if (f)
		fclose(f);
	return yes;
}

/* Once a target is traced: without CAP_SYS_PTRACE the kernel runs a
 * set-user-ID, set-group-ID or file-capability program a traced process
 * execs without those privileges (passwd -S printed "nobody L never"
 * under memsz as nobody). Said and noted once. */
static void note_unprivileged_trace(struct session *r)
{
	static const char msg[] =
	    "tracing without CAP_SYS_PTRACE: a set-user-ID, set-group-ID or "
	    "file-capability program the targets run (passwd, su, ping) "
	    "runs without its privileges under memsz";

	if (r->unpriv_told || may_trace_privileged())
		return;
	r->unpriv_told = true;
	rec_say(r, true, msg);
	rec_note(r, MD_NOTE_OTHER, msg);
}

/* Why the launched command cannot be traced (err from tracer_seize()).
 * Under a tracer that follows children (strace -f, gdb, another memsz)
 * the command is that tracer's from its fork, and a task has one
 * tracer: name it (the command's TracerPid). memsz runs a command only
 * under its own ptrace (its exit snapshot, holds, leashes); -p records
 * a process another tracer holds, without them. */
static void fail_seize(struct session *r, const char *cmd, int err)
{
	int by = target_tracer(r->child);
	char comm[32] = "?";

	if (err != -EPERM || by <= 0 || by == getpid()) {
		rec_fail(r, err, "cannot trace '%s': %s", cmd,
			 memsz_strerror(err));
		return;
	}
	target_comm(by, comm, sizeof(comm));
	rec_fail(r, err,
		 "cannot trace '%s': it is traced already, by pid %d (%s), "
		 "which traces memsz and the children it starts; run memsz "
		 "untraced, or record the command with -p once it runs",
		 cmd, by, comm);
}

int session_launch(struct session *r, char **argv)
{
	int err = target_launch(argv, &r->loop.oldmask);

	if (err < 0)
		return rec_fail(r, err, "cannot fork: %s", memsz_strerror(err));
	r->child = err;
	rec_target_add(r, r->child, true);
	err = start_capture(r, r->o.ring_pages, r->child);
	if (err < 0)
		goto out_child;
	err = tracer_seize(r->child, r->inherit, &rec_tracer_ops, r, &r->tr);
	r->traced_all = true;
	if (err < 0) {
		fail_seize(r, argv[0], err);
		goto out_child;
	}
	note_samples_user_only(r, r->o.ring_pages);
	err = target_launch_go(r->child);
	if (err < 0) {
		rec_fail(r, err, "cannot run '%s': %s", argv[0],
			 memsz_strerror(err));
		r->exec_failed = err;
		goto out_child;
	}
	/* said once the command runs: a command not found is one line */
	note_unprivileged_trace(r);
	return 0;
out_child:
	reap_child(r);
	return launch_interrupted(r, argv[0], err);
}

/* Seize the attached targets with ptrace (following the children they
 * fork when inheriting): each gets a snapshot at its exit stop, and can be
 * held by ptrace stops, which end with memsz (--freeze, backpressure).
 * Where ptrace is refused the recording goes on without it: children are
 * then found by their perf FORK records, and snapshot at intervals only.
 * A target already gone is said by note_gone_at_attach(). */
static void trace_attached(struct session *r)
{
	for (size_t i = 0; i < r->tg.n; i++) {
		struct rec_target *t = r->tg.t[i];
		char *msg;
		int err;

		if (!t->alive || t->traced)
			continue;
		err = tracer_attach(&r->tr, t->pid, r->inherit, &rec_tracer_ops,
				    r);
		if (!err) {
			t->traced = true;
			note_unprivileged_trace(r);
			continue;
		}
		if (err == -ESRCH || err == -ENOENT)
			continue;
		msg = xasprintf("cannot ptrace pid %d (%s): no snapshot "
				"at its exit%s%s%s",
				t->pid, memsz_strerror(err),
				r->inherit ? "; children it forks are "
					     "snapshot at --interval and at "
					     "the end only"
					   : "",
				r->sn.freeze ? "; snapshots are taken while it "
					       "runs"
					     : "",
				r->bp.hold ? "; samples may be lost when memsz "
					     "falls behind"
					   : "");
		if (!r->ptrace_told) {
			rec_note(r, MD_NOTE_NO_PTRACE, msg);
			rec_say(r, true, msg);
		} else {
			rec_note_v(r, MD_NOTE_NO_PTRACE, msg);
		}
		r->ptrace_told = true;
		free(msg);
	}
}

/* Say (and note) which targets were gone before their first snapshot.
 * After a write error none was written, gone or not: that error is the
 * one line said (a full disk or ulimit -f at the start snapshot made
 * every live target "exited while memsz attached"). */
static void note_gone_at_attach(struct session *r)
{
	for (size_t i = 0; !r->werr && i < r->tg.n; i++) {
		struct rec_target *t = r->tg.t[i];
		char *msg;

		if (t->nsnaps || t->told)
			continue;
		t->alive = false;
		t->told = true;
		msg = xasprintf("pid %d (%s) not recorded: it exited while "
				"memsz attached",
				t->pid, t->comm);
		rec_say(r, true, msg);
		rec_note(r, MD_NOTE_TARGET_EXITED, msg);
		free(msg);
	}
}

/* One-shot: targets from, on, left without a snapshot by a stop signal:
 * counted, not said to have exited. */
static void cut_targets(struct session *r, size_t from)
{
	r->loop.cut = r->tg.n - from;
	for (size_t i = from; i < r->tg.n; i++)
		r->tg.t[i]->told = true;
}

static void leash_traced(void *arg, int tid)
{
	rec_tracer_ops.at_thread(arg, tid, 0, true);
}

/* Open the perf events of the attached targets while their traced
 * threads are held, then leash those threads (the leashes need the rings)
 * and let them go. Held, no thread makes one: attach_perf() opened the
 * events of a thread made meanwhile by one whose events it had opened, so
 * the thread had them twice (inherited and its own), each of its faults
 * was sampled twice, and its leash, counting faults, let it fill the
 * rings twice as fast as their room was set for: samples were lost at the
 * start of the recording. Only when sampling: without ptrace, or
 * recording mappings alone, the threads run meanwhile. */
static int capture_held(struct session *r)
{
	bool hold = r->tr && r->cap.nsattr;
	uint64_t t0 = mono_ns();
	int err;

	/* every thread traced too: see tracer_freeze_seized() */
	if (hold)
		tracer_freeze_seized(r->tr, END_HOLD_WAIT_MS);
	err = start_capture(r, r->o.ring_pages, 0);
	if (!err && r->tr && r->cap.pc)
		tracer_each_thread(r->tr, leash_traced, r);
	/* The events count once the threads are traced and leashed: a
	 * sample ring cannot fill before memsz can hold them. */
	if (!err && r->cap.pc) {
		err = perf_capture_enable(r->cap.pc);
		if (err < 0)
			rec_fail(r, err, "cannot enable perf events: %s",
				 memsz_strerror(err));
	}
	if (hold) {
		tracer_thaw(r->tr, 0);
		r->bp.attach_held_ns = mono_ns() - t0;
	}
	return err;
}

int session_attach(struct session *r, const int *pids, int n)
{
	int err;

	for (int i = 0; i < n; i++) {
		struct rec_target *t = rec_target_add(r, pids[i], false);

		t->pidfd = syscall(SYS_pidfd_open, pids[i], 0);
		rec_write_comm(r, t);
	}
	if (r->o.children)
		rec_add_descendants(r, pids, n);
	if (!r->o.one_shot || r->sn.freeze)
		trace_attached(r);
	if (!r->o.one_shot) {
		err = capture_held(r);
		if (err < 0)
			return err;
		note_samples_user_only(r, r->o.ring_pages);
	}
	r->traced_all = true;
	/* Descendants forked between the first look and the tracing: from
	 * now on the tracer (or perf FORK records) follows new ones. Those
	 * forked after their parent's perf events were opened inherited
	 * them; the others' mappings are known from their snapshots. */
	if (r->o.children && rec_add_descendants(r, pids, n) &&
	    (!r->o.one_shot || r->sn.freeze))
		trace_attached(r);
	/* With perf events, the first snapshot of each target stands for
	 * the MMAP2 records of the mappings it has now: the start snapshot,
	 * or its exit snapshot when a stop handled in another's start
	 * snapshot (a drain, a --freeze) finds it exiting. Every target is
	 * owed one before any snapshot is taken. The records are
	 * synthesized only for a target of which no snapshot was taken. */
	for (size_t i = 0; r->cap.pc && i < r->tg.n; i++)
		r->tg.t[i]->maps_owed = true;
	for (size_t i = 0; i < r->tg.n; i++) {
		if (r->sn.nsnaps && rec_one_shot_cut(r)) {
			cut_targets(r, i);
			break;
		}
		trigger_fire(r, TRIGGER_START, r->tg.t[i], 0, 0);
	}
	for (size_t i = 0; i < r->tg.n; i++)
		if (r->tg.t[i]->maps_owed && r->tg.t[i]->alive &&
		    !r->tg.t[i]->unreadable)
			rec_synthesize(r, r->tg.t[i]);
	note_gone_at_attach(r);
	return 0;
}

/* NOTE (and say) how the sampled threads were leashed and held. */
static void note_holds(struct session *r)
{
	if (r->bp.nleash && !r->werr) {
		bool sb = r->cap.pc && perf_capture_leash_sideband(r->cap.pc);
		char *msg = xasprintf("threads stopped %llu times at their "
				      "leash (every %llu samples at most%s) "
				      "for memsz to look at the sample rings",
				      (unsigned long long)r->bp.nleash,
				      (unsigned long long)r->bp.leash_k,
				      sb ? ", set by the side-band rings' "
					   "room for mapping records"
					 : "");

		rec_note_v(r, MD_NOTE_LEASH_STOPS, msg);
		free(msg);
	}
	if (r->cap.pc && perf_capture_leash_short(r->cap.pc) && !r->werr) {
		const char *msg = "the sample rings are too small for a leash "
				  "of two samples per traced thread: samples "
				  "may be lost when memsz falls behind "
				  "(a larger -m helps)";

		rec_note(r, MD_NOTE_LEASH_SHORT, msg);
		rec_say(r, true, msg);
	}
	if (r->cap.pc && perf_capture_leash_short_sideband(r->cap.pc) &&
	    !r->werr) {
		const char *msg = "the side-band rings are too small for a "
				  "leash of two samples per traced thread: "
				  "mapping records may be lost when memsz "
				  "falls behind (perf_event_mlock_kb and "
				  "ulimit -l limit them)";

		rec_note(r, MD_NOTE_LEASH_SHORT, msg);
		rec_say(r, true, msg);
	}
	if (r->bp.nholds && !r->werr) {
		char *msg = xasprintf("targets held %llu times, %.3f s in "
				      "all, while memsz drained the sample "
				      "or side-band rings (backpressure)",
				      (unsigned long long)r->bp.nholds,
				      r->bp.held_ns / 1e9);

		rec_note_v(r, MD_NOTE_HELD, msg);
		free(msg);
	}
}

/* The processes of which a snapshot was taken. */
static size_t snapped(const struct session *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->tg.n; i++)
		n += r->tg.t[i]->nsnaps > 0;
	return n;
}

/* What the finished session wrote, for the summary line. */
static void fill_stats(struct session *r, struct session_stats *st)
{
	struct md_writer_stats ws = {0};

	st->nevents = r->nevents;
	if (r->w)
		md_writer_stats(r->w, &ws);
	st->nsamples = ws.samples;
	st->unwritten = ws.samples_lost;
	st->lost = r->cap.lost - r->cap.lost_sideband;
	st->lost_sideband = r->cap.lost_sideband;
	st->nsnaps = r->sn.nsnaps;
	st->held_ns = r->bp.held_ns + r->bp.end_held_ns + r->bp.attach_held_ns;
	st->nholds =
	    r->bp.nholds + !!r->bp.end_held_ns + !!r->bp.attach_held_ns;
	st->snap_held_ns = r->sn.snap_held_ns;
	st->nsnap_held = r->sn.nsnap_held;
	st->bytes = r->w ? md_writer_offset(r->w) : 0;
	st->werr = r->werr;
	st->werr_path = r->w ? md_writer_err_path(r->w) : r->o.path;
	st->committed = !r->werr && r->sn.nsnaps;
	st->complete = r->commit_failed;
	st->cmd_stopped = r->cmd_stopped;
	st->ntargets = r->tg.n + r->sc.ndenied;
	st->direct = r->w && md_writer_direct(r->w);
	st->partial = r->partial;
	st->partial_err = r->partial_err;
	st->partial_max = PARTIAL_MAX;
	st->cut_sig = r->o.one_shot ? r->loop.int_sig : 0;
	st->cut = r->loop.cut;
	st->held = snapped(r);
}

/* Whether a complete snapshot is in the file, not only in the batch a
 * failed write left unwritten. */
static bool snap_in_file(const struct session *r)
{
	struct md_writer_stats ws;

	if (!r->sn.nsnaps)
		return false;
	md_writer_stats(r->w, &ws);
	return ws.bytes >= r->sn.first_end;
}

/* Hold (on) or let go every thread an attached recording traces, to end
 * it (see session_finish); the summary counts it with the backpressure
 * holds (their note in the file leaves it out). A
 * launched command has ended or is ending. The wait for the stops is
 * short: a thread that cannot stop (in vfork() while its child runs,
 * say) makes no thread meanwhile, and the others stay held that long. */
static void freeze_all(struct session *r, bool on)
{
	if (!r->tr || r->child || !r->cap.pc || !r->cap.nsattr)
		return;
	if (on) {
		r->bp.end_start = mono_ns();
		tracer_freeze_for(r->tr, 0, END_HOLD_WAIT_MS);
		return;
	}
	tracer_thaw(r->tr, 0);
	r->bp.end_held_ns = mono_ns() - r->bp.end_start;
}

/* One-shot stopped by a stop signal, after the snapshot being taken (the
 * last one's, maybe): NOTE how many processes have no snapshot and how
 * many have one (said by the command, which then dies by the signal). */
static void note_cut(struct session *r)
{
	const char *sig = sigabbrev_np(r->loop.int_sig);
	size_t held = snapped(r);
	char *msg;

	if (!r->o.one_shot || !r->loop.int_sig || r->werr)
		return;
	if (r->loop.cut)
		msg = xasprintf("interrupted by SIG%s: %zu process%s not "
				"recorded (no snapshot), %zu recorded",
				sig, r->loop.cut, r->loop.cut == 1 ? "" : "es",
				held);
	else
		msg = xasprintf("interrupted by SIG%s during the last "
				"snapshot: no process left out",
				sig);
	rec_note(r, MD_NOTE_OTHER, msg);
	free(msg);
}

/* After a write error, keep what was written as PATH.partial, or where
 * an earlier failed run left that, as PATH.partial.N (the first N from 1
 * free): a recording already written is never lost. */
static void keep_partial(struct session *r)
{
	int kept = -EEXIST;

	for (unsigned n = 0; n < PARTIAL_MAX && kept == -EEXIST; n++) {
		char *p = n ? xasprintf("%s.partial.%u", r->o.path, n)
			    : xasprintf("%s.partial", r->o.path);

		kept = md_writer_keep(r->w, p);
		if (kept == 0)
			r->partial = p;
		else
			free(p);
	}
	if (kept == 1) /* where it was written: no rename there */
		r->partial = xstrdup(md_writer_temp_path(r->w));
	if (kept < 0) /* every name taken: the recording is thrown away */
		r->partial_err = kept;
}

void session_finish(struct session *r, struct session_stats *st)
{
	rec_drain(r, true);
	if (!r->werr && !r->child && !r->o.one_shot)
		rec_final_snapshots(r);
	/* said and noted while the file is open, not a death after it */
	rec_take_pending_signals(r);
	rec_scan_note(r);
	note_cut(r);
	/* The recording ends here. Events counted after the last drain
	 * (attached targets run on) would be taken for samples the kernel
	 * dropped: the counts stop first, then the rings are drained. The
	 * events are disabled one by one, each with the copies its threads'
	 * threads inherited; a thread made meanwhile inherits its maker's
	 * copy as it was, still enabled, joins that list too late, and
	 * counts on (so do the threads it makes). So every traced thread
	 * is held until the counts are read. One asked to stop inside
	 * clone() stops at its clone event; the thread it made starts held
	 * too (the tracer gives it its maker's holds), so none runs then
	 * and nothing counts after the drain. */
	freeze_all(r, true);
	perf_capture_disable(r->cap.pc);
	rec_drain(r, true);
	unreported_lost(r);
	freeze_all(r, false);
	note_holds(r);
	/* the batched samples now, so that the summary counts the file */
	if (r->w)
		rec_wfail(r, md_writer_flush(r->w));
	if (r->werr && r->tr && !r->loop.got_exit) {
		rec_stop_launched(r);
		r->cmd_stopped = r->child > 0;
	}
	if (r->cap.lost && !r->werr) {
		char *msg = xasprintf("%llu perf records lost",
				      (unsigned long long)r->cap.lost);

		rec_note(r, MD_NOTE_LOST, msg);
		rec_say(r, false, msg);
		free(msg);
	}
	/* The last sample batch, then: only a recording that holds a
	 * snapshot replaces the previous one. */
	if (r->w && !r->werr)
		rec_wfail(r, md_writer_flush(r->w));
	if (!r->werr && r->sn.nsnaps)
		r->commit_failed = rec_wfail(r, md_writer_commit(r->w));
	/* A write error keeps path as it was; what was written up to the
	 * error (its complete snapshots readable, the file cut short) is
	 * kept beside it rather than thrown away. A direct output (a pipe,
	 * a device) has no file of its own to keep: its reader got what was
	 * written, which the error line says. */
	if (r->w && r->werr && !md_writer_direct(r->w) && snap_in_file(r) &&
	    !r->partial)
		keep_partial(r);
	r->ended = true;
	if (st)
		fill_stats(r, st);
}

int session_exit_code(const struct session *r)
{
	return r->child && r->loop.got_exit ? exit_code(r->loop.status) : 0;
}

int session_stop_signal(const struct session *r)
{
	/* a command that exited by itself, or on the signal that stopped
	 * memsz reaching it too (a shell passes its status on then), has
	 * its status passed on; one that exited on memsz's own SIGTERM
	 * does not speak for the stop */
	if (r->child && r->loop.got_exit && WIFEXITED(r->loop.status) &&
	    (!r->loop.signalled || r->loop.cmd_got_stop))
		return 0;
	return r->loop.int_sig;
}

const char *session_why(const struct session *r)
{
	return r->why ? r->why : "";
}

int session_exec_failed(const struct session *r)
{
	return r->exec_failed;
}

int session_free(struct session *r)
{
	int ret;

	if (!r)
		return 0;
	/* No leash signal may reach a thread once it is let go: none is
	 * sent from now on, and those sent before are taken at the stops
	 * tracer_free() handles before it detaches; nor is what those stops
	 * tell recorded (r->ended). */
	r->bp.closing = true;
	r->ended = true;
	perf_capture_leash_quiet(r->cap.pc);
	tracer_free(r->tr);
	perf_capture_free(r->cap.pc);
	rec_targets_free(r);
	free(r->cap.syn);
	free(r->loop.pfd);
	free(r->partial);
	free(r->name);
	snapper_free(r->sn.s);
	ret = md_writer_close(r->w);
	if (r->loop.tfd >= 0)
		close(r->loop.tfd);
	if (r->loop.sfd >= 0)
		close(r->loop.sfd);
	/* SIGXCPU comes again each CPU second past the soft limit: one
	 * after rec_take_pending_signals() would kill memsz once unblocked
	 * (the hard limit's SIGKILL still applies) */
	if (r->loop.masked && sigismember(&r->loop.stopset, SIGXCPU))
		signal(SIGXCPU, SIG_IGN);
	if (r->loop.masked)
		sigprocmask(SIG_SETMASK, &r->loop.oldmask, NULL);
	free(r->cap.sattr);
	target_scan_free(r->sc.scan);
	rec_cgroups_free(r);
	free(r->sc.denied);
	free(r->why);
	free(r);
	return ret;
}
