// SPDX-License-Identifier: GPL-2.0-or-later
/* rows.c — see rows.h */
#include "config.h"

#include "rows/leaves.h"
#include "rows/rows.h"

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

/* Add vals to r, vm to its RES% denominator, and count tag in PROCS. */
static inline void row_add(struct row *r, const uint64_t *vals, uint64_t vm,
			   uint64_t tag)
{
	vals_add(r->vals, vals);
	r->vm_sum += vm;
	row_tag(r, tag);
}

void rowtree_set_tag(struct rowtree *t, uint64_t tag)
{
	t->tag = tag;
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

	if (t->leaves && rows_leaf_add(t, path[0], vals, shared && from))
		return;
	row_add(r, above, vals[COL_VM], t->tag);
	for (d = 0; d < t->depth; d++) {
		r = rowtree_child(r, path[d]);
		row_add(r, d + 1 >= from ? vals : above, vals[COL_VM], t->tag);
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
		r->vm_sum += vals[COL_VM];
		row_tag(r, t->tag);
	}
}

/* Add v of column col to r at level d (rowtree_add_steps()). */
static inline void step_add(struct rowtree *t, struct row *r, size_t d,
			    uint64_t v, enum col_id col, bool shared,
			    size_t from)
{
	if (!shared || d >= from)
		r->vals[col] += v;
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

/* The order of two labels a != b of lb. */
typedef int label_cmp_fn(const struct labels *lb, uint32_t a, uint32_t b);

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

struct sort_ctx {
	const struct rowtree *t;
	enum col_id col;
	uint64_t (*key)(const struct rowtree *t, const struct row *r,
			enum col_id c);
	label_cmp_fn *lcmp;
	const uint32_t *rank; /* a value order's label strings ranked
				 (rank_labels()), or NULL */
};

/* Rows by their labels in ctx's label order (siblings share a label only
 * as a timeline's chains: then by the rest of the path). */
static int row_tie(const struct sort_ctx *ctx, const struct row *x,
		   const struct row *y)
{
	while (x->label == y->label && x->nchildren == 1 && y->nchildren == 1) {
		x = &x->children[0];
		y = &y->children[0];
	}
	if (x->label == y->label)
		return 0;
	return ctx->lcmp(ctx->t->lb, x->label, y->label);
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
	uint64_t (*vkey)(const struct sort_ctx *ctx, const struct row *r);
	int (*cmp)(const void *a, const void *b, void *arg);
	label_cmp_fn *lcmp;
	bool by_value;
} orders[ROWS__ORDER_COUNT] = {
    [ROWS_ORDER_VALUE] = {vkey_col, NULL, label_cmp_name, true},
    [ROWS_ORDER_POS] = {NULL, cmp_label, label_cmp_pos, false},
    [ROWS_ORDER_NAME] = {NULL, cmp_label, label_cmp_name, false},
    [ROWS_ORDER_BOTH] = {vkey_both, NULL, label_cmp_name, true},
};

/* ---- the sort by value: an array of small items, not of rows ---- */

/* A row to sort by value: its key, the first 8 bytes of its label's
 * string big-endian (most ties of keys are told apart there, without
 * reading the string) or the label's rank among the tree's (sort_ctx:
 * then str is not read), the string, and where the row is. */
struct sort_item {
	uint64_t key, prefix;
	const char *str;
	uint32_t ix, label;
};

static uint64_t str_prefix(const char *s)
{
	uint64_t p = 0;

	for (int i = 0; i < 8 && s[i]; i++)
		p |= (uint64_t)(unsigned char)s[i] << (56 - 8 * i);
	return p;
}

/* True if a goes before b: larger key, then label string (strcmp, as
 * label_cmp_name), labels shared by siblings (a timeline's chains) by
 * row_tie(), then where they were (the sort is stable). */
static inline bool item_before(const struct sort_ctx *ctx,
			       const struct row *rows,
			       const struct sort_item *a,
			       const struct sort_item *b)
{
	int c;

	if (a->key != b->key)
		return a->key > b->key;
	if (a->label == b->label)
		c = row_tie(ctx, &rows[a->ix], &rows[b->ix]);
	else if (a->prefix != b->prefix)
		return a->prefix < b->prefix;
	else if (!ctx->rank && (a->prefix & 0xff)) /* 8 equal bytes, no
						      NUL among them */
		c = strcmp(a->str + 8, b->str + 8);
	else /* equal ranks, or both end within the prefix: equal strings */
		c = 0;
	return c ? c < 0 : a->ix < b->ix;
}

/* Runs this long are sorted by insertion before merging. */
#define SORT_RUN 16
/* How many rows ahead a row's label is fetched. */
#define SORT_PREFETCH 4
/* Labels are ranked once (rank_labels()) where the rows are at least
 * this many times the labels they have. */
#define RANK_SHARE 2

static void items_insertion(const struct sort_ctx *ctx, const struct row *rows,
			    struct sort_item *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct sort_item x = a[i];
		size_t j = i;

		for (; j && item_before(ctx, rows, &x, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* Sift a[i] down the heap a[0..n-1] whose parents go after their
 * children. */
static void heap_down(const struct sort_ctx *ctx, const struct row *rows,
		      struct sort_item *a, size_t n, size_t i)
{
	struct sort_item x = a[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && item_before(ctx, rows, &a[c], &a[c + 1]))
			c++;
		if (!item_before(ctx, rows, &x, &a[c]))
			break;
		a[i] = a[c];
		i = c;
	}
	a[i] = x;
}

/* Sort a[0..n-1] (tmp: room for n more); a bottom-up merge sort. */
static void items_sort(const struct sort_ctx *ctx, const struct row *rows,
		       struct sort_item *a, struct sort_item *tmp, size_t n)
{
	struct sort_item *src = a, *dst = tmp, *sw;

	for (size_t lo = 0; lo < n; lo += SORT_RUN)
		items_insertion(ctx, rows, a + lo, MIN(SORT_RUN, n - lo));
	for (size_t w = SORT_RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t i = lo, mid = MIN(lo + w, n), j = mid,
			       hi = MIN(lo + 2 * w, n), k = lo;

			while (i < mid && j < hi)
				dst[k++] =
				    item_before(ctx, rows, &src[j], &src[i])
					? src[j++]
					: src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		sw = src, src = dst, dst = sw;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Move the limit items of a[0..n-1] (limit < n) that go first to
 * a[0..limit-1], in no order, the others after them: a[0..limit-1] kept
 * as a heap whose top goes last, each other item compared with that top
 * (most often the one comparison). */
static void items_select(const struct sort_ctx *ctx, const struct row *rows,
			 struct sort_item *a, size_t n, size_t limit)
{
	struct sort_item x;

	for (size_t i = limit / 2; i-- > 0;)
		heap_down(ctx, rows, a, limit, i);
	for (size_t i = limit; i < n; i++) {
		if (!item_before(ctx, rows, &a[i], &a[0]))
			continue;
		x = a[0], a[0] = a[i], a[i] = x;
		heap_down(ctx, rows, a, limit, 0);
	}
}

/* One stable pass of a radix sort: src[0..n-1] by byte `byte` of
 * digit(item) into dst. */
static void radix_pass(const struct sort_item *src, struct sort_item *dst,
		       size_t n, bool of_key, unsigned byte)
{
	size_t count[256] = {0}, pos = 0;

#define RADIX_DIGIT(x)                                                         \
	((unsigned)(((of_key ? ~(x)->key : (x)->prefix) >> (8 * byte)) & 0xff))
	for (size_t i = 0; i < n; i++)
		count[RADIX_DIGIT(&src[i])]++;
	for (size_t d = 0; d < 256; d++) {
		size_t c = count[d];

		count[d] = pos;
		pos += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[RADIX_DIGIT(&src[i])]++] = src[i];
#undef RADIX_DIGIT
}

/* Sort a[0..n-1] (tmp: room for n more) as items_sort() does, by larger
 * key, then prefix (a label's rank, or its string's first bytes), then
 * index (a[i].ix == i: kept by stable passes): one radix pass per byte of
 * prefix and key that is not the same in every item; then each run of
 * items that share key and prefix (a label: a timeline's chains, which
 * row_tie() tells apart; or strings that go on alike) by items_sort(),
 * which orders it as it would among all: a merge sort of libLLVM-14's
 * 45 k symbol rows compared them 700 k times. */
static void items_radix(const struct sort_ctx *ctx, const struct row *rows,
			struct sort_item *a, struct sort_item *tmp, size_t n)
{
	struct sort_item *src = a, *dst = tmp, *sw;
	uint64_t kdiff = 0, rdiff = 0;

	for (size_t i = 1; i < n; i++) {
		kdiff |= a[i].key ^ a[0].key;
		rdiff |= a[i].prefix ^ a[0].prefix;
	}
	for (int pass = 0; pass < 16; pass++) {
		bool of_key = pass >= 8;
		unsigned byte = (unsigned)pass % 8;

		if (!(((of_key ? kdiff : rdiff) >> (8 * byte)) & 0xff))
			continue;
		radix_pass(src, dst, n, of_key, byte);
		sw = src, src = dst, dst = sw;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && a[j].key == a[i].key &&
				a[j].prefix == a[i].prefix;
		     j++)
			;
		if (j - i > 1)
			items_sort(ctx, rows, a + i, tmp, j - i);
	}
}

/* Put rows[0..n-1] in the order of items (items[i].ix: the row that goes
 * to i), in place: each cycle of the permutation through one spare row. */
static void rows_permute(struct row *rows, struct sort_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct row spare;
		size_t j = i, k;

		if (items[i].ix == i)
			continue;
		spare = rows[i];
		for (;;) {
			k = items[j].ix;
			items[j].ix = (uint32_t)j;
			if (k == i)
				break;
			rows[j] = rows[k];
			j = k;
		}
		rows[j] = spare;
	}
}

/* Room for the items of the largest level sorted so far (and as many for
 * the merge). */
struct sort_buf {
	struct sort_item *items;
	size_t cap;
};

/* Sort r's children by value in ctx's order (vkey: its key); with a
 * limit under their number, only the limit that go first (the others,
 * after them in no order, are folded). */
static void rows_sort_by_value(const struct sort_ctx *ctx, struct row *r,
			       uint64_t (*vkey)(const struct sort_ctx *ctx,
						const struct row *r),
			       size_t limit, struct sort_buf *buf)
{
	size_t n = r->nchildren;
	struct sort_item *it;

	/* one row is in order: nothing of it is read (a timeline's rows
	 * below a head have no sets to take a key from) */
	if (n < 2)
		return;
	xgrow(&buf->items, &buf->cap, 2 * n, sizeof(*buf->items));
	it = buf->items;
	for (size_t i = 0; i < n; i++) {
		const struct row *c = &r->children[i];

		/* the strings are all over the heap: ask for the one a few
		 * rows on while this one is read */
		if (i + SORT_PREFETCH < n && !ctx->rank)
			__builtin_prefetch(labels_str(
			    ctx->t->lb, r->children[i + SORT_PREFETCH].label));

		it[i].key = vkey(ctx, c);
		if (ctx->rank) {
			it[i].str = NULL;
			it[i].prefix = ctx->rank[c->label];
		} else {
			it[i].str = labels_str(ctx->t->lb, c->label);
			it[i].prefix = str_prefix(it[i].str);
		}
		it[i].ix = (uint32_t)i;
		it[i].label = c->label;
	}
	if (limit && limit < n)
		items_select(ctx, r->children, it, n, limit);
	if (ctx->rank && !(limit && limit < n))
		items_radix(ctx, r->children, it, it + n, n);
	else
		items_sort(ctx, r->children, it, it + n,
			   limit && limit < n ? limit : n);
	rows_permute(r->children, it, n);
}

bool rows_order_by_value(enum rows_order order)
{
	return orders[order].by_value;
}

/* True if r is in both trees of a diff with the same values. */
static bool row_same(const struct rowtree *t, const struct row *r)
{
	return r->state == ROW_BOTH &&
	       !memcmp(r->vals, row_set(r, t->nsets - 1), sizeof(r->vals));
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
		for (size_t v = 0; v + COL__COUNT < t->nsets * COL__COUNT; v++)
			others.sets[v] += ch->sets[v];
		others.vm_sum += ch->vm_sum;
		row_free_children(ch);
	}
	/* processes are not additive: at most those of the parent */
	for (size_t s = 0; s < t->nsets; s++) {
		uint64_t *o = (uint64_t *)row_set(&others, s);

		o[COL_PROCS] = MIN(o[COL_PROCS], row_set(r, s)[COL_PROCS]);
	}
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

/* The labels of the rows below r (r's own not), each once, into ids (of
 * *n, room *cap), seen (nl labels) marking them; *rows counts the rows,
 * SIZE_MAX once a label is no label of seen's. */
static void collect_labels(const struct row *r, uint8_t *seen, size_t nl,
			   uint32_t **ids, size_t *n, size_t *cap, size_t *rows)
{
	for (size_t i = 0; i < r->nchildren && *rows != SIZE_MAX; i++) {
		uint32_t l = r->children[i].label;

		if (l >= nl) {
			*rows = SIZE_MAX;
			return;
		}
		if (!seen[l]) {
			seen[l] = 1;
			xgrow(ids, cap, *n + 1, sizeof(**ids));
			(*ids)[(*n)++] = l;
		}
		collect_labels(&r->children[i], seen, nl, ids, n, cap, rows);
	}
	if (*rows != SIZE_MAX)
		*rows += r->nchildren;
}

/* Where a tree's rows share labels a lot (two keys over a binary: the
 * symbols of .text again under .symtab, .strtab, .dynsym, ...), the label
 * strings sorted once, each label's rank (equal strings: equal ranks)
 * into rank[label]: the levels then compare ranks, not strings. Returns
 * rank (free it), or NULL where the rows have few labels in common (each
 * level compares only the strings of its ties: cheaper). */
static uint32_t *rank_labels(const struct sort_ctx *ctx, struct sort_buf *buf)
{
	size_t nl = labels_count(ctx->t->lb), n = 0, cap = 0, rows = 0;
	uint8_t *seen = xcalloc(nl ? nl : 1, 1);
	uint32_t *ids = NULL, *rank = NULL;
	struct sort_item *it;

	collect_labels(&ctx->t->total, seen, nl, &ids, &n, &cap, &rows);
	free(seen);
	if (rows == SIZE_MAX || rows < RANK_SHARE * n) {
		free(ids);
		return NULL;
	}
	/* the labels as rows of one level with one key: by string */
	xgrow(&buf->items, &buf->cap, 2 * n, sizeof(*buf->items));
	it = buf->items;
	for (size_t i = 0; i < n; i++) {
		it[i].key = 0;
		it[i].str = labels_str(ctx->t->lb, ids[i]);
		it[i].prefix = str_prefix(it[i].str);
		it[i].ix = (uint32_t)i;
		it[i].label = ids[i];
	}
	free(ids);
	items_sort(ctx, NULL, it, it + n, n);
	rank = xmalloc((nl ? nl : 1) * sizeof(*rank));
	for (size_t i = 0, r = 0; i < n; i++) {
		if (i && (it[i].prefix != it[i - 1].prefix ||
			  strcmp(it[i].str, it[i - 1].str)))
			r++;
		rank[it[i].label] = (uint32_t)r;
	}
	return rank;
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

/* The item rows_sort_by_value() makes of the row of leaf i of lv. */
static void
leaf_item(const struct sort_ctx *ctx,
	  uint64_t (*vkey)(const struct sort_ctx *ctx, const struct row *r),
	  const struct rows_leaves *lv, size_t i, struct sort_item *it)
{
	struct row r = {.vals[COL_FILE] = lv->v[i].file,
			.vals[COL_VM] = lv->v[i].vm};

	it->key = vkey(ctx, &r);
	it->str = labels_str(ctx->t->lb, lv->v[i].label);
	it->prefix = str_prefix(it->str);
	it->ix = (uint32_t)i;
	it->label = lv->v[i].label;
}

/* Ask for transparent huge pages over r's children, new and not touched
 * yet, from 4 MiB on: leaves made rows all at once (-n 0 of a big
 * library: 45 k rows, 8 MiB) fault once a 2 MiB instead of once a page. */
static void huge_rows(struct row *r)
{
	size_t n = (size_t)r->cap * sizeof(*r->children);

	if (n >= ((size_t)4 << 20))
		advise_huge(r->children, n);
}

/* A row of leaf l at the end of r's children (room made): the rows of
 * leaves being finished are new, with labels of their own, and no add
 * looks them up again (no index). */
static struct row *leaf_row(struct row *r, const struct rows_leaf *l)
{
	struct row *c = &r->children[r->nchildren++];

	memset(c, 0, sizeof(*c));
	c->label = l->label;
	c->vals[COL_FILE] = l->file;
	c->vals[COL_VM] = l->vm;
	c->vm_sum = l->vm;
	return c;
}

/* The limit leaves of lv (limit < lv->n) that go first in ctx's order
 * (vkey: a row's key), chosen as items_select() chooses rows, each
 * compared with the top of a heap of limit items as it comes (no item
 * for every leaf), into it[0, limit), sorted; rest: the sums of the
 * others. */
static void leaves_select(const struct sort_ctx *ctx,
			  uint64_t (*vkey)(const struct sort_ctx *ctx,
					   const struct row *r),
			  const struct rows_leaves *lv, size_t limit,
			  struct sort_item *it, uint64_t rest[2])
{
	size_t n = lv->n;
	struct sort_item x;

	for (size_t i = 0; i < limit; i++)
		leaf_item(ctx, vkey, lv, i, &it[i]);
	for (size_t i = limit / 2; i-- > 0;)
		heap_down(ctx, NULL, it, limit, i);
	for (size_t i = 0; i < n; i++) {
		rest[0] += lv->v[i].file;
		rest[1] += lv->v[i].vm;
		if (i < limit)
			continue;
		if (i + SORT_PREFETCH < n)
			__builtin_prefetch(labels_str(
			    ctx->t->lb, lv->v[i + SORT_PREFETCH].label));
		leaf_item(ctx, vkey, lv, i, &x);
		if (!item_before(ctx, NULL, &x, &it[0]))
			continue;
		it[0] = x;
		heap_down(ctx, NULL, it, limit, 0);
	}
	items_sort(ctx, NULL, it, it + limit, limit);
	for (size_t i = 0; i < limit; i++) {
		rest[0] -= lv->v[it[i].ix].file;
		rest[1] -= lv->v[it[i].ix].vm;
	}
}

/* rowtree_finish() of t's leaves (the level below the total), which
 * have no rows below them (nothing to cut). In a value order: the rows
 * rows_sort_by_value() and fold() would leave, made in their order
 * (true), the limit leaves that go first and an "[N others]" row of the
 * rest, or all of them; items are sorted, not rows (176 bytes moved
 * each). Else (false) every leaf made a row, in the order they came, for
 * the usual finish. */
static bool leaves_finish(struct rowtree *t, const struct sort_ctx *ctx,
			  size_t limit, struct sort_buf *buf)
{
	uint64_t (*vkey)(const struct sort_ctx *ctx, const struct row *r) =
	    orders[t->order].vkey;
	struct rows_leaves *lv = t->leaves;
	uint64_t rest[2] = {0, 0};
	size_t n = lv->n, keep = limit && limit < n ? limit : n, got;
	struct sort_item *it;
	struct row *others;
	char name[48];

	if (!vkey) {
		row_grow(&t->total, n);
		for (size_t i = 0; i < n; i++)
			leaf_row(&t->total, &lv->v[i]);
		rows_leaves_free(t);
		return false;
	}
	/* labels differ: item_before() never reads the rows; ranks
	 * (rank_labels()) are not worth it where each label is one row.
	 * The items (and as many for the sort; buf is new) from 1 MiB on in
	 * huge pages: -n 0 of libLLVM-14's 45 k leaves, 2.8 MiB, faulted
	 * once a 2 MiB, not 700 times */
	buf->items = it = xmalloc_huge_aligned(2 * keep * sizeof(*it), &got);
	buf->cap = got / sizeof(*it);
	if (keep < n) {
		leaves_select(ctx, vkey, lv, keep, it, rest);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i + 4 * SORT_PREFETCH < n)
				labels_prefetch_id(
				    t->lb, lv->v[i + 4 * SORT_PREFETCH].label);
			if (i + SORT_PREFETCH < n)
				__builtin_prefetch(labels_str(
				    t->lb, lv->v[i + SORT_PREFETCH].label));
			leaf_item(ctx, vkey, lv, i, &it[i]);
		}
		if (n > 1)
			items_radix(ctx, NULL, it, it + n, n);
	}
	row_grow(&t->total, keep + 1);
	huge_rows(&t->total);
	for (size_t i = 0; i < keep; i++)
		leaf_row(&t->total, &lv->v[it[i].ix]);
	rows_leaves_free(t);
	if (keep == n)
		return true;
	/* fold()'s row: no sets, no processes in a tree of leaves */
	others = leaf_row(&t->total, &(struct rows_leaf){0, rest[0], rest[1]});
	others->folded = n - keep;
	snprintf(name, sizeof(name), "[%" PRIu64 " others]", others->folded);
	others->label = labels_intern(t->lb, name);
	return true;
}

void rowtree_finish(struct rowtree *t, enum col_id sort, size_t limit)
{
	struct sort_ctx ctx = {t, sort, kinds[t->kind].key,
			       orders[t->order].lcmp, NULL};
	struct sort_buf buf = {NULL, 0};
	uint32_t *rank = NULL;

	/* a leaves tree is one level below the total: nothing to cut */
	if (t->leaves && leaves_finish(t, &ctx, limit, &buf)) {
		free(buf.items);
		return;
	}
	cut_repeats(&t->total);
	if (kinds[t->kind].prune)
		prune(t, &t->total);
	/* with a limit, a level compares the strings of few rows */
	if (orders[t->order].vkey && !limit)
		ctx.rank = rank = rank_labels(&ctx, &buf);
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
