// SPDX-License-Identifier: GPL-2.0-or-later
/* session_capture.c — the perf side of a session: the records the rings
 * hand out, written in time order; backpressure (every traced thread held
 * while memsz drains rings that filled) and leashes (each sampled thread
 * stops itself after its share of a ring); the tracer's callbacks, which
 * fire the start and exit triggers.
 */
#include "config.h"

#include "record/session_int.h"

#include "record/perf.h"
#include "record/target.h"
#include "util/util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>

#define SIGBIT(s) (1ull << ((s)-1))

/* The blocked mask of a thread of tid's process other than tid that does
 * not block both SIGURG and SIGWINCH; both if there is none. */
static uint64_t sibling_blocked(int tid)
{
	const uint64_t both = SIGBIT(SIGURG) | SIGBIT(SIGWINCH);
	int *tids = NULL, n = target_threads(target_tgid(tid), &tids);
	uint64_t blocked = both, caught;

	for (int i = 0; i < n && (blocked & both) == both; i++)
		if (tids[i] != tid)
			target_signal_masks(tids[i], &blocked, &caught);
	free(tids);
	return (blocked & both) == both ? both : blocked;
}

/* The signal a thread's leash sends: one ignored by default that its
 * process does not catch and the thread does not block, SIGURG or else
 * SIGWINCH. If memsz dies while the thread is stopped for it, the kernel
 * delivers it, and then it does nothing; a blocked one would stop nothing
 * (and could be taken by sigwait()). When both are caught or blocked it
 * is SIGURG (the Go runtime, which catches every signal, takes a stray
 * SIGURG as a preemption request). A thread that blocks both keeps cur,
 * the signal it has: its mask may be a passing one, pthread_create()
 * blocking every signal around clone() in the thread that calls it and in
 * the new one (glibc, musl); and if not, neither signal would stop it.
 * Without one yet (a thread seized at attach inside pthread_create(),
 * whose leash every thread it makes inherits), it is judged by the mask
 * of another thread of its process that does not block both, if any: threads
 * mostly share one mask, and a signal the process blocks would stop
 * none of them. */
static int leash_sig(int tid, int cur)
{
	const uint64_t both = SIGBIT(SIGURG) | SIGBIT(SIGWINCH);
	uint64_t blocked, busy;

	target_signal_masks(tid, &blocked, &busy);
	if ((blocked & both) == both) {
		if (cur)
			return cur;
		blocked = sibling_blocked(tid);
	}
	if ((blocked & both) != both)
		busy |= blocked;
	return (busy & SIGBIT(SIGURG)) && !(busy & SIGBIT(SIGWINCH)) ? SIGWINCH
								     : SIGURG;
}

/* Give thread tid's leash the signal leash_sig() picks now, if it is not
 * the one it has. */
static void releash(void *arg, int tid, int sig)
{
	struct session *r = arg;
	int want = leash_sig(tid, sig);

	if (want != sig)
		perf_capture_leash_signal(r->cap.pc, tid, want);
}

/* Hold every traced thread until the next drain has looked at the rings
 * (released as a backpressure hold is, at once if they have room). */
static void hold_all(struct session *r)
{
	if (!r->bp.holding) {
		r->bp.hold_start = mono_ns();
		r->bp.holding = true;
	}
	tracer_interrupt_all(r->tr);
}

/* Backpressure: if memsz has fallen behind (a sample ring, or a side-band
 * ring of mapping records, is HOLD_FILL_PERMILLE full), hold every traced
 * thread until the drain under way has emptied the rings, so that the
 * kernel never has to drop a sample or a mapping record.
 * Looked at before each drain and during it. The threads are asked to stop
 * and the drain goes on at once: waiting for the stops would only leave
 * the rings undrained meanwhile, and the free part of the rings absorbs
 * what the threads write until they stop. */
void rec_backpressure(struct session *r)
{
	if (!r->bp.hold || !r->cap.pc || !r->tr || r->werr ||
	    perf_capture_ring_fill(r->cap.pc) < HOLD_FILL_PERMILLE)
		return;
	/* a thread may have come to block its leash signal, which then
	 * stops nothing: the rings filled without it */
	if (!r->bp.holding)
		perf_capture_leash_each(r->cap.pc, releash, r);
	/* again while holding: threads that started since are held too */
	hold_all(r);
}

/* End a hold: the rings have been drained (down to RELEASE_FILL_PERMILLE
 * at least). The stops that came meanwhile are collected first so that
 * those threads resume now. */
static void release(struct session *r)
{
	if (!r->bp.holding)
		return;
	tracer_poll(r->tr);
	/* a thread that came to its leash meanwhile found the rings filling
	 * again: the hold goes on until the next drain */
	if (perf_capture_ring_fill(r->cap.pc) >= HOLD_FILL_PERMILLE)
		return;
	tracer_release_all(r->tr);
	r->bp.holding = false;
	r->bp.held_ns += mono_ns() - r->bp.hold_start;
	r->bp.nholds++;
}

static int on_perf_rec(void *arg, const struct perf_rec *pr)
{
	struct session *r = arg;
	struct perf_rec c = *pr;

	if (r->werr)
		return r->werr;
	switch (c.type) {
	case MD_REC_MMAP2:
		if (!rec_synth_dup(r, &c.u.mmap2))
			rec_write_mmap2(r, &c.u.mmap2);
		break;
	case MD_REC_COMM:
	case MD_REC_FORK:
	case MD_REC_EXIT:
		if (!rec_wfail(r, md_write_task(r->w, c.type, &c.u.task)))
			r->nevents++;
		/* attached: a new process forked by a target (without
		 * ptrace, this is how it is found) */
		if (c.type == MD_REC_FORK && !r->child && r->inherit &&
		    c.u.task.pid == c.u.task.tid &&
		    c.u.task.pid != c.u.task.ppid &&
		    rec_target_find(r, c.u.task.ppid))
			rec_follow_child(r, c.u.task.pid, false);
		break;
	case MD_REC_SAMPLE:
		if (c.u.sample.event == PERF_GROWTH_EVENT) {
			trigger_growth_fired(
			    rec_target_find(r, c.u.sample.pid));
			break;
		}
		if (!rec_wfail(r, md_write_sample(r->w, &c.u.sample)))
			r->cap.nsamples++;
		if (r->cap.nsamples % HOLD_CHECK_SAMPLES == 0) {
			if (r->bp.holding &&
			    perf_capture_ring_fill(r->cap.pc) <=
				RELEASE_FILL_PERMILLE)
				release(r);
			rec_backpressure(r);
		}
		break;
	case MD_REC_LOST:
		r->cap.lost += c.u.lost.count;
		if (c.sideband)
			r->cap.lost_sideband += c.u.lost.count;
		if (!rec_wfail(r, md_write_lost(r->w, &c.u.lost)))
			r->nevents++;
		break;
	default:
		break;
	}
	return r->werr;
}

/* Hand the perf records to on_perf_rec (all of them, or those older than
 * the time-ordering window), holding the targets while it runs if memsz
 * has fallen behind. Not re-entered: a snapshot taken from a tracer
 * callback during a hold leaves the records to the drain under way. */
void rec_drain(struct session *r, bool all)
{
	uint64_t start = mono_ns();
	int ret;

	if (!r->cap.pc || r->werr || r->bp.draining)
		return;
	r->bp.draining = true;
	rec_backpressure(r);
	ret = perf_capture_drain(r->cap.pc, all, on_perf_rec, r);
	/* what came while the holds took effect */
	if (r->bp.holding && ret >= 0)
		ret = perf_capture_drain(r->cap.pc, all, on_perf_rec, r);
	/* every record older than this is out: rec_reap_dead() may free the
	 * targets that ended before */
	if (!all)
		start = start > PERF_REORDER_WINDOW_NS
			    ? start - PERF_REORDER_WINDOW_NS
			    : 0;
	if (ret >= 0)
		r->cap.drained_ns = MAX(r->cap.drained_ns, start);
	release(r);
	r->bp.draining = false;
}

/* Between chunks of a snapshot: the targets may be faulting meanwhile,
 * and a snapshot of a large process takes long; if the rings fill, hold
 * them until the drain after the snapshot (the drain cannot run inside
 * it, between its records). The chunks are a few ms apart: the 7/8 of
 * the rings left free absorb what comes meanwhile (t2106). */
void rec_snapshot_tick(void *arg)
{
	rec_backpressure(arg);
}

/* The tracer's callbacks below record nothing once the recording has
 * ended (r->ended): tracer_free() still handles the stops pending then
 * (a target that exited, forked or exec'd since the last look), and the
 * file is complete, its END record written. */
static void at_exec(void *arg, int pid)
{
	struct session *r = arg;
	struct rec_target *t = rec_target_find(r, pid);

	if (!t || r->ended)
		return;
	/* The address space was replaced: the fallback starts over. */
	procmaps_free(&t->last);
	if (pid == r->child && !r->sn.started) {
		r->sn.started = true;
		/* held at its exec stop */
		trigger_fire(r, TRIGGER_START, t, pid, MD_SNAP_F_FROZEN);
	} else {
		rec_drain(r, true);
		rec_poll_maps(r, t);
	}
}

static void at_fork(void *arg, int pid, int ppid)
{
	struct session *r = arg;

	(void)ppid;
	if (!r->ended)
		rec_follow_child(r, pid, true);
}

static void at_exit(void *arg, int tgid, int tid)
{
	struct session *r = arg;
	struct rec_target *t = rec_target_find(r, tgid);

	if (r->ended)
		return;
	if (!t)
		t = rec_target_add(r, tgid, true);
	trigger_fire(r, TRIGGER_EXIT, t, tid, 0);
	t->alive = false;
}

/* Leash each sampled thread while sampling without --lossy: all of them,
 * or with --no-inherit those traced from the start. The launched
 * command's first thread counts from its exec, like the sampling events.
 * A new thread gets the signal of the thread that made it, whose signal
 * mask it will run with: its own blocks every signal until its start
 * routine sets it (see leash_sig). */
static void at_thread(void *arg, int tid, int from, bool add)
{
	struct session *r = arg;
	uint64_t k;
	int err, sig;

	if (!r->bp.hold || !r->cap.pc)
		return;
	if (!add) {
		perf_capture_unleash(r->cap.pc, tid);
		return;
	}
	/* closing: the tracer detaches every thread (tracer_free) */
	if ((!r->inherit && r->traced_all) || r->bp.closing)
		return;
	/* A thread may be told twice (let go after the wait for its maker's
	 * clone event, then that event): perf_capture_leash() leaves a
	 * leashed thread as it is, and the leashes stay as long, so no hold
	 * either. */
	sig = from ? perf_capture_leash_sig(r->cap.pc, from) : 0;
	k = perf_capture_leash_samples(r->cap.pc);
	err = perf_capture_leash(r->cap.pc, tid,
				 tid == r->child && !r->sn.started,
				 sig ? sig : leash_sig(tid, 0));
	/* One thread more made every leash shorter, each counted afresh:
	 * what the others took since memsz last looked, up to the longer
	 * leash, is not counted in it. Sampling, they are held until memsz
	 * has looked at the rings: whether or not this thread's leash
	 * opened, the others were shortened. Otherwise memsz looks now: the
	 * leashes bound what the threads traced now take from here on,
	 * and the threads that ended since the last look (no longer
	 * counted) left their samples in the rings. */
	if (r->traced_all && r->tr && k > perf_capture_leash_samples(r->cap.pc))
		hold_all(r);
	else
		rec_backpressure(r);
	if (err < 0 && err != -ESRCH && !r->bp.leash_told) {
		char *msg = xasprintf("cannot leash thread %d (%s): samples "
				      "may be lost when memsz falls behind",
				      tid, memsz_strerror(err));

		r->bp.leash_told = true;
		rec_note(r, MD_NOTE_LEASH_FAILED, msg);
		rec_say(r, true, msg);
		free(msg);
	}
}

/* A thread stopped at its leash: let it go unless the rings are filling
 * (then every thread is held until they are drained). Its process may
 * have come to catch the signal since the leash was set: it gets the
 * other one then. */
static bool at_leash(void *arg, int tid, int sig, int fd)
{
	struct session *r = arg;

	if (!r->cap.pc || !perf_capture_is_leash(r->cap.pc, tid, fd))
		return false;
	if (r->bp.closing)
		return true;
	releash(r, tid, sig);
	r->bp.nleash++;
	r->bp.leash_k =
	    MAX(r->bp.leash_k, perf_capture_leash_samples(r->cap.pc));
	rec_backpressure(r);
	return true;
}

const struct tracer_ops rec_tracer_ops = {
    .at_exec = at_exec,
    .at_fork = at_fork,
    .at_exit = at_exit,
    .at_thread = at_thread,
    .leash_sigs = SIGBIT(SIGURG) | SIGBIT(SIGWINCH),
    .at_leash = at_leash,
};
