// SPDX-License-Identifier: GPL-2.0-or-later
/* rowsort.c — rowtree_finish()'s sort by value (see sortpriv.h): the rows
 * of a level as an array of small items, sorted, selected (-n) or radix
 * sorted, then the rows put in their order; the label strings ranked once
 * where the rows share labels a lot; and a leaves tree finished from its
 * bare leaves. */
#include "config.h"

#include "rows/leaves.h"
#include "rows/rows.h"
#include "rows/sortpriv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

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
/* Labels are ranked once (rows_rank_labels()) where the rows are at least
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

/* Sort r's children by value in ctx's order (vkey: its key); with a
 * limit under their number, only the limit that go first (the others,
 * after them in no order, are folded). */
void rows_sort_by_value(const struct sort_ctx *ctx, struct row *r,
			rows_vkey_fn *vkey, size_t limit, struct sort_buf *buf)
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
uint32_t *rows_rank_labels(const struct sort_ctx *ctx, struct sort_buf *buf)
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

/* The item rows_sort_by_value() makes of the row of leaf i of lv. */
static void leaf_item(const struct sort_ctx *ctx, rows_vkey_fn *vkey,
		      const struct rows_leaves *lv, size_t i,
		      struct sort_item *it)
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
static void leaves_select(const struct sort_ctx *ctx, rows_vkey_fn *vkey,
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
 * rest, or all of them; items are sorted, not rows (200 bytes moved
 * each). Else (false) every leaf made a row, in the order they came, for
 * the usual finish. */
bool rows_leaves_finish(struct rowtree *t, const struct sort_ctx *ctx,
			rows_vkey_fn *vkey, size_t limit, struct sort_buf *buf)
{
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
	 * (rows_rank_labels()) are not worth it where each label is one row.
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
