// SPDX-License-Identifier: GPL-2.0-or-later
/* charge_runs.c — page runs walked again over the same pieces, counted
 * (see reportctx.h: struct rc_run). */
#include "config.h"

#include "report/reportctx.h"

#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/util.h"

/* Forget e's page runs. */
void charge_runs_free(struct rowcache *e)
{
	for (size_t j = 0; j < e->nruns; j++)
		free(e->runs[j].items);
	free(e->runs);
	e->runs = NULL;
	e->nruns = e->runcap = 0;
	hashmap_free(&e->runix);
}

/* The run of the current rowcache with key k, made (RC_RUN_SEEN) if new. */
static struct rc_run *run_find(struct rowcache *e,
			       const struct attrib_run_key *k, bool *made)
{
	struct hashmap_probe p;
	struct rc_run *run;
	uint32_t i;

	*made = false;
	for (i = hashmap_first(&e->runix, hashmap_hash_bytes(k, sizeof(*k)),
			       &p);
	     i != HASHMAP_NONE; i = hashmap_next(&e->runix, &p))
		if (!memcmp(&e->runs[i].key, k, sizeof(*k)))
			return &e->runs[i];
	xgrow(&e->runs, &e->runcap, e->nruns + 1, sizeof(*e->runs));
	run = &e->runs[e->nruns];
	memset(run, 0, sizeof(*run));
	run->key = *k;
	hashmap_put(&e->runix, &p, (uint32_t)e->nruns++);
	*made = true;
	return run;
}

/* attrib's run hook (sums deferred only): a page run walked a third time
 * or more over the same pieces with the same values is counted, not
 * walked; its second walk is recorded (add_cached). */
int charge_run_hook(void *arg, const struct attrib_run_key *k, bool done)
{
	struct report_ctx *c = arg;
	struct rc_run *run;
	bool made;

	if (done) {
		if (c->rc.runrec)
			c->rc.runrec->state = RC_RUN_RECORDED;
		c->rc.runrec = NULL;
		return 0;
	}
	if (!c->rc.defer || c->rc.lookup || !c->rc.cur)
		return 0;
	run = run_find(c->rc.cur, k, &made);
	if (made)
		return 0;
	if (run->state == RC_RUN_SEEN) {
		run->state = RC_RUN_RECORDING;
		c->rc.runrec = run;
		return 0;
	}
	if (run->state != RC_RUN_RECORDED)
		return 0; /* a recording cut short: walk it */
	run->pending++;
	c->rss += run->rss;
	for (size_t i = 0; i < c->o->nkeys; i++)
		c->fallback_rss[i] += run->fallback_rss[i];
	if (run->n && !c->rc.marked) {
		c->rc.marked = true;
		charge_mark_piece(c);
	}
	return 1;
}

/* Record a kept piece (slot, bits: its fallback_bits, vals its values)
 * of the run being recorded. */
void charge_run_item(struct report_ctx *c, uint32_t slot, unsigned bits,
		     const uint64_t *vals)
{
	struct rc_run *run = c->rc.runrec;

	xgrow(&run->items, &run->cap, run->n + 1, sizeof(*run->items));
	run->items[run->n].slot = slot;
	run->items[run->n].start = attrib_piece(c->a)->start;
	run->items[run->n++].bytes = attrib_piece(c->a)->bytes;
	run->rss += vals[COL_RSS];
	for (size_t i = 0; i < c->o->nkeys && vals[COL_RSS]; i++)
		if (bits & (1u << i))
			run->fallback_rss[i] += vals[COL_RSS];
}

/* Add e's counted run walks to its slots' sums. */
void charge_runs_flush(struct rowcache *e)
{
	for (size_t j = 0; j < e->nruns; j++) {
		struct rc_run *run = &e->runs[j];

		for (size_t i = 0; run->pending && i < run->n; i++) {
			uint32_t slot = run->items[i].slot;
			struct rc_chunk *ch = e->chunks[slot / RC_CHUNK];
			uint64_t *acc, vals[COL__COUNT];

			if (!ch->acc)
				ch->acc = xcalloc(RC_CHUNK * COL__COUNT,
						  sizeof(*acc));
			acc = ch->acc + (slot % RC_CHUNK) * COL__COUNT;
			attrib_run_vals(&run->key, run->items[i].start,
					run->items[i].bytes, vals);
			for (int k = 0; k < COL__COUNT; k++)
				acc[k] += vals[k] * run->pending;
		}
		run->pending = 0;
	}
}
