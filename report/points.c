// SPDX-License-Identifier: GPL-2.0-or-later
/* points.c — time in a report over several processes: when each process
 * exited (its EXIT record), the points in time of a timeline (what every
 * process held at each, its latest snapshot then), and whether the one
 * snapshot per process a report adds is one moment. See reportctx.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/reportctx.h"
#include "report/cgcharge.h"
#include "util/strbuf.h"
#include "util/util.h"

/* When process pi exited; UINT64_MAX if it lived to the end. */
static uint64_t pid_exit(const struct pidinfo *pi)
{
	return pi->exit_ns ? pi->exit_ns : UINT64_MAX;
}

void points_set_exits(struct report_ctx *c)
{
	for (size_t i = 0; i < c->nsnaps; i++) {
		struct pidinfo *pi = &c->pids[c->snaps[i].pidx];

		if (c->snaps[i].complete && pi->exit_ns &&
		    pi->exit_ns <= c->snaps[i].time) {
			pi->exit_ns = c->snaps[i].time + 1;
			pi->exit_moved = true;
		}
	}
}

size_t points_drop_exited(struct report_ctx *c, bool *chosen, bool notes)
{
	struct strbuf pids = STRBUF_INIT;
	uint64_t newest = 0;
	size_t n = 0;

	if (c->o->pick != PICK_LAST || !cgcharge_accounts(c->cg))
		return 0;
	for (size_t i = 0; i < c->nsnaps; i++)
		if (chosen[i])
			newest = MAX(newest, c->snaps[i].time);
	for (size_t i = 0; i < c->nsnaps; i++) {
		const struct pidinfo *pi = &c->pids[c->snaps[i].pidx];

		/* a pid that lived again (reused) may live still */
		if (!chosen[i] || pid_exit(pi) > newest || pi->exit_moved)
			continue;
		chosen[i] = false;
		if (n++ < 10)
			strbuf_addf(&pids, "%s%u", n > 1 ? ", " : "",
				    c->snaps[i].pid);
	}
	if (notes && n) {
		bool one = n == 1;

		strlist_add(&c->res->notes,
			    xasprintf("%zu process%s that exited before the "
				      "last snapshot (%.3f s) %s left out: the "
				      "charge then no longer holds %s memory "
				      "(--timeline shows %s while %s lived): "
				      "pid %s%s",
				      n, one ? "" : "es",
				      (double)(newest - c->start_ns) / 1e9,
				      one ? "is" : "are", one ? "its" : "their",
				      one ? "it" : "them", one ? "it" : "they",
				      strbuf_str(&pids),
				      n > 10 ? ", ..." : ""));
	}
	strbuf_free(&pids);
	return n;
}

/* A chosen snapshot in the time order of points_plan(). */
struct snap_at {
	uint64_t time;
	size_t i; /* index in c->snaps: file order between equal times */
};

static int by_time(const void *a, const void *b)
{
	const struct snap_at *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Pass 2's plan for the points of points_plan(): the timeline they go
 * to, and when each is complete (c->ready). Returns 0 or -EINVAL. */
static int plan_ready(struct report_ctx *c, const bool *chosen)
{
	uint32_t min = (uint32_t)c->npoints;

	c->tlb =
	    rowtree_timeline_begin(c->lb, c->o->nkeys, c->points, c->npoints);
	if (!c->tlb)
		return -EINVAL;
	c->ptrees = xcalloc(c->npoints + 1, sizeof(*c->ptrees));
	c->ready = xcalloc(c->nsnaps + 1, sizeof(*c->ready));
	c->ready[c->nsnaps] = min;
	for (size_t i = c->nsnaps; i-- > 0;) {
		const struct snapinfo *s = &c->snaps[i];

		if (chosen[i] && s->end > s->first)
			min = MIN(min, s->first);
		c->ready[i] = min;
	}
	return 0;
}

/* The snapshots are taken in time order; a new point starts when a
 * process with a snapshot in the current point gets another, or one of
 * them has exited, and a point's time is that of its last snapshot: one
 * round of snapshots of many processes is one point. At that time every
 * process of it holds that snapshot and lives, so a snapshot counts in
 * its own point and in every later one up to its process's next snapshot
 * or exit, and no snapshot counts nowhere. Sets each chosen snapshot's
 * first and end and c->points (c->npoints). */
void points_assign(struct report_ctx *c, const bool *chosen)
{
	struct snap_at *order = xcalloc(c->nsnaps + 1, sizeof(*order));
	uint32_t *at = xcalloc(c->npids + 1, sizeof(*at));
	uint64_t *t = xcalloc(c->nsnaps + 1, sizeof(*t)), min_exit = 0;
	size_t n = 0, np = 0;

	for (size_t i = 0; i < c->nsnaps; i++)
		if (chosen[i])
			order[n++] = (struct snap_at){c->snaps[i].time, i};
	qsort(order, n, sizeof(*order), by_time);
	/* at[pidx]: 1 + the point of its process's latest snapshot */
	for (size_t k = 0; k < n; k++) {
		struct snapinfo *s = &c->snaps[order[k].i];

		if (!np || at[s->pidx] == np || s->time >= min_exit) {
			np++;
			min_exit = UINT64_MAX;
		}
		s->first = (uint32_t)np - 1;
		at[s->pidx] = (uint32_t)np;
		min_exit = MIN(min_exit, pid_exit(&c->pids[s->pidx]));
		t[np - 1] = s->time;
	}
	/* backwards: at[pidx] is 1 + the point of its next snapshot */
	memset(at, 0, (c->npids + 1) * sizeof(*at));
	c->points = xcalloc(np + 1, sizeof(*c->points));
	c->npoints = np;
	for (size_t k = n; k-- > 0;) {
		struct snapinfo *s = &c->snaps[order[k].i];
		uint64_t exit = pid_exit(&c->pids[s->pidx]);

		s->end = at[s->pidx] ? at[s->pidx] - 1 : (uint32_t)np;
		while (s->end > s->first && t[s->end - 1] >= exit)
			s->end--;
		at[s->pidx] = s->first + 1;
		for (uint32_t p = s->first; p < s->end; p++)
			c->points[p].nsnapshots++;
	}
	for (size_t p = 0; p < np; p++)
		c->points[p].time = c->points[p].time_last =
		    t[p] > c->start_ns ? t[p] - c->start_ns : 0;
	free(order);
	free(at);
	free(t);
}

int points_plan(struct report_ctx *c, const bool *chosen)
{
	points_assign(c, chosen);
	return plan_ready(c, chosen);
}

/* True if a kept row comes from process pids[p] (all are, unfiltered). */
static bool pid_shown(const struct report_ctx *c, size_t p)
{
	uint32_t id = c->pids[p].subject;

	return filter_empty(c->o->filter) || (id < c->showncap && c->shown[id]);
}

/* The footer note when the chosen snapshots of the processes shown are
 * not one moment: no time at which each is its process's latest snapshot
 * and every process lives. The moment would be at or after the latest of
 * them and before the earliest exit or next snapshot of any. */
void points_note(struct report_ctx *c, const bool *chosen)
{
	static const char *const pick_names[] = {
	    [PICK_LAST] = "last",
	    [PICK_FIRST] = "first",
	    [PICK_PEAK] = "peak",
	    [PICK_INDEX] = "#",
	};
	char pick[32];
	uint64_t *next = xcalloc(c->npids + 1, sizeof(*next));
	uint64_t newest = 0, end = UINT64_MAX;
	size_t n = 0, inew = 0, iend = 0;
	bool exited = false;

	for (size_t p = 0; p < c->npids; p++)
		next[p] = UINT64_MAX;
	for (size_t i = c->nsnaps; i-- > 0;) { /* next[]: the next one's */
		const struct snapinfo *s = &c->snaps[i];
		uint64_t exit = pid_exit(&c->pids[s->pidx]);

		if (!s->complete)
			continue;
		if (chosen[i] && pid_shown(c, s->pidx)) {
			n++;
			if (s->time >= newest) {
				newest = s->time;
				inew = i;
			}
			if (MIN(exit, next[s->pidx]) < end) {
				end = MIN(exit, next[s->pidx]);
				iend = i;
				exited = exit <= next[s->pidx];
			}
		}
		next[s->pidx] = s->time;
	}
	free(next);
	if (n < 2 || newest < end || c->o->pick == PICK_ALL)
		return;
	snprintf(pick, sizeof(pick), "%s", pick_names[c->o->pick]);
	if (c->o->pick == PICK_INDEX)
		snprintf(pick, sizeof(pick), "#%" PRIu64, c->o->index);
	strlist_add_notef(&c->res->notes, NOTE_MOMENT, NULL,
			  "not one moment: the TOTAL adds the %s snapshot of "
			  "each of %zu processes, but pid %u %s at %.3f s, "
			  "before pid %u's was taken at %.3f s",
			  pick, n, c->snaps[iend].pid,
			  exited ? "exited" : "took its next snapshot",
			  (double)(end - c->start_ns) / 1e9, c->snaps[inew].pid,
			  (double)(newest - c->start_ns) / 1e9);
}
