// SPDX-License-Identifier: GPL-2.0-or-later
/* session_trigger.c — the snapshot triggers of a session, one row each
 * (see session_int.h), and the snapshot they take.
 *
 * A trigger is an event that makes a snapshot: a target's start, the
 * --interval timer, its resident memory growing, its exit, the end of
 * the recording. The event's source (the tracer, the loop, the drain)
 * calls trigger_fire() or trigger_fire_all() with the trigger's id; the
 * row says which targets are due, what flags their snapshots carry, and
 * what is set up when the loop starts. Adding a trigger is a row, its
 * due function and the call where its event comes.
 */
#include "config.h"

#include "record/session_int.h"

#include "record/snapshot.h"
#include "record/target.h"
#include "util/util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Growth snapshots: the kernel wakes memsz every GROWTH_FAULTS user-mode
 * page faults of a target (256 KiB of 4 KiB pages); memsz then reads its
 * RSS and takes a snapshot, holding a traced target, if it grew since its
 * last snapshot by 1/GROWTH_FRACTION, but by at least GROWTH_MIN_STEP and
 * at most GROWTH_MAX_STEP bytes. The highest snapshot is then within
 * about 1/16 (or 1 MiB) + 256 KiB, plus what the process gains and frees
 * while memsz wakes up, of the true peak. Each snapshot reads every page
 * again, so growing from R to 2R costs about GROWTH_FRACTION * ln 2
 * snapshots of up to 2R: the fraction trades the target's time for how
 * close the peak snapshot is (python3 building a 90 MB list of lists was
 * held 0.17 s with 1/64, 0.07 s with 1/16; its 0.11 s of work took
 * 0.08 s longer with every fault sampled). */
#define GROWTH_FAULTS 64
#define GROWTH_FRACTION 16
#define GROWTH_MIN_STEP (1ull << 20)
#define GROWTH_MAX_STEP (32ull << 20)

/* Growth since t's last snapshot that makes a growth snapshot. */
static uint64_t growth_step(const struct rec_target *t)
{
	return MAX(MIN(t->last_rss / GROWTH_FRACTION, GROWTH_MAX_STEP),
		   GROWTH_MIN_STEP);
}

/* A target a snapshot holds, let go by thaw(). */
struct held {
	struct session *r;
	struct rec_target *t;
	uint64_t since;
	bool thawed;
};

static void thaw(void *arg)
{
	struct held *h = arg;

	if (h->thawed)
		return;
	h->thawed = true;
	tracer_thaw(h->r->tr, h->t->pid);
	h->t->thawed = mono_ns();
	h->t->held_ns = h->t->thawed - h->since;
	h->r->sn.snap_held_ns += h->t->held_ns;
	h->r->sn.nsnap_held++;
}

/* Found by a scan (-a, -G: no perf EXIT records), t is gone: an EXIT
 * record says when, so that a report counts its last snapshot no later
 * (a --timeline point, the cgroup's or machine's charge after it). It
 * ended after its last snapshot and at the latest when this round began,
 * whose snapshots the report takes as one moment. */
static void target_gone(struct session *r, struct rec_target *t)
{
	struct md_task k = {.pid = (uint32_t)t->pid, .tid = (uint32_t)t->pid};

	t->alive = false;
	if (!r->sc.scan || t->traced || !t->nsnaps || r->werr)
		return;
	k.time = MAX(r->sn.round_ns, t->snap_ns + 1);
	if (!rec_wfail(r, md_write_task(r->w, MD_REC_EXIT, &k)))
		r->nevents++;
}

/* What a snapshot of t ended with (ret, flags and st: snapper_take()):
 * a target gone, denied or left out is marked so, a write error fails
 * the recording; a snapshot taken is counted in t and r, with the
 * records that follow it. */
static void snapshot_taken(struct session *r, struct rec_target *t, int ret,
			   uint32_t flags, const struct snap_stats *st)
{
	if (ret == -ESRCH) {
		target_gone(r, t);
		return;
	}
	if (r->sc.scan && (ret == -EACCES || ret == -EPERM)) {
		rec_scan_denied(r, t->pid, ret); /* left out from now */
		t->alive = false;
		return;
	}
	if (ret == -EACCES || ret == -EPERM) {
		rec_left_out(r, t, ret);
		return;
	}
	if (ret < 0) {
		rec_wfail(r, ret);
		return;
	}
	if (!r->sn.nsnaps++)
		r->sn.first_end = md_writer_offset(r->w);
	t->nsnaps++;
	t->snap_ns = mono_ns();
	t->maps_owed = false; /* this one stood for them */
	rec_write_cgroups(r, t);
	t->last_rss = st->pages_present * (uint64_t)sysconf(_SC_PAGESIZE);
	if (flags & MD_SNAP_F_AT_EXIT)
		t->exit_snap = true;
	if (!st->pfn_available && !r->sn.pss_told) {
		r->sn.pss_told = true;
		rec_say(r, false,
			"page frame numbers are not readable "
			"(no CAP_SYS_ADMIN): recording without PSS, "
			"mapcounts and page flags");
	}
}

/* True if t's pid no longer holds t's process, which the loop has not
 * seen end yet: the kernel hands a pid out again once its process is
 * reaped, and a snapshot would read the new one under t's name. Its
 * pidfd says it exited, or, found by a scan (no pidfd), the pid started
 * at another time. A traced target's pid is not reaped before memsz has
 * seen its exit. */
static bool target_replaced(const struct rec_target *t)
{
	struct pollfd p = {.fd = t->pidfd, .events = POLLIN};
	uint64_t ticks;
	int err;

	if (t->traced)
		return false;
	if (t->pidfd >= 0)
		return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
	if (!t->start_ticks)
		return false;
	/* gone, or another start time; a read that failed otherwise (out of
	 * descriptors) says nothing: the snapshot finds out */
	err = target_start_time(t->pid, &ticks);
	return err == -ESRCH || (!err && ticks != t->start_ticks);
}

/* Take a snapshot of t through thread read_pid with flags: drain first,
 * hold a traced target while its page tables are read (--freeze: all
 * through; growth: the page tables only), then count it in t and r. A
 * target gone, unreadable or denied is marked so. */
static void snapshot(struct session *r, struct rec_target *t, int read_pid,
		     uint32_t flags)
{
	struct snap_stats st = {0};
	struct held h = {.r = r, .t = t, .thawed = true};
	int ret;

	if (r->werr || t->unreadable)
		return;
	if (target_replaced(t)) {
		target_gone(r, t);
		return;
	}
	/* Only ptrace stops: the kernel ends them if memsz dies. A growth
	 * snapshot of a traced target holds it too, so that what grew is
	 * still there when it is read. What needs no stop is done before
	 * it: draining what the target wrote so far, its owner (if it
	 * changed), command line and JIT map, and reading memsz's own
	 * pages of the files it maps. The samples of faults between this
	 * drain and the stop are drained after the snapshot: the report
	 * matches samples to a snapshot by time, not by their place in the
	 * file. */
	rec_drain(r, true);
	rec_write_owner(r, t);
	rec_write_cmdline(r, t);
	rec_write_jit(r, t);
	if ((r->sn.freeze || (flags & MD_SNAP_F_GROWTH)) && t->traced &&
	    r->tr && !(flags & MD_SNAP_F_FROZEN)) {
		snapper_prepare(r->sn.s, read_pid);
		h.thawed = false;
		h.since = mono_ns(); /* held from the first interrupt */
		if (tracer_freeze(r->tr, t->pid) == 0)
			flags |= MD_SNAP_F_FROZEN;
		/* Its last thread reached its exit meanwhile: the exit
		 * snapshot (at_exit) was taken then, and what is left of its
		 * memory is being torn down. */
		if (!t->alive) {
			tracer_thaw(r->tr, t->pid);
			return;
		}
	}
	/* without perf events, the mappings as the snapshot sees them (held,
	 * if it holds the target); MAPS if no record of them was written */
	if (rec_poll_maps_snap(r, t, read_pid) || t->maps_owed)
		flags |= MD_SNAP_F_MAPS;
	/* A growth snapshot holds the target only while its page tables
	 * are scanned (which pages are there); their pagemap entries, page
	 * flags and mapcounts are read while it runs again. --freeze holds
	 * it throughout. */
	if (!h.thawed && !r->sn.freeze)
		snapper_set_release(r->sn.s, thaw, &h);
	rec_prepare_cgroup(r, t);
	ret = snapper_take(r->sn.s, read_pid, r->sn.seq++, flags, &st);
	thaw(&h);
	snapshot_taken(r, t, ret, flags, &st);
}

/* One snapshot trigger. */
struct trigger {
	const char *name;
	uint32_t flags; /* MD_SNAP_F_* its snapshots carry */
	/* Set up as the loop starts (NULL: nothing to set up). */
	void (*arm)(struct session *r);
	/* True if t is due a snapshot now; may take the trigger's state of
	 * t (NULL: every target it is fired for). */
	bool (*due)(struct session *r, struct rec_target *t);
};

/* Interval: the timerfd the loop polls (PFD_TIMER). */
static void interval_arm(struct session *r)
{
	uint64_t ms = r->o.interval_ms;
	struct itimerspec its = {0};

	if (!ms)
		return;
	r->loop.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000;
	its.it_interval = its.it_value;
	if (r->loop.tfd >= 0)
		timerfd_settime(r->loop.tfd, 0, &its, NULL);
}

/* --freeze: true while a target has run for less time than its last
 * snapshot held it. Its interval snapshot then waits for a later tick, so
 * that it is held at most half of the time however long snapshots take
 * (a slow snapshot at a short --interval would otherwise hold it from one
 * tick to the next and it would never get to run). */
static bool held_enough(const struct rec_target *t)
{
	return t->held_ns && mono_ns() - t->thawed < t->held_ns;
}

/* Interval: alive, and (--freeze) not held too long already. */
static bool interval_due(struct session *r, struct rec_target *t)
{
	(void)r;
	return t->alive && !held_enough(t);
}

/* Growth: its growth sample came (trigger_growth_fired) and its RSS grew
 * materially since its last snapshot (see GROWTH_FAULTS). */
static bool growth_due(struct session *r, struct rec_target *t)
{
	int64_t rss;
	bool grown;

	(void)r;
	if (!t->grew)
		return false;
	t->grew = false;
	rss = target_rss(t->pid);
	grown = rss > 0 && (uint64_t)rss >= t->last_rss + growth_step(t);
	return t->alive && grown;
}

/* Exit: the last snapshot of a target still alive. */
static bool exit_due(struct session *r, struct rec_target *t)
{
	(void)r;
	return t->alive;
}

/* Final: a target alive that still exists and is ours to read (what
 * target_check_pid() tells, from its state on); one that does not is
 * marked gone, one that exited since the last round with an EXIT record
 * (target_gone(): a scan has no other), also when its pid is another
 * process's now that memsz may not read. */
static bool final_due(struct session *r, struct rec_target *t)
{
	int err = t->alive ? target_check_pid(t->pid) : -ESRCH;

	if (t->alive && !err)
		return true;
	if (t->alive && (err == -ESRCH || target_replaced(t)))
		target_gone(r, t);
	t->alive = false;
	return false;
}

static const struct trigger triggers[TRIGGER_COUNT] = {
    [TRIGGER_START] = {"start", 0, NULL, NULL},
    [TRIGGER_INTERVAL] = {"interval", 0, interval_arm, interval_due},
    [TRIGGER_GROWTH] = {"growth", MD_SNAP_F_GROWTH, NULL, growth_due},
    [TRIGGER_EXIT] = {"exit", MD_SNAP_F_AT_EXIT | MD_SNAP_F_FROZEN, NULL,
		      exit_due},
    [TRIGGER_FINAL] = {"final", 0, NULL, final_due},
};

void triggers_arm(struct session *r)
{
	for (size_t i = 0; i < TRIGGER_COUNT; i++)
		if (triggers[i].arm)
			triggers[i].arm(r);
}

void trigger_fire(struct session *r, enum trigger_id id, struct rec_target *t,
		  int tid, uint32_t flags)
{
	const struct trigger *g = &triggers[id];

	if (g->due && !g->due(r, t))
		return;
	snapshot(r, t, tid ? tid : rec_live_tid(t->pid), g->flags | flags);
}

void trigger_fire_all(struct session *r, enum trigger_id id)
{
	r->sn.round_ns = mono_ns();
	for (size_t i = 0; i < r->tg.n && !r->werr; i++)
		trigger_fire(r, id, r->tg.t[i], 0, 0);
}

uint64_t trigger_growth_period(const struct session *r)
{
	return r->o.no_growth ? 0 : GROWTH_FAULTS;
}

/* The growth trigger fired for t: growth_snapshots() looks at its RSS
 * once the rings are drained. The target is not stopped before: it would
 * wait for the drain, which does not need it stopped. */
void trigger_growth_fired(struct rec_target *t)
{
	if (t && t->alive)
		t->grew = true;
}

void rec_note_ended(struct session *r, struct rec_target *t)
{
	char *msg;

	/* a scan's processes without a snapshot (gone or denied) are
	 * counted by rec_scan_note() */
	if (t->alive || t->exit_snap || t->told || (r->sc.scan && !t->nsnaps))
		return;
	t->told = true;
	if (t->nsnaps)
		msg = xasprintf("pid %d (%s) exited before the final "
				"snapshot",
				t->pid, t->comm);
	else
		msg = xasprintf("pid %d (%s) not recorded: it exited "
				"before a snapshot could be taken",
				t->pid, t->comm);
	if (t->nsnaps) {
		rec_note_v(r, MD_NOTE_TARGET_EXITED, msg);
	} else {
		rec_note(r, MD_NOTE_TARGET_EXITED, msg);
		rec_say(r, true, msg);
	}
	free(msg);
}

void rec_final_snapshots(struct session *r)
{
	r->sn.round_ns = mono_ns();
	for (size_t i = 0; i < r->tg.n; i++) {
		trigger_fire(r, TRIGGER_FINAL, r->tg.t[i], 0, 0);
		rec_note_ended(r, r->tg.t[i]);
	}
	rec_machine_round(r);
}
