// SPDX-License-Identifier: GPL-2.0-or-later
/* merge.c — the trees of several value sets, built from single-set trees:
 * a diff (two, merged by label) and a timeline (one per point, as
 * series). See rows.h. */
#include "config.h"

#include "rows/rows.h"
#include "rows/leaves.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/util.h"

/* An empty tree of kind over lb, its total with nsets sets. */
static struct rowtree *tree_new(struct labels *lb, size_t depth,
				enum rows_kind kind, size_t nsets)
{
	struct rowtree *t = rowtree_new(lb, depth);

	t->kind = kind;
	t->nsets = nsets;
	row_alloc_sets(&t->total, nsets);
	return t;
}

/* ---- diff: two trees merged by label ---- */

struct side {
	const struct row *r;
	uint32_t label; /* after renames */
};

struct merge_ctx {
	const struct diff_rename *renames;
	size_t nrenames;
};

/* Whether label is among the n sides s (sorted by label). */
static bool sides_have(const struct side *s, size_t n, uint32_t label)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].label == label)
			return true;
		if (s[mid].label < label)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* label at level lvl of OLD's tree, renamed when a rename is for it at
 * that level (a rename made only beside its target: when NEW's children
 * sn[0..nn-1] of this parent hold it, OLD's own, so[0..no-1] unrenamed
 * and sorted, do not). */
static uint32_t renamed(const struct merge_ctx *m, uint32_t label, size_t lvl,
			const struct side *sn, size_t nn, const struct side *so,
			size_t no)
{
	for (size_t i = 0; i < m->nrenames; i++) {
		const struct diff_rename *r = &m->renames[i];

		if (r->from != label || lvl >= 64 || !(r->levels >> lvl & 1))
			continue;
		if (r->beside &&
		    (!sides_have(sn, nn, r->to) || sides_have(so, no, r->to)))
			continue;
		return r->to;
	}
	return label;
}

static int side_cmp(const void *a, const void *b)
{
	const struct side *x = a, *y = b;

	return x->label < y->label ? -1 : x->label > y->label;
}

/* The children of r (NULL: none) sorted by label; caller frees. */
static struct side *sides_of(const struct row *r, size_t *n)
{
	struct side *s;

	*n = r ? r->nchildren : 0;
	s = xcalloc(*n + 1, sizeof(*s));
	for (size_t i = 0; i < *n; i++) {
		s[i].r = &r->children[i];
		s[i].label = r->children[i].label;
	}
	qsort(s, *n, sizeof(*s), side_cmp);
	return s;
}

/* OLD's children so[0..no-1] (at level lvl) with renamed labels, sorted
 * again; NEW's of the same parent are sn[0..nn-1]. */
static void rename_sides(const struct merge_ctx *m, struct side *so, size_t no,
			 const struct side *sn, size_t nn, size_t lvl)
{
	uint32_t *to;

	if (!m->nrenames)
		return;
	to = xcalloc(no + 1, sizeof(*to));
	for (size_t i = 0; i < no; i++)
		to[i] = renamed(m, so[i].label, lvl, sn, nn, so, no);
	for (size_t i = 0; i < no; i++)
		so[i].label = to[i];
	free(to);
	qsort(so, no, sizeof(*so), side_cmp);
}

/* Fill d from o (OLD's row or NULL) and n (NEW's row or NULL), rows
 * whose children are at level lvl. */
static void merge_rows(const struct merge_ctx *m, struct row *d,
		       const struct row *o, const struct row *n, size_t lvl)
{
	struct side *so, *sn;
	size_t no, nn, i = 0, j = 0;

	d->state = !o ? ROW_NEW : !n ? ROW_GONE : ROW_BOTH;
	row_alloc_sets(d, 2);
	if (o)
		memcpy(d->vals, o->vals, sizeof(d->vals));
	if (n)
		memcpy(d->sets, n->vals, sizeof(n->vals));
	so = sides_of(o, &no);
	sn = sides_of(n, &nn);
	rename_sides(m, so, no, sn, nn, lvl);
	d->children = xcalloc(no + nn + 1, sizeof(*d->children));
	d->cap = no + nn + 1;
	while (i < no || j < nn) {
		struct row *c = &d->children[d->nchildren++];
		const struct row *ro = NULL, *rn = NULL;

		if (j >= nn || (i < no && so[i].label < sn[j].label)) {
			c->label = so[i].label;
			ro = so[i++].r;
		} else if (i >= no || sn[j].label < so[i].label) {
			c->label = sn[j].label;
			rn = sn[j++].r;
		} else {
			c->label = sn[j].label;
			ro = so[i++].r;
			rn = sn[j++].r;
		}
		merge_rows(m, c, ro, rn, lvl + 1);
	}
	free(so);
	free(sn);
}

struct rowtree *rowtree_diff(const struct rowtree *old,
			     const struct rowtree *new,
			     const struct diff_rename *renames, size_t nrenames)
{
	struct merge_ctx m = {renames, nrenames};
	struct rowtree *d;

	/* a tree still holding leaves has no rows to merge (const here) */
	if (old->depth != new->depth || old->lb != new->lb || old->leaves ||
	    new->leaves)
		return NULL;
	d = tree_new(new->lb, new->depth, ROWS_DIFF, 2);
	merge_rows(&m, &d->total, &old->total, &new->total, 0);
	d->total.label = LABEL_NONE;
	d->total.state = ROW_BOTH;
	return d;
}

/* ---- timeline: one chain per leaf path, a set per point ---- */

struct rows_timeline {
	struct rowtree *tl;
	struct hashmap index; /* path -> series number */
	uint32_t *paths;      /* depth labels per series */
	size_t pathcap;
	uint32_t path[64];
	size_t point;
};

/* The number of the chain of path b->path among the total's children
 * (in the order they were first seen), made if new. */
static size_t series_of(struct rows_timeline *b)
{
	struct rowtree *tl = b->tl;
	size_t len = tl->depth * sizeof(*b->path);
	struct hashmap_probe p;
	struct row *r;
	uint32_t id;

	for (id =
		 hashmap_first(&b->index, hashmap_hash_bytes(b->path, len), &p);
	     id != HASHMAP_NONE; id = hashmap_next(&b->index, &p))
		if (!memcmp(b->paths + (size_t)id * tl->depth, b->path, len))
			return id;
	id = (uint32_t)tl->total.nchildren;
	xgrow(&b->paths, &b->pathcap, ((size_t)id + 1) * tl->depth,
	      sizeof(*b->paths));
	memcpy(b->paths + (size_t)id * tl->depth, b->path, len);
	hashmap_put(&b->index, &p, id);
	row_grow(&tl->total, tl->total.nchildren + 1);
	r = &tl->total.children[tl->total.nchildren++];
	memset(r, 0, sizeof(*r));
	row_alloc_sets(r, tl->nsets); /* the head holds the values */
	for (size_t lv = 0; lv < tl->depth; lv++) {
		r->label = b->path[lv];
		if (lv + 1 < tl->depth) {
			r->children = xcalloc(1, sizeof(*r->children));
			r->nchildren = r->cap = 1;
			r = r->children;
		}
	}
	return id;
}

/* Add the leaves under r (at level lvl) of the current point. */
static void add_leaves(struct rows_timeline *b, const struct row *r, size_t lvl)
{
	struct rowtree *tl = b->tl;

	if (lvl == tl->depth) {
		size_t id = series_of(b); /* may move the total's children */
		uint64_t *v =
		    (uint64_t *)row_set(&tl->total.children[id], b->point);

		memcpy(v, r->vals, sizeof(r->vals));
		return;
	}
	for (size_t i = 0; i < r->nchildren; i++) {
		b->path[lvl] = r->children[i].label;
		add_leaves(b, &r->children[i], lvl + 1);
	}
}

struct rows_timeline *rowtree_timeline_begin(struct labels *lb, size_t depth,
					     const struct rows_point *points,
					     size_t n)
{
	struct rows_timeline *b;

	if (!n || !depth || depth > ARRAY_SIZE(b->path))
		return NULL;
	b = xcalloc(1, sizeof(*b));
	b->tl = tree_new(lb, depth, ROWS_TIMELINE, n);
	b->tl->points = xcalloc(n, sizeof(*b->tl->points));
	memcpy(b->tl->points, points, n * sizeof(*points));
	return b;
}

int rowtree_timeline_add(struct rows_timeline *b, size_t p, struct rowtree *t)
{
	struct rowtree *tl = b->tl;

	if (p >= tl->nsets || t->depth != tl->depth || t->lb != tl->lb)
		return -1;
	rows_leaves_make_rows(t); /* a tree of leaves: its rows first */
	b->point = p;
	add_leaves(b, &t->total, 0);
	memcpy((uint64_t *)row_set(&tl->total, p), t->total.vals,
	       sizeof(tl->total.vals));
	rowtree_free(t);
	return 0;
}

struct rowtree *rowtree_timeline_end(struct rows_timeline *b)
{
	struct rowtree *tl;

	if (!b)
		return NULL;
	tl = b->tl;
	hashmap_free(&b->index);
	free(b->paths);
	free(b);
	return tl;
}

struct rowtree *rowtree_timeline(struct rowtree **trees,
				 const struct rows_point *points, size_t n)
{
	struct rows_timeline *b;

	if (!n)
		return NULL;
	for (size_t p = 1; p < n; p++)
		if (trees[p]->depth != trees[0]->depth ||
		    trees[p]->lb != trees[0]->lb)
			return NULL;
	b = rowtree_timeline_begin(trees[0]->lb, trees[0]->depth, points, n);
	if (!b)
		return NULL;
	for (size_t p = 0; p < n; p++) {
		/* read: its memory goes before the next one adds more */
		rowtree_timeline_add(b, p, trees[p]);
		trees[p] = NULL;
	}
	return rowtree_timeline_end(b);
}
