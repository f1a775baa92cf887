// SPDX-License-Identifier: GPL-2.0-or-later
/* charge_share.c — pass 2's record of what was charged already: a walk
 * of an image's range is news at some levels of the rows (a file counts
 * once per row however many processes map it), and with PICK_ALL a
 * snapshot's pieces are captured once, then added to the rows of every
 * point in time it counts in (see reportctx.h). */
#include "config.h"

#include "report/reportctx.h"

#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/util.h"

/* --- what was charged already: each walk's share key --- */

/* Insert k into s; true if it was not there. */
bool share_insert(struct share_set *s, const struct share_key *k)
{
	struct hashmap_probe p;
	uint32_t i;

	/* keys are hashed and compared as bytes: share_level zeroes their
	 * padding */
	for (i = hashmap_first(&s->index, hashmap_hash_bytes(k, sizeof(*k)),
			       &p);
	     i != HASHMAP_NONE; i = hashmap_next(&s->index, &p))
		if (!memcmp(&s->keys[i], k, sizeof(*k)))
			return false;
	xgrow(&s->keys, &s->cap, s->n + 1, sizeof(*s->keys));
	s->keys[s->n] = *k;
	hashmap_put(&s->index, &p, (uint32_t)s->n++);
	return true;
}

/* The share key of a walk of image_id over range [off, end) with the
 * labels of the current process keys, at level 0 (share_level() sets the
 * level, the point and which labels count). what: SHARE_VM for a VM walk,
 * with SHARE_VMADDR when the range is of image VM addresses, not file
 * offsets (an ELF image's segment, a .bss tail). The fault keys (callers,
 * faultsite) label a VM walk page by page, each process by its own stacks:
 * there the key holds the process (its pidinfo, + 1: 0 is "from inside the
 * image"), so that their rows and those below get each process's VM as under a
 * pids key, and the rows above them and the TOTAL the file's once. */
void share_walk(struct report_ctx *c, uint32_t image_id, uint64_t off,
		uint64_t end, uint32_t what, struct share_key *k)
{
	uint32_t proc = (uint32_t)(c->cur_pid - c->pids) + 1;

	memset(k, 0, sizeof(*k)); /* padding too: keys are hashed as bytes */
	k->image_id = image_id;
	k->level = what;
	k->off = off;
	k->end = end;
	for (size_t i = 0; i < c->o->nkeys; i++) {
		bool per_page = keydefs[c->o->keys[i]].needs & KEY_NEEDS_FAULTS;

		if (c->src_of_key[i] >= 0)
			k->labels[i] = 0;
		else if (per_page && (what & SHARE_VM))
			k->labels[i] = proc;
		else
			k->labels[i] = c->fixed[i];
	}
}

/* Number VM walk w as the how-manieth mapping of its range in the
 * snapshot being charged (w->copy): a process that maps the same file
 * pages twice (two MAP_SHARED mappings of one range, libm loaded again by
 * dlmopen) has both in its VM, as smaps' Size says; as one range they
 * were taken for one mapping walked again and counted once, so the
 * process's VM SIZE was under its smaps and its RSS above its VM SIZE.
 * Above the process keys and in the TOTAL, a range then counts as many
 * times as one process maps it at most. */
void share_copy(struct report_ctx *c, struct share_key *w)
{
	struct share_key k;

	memcpy(&k, w, sizeof(k)); /* padding too */
	memset(k.labels, 0, sizeof(k.labels));
	while (!share_insert(&c->copies, &k))
		k.copy++;
	w->copy = k.copy;
}

/* The first level (0: the TOTAL, d: the rows of key d-1 and below) at
 * which walk w (share_walk()) is news in the rows of point (0 but with
 * PICK_ALL); nkeys + 1 if it is news nowhere (charged already with the
 * same labels). */
size_t share_level(struct report_ctx *c, const struct share_key *w,
		   uint32_t point)
{
	struct share_key k;
	size_t from = c->o->nkeys + 1;

	memcpy(&k, w, sizeof(k)); /* padding too */
	memset(k.labels, 0, sizeof(k.labels));
	k.point = point;
	for (size_t d = 0; d <= c->o->nkeys; d++) {
		if (d)
			k.labels[d - 1] = w->labels[d - 1];
		k.level = (uint32_t)d | w->level;
		if (share_insert(&c->shared, &k) && from > d)
			from = d;
	}
	/* news below the TOTAL but not in it: rows above the process keys
	 * are less than the sum of theirs (news nowhere is a repeat, which
	 * every row leaves out alike) */
	if (from > 0 && from <= c->o->nkeys)
		c->shared_once = true;
	return from;
}

/* --- PICK_ALL: a snapshot's pieces captured, then added per point --- */

/* Start a group of pieces: under the share decision of walk w (NULL:
 * none) for columns cols; file: a FILE SIZE walk. */
void capture_group(struct capture *cap, const struct share_key *w,
		   unsigned cols, bool file)
{
	struct capture_group *g;

	xgrow(&cap->groups, &cap->gcap, cap->ngroups + 1, sizeof(*cap->groups));
	g = &cap->groups[cap->ngroups++];
	memset(g, 0, sizeof(*g));
	if (w)
		memcpy(&g->key, w, sizeof(*w));
	g->cols = w ? cols : 0;
	g->file = file;
	g->lo = 0;
	g->hi = SIZE_MAX;
	g->start = cap->n;
}

void capture_piece(struct capture *cap, const uint32_t *path,
		   const uint64_t *vals)
{
	struct capture_piece *pc;

	xgrow(&cap->pieces, &cap->cap, cap->n + 1, sizeof(*cap->pieces));
	pc = &cap->pieces[cap->n++];
	memcpy(pc->path, path, sizeof(pc->path));
	memcpy(pc->vals, vals, sizeof(pc->vals));
}

/* Empty cap for the next snapshot. */
void capture_reset(struct capture *cap)
{
	cap->n = 0;
	cap->ngroups = 0;
	cap->seen.n = 0;
	hashmap_clear(&cap->seen.index);
}

/* Add the pieces captured of snapshot s (index si) to the tree of every
 * point it counts in, each group's shared columns where its walk is news
 * in that point. */
void capture_replay(struct report_ctx *c, const struct snapinfo *s, size_t si)
{
	const struct capture *cap = &c->cap;

	for (uint32_t pt = s->first; pt < s->end; pt++) {
		struct rowtree *t = c->ptrees[pt];

		if (!t)
			t = c->ptrees[pt] = rowtree_new(c->lb, c->o->nkeys);
		rowtree_set_tag(t, si + 1); /* PROCS: once per snapshot */
		for (size_t g = 0; g < cap->ngroups; g++) {
			const struct capture_group *gr = &cap->groups[g];
			size_t end = g + 1 < cap->ngroups
					 ? cap->groups[g + 1].start
					 : cap->n;
			size_t from =
			    gr->cols ? share_level(c, &gr->key, pt) : 0;

			from = MAX(from, gr->lo);
			if (gr->file && (from > c->o->nkeys || from >= gr->hi))
				continue;
			for (size_t i = gr->start; i < end; i++) {
				const struct capture_piece *pc =
				    &cap->pieces[i];

				if (gr->hi != SIZE_MAX)
					rowtree_add_upto(t, pc->path, pc->vals,
							 from, gr->hi);
				else
					rowtree_add_from(t, pc->path, pc->vals,
							 gr->cols, from);
			}
		}
	}
}
