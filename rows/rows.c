// SPDX-License-Identifier: GPL-2.0-or-later
/* rows.c — see rows.h */
#include "config.h"

#include "rows/leaves.h"
#include "rows/rows.h"
#include "rows/sortpriv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/util.h"

/* Children are found by a linear scan while there are few of them, then
 * by a util/hashmap of label -> index into row->children (r->index). */
#define ROW_SCAN_MAX 8

/* Labels are dense ids: Fibonacci hashing spreads them well enough. */
static inline uint32_t label_hash(uint32_t label)
{
	return (uint32_t)(((uint64_t)label * HASH_GOLDEN_U64) >> 32);
}

static void index_free(struct row *r)
{
	hashmap_free(r->index);
	free(r->index);
	r->index = NULL;
}

void row_grow(struct row *r, size_t need)
{
	size_t cap = r->cap;

	/* the doubled capacity must fit 32 bits; 2G rows of a few hundred
	 * bytes each are not in memory anyway */
	if (need > UINT32_MAX / 2)
		abort();
	xgrow(&r->children, &cap, need, sizeof(*r->children));
	r->cap = (uint32_t)cap;
}

struct row *rowtree_child(struct row *r, uint32_t label)
{
	struct hashmap *ix = r->index;
	struct hashmap_probe p;
	struct row *c;
	uint32_t i;

	if (ix) {
		for (i = hashmap_first(ix, label_hash(label), &p);
		     i != HASHMAP_NONE; i = hashmap_next(ix, &p))
			if (r->children[i].label == label)
				return &r->children[i];
	} else {
		for (i = 0; i < r->nchildren; i++)
			if (r->children[i].label == label)
				return &r->children[i];
	}

	row_grow(r, r->nchildren + 1);
	c = &r->children[r->nchildren++];
	memset(c, 0, sizeof(*c));
	c->label = label;

	if (ix) {
		hashmap_put(ix, &p, (uint32_t)(r->nchildren - 1));
	} else if (r->nchildren > ROW_SCAN_MAX) {
		ix = r->index = xcalloc(1, sizeof(*ix));
		for (i = 0; i < r->nchildren; i++)
			hashmap_add(ix, label_hash(r->children[i].label), i);
	}
	return c;
}

void row_alloc_sets(struct row *r, size_t nsets)
{
	if (nsets > 1 && !r->sets)
		r->sets = xcalloc((nsets - 1) * COL__COUNT, sizeof(*r->sets));
}

/* Free what r holds: its children (with theirs) and its sets. */
static void row_free_children(struct row *r)
{
	size_t i;

	for (i = 0; i < r->nchildren; i++)
		row_free_children(&r->children[i]);
	free(r->children);
	r->children = NULL;
	r->nchildren = r->cap = 0;
	free(r->sets);
	r->sets = NULL;
	index_free(r);
}

/* The last serial a tree got (rowtree.serial). */
static uint64_t rowtree_serials;

struct rowtree *rowtree_new(struct labels *lb, size_t depth)
{
	struct rowtree *t = xcalloc(1, sizeof(*t));

	t->lb = lb;
	t->depth = depth;
	t->total.label = LABEL_NONE;
	t->kind = ROWS_SINGLE;
	t->nsets = 1;
	t->serial = __atomic_add_fetch(&rowtree_serials, 1, __ATOMIC_RELAXED);
	return t;
}

void rowtree_free(struct rowtree *t)
{
	if (!t)
		return;
	rows_leaves_free(t);
	row_free_children(&t->total);
	free(t->points);
	free(t);
}

static inline void vals_add(uint64_t *dst, const uint64_t *src)
{
	int c;

	for (c = 0; c < COL__COUNT; c++)
		dst[c] += src[c];
}

static inline void row_tag(struct row *r, uint64_t tag)
{
	if (tag && r->tag != tag) {
		r->tag = tag;
		r->vals[COL_PROCS]++;
	}
}

/* Count the FILE SIZE and VM SIZE of vals that r gets (those not in out,
 * a bit per col_id) again in it, if t's pieces are counted again
 * (rowtree_set_again()). */
static inline void row_again(const struct rowtree *t, struct row *r,
			     const uint64_t *vals, unsigned out)
{
	for (int c = COL_FILE; t->again && c <= COL_VM; c++)
		if (!(out & (1u << c)))
			r->again[c] += vals[c];
}

/* Add vals to r of t, vm to its RES% denominator, and count t's tag in
 * PROCS. */
static inline void row_add(const struct rowtree *t, struct row *r,
			   const uint64_t *vals, uint64_t vm)
{
	vals_add(r->vals, vals);
	row_again(t, r, vals, 0);
	r->vm_sum += vm;
	row_tag(r, t->tag);
}

void rowtree_set_tag(struct rowtree *t, uint64_t tag)
{
	t->tag = tag;
}

void rowtree_set_again(struct rowtree *t, bool again)
{
	t->again = again;
}

void rowtree_add(struct rowtree *t, const uint32_t *path, const uint64_t *vals)
{
	rowtree_add_from(t, path, vals, 0, 0);
}

/* The values of vals that the rows above level from get: the columns in
 * shared zeroed, into part; vals itself when none are kept out. */
static const uint64_t *vals_above(const uint64_t *vals, unsigned shared,
				  size_t from, uint64_t *part)
{
	if (!shared || !from)
		return vals;
	for (int c = 0; c < COL__COUNT; c++)
		part[c] = shared & (1u << c) ? 0 : vals[c];
	return part;
}

void rowtree_add_from(struct rowtree *t, const uint32_t *path,
		      const uint64_t *vals, unsigned shared, size_t from)
{
	uint64_t part[COL__COUNT];
	const uint64_t *above = vals_above(vals, shared, from, part);
	struct row *r = &t->total;
	size_t d;

	if (t->leaves &&
	    rows_leaf_add(t, path[0], vals, (shared && from) || t->again))
		return;
	row_add(t, r, above, vals[COL_VM]);
	for (d = 0; d < t->depth; d++) {
		r = rowtree_child(r, path[d]);
		row_add(t, r, d + 1 >= from ? vals : above, vals[COL_VM]);
	}
}

void rowtree_add_upto(struct rowtree *t, const uint32_t *path,
		      const uint64_t *vals, size_t from, size_t to)
{
	struct row *r = &t->total;

	rows_leaves_make_rows(t);
	for (size_t d = 0; d < to && d <= t->depth; d++) {
		if (d)
			r = rowtree_child(r, path[d - 1]);
		if (d >= from)
			row_add(t, r, vals, vals[COL_VM]);
	}
}

void rowtree_path_index(struct rowtree *t, const uint32_t *path, uint32_t *ix)
{
	struct row *r = &t->total, *c;

	rows_leaves_make_rows(t);
	for (size_t d = 0; d < t->depth; d++) {
		c = rowtree_child(r, path[d]);
		ix[d] = (uint32_t)(c - r->children);
		r = c;
	}
}

void rowtree_add_index(struct rowtree *t, const uint32_t *ix,
		       const uint64_t *vals, unsigned shared, size_t from)
{
	uint8_t cols[COL__COUNT]; /* the columns vals has, most often few */
	struct row *r = &t->total;
	size_t n = 0;

	for (int c = 0; c < COL__COUNT; c++)
		if (vals[c])
			cols[n++] = (uint8_t)c;
	for (size_t d = 0; d <= t->depth; d++) {
		unsigned out = d >= from ? 0 : shared; /* kept out here */

		if (d)
			r = &r->children[ix[d - 1]];
		for (size_t i = 0; i < n; i++)
			if (!(out & (1u << cols[i])))
				r->vals[cols[i]] += vals[cols[i]];
		row_again(t, r, vals, out);
		r->vm_sum += vals[COL_VM];
		row_tag(r, t->tag);
	}
}

/* Add v of column col to r at level d (rowtree_add_steps()). */
static inline void step_add(struct rowtree *t, struct row *r, size_t d,
			    uint64_t v, enum col_id col, bool shared,
			    size_t from)
{
	if (!shared || d >= from) {
		r->vals[col] += v;
		if (t->again && col <= COL_VM)
			r->again[col] += v;
	}
	if (col == COL_VM)
		r->vm_sum += v;
	row_tag(r, t->tag);
}

void rowtree_add_steps(struct rowtree *t, const struct rows_step *steps,
		       size_t n, uint64_t total, enum col_id col, bool shared,
		       size_t from)
{
	struct row *up[65]; /* the latest row reached at each level */

	if (t->depth > 64)
		return;
	up[0] = &t->total;
	step_add(t, up[0], 0, total, col, shared, from);
	for (size_t i = 0; i < n; i++) {
		const struct rows_step *s = &steps[i];
		struct row *r = &up[s->level]->children[s->ix];

		up[s->level + 1] = r;
		step_add(t, r, s->level + 1, s->val, col, shared, from);
	}
}

/* ---- finish: one sort and one fold for every kind ---- */

static uint64_t key_value(const struct rowtree *t, const struct row *r,
			  enum col_id c)
{
	(void)t;
	return r->vals[c];
}

static uint64_t key_change(const struct rowtree *t, const struct row *r,
			   enum col_id c)
{
	uint64_t o = r->vals[c], n = row_set(r, 1)[c];

	(void)t;
	return n > o ? n - o : o - n;
}

static uint64_t key_peak(const struct rowtree *t, const struct row *r,
			 enum col_id c)
{
	uint64_t m = 0;

	for (size_t s = 0; s < t->nsets; s++)
		m = MAX(m, row_set(r, s)[c]);
	return m;
}

static int label_cmp_name(const struct labels *lb, uint32_t a, uint32_t b)
{
	return strcmp(labels_str(lb, a), labels_str(lb, b));
}

/* Labels with a position first, by it; the others by string. */
static int label_cmp_pos(const struct labels *lb, uint32_t a, uint32_t b)
{
	uint64_t pa, pb;
	bool ha = labels_pos(lb, a, &pa), hb = labels_pos(lb, b, &pb);

	if (ha && hb && pa != pb)
		return u64_cmp(pa, pb);
	if (ha != hb)
		return ha ? -1 : 1;
	return label_cmp_name(lb, a, b);
}

/* By label alone (an order of labels, not of values). */
static int cmp_label(const void *a, const void *b, void *arg)
{
	return row_tie(arg, a, b);
}

/* The key a row sorts by in a value order (larger first): the kind's key
 * of the sort column, or the larger of its FILE SIZE and VM SIZE keys
 * (ctx->col not used). */
static uint64_t vkey_col(const struct sort_ctx *ctx, const struct row *r)
{
	return ctx->key(ctx->t, r, ctx->col);
}

static uint64_t vkey_both(const struct sort_ctx *ctx, const struct row *r)
{
	return MAX(ctx->key(ctx->t, r, COL_FILE), ctx->key(ctx->t, r, COL_VM));
}

/* What each kind sorts by, and whether unchanged rows go. */
static const struct {
	uint64_t (*key)(const struct rowtree *t, const struct row *r,
			enum col_id c);
	bool prune; /* drop rows equal in both sets (a diff) */
} kinds[ROWS__KIND_COUNT] = {
    [ROWS_SINGLE] = {key_value, false},
    [ROWS_DIFF] = {key_change, true},
    [ROWS_TIMELINE] = {key_peak, false},
};

/* What each order sorts by: a key of values (larger first, ties by
 * label string: rows_sort_by_value()) or labels alone (cmp, by lcmp). */
static const struct {
	rows_vkey_fn *vkey;
	int (*cmp)(const void *a, const void *b, void *arg);
	label_cmp_fn *lcmp;
	bool by_value;
} orders[ROWS__ORDER_COUNT] = {
    [ROWS_ORDER_VALUE] = {vkey_col, NULL, label_cmp_name, true},
    [ROWS_ORDER_POS] = {NULL, cmp_label, label_cmp_pos, false},
    [ROWS_ORDER_NAME] = {NULL, cmp_label, label_cmp_name, false},
    [ROWS_ORDER_BOTH] = {vkey_both, NULL, label_cmp_name, true},
};

bool rows_order_by_value(enum rows_order order)
{
	return orders[order].by_value;
}

/* True if r is in both trees of a diff with the same values (of the
 * compared columns). */
static bool row_same(const struct rowtree *t, const struct row *r)
{
	const uint64_t *n = row_set(r, t->nsets - 1);

	if (r->state != ROW_BOTH)
		return false;
	if (!t->compared)
		return !memcmp(r->vals, n, sizeof(r->vals));
	for (int c = 0; c < COL__COUNT; c++)
		if ((t->compared & (1u << c)) && r->vals[c] != n[c])
			return false;
	return true;
}

/* Drop r's unchanged children; true if r itself can go too. */
static bool prune(struct rowtree *t, struct row *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nchildren; i++) {
		if (prune(t, &r->children[i])) {
			row_free_children(&r->children[i]);
			t->unchanged++;
			continue;
		}
		r->children[k++] = r->children[i];
	}
	r->nchildren = k;
	return !k && row_same(t, r);
}

void rows_cap_others(uint64_t *vals, const uint64_t *parent)
{
	static const enum col_id cols[] = {COL_PROCS, COL_FILE, COL_VM};

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		vals[cols[i]] = MIN(vals[cols[i]], parent[cols[i]]);
}

/* One "[N others]" row summing r's children from limit on (which it
 * frees), in place of the first of them. */
static void fold(struct rowtree *t, struct row *r, size_t limit)
{
	struct row others;
	char name[48];

	memset(&others, 0, sizeof(others));
	row_alloc_sets(&others, t->nsets);
	others.folded = r->nchildren - limit;
	for (size_t i = limit; i < r->nchildren; i++) {
		struct row *ch = &r->children[i];

		vals_add(others.vals, ch->vals);
		for (int c = COL_FILE; c <= COL_VM; c++)
			others.again[c] += ch->again[c];
		for (size_t v = 0; v + COL__COUNT < t->nsets * COL__COUNT; v++)
			others.sets[v] += ch->sets[v];
		others.vm_sum += ch->vm_sum;
		row_free_children(ch);
	}
	for (size_t s = 0; s < t->nsets; s++)
		rows_cap_others((uint64_t *)row_set(&others, s), row_set(r, s));
	for (int c = COL_FILE; c <= COL_VM; c++)
		others.again[c] = MIN(others.again[c], others.vals[c]);
	snprintf(name, sizeof(name), "[%" PRIu64 " others]", others.folded);
	others.label = labels_intern(t->lb, name);
	r->children[limit] = others;
	r->nchildren = limit + 1;
}

/* True if the rows below r are one chain of rows labelled as r down to a
 * leaf: keys that had nothing to add for it ([heap] under [heap]). */
static bool repeats_below(const struct row *r)
{
	const struct row *c = r;

	while (c->nchildren == 1) {
		if (c->children[0].label != r->label)
			return false;
		c = &c->children[0];
	}
	return c != r;
}

/* Make every row whose rows below only repeat its label a leaf: its path
 * ends there, shorter than the tree's depth. Its values stay its own (a
 * row's values are the sum of what was added under it). */
static void cut_repeats(struct row *r)
{
	if (repeats_below(r)) {
		for (size_t i = 0; i < r->nchildren; i++)
			row_free_children(&r->children[i]);
		free(r->children);
		r->children = NULL;
		r->nchildren = r->cap = 0;
		index_free(r);
		return;
	}
	for (size_t i = 0; i < r->nchildren; i++)
		cut_repeats(&r->children[i]);
}

static void row_finish(struct rowtree *t, struct row *r,
		       const struct sort_ctx *ctx, size_t limit,
		       struct sort_buf *buf)
{
	index_free(r);
	if (!r->nchildren)
		return;
	if (orders[t->order].vkey)
		rows_sort_by_value(ctx, r, orders[t->order].vkey, limit, buf);
	else
		qsort_r(r->children, r->nchildren, sizeof(*r->children),
			orders[t->order].cmp, (void *)ctx);
	if (limit && r->nchildren > limit)
		fold(t, r, limit);
	for (size_t i = 0; i < r->nchildren; i++)
		if (!r->children[i].folded)
			row_finish(t, &r->children[i], ctx, limit, buf);
}

void rowtree_set_order(struct rowtree *t, enum rows_order order)
{
	t->order = order;
}

void rowtree_set_compared(struct rowtree *t, unsigned cols)
{
	t->compared = cols;
}

void rowtree_finish(struct rowtree *t, enum col_id sort, size_t limit)
{
	struct sort_ctx ctx = {t, sort, kinds[t->kind].key,
			       orders[t->order].lcmp, NULL};
	struct sort_buf buf = {NULL, 0};
	uint32_t *rank = NULL;

	/* a leaves tree is one level below the total: nothing to cut */
	if (t->leaves &&
	    rows_leaves_finish(t, &ctx, orders[t->order].vkey, limit, &buf)) {
		free(buf.items);
		return;
	}
	cut_repeats(&t->total);
	if (kinds[t->kind].prune)
		prune(t, &t->total);
	/* with a limit, a level compares the strings of few rows */
	if (orders[t->order].vkey && !limit)
		ctx.rank = rank = rows_rank_labels(&ctx, &buf);
	row_finish(t, &t->total, &ctx, limit, &buf);
	free(rank);
	free(buf.items);
}

bool rowtree_col_is_zero(const struct rowtree *t, enum col_id c)
{
	for (size_t s = 0; s < t->nsets; s++)
		if (row_set(&t->total, s)[c])
			return false;
	return true;
}
