// SPDX-License-Identifier: GPL-2.0-or-later
/* charge.c — pass 2 of a report: the pages of the chosen snapshots
 * charged to rows, label by label (see reportctx.h). A piece's labels come
 * from the image maps of the image keys (attrib_charge) and from the label
 * hooks of the others (keys.h); a file counts once per row however many
 * processes map it; under the symbols key JIT code is named by the
 * process's perf-PID.map; with fault keys a part is cut where the stack
 * that made its pages resident changes. */
#include "config.h"

#include "report/reportctx.h"

#include "report/cgcharge.h"
#include "report/hugeshare.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "util/hashmap.h"
#include "util/util.h"

/* --- pass 2: the chosen snapshots' mappings --- */

/* Remember that a kept row came from label id (a subject of notes). */
static void mark_shown(struct report_ctx *c, uint32_t id)
{
	if (id == LABEL_NONE)
		return;
	if (id >= c->showncap) {
		size_t old = c->showncap;

		xgrow(&c->shown, &c->showncap, (size_t)id + 1, 1);
		memset(c->shown + old, 0, c->showncap - old);
	}
	c->shown[id] = 1;
}

/* Bit k set where the label of key k in path is a fallback (size.h). */
static unsigned fallback_bits(struct report_ctx *c, const uint32_t *path)
{
	unsigned bits = 0;

	for (size_t i = 0; i < c->o->nkeys; i++)
		if (keys_label_is_fallback(c->o->keys[i],
					   labels_str(c->lb, path[i])))
			bits |= 1u << i;
	return bits;
}

/* Add the RSS of a piece to its keys whose labels are fallbacks (bits:
 * fallback_bits()). */
static void count_fallback(struct report_ctx *c, unsigned bits,
			   const uint64_t *vals)
{
	c->rss += vals[COL_RSS];
	for (size_t i = 0; i < c->o->nkeys && vals[COL_RSS]; i++)
		if (bits & (1u << i))
			c->fallback_rss[i] += vals[COL_RSS];
}

/* The labels of the keys labelled by their hook (not by an image map)
 * for part p of mapping m of the current process. The fault keys get the
 * "[no fault seen]" label here: theirs are set per page (set_fault_labels).
 */
static void hook_labels(struct report_ctx *c, const struct attrib_map *m,
			const struct attrib_part *p)
{
	c->at.map = m;
	c->at.file_label = p->file_label;
	for (size_t k = 0; k < c->o->nkeys; k++)
		if (c->src_of_key[k] < 0)
			c->fixed[k] = keydefs[c->o->keys[k]].label(&c->at);
}

/* The path of a piece with labels from the image keys' maps. */
static void piece_path(struct report_ctx *c, const uint32_t *labels,
		       uint32_t *path)
{
	for (size_t i = 0; i < c->o->nkeys; i++) {
		path[i] = c->src_of_key[i] >= 0 ? labels[c->src_of_key[i]]
						: c->fixed[i];
		if (c->jit_label != LABEL_NONE &&
		    (keydefs[c->o->keys[i]].needs & KEY_NEEDS_JIT))
			path[i] = c->jit_label;
	}
}

/* --- rows by position: a template's pieces, charged again and again --- */

/* The next piece add_piece() gets starts a walk of attrib. */
static void walk_begin(struct report_ctx *c)
{
	c->rc.cur = NULL;
	c->rc.lookup = true;
	c->rc.marked = false;
}

/* The cache of the walk whose first piece is being added, or NULL where
 * pieces are added by label: not a template's, captured, relabelled, or a
 * key's first walk. */
static struct rowcache *rowcache_find(struct report_ctx *c)
{
	const struct attrib_piece *pc = attrib_piece(c->a);
	struct rowcaches *rs = &c->rc;
	struct hashmap_probe p;
	struct rowcache_key k;
	struct rowcache *e;
	size_t nchunks, nk = c->o->nkeys;
	uint32_t i;

	if (!pc->tmpl || c->cap.on || c->jit_label != LABEL_NONE ||
	    c->payer_label != LABEL_NONE || c->share_to || !nk)
		return NULL;
	memset(&k, 0, sizeof(k)); /* hashed and compared as bytes */
	k.tmpl = pc->tmpl;
	memcpy(k.none, pc->none, c->nsrcs * sizeof(*k.none));
	for (size_t d = 0; d < nk; d++)
		k.fixed[d] = c->src_of_key[d] < 0 ? c->fixed[d] : 0;
	for (i = hashmap_first(&rs->index, hashmap_hash_bytes(&k, sizeof(k)),
			       &p);
	     i != HASHMAP_NONE; i = hashmap_next(&rs->index, &p))
		if (!memcmp(&rs->v[i].key, &k, sizeof(k)))
			break;
	if (i == HASHMAP_NONE) {
		xgrow(&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v));
		e = &rs->v[rs->n];
		memset(e, 0, sizeof(*e));
		e->key = k;
		e->npieces = pc->npieces;
		hashmap_put(&rs->index, &p, (uint32_t)rs->n++);
	} else {
		e = &rs->v[i];
	}
	if (++e->uses < 2)
		return NULL;
	nchunks = ((size_t)e->npieces + RC_CHUNK) / RC_CHUNK;
	if (!e->chunks)
		e->chunks = xcalloc(nchunks, sizeof(*e->chunks));
	if (e->serial != c->t->serial) {
		/* another tree (a point of a timeline; never with sums
		 * deferred, which has one): positions found again */
		for (size_t j = 0; j < nchunks; j++)
			if (e->chunks[j])
				memset(e->chunks[j]->flags, 0,
				       sizeof(e->chunks[j]->flags));
		for (size_t j = 0; j < e->nspans; j++)
			free(e->spans[j].steps);
		e->nspans = 0;
		charge_runs_free(e);
		e->serial = c->t->serial;
	}
	return e;
}

void charge_mark_piece(struct report_ctx *c)
{
	mark_shown(c, c->cur_subject[0]);
	mark_shown(c, c->cur_subject[1]);
	mark_shown(c, c->cur_pid->subject);
}

/* Record a piece of VM bytes at positions ix in the span being recorded:
 * a step per level where its path leaves the last piece's, the bytes
 * added to the steps it shares with it. */
static void span_piece(struct report_ctx *c, const uint32_t *ix, uint64_t bytes)
{
	struct rc_span *sp = c->rc.rec;
	size_t nk = c->o->nkeys, d0 = 0;

	if (c->rc.prev)
		while (d0 < nk && c->rc.prev[d0] == ix[d0])
			d0++;
	for (size_t l = 0; l < nk; l++) {
		if (l < d0) {
			sp->steps[c->rc.open[l]].val += bytes;
			continue;
		}
		xgrow(&sp->steps, &sp->cap, sp->n + 1, sizeof(*sp->steps));
		sp->steps[sp->n] = (struct rows_step){
		    .level = (uint32_t)l, .ix = ix[l], .val = bytes};
		c->rc.open[l] = sp->n++;
	}
	sp->total += bytes;
	c->rc.prev = ix;
}

/* attrib's VM hook: the VM walk of [start, end) of the walk's template
 * added as recorded before, or recorded as it is walked. */
static int vm_hook(void *arg, uint64_t start, uint64_t end, bool done)
{
	struct report_ctx *c = arg;
	struct rowcache *e;
	struct rc_span *sp = NULL;

	if (done) {
		if (c->rc.rec)
			c->rc.rec->done = true;
		c->rc.rec = NULL;
		return 0;
	}
	if (c->rc.lookup) {
		c->rc.lookup = false;
		c->rc.cur = rowcache_find(c);
	}
	e = c->rc.cur;
	if (!e)
		return 0;
	for (size_t i = 0; i < e->nspans && !sp; i++)
		if (e->spans[i].start == start && e->spans[i].end == end)
			sp = &e->spans[i];
	if (sp && sp->done) {
		rowtree_add_steps(c->t, sp->steps, sp->n, sp->total, COL_VM,
				  c->share_cols & (1u << COL_VM),
				  c->share_from);
		if (sp->n && !c->rc.marked) {
			c->rc.marked = true;
			charge_mark_piece(c);
		}
		return 1;
	}
	if (!sp) {
		xgrow(&e->spans, &e->spancap, e->nspans + 1, sizeof(*sp));
		sp = &e->spans[e->nspans++];
		memset(sp, 0, sizeof(*sp));
		sp->start = start;
		sp->end = end;
		c->rc.rec = sp;
		c->rc.prev = NULL;
	}
	return 0;
}

/* add_piece() of a piece of e's template: its rows by position, found by
 * label the first time. */
static int add_cached(struct report_ctx *c, struct rowcache *e,
		      const uint32_t *labels, const uint64_t *vals)
{
	const struct attrib_piece *pc = attrib_piece(c->a);
	size_t slot = pc->ix < e->npieces ? pc->ix : e->npieces;
	uint32_t whole = (uint32_t)slot;
	struct rc_chunk **ch = &e->chunks[slot / RC_CHUNK];
	uint32_t *ix;
	uint16_t *f;

	if (!*ch)
		*ch = xcalloc(1, sizeof(**ch) + RC_CHUNK * c->o->nkeys *
						    sizeof((*ch)->ix[0]));
	slot %= RC_CHUNK;
	ix = (*ch)->ix + slot * c->o->nkeys;
	f = &(*ch)->flags[slot];

	if (!(*f & RC_KNOWN)) {
		uint32_t path[KEYS_MAX];

		piece_path(c, labels, path);
		*f = (uint16_t)(RC_KNOWN | fallback_bits(c, path));
		if (filter_keep(c->o->filter, c->lb, path, c->o->nkeys))
			rowtree_path_index(c->t, path, ix);
		else
			*f |= RC_DROP;
	}
	if (*f & RC_DROP)
		return 0;
	if (c->rc.rec && vals[COL_VM])
		span_piece(c, ix, vals[COL_VM]);
	if (c->rc.defer && !vals[COL_VM] && !vals[COL_FILE]) {
		/* a page run's piece: the VM walk of the same call has
		 * counted the process in its rows already, what is left is
		 * sums, added once at the end (rowcache_flush) */
		uint64_t *acc;

		if (!(*ch)->acc)
			(*ch)->acc =
			    xcalloc(RC_CHUNK * COL__COUNT, sizeof(*acc));
		acc = (*ch)->acc + slot * COL__COUNT;
		for (int k = 0; k < COL__COUNT; k++)
			acc[k] += vals[k];
		if (c->rc.runrec)
			charge_run_item(c, whole, *f, vals);
	} else {
		rowtree_add_index(c->t, ix, vals, c->share_cols, c->share_from);
	}
	count_fallback(c, *f, vals);
	if (!c->rc.marked) { /* the same subjects for every piece */
		c->rc.marked = true;
		charge_mark_piece(c);
	}
	return 0;
}

/* Add what the caches summed to the rows of c->t (the one tree). */
static void rowcache_flush(struct report_ctx *c)
{
	uint64_t tag = c->t->tag;

	rowtree_set_tag(c->t, 0); /* counted by the VM walks */
	for (size_t i = 0; i < c->rc.n; i++) {
		struct rowcache *e = &c->rc.v[i];
		size_t nchunks = ((size_t)e->npieces + RC_CHUNK) / RC_CHUNK;

		charge_runs_flush(e);
		for (size_t k = 0; e->chunks && k < nchunks; k++) {
			struct rc_chunk *ch = e->chunks[k];

			for (size_t s = 0; ch && ch->acc && s < RC_CHUNK; s++)
				if ((ch->flags[s] & (RC_KNOWN | RC_DROP)) ==
				    RC_KNOWN)
					rowtree_add_index(
					    c->t, ch->ix + s * c->o->nkeys,
					    ch->acc + s * COL__COUNT, 0, 0);
			if (ch) {
				free(ch->acc);
				ch->acc = NULL;
			}
		}
	}
	rowtree_set_tag(c->t, tag);
}

static int add_piece(void *arg, const uint32_t *labels, const uint64_t *vals)
{
	struct report_ctx *c = arg;
	uint32_t path[KEYS_MAX];

	if (c->rc.lookup) {
		c->rc.lookup = false;
		c->rc.cur = rowcache_find(c);
	}
	if (c->rc.cur)
		return add_cached(c, c->rc.cur, labels, vals);
	piece_path(c, labels, path);
	if (c->payer_label != LABEL_NONE)
		cgcharge_relabel(c->cg, c->payer_label, path, c->o->nkeys);
	if (!filter_keep(c->o->filter, c->lb, path, c->o->nkeys))
		return 0;
	if (c->cap.on)
		capture_piece(&c->cap, path, vals);
	else if (c->share_to)
		rowtree_add_upto(c->t, path, vals, c->share_from, c->share_to);
	else
		rowtree_add_from(c->t, path, vals, c->share_cols,
				 c->share_from);
	count_fallback(c, vals[COL_RSS] ? fallback_bits(c, path) : 0, vals);
	charge_mark_piece(c);
	return 0;
}

/* False if the filter drops every piece of the part whose hook labels
 * are in c->fixed, whatever the labels from inside the image: then the
 * part is not charged at all, so that its file is not marked as counted
 * for rows the filter removes (a file shared with a process the filter
 * drops still counts in the TOTAL). The fault keys' labels are set per
 * page later: not known here. */
static bool part_may_keep(struct report_ctx *c)
{
	bool known[KEYS_MAX];

	if (filter_empty(c->o->filter))
		return true;
	for (size_t k = 0; k < c->o->nkeys; k++)
		known[k] = c->src_of_key[k] < 0 &&
			   !(keydefs[c->o->keys[k]].needs & KEY_NEEDS_FAULTS);
	return filter_may_keep(c->o->filter, c->lb, c->fixed, known,
			       c->o->nkeys);
}

/* --- JIT code: anonymous memory named by perf-PID.map symbols --- */

/* attrib_charge() of [s, e) of part p of mapping m (runs sorted by
 * address), symbols labelled jit_label when it is not LABEL_NONE. */
static int charge_range(struct report_ctx *c, const struct attrib_part *p,
			const struct attrib_map *m, uint64_t s, uint64_t e,
			bool with_pss, uint32_t jit_label)
{
	struct attrib_part sub = *p;
	struct attrib_map mm = *m;
	size_t lo = 0, hi = m->nruns, last;
	int ret;

	if (e <= s)
		return 0;
	while (lo < hi) { /* first run ending after s */
		size_t mid = lo + (hi - lo) / 2;
		const struct md_run *r = &m->runs[mid];

		if (r->vaddr + (uint64_t)r->npages * c->page_size <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (last = lo; last < m->nruns && m->runs[last].vaddr < e; last++)
		;
	mm.runs = m->nruns ? m->runs + lo : NULL;
	mm.nruns = last - lo;
	sub.start = s;
	sub.end = e;
	c->jit_label = jit_label;
	walk_begin(c);
	ret = attrib_charge(c->a, &sub, &mm, c->srcs, c->nsrcs, with_pss,
			    add_piece, c);
	c->jit_label = LABEL_NONE;
	return ret;
}

/* attrib_charge() of part p of mapping m; under the symbols key, the bytes
 * of anonymous memory that hold JIT code of the process are charged to the
 * JIT symbols there. */
int charge_jit(struct report_ctx *c, const struct attrib_part *p,
	       const struct attrib_map *m, bool with_pss)
{
	struct rmap *jm = c->want_jit && p->cls == ACLS_ANON
			      ? jitsyms_map(c->jit, c->cur_pid->kp.pid)
			      : NULL;
	const struct rmap_entry *ents;
	uint64_t pos = p->start;
	size_t n, i;
	int ret = 0;

	walk_begin(c);
	if (!jm)
		return attrib_charge(c->a, p, m, c->srcs, c->nsrcs, with_pss,
				     add_piece, c);
	ents = rmap_entries(jm, &n);
	for (i = rmap_find(jm, p->start); i < n && !ret; i++) {
		uint64_t s = MAX(ents[i].start, p->start);
		uint64_t e = MIN(ents[i].end, p->end);

		if (s >= p->end)
			break;
		ret = charge_range(c, p, m, pos, s, with_pss, LABEL_NONE);
		if (!ret)
			ret = charge_range(c, p, m, s, e, with_pss,
					   ents[i].label);
		pos = e;
	}
	if (!ret)
		ret = charge_range(c, p, m, pos, p->end, with_pss, LABEL_NONE);
	return ret;
}

/* The range by which the VM of part p of mapping m counts once per row
 * however many processes map it, into [*off, *end) with *what (the
 * SHARE_* bits of share_level()); false if it is each process's own. A
 * mapping of an ELF image's segment and a .bss tail (anonymous, but the
 * image's) are known by their image VM addresses, another file mapping by
 * the file range it maps. */
static bool vm_share_range(const struct attrib_part *p,
			   const struct attrib_map *m, uint64_t *off,
			   uint64_t *end, uint32_t *what)
{
	if (!attrib_file_size(p))
		return false;
	switch (p->cls) {
	case ACLS_IMAGE:
		if (p->seg >= 0) {
			/* by what it is in the image: where two segments
			 * share a file page (a small image's RW segment
			 * starts in the page of the one before), one
			 * process maps that page twice, at two addresses
			 * of the image, both its VM */
			*off = p->start - p->bias;
			*what = SHARE_VM | SHARE_VMADDR;
			break;
		}
		/* fall through */
	case ACLS_FILE:
		*off = m->pgoff + (p->start - m->start);
		*what = SHARE_VM;
		break;
	case ACLS_BSS:
		*off = p->start - p->bias;
		*what = SHARE_VM | SHARE_VMADDR;
		break;
	default:
		return false;
	}
	*end = *off + (p->end - p->start);
	return true;
}

/* Part p of mapping m charged as it is (by fault stack or JIT symbols). */
static int charge_plain(struct report_ctx *c, const struct attrib_part *p,
			const struct attrib_map *m, bool with_pss)
{
	return c->faults ? charge_by_fault(c, p, m, with_pss)
			 : charge_jit(c, p, m, with_pss);
}

/* -G: part p of mapping m cut where the cgroup paying for its pages
 * changes (ATTRIB_PG_ELSEWHERE runs, cgcharge.h); what another cgroup
 * pays for is charged under "[charged elsewhere]", by image maps only. */
static int charge_by_payer(struct report_ctx *c, const struct attrib_part *p,
			   const struct attrib_map *m, bool with_pss)
{
	uint64_t pos = p->start;
	bool any = false;
	int ret = 0;

	for (size_t i = 0; i < m->nruns && !any; i++)
		any = m->runs[i].flags & ATTRIB_PG_ELSEWHERE;
	if (!any)
		return charge_plain(c, p, m, with_pss);
	for (size_t i = 0; i < m->nruns && !ret; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t s = MAX(r->vaddr, p->start);
		uint64_t e =
		    MIN(r->vaddr + (uint64_t)r->npages * c->page_size, p->end);

		if (s >= e || !(r->flags & ATTRIB_PG_ELSEWHERE))
			continue;
		ret = charge_range(c, p, m, pos, s, with_pss, LABEL_NONE);
		c->payer_label = cgcharge_payer(c->cg, r->reserved);
		if (!ret)
			ret = charge_range(c, p, m, s, e, with_pss, LABEL_NONE);
		c->payer_label = LABEL_NONE;
		pos = e;
	}
	if (!ret)
		ret = charge_range(c, p, m, pos, p->end, with_pss, LABEL_NONE);
	return ret;
}

/* Charge the resident pages and VM of part p of mapping m. The VM SIZE of
 * a file mapping or a .bss tail counts once per row however many
 * processes map it. */
static int charge_part(struct report_ctx *c, const struct attrib_part *p,
		       const struct attrib_map *m, bool with_pss)
{
	struct share_key w;
	uint64_t off, end;
	uint32_t what;
	bool shared;
	int ret;

	c->share_cols = 0;
	c->share_from = 0;
	shared = vm_share_range(p, m, &off, &end, &what);
	if (shared) {
		share_walk(c, attrib_image_id(p), off, end, what, &w);
		share_copy(c, &w);
	}
	if (c->cap.on) {
		capture_group(&c->cap, shared ? &w : NULL, 1u << COL_VM, false);
	} else if (shared) {
		/* from > nkeys: the same copy of the range with the same
		 * labels again (another part of it): counted already */
		c->share_cols = 1u << COL_VM;
		c->share_from = share_level(c, &w, c->point);
		/* not news in the TOTAL: an earlier process maps it */
		rowtree_set_again(c->t, c->share_from > 0);
	}
	if (cgcharge_group(c->cg))
		ret = charge_by_payer(c, p, m, with_pss);
	else if (c->faults)
		ret = charge_by_fault(c, p, m, with_pss);
	else
		ret = charge_jit(c, p, m, with_pss);
	/* captured (PICK_ALL over several points), c->t is no tree being
	 * charged: the point trees it named may be freed */
	if (!c->cap.on)
		rowtree_set_again(c->t, false);
	c->share_cols = 0;
	c->share_from = 0;
	return ret;
}

/* Charge the bytes [off, end) of the file behind part p as FILE SIZE to
 * the rows of levels lo..hi-1 (0, SIZE_MAX: all), once in each row. */
static int charge_file_range(struct report_ctx *c, const struct attrib_part *p,
			     uint64_t off, uint64_t end, size_t lo, size_t hi)
{
	struct share_key w;
	int ret;

	share_walk(c, attrib_image_id(p), off, end, 0, &w);
	if (c->cap.on) {
		/* walked once per snapshot: again, it would be news in
		 * no point */
		if (!share_insert(&c->cap.seen, &w))
			return 0;
		capture_group(&c->cap, &w, 1u << COL_FILE, true);
		c->cap.groups[c->cap.ngroups - 1].lo = lo;
		c->cap.groups[c->cap.ngroups - 1].hi = hi;
	} else {
		size_t from = share_level(c, &w, c->point); /* once: it
							       inserts */

		c->share_from = MAX(from, lo);
		if (c->share_from > c->o->nkeys || c->share_from >= hi)
			return 0;
		c->share_cols = 1u << COL_FILE;
		c->share_to = hi == SIZE_MAX ? 0 : hi;
		/* the range counted already where the TOTAL is (the
		 * mappings key's range of a file too: a leaf's FILE SIZE
		 * less it is news once) */
		rowtree_set_again(c->t, from > 0);
	}
	walk_begin(c);
	ret = attrib_file(c->a, p, off, end, c->srcs, c->nsrcs, add_piece, c);
	if (!c->cap.on) /* as in charge_part() */
		rowtree_set_again(c->t, false);
	c->share_cols = 0;
	c->share_from = 0;
	c->share_to = 0;
	return ret;
}

/* Charge the FILE SIZE of the file behind part p of mapping m: the whole
 * file once per row; with the mappings key, its rows and the rows below
 * them get the file range the mapping maps instead (the rows above it and
 * the TOTAL are as without it). */
static int charge_file(struct report_ctx *c, const struct attrib_part *p,
		       const struct attrib_map *m)
{
	uint64_t off;
	int ret;

	if (!attrib_file_size(p))
		return 0;
	if (!c->by_range)
		return charge_file_range(c, p, 0, UINT64_MAX, 0, SIZE_MAX);
	ret = charge_file_range(c, p, 0, UINT64_MAX, 0, c->by_range);
	if (ret < 0 || p->cls == ACLS_BSS) /* a .bss tail maps no file */
		return ret;
	off = m->pgoff + (p->start - m->start);
	return charge_file_range(c, p, off, off + (p->end - p->start),
				 c->by_range, SIZE_MAX);
}

static int do_mapping(struct report_ctx *c, const struct md_snap_mapping *sm,
		      bool with_pss, struct attrib_part *prev, bool *have_prev)
{
	struct attrib_map m = {
	    .start = sm->start,
	    .end = sm->end,
	    .pgoff = sm->pgoff,
	    .prot = sm->prot,
	    .flags = sm->flags,
	    .image_id = sm->image_id,
	    .name = sm->name,
	    .runs = sm->runs,
	    .nruns = sm->nruns,
	};
	struct md_snap_mapping hm = *sm;
	struct attrib_part parts[2];
	int n, ret;

	if (m.end <= m.start)
		return 0;
	/* shared hugetlb pages: their mappers in the snapshots charged */
	hm.runs = m.runs =
	    hugeshare_runs(c->hs, c->o->pick == PICK_ALL ? c->point : 0,
			   c->page_size, sm, &m.nruns);
	hm.nruns = m.nruns;
	if (c->cg)
		m.runs =
		    cgcharge_runs(c->cg, c->cur_snap_off, c->cur_pid->kp.pid,
				  c->point, &hm, &m.nruns);
	n = attrib_classify(c->a, &m, *have_prev ? prev : NULL, parts);
	c->cur_subject[1] = m.name ? labels_intern(c->lb, m.name) : LABEL_NONE;
	for (int i = 0; i < n; i++) {
		const struct attrib_part *p = &parts[i];

		hook_labels(c, &m, p);
		if (!part_may_keep(c))
			continue;
		c->cur_subject[0] = p->file_label;
		ret = charge_part(c, p, &m, with_pss);
		if (ret)
			return ret;
		ret = charge_file(c, p, &m);
		if (ret)
			return ret;
	}
	*prev = parts[n - 1];
	*have_prev = true;
	return 0;
}

/* Hand the points before end, complete, to the timeline. */
static void points_flush(struct report_ctx *c, size_t end)
{
	for (; c->flushed < end; c->flushed++) {
		struct rowtree **t = &c->ptrees[c->flushed];

		if (*t && c->cg)
			charge_cg_tree(c, *t, (uint32_t)c->flushed,
				       c->points[c->flushed].time +
					   c->start_ns);
		if (*t && rowtree_timeline_add(c->tlb, c->flushed, *t) == 0)
			*t = NULL;
	}
}

/* Start charging snapshot si: its process, and where its pieces go: the
 * tree, or with PICK_ALL the tree of the one point it counts in, or the
 * capture, added at its end to the several points it counts in. False if
 * it is not charged: not chosen, or with PICK_ALL a snapshot that counts
 * in no point. */
static bool snap_enter(struct report_ctx *c, const bool *chosen, size_t si)
{
	const struct snapinfo *s = &c->snaps[si];
	bool all = c->o->pick == PICK_ALL;

	if (!chosen[si] || (all && s->end <= s->first))
		return false;
	attrib_set_owner(c->a, si + 1);
	c->copies.n = 0; /* share_copy() counts within one snapshot */
	hashmap_clear(&c->copies.index);
	c->cur_pid = &c->pids[s->pidx];
	c->at.proc = &c->cur_pid->kp;
	c->cap.on = all && s->end > s->first + 1;
	if (c->cap.on) {
		/* cgroup charges count a page once in the first point the
		 * snapshot counts in */
		c->point = s->first;
		capture_reset(&c->cap);
		/* no tree is charged: a point's tree c->t named may be
		 * freed (points_flush()) */
		c->t = NULL;
		return true;
	}
	if (all) { /* one point: charged straight into its tree */
		c->point = s->first;
		if (!c->ptrees[c->point])
			c->ptrees[c->point] = rowtree_new(c->lb, c->o->nkeys);
		c->t = c->ptrees[c->point];
	}
	rowtree_set_tag(c->t, si + 1); /* PROCS: once per snapshot */
	return true;
}

int charge_snapshots(struct report_ctx *c, const bool *chosen, char **msg)
{
	struct md_reader *r = NULL;
	struct md_record rec;
	struct attrib_part prev;
	bool in = false, have_prev = false, with_pss = false;
	size_t next = 0;
	int ret;

	ret = md_reader_open(c->o->input, &r);
	if (ret < 0) {
		*msg = xasprintf("cannot read '%s': %s", c->o->input,
				 memsz_strerror(ret));
		return ret;
	}
	c->rc.defer = c->o->pick != PICK_ALL;
	attrib_set_vm_hook(c->a, vm_hook);
	attrib_set_run_hook(c->a, charge_run_hook);
	while ((ret = md_read_next(r, &rec)) > 0) {
		switch (rec.type) {
		case MD_REC_SNAP_BEGIN:
			/* snapshots come in file order: find this one */
			while (next < c->nsnaps &&
			       c->snaps[next].offset < rec.offset)
				next++;
			in = next < c->nsnaps &&
			     c->snaps[next].offset == rec.offset &&
			     snap_enter(c, chosen, next);
			have_prev = false;
			with_pss = in && (c->snaps[next].flags & MD_SNAP_F_PFN);
			if (in)
				c->cur_snap_off = rec.offset;
			break;
		case MD_REC_SNAP_MAPPING:
			if (!in)
				break;
			ret = do_mapping(c, &rec.u.mapping, with_pss, &prev,
					 &have_prev);
			if (ret < 0) {
				*msg = xasprintf("cannot attribute mapping "
						 "%" PRIx64 "-%" PRIx64 ": %s",
						 rec.u.mapping.start,
						 rec.u.mapping.end,
						 memsz_strerror(ret));
				goto out;
			}
			break;
		case MD_REC_SNAP_END:
			/* a chosen snapshot is complete: this is its end */
			if (in && c->cap.on)
				capture_replay(c, &c->snaps[next], next);
			if (in && c->tlb)
				points_flush(c, c->ready[next + 1]);
			in = false;
			break;
		default:
			break;
		}
	}
	ret = 0; /* a damaged tail was noted in pass 1 */
	if (c->rc.defer)
		rowcache_flush(c);
	if (c->tlb)
		points_flush(c, c->npoints);
out:
	c->cap.on = false;
	c->t = c->res->t;
	md_reader_close(r);
	return ret;
}

void charge_free(struct report_ctx *c)
{
	for (size_t i = 0; i < c->rc.n; i++) {
		struct rowcache *e = &c->rc.v[i];

		for (size_t k = 0;
		     e->chunks && k < (e->npieces + RC_CHUNK) / RC_CHUNK; k++) {
			if (e->chunks[k])
				free(e->chunks[k]->acc);
			free(e->chunks[k]);
		}
		free(e->chunks);
		for (size_t k = 0; k < e->nspans; k++)
			free(e->spans[k].steps);
		free(e->spans);
		charge_runs_free(e);
	}
	free(c->rc.v);
	hashmap_free(&c->rc.index);
	free(c->shared.keys);
	hashmap_free(&c->shared.index);
	free(c->copies.keys);
	hashmap_free(&c->copies.index);
	free(c->cap.pieces);
	free(c->cap.groups);
	free(c->cap.seen.keys);
	hashmap_free(&c->cap.seen.index);
	for (size_t p = 0; c->ptrees && p < c->npoints; p++)
		rowtree_free(c->ptrees[p]);
	free(c->ptrees);
	rowtree_free(rowtree_timeline_end(c->tlb));
	free(c->points);
	free(c->ready);
}
