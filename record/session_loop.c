// SPDX-License-Identifier: GPL-2.0-or-later
/* session_loop.c — the event loop of a session: poll() on the signalfd,
 * the interval timer, the attached targets' pidfds and the perf rings;
 * then the triggers, the drain and the polling fallback, until the
 * targets end, the duration does, a signal comes or a write fails.
 */
#include "config.h"

#include "record/session_int.h"

#include "record/perf.h"
#include "record/target.h"
#include "record/targets_scan.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* Arm the triggers (the --interval timer) and the --duration deadline. */
static void start_clocks(struct session *r)
{
	triggers_arm(r);
	if (r->o.duration_ns)
		r->loop.deadline = mono_ns() + r->o.duration_ns;
}

/* Decide whether the loop goes on: the launched command reaped, the
 * targets gone, a stop asked for. At the deadline, a launched command gets
 * its last snapshot now, then SIGTERM (its exit snapshot follows), then
 * SIGKILL after a grace period — like perf. Returns false to leave. */
static bool loop_continue(struct session *r, uint64_t now)
{
	if (r->tr)
		tracer_poll(r->tr);
	if (r->child) {
		if (tracer_done(r->tr, &r->loop.status)) {
			r->loop.got_exit = true;
			return false;
		}
	}
	if (!r->child && (r->loop.stop || (!r->sc.scan && !rec_any_alive(r))))
		return false;
	if (r->loop.deadline && now >= r->loop.deadline && !r->loop.stop)
		r->loop.stop = true;
	if (r->loop.stop && r->child && !r->loop.term_sent) {
		rec_final_snapshots(r);
		/* A command already given a fatal signal (Ctrl-C reaches the
		 * whole process group) dies of it, not of memsz's SIGTERM,
		 * which another of its threads could take first: SIGTERM
		 * only if none is pending for it, nor (looked at after, the
		 * stops handled: a signal leaves the queue only for its
		 * thread's delivery stop) passed on or held at such a stop.
		 * The grace period applies either way. */
		uint64_t pending;
		bool fatal = target_fatal_pending(r->child, &pending);

		/* the poll may reap the command: its pid, passed on, must
		 * get no signal */
		tracer_poll(r->tr);
		if (tracer_done(r->tr, &r->loop.status)) {
			r->loop.got_exit = true;
			return false;
		}
		if (r->loop.int_sig)
			r->loop.cmd_got_stop =
			    ((pending | tracer_delivered(r->tr)) >>
			     (r->loop.int_sig - 1)) &
			    1;
		if (!fatal && !tracer_fatal(r->tr, r->child)) {
			kill(r->child, SIGTERM);
			r->loop.signalled = true;
		}
		r->loop.term_sent = true;
		r->loop.kill_at = now + KILL_GRACE_NS;
	}
	if (r->loop.kill_at && now >= r->loop.kill_at && r->child > 0) {
		kill(r->child, SIGKILL);
		r->loop.signalled = true;
		r->loop.kill_at = 0;
	}
	return true;
}

/* Fill r->loop.pfd: the fixed entries, the live targets' pidfds, the perf
 * rings. Returns the count. */
static size_t fill_pollfds(struct session *r)
{
	size_t n = 0, max = PFD_FIXED + r->tg.n;

	if (r->cap.pc)
		max += perf_capture_nrings(r->cap.pc);
	xgrow(&r->loop.pfd, &r->loop.pfd_cap, max, sizeof(*r->loop.pfd));
	r->loop.pfd[n++] = (struct pollfd){.fd = r->loop.sfd, .events = POLLIN};
	r->loop.pfd[n++] = (struct pollfd){.fd = r->loop.tfd, .events = POLLIN};
	for (size_t i = 0; i < r->tg.n; i++)
		if (r->tg.t[i]->pidfd >= 0 && r->tg.t[i]->alive)
			r->loop.pfd[n++] = (struct pollfd){
			    .fd = r->tg.t[i]->pidfd, .events = POLLIN};
	if (r->cap.pc)
		n += perf_capture_pollfds(r->cap.pc, r->loop.pfd + n, max - n);
	return n;
}

/* Ctrl-Z (SIGTSTP, taken from the signalfd): what was read is handed on
 * (which lets threads held for backpressure go), then memsz stops itself.
 * A traced target cannot be let go while memsz is stopped: its threads
 * wait at their next ptrace stop (a leash, a fork, an exit) until memsz
 * continues; this is said first. */
static void stop_self(struct session *r)
{
	rec_drain(r, false);
	if (r->tr)
		rec_say(r, true,
			"stopped: the traced targets wait at their "
			"next ptrace stop (a leash, a fork, an "
			"exit) until memsz continues (fg)");
	kill(getpid(), SIGSTOP);
}

void rec_take_signal(struct session *r, uint32_t sig)
{
	static const char cpu[] = "the CPU time limit (ulimit -t) was "
				  "reached: recording stopped (SIGXCPU)";

	if (sig == SIGTSTP) {
		stop_self(r);
		return;
	}
	if (sig == SIGCHLD)
		return;
	if (sig == SIGXCPU && !r->loop.stop) {
		rec_say(r, true, cpu);
		rec_note(r, MD_NOTE_OTHER, cpu);
	}
	if (sig != SIGXCPU && !r->loop.int_sig)
		r->loop.int_sig = (int)sig;
	r->loop.stop = true;
}

bool rec_one_shot_cut(struct session *r)
{
	if (!r->o.one_shot)
		return false;
	rec_take_pending_signals(r);
	return r->loop.int_sig != 0;
}

/* Act on what poll() reported in r->loop.pfd[0..n). */
static void handle_pollfds(struct session *r, size_t n)
{
	struct pollfd *pfd = r->loop.pfd;

	if (pfd[PFD_SIGNAL].revents & POLLIN) {
		struct signalfd_siginfo si;

		while (read(r->loop.sfd, &si, sizeof(si)) == sizeof(si))
			rec_take_signal(r, si.ssi_signo);
	}
	if (r->loop.tfd >= 0 && (pfd[PFD_TIMER].revents & POLLIN)) {
		uint64_t ticks;

		if (read(r->loop.tfd, &ticks, sizeof(ticks)) > 0)
			trigger_fire_all(r, TRIGGER_INTERVAL);
		if (r->sc.scan && !target_scan_is_cgroup(r->sc.scan))
			rec_scan_targets(r);
	}
	for (size_t i = 0; i < r->tg.n; i++) {
		struct rec_target *t = r->tg.t[i];
		struct pollfd *p = NULL;

		for (size_t k = PFD_FIXED; k < n && !p; k++)
			if (t->pidfd >= 0 && pfd[k].fd == t->pidfd)
				p = &pfd[k];
		if (p && (p->revents & (POLLIN | POLLHUP))) {
			rec_write_jit(r, t);
			t->alive = false;
			close(t->pidfd);
			t->pidfd = -1;
		}
	}
}

int rec_output_wait(void *arg, uint64_t stalled_ns)
{
	static const struct timespec now;
	static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
	struct session *r = arg;
	sigset_t pending, one;
	char *msg;

	if (stalled_ns < STALL_NS)
		return 0;
	if (r->tr && !r->loop.stall_told) {
		msg = xasprintf("%s is not read: the traced targets wait at "
				"their next ptrace stop until it is "
				"(SIGINT ends the recording%s)",
				r->name,
				r->child ? " and the command"
					 : " and lets them go");
		rec_say(r, true, msg);
		free(msg);
		r->loop.stall_told = true;
	}
	if (sigpending(&pending) < 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(stops); i++) {
		if (!sigismember(&r->loop.stopset, stops[i]) ||
		    !sigismember(&pending, stops[i]))
			continue;
		sigemptyset(&one);
		sigaddset(&one, stops[i]);
		(void)sigtimedwait(&one, NULL, &now);
		if (!r->loop.int_sig)
			r->loop.int_sig = stops[i];
		r->loop.stop = true;
		return -MEMSZ_ESTALLED;
	}
	return 0;
}

void rec_take_pending_signals(struct session *r)
{
	static const struct timespec now;
	int sig;

	while ((sig = sigtimedwait(&r->loop.stopset, NULL, &now)) > 0)
		rec_take_signal(r, (uint32_t)sig);
}

void session_run(struct session *r)
{
	if (r->o.one_shot)
		return;
	start_clocks(r);
	while (!r->werr) {
		uint64_t now = mono_ns();
		int timeout = POLL_MS;
		size_t n;

		if (!loop_continue(r, now))
			break;
		if (r->loop.stop && !r->child)
			continue; /* the next turn leaves */
		if (r->loop.deadline && !r->loop.stop)
			timeout = MIN((uint64_t)timeout,
				      (r->loop.deadline - now) / 1000000 + 1);
		n = fill_pollfds(r);
		if (poll(r->loop.pfd, n, timeout) < 0 && errno != EINTR)
			break;
		/* threads at their leash first: they wait for it; then the
		 * threads leashed now, those that ended left out, fit the
		 * rings or not */
		if (r->tr)
			tracer_poll(r->tr);
		if (r->cap.pc)
			perf_capture_leash_check(r->cap.pc);
		handle_pollfds(r, n);
		if (r->sc.scan && target_scan_is_cgroup(r->sc.scan))
			rec_scan_targets(r);
		rec_drain(r, false);
		trigger_fire_all(r, TRIGGER_GROWTH);
		for (size_t i = 0; !r->cap.pc && i < r->tg.n; i++)
			rec_poll_maps(r, r->tg.t[i]);
		rec_reap_dead(r);
	}
}

/* Send sig to the launched command and every process forked from it that
 * memsz still traces and has not reaped. Returns true if any is. Only the
 * tracer's own list tells: a target that ended stays listed after a write
 * error, and once the tracer has reaped it its pid may be another
 * process's, which must get no signal. An attached recording (no launched
 * command: r->child is 0) signals nothing: its targets, traced or not,
 * are processes memsz did not start and must survive it. */
static bool signal_launched(struct session *r, int sig)
{
	bool any = false;

	if (r->child <= 0)
		return false;
	for (size_t i = 0; i < r->tg.n; i++)
		if (r->tg.t[i]->traced &&
		    tracer_traces(r->tr, r->tg.t[i]->pid)) {
			kill(r->tg.t[i]->pid, sig);
			any = true;
		}
	return any;
}

/* After a write error: end the launched command and what it forked rather
 * than leave them running unwatched (SIGTERM, SIGKILL after the grace
 * period; processes forked meanwhile get the same as the tracer reports
 * them), reaping them through the tracer. */
void rec_stop_launched(struct session *r)
{
	uint64_t start = mono_ns();

	/* kill(0, ...) would signal memsz's own process group */
	if (r->child <= 0)
		return;
	/* a child reaped already may have passed its pid on */
	if (!tracer_done(r->tr, NULL))
		kill(r->child, SIGTERM);
	for (;;) {
		uint64_t now = mono_ns();
		bool any;

		tracer_poll(r->tr);
		any = signal_launched(r, now - start < KILL_GRACE_NS ? SIGTERM
								     : SIGKILL);
		if ((tracer_done(r->tr, &r->loop.status) && !any) ||
		    now - start > 2 * KILL_GRACE_NS)
			return;
		poll(NULL, 0, 10);
	}
}
