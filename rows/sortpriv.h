/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sortpriv.h — the insides of rowtree_finish()'s sort, shared by rows.c
 * (the orders, the finish of each level: cut, prune, fold) and rowsort.c
 * (the sort by value: items, label ranks, a leaves tree's finish).
 * Private to rows/. */
#ifndef MEMSZ_ROWS_SORTPRIV_H
#define MEMSZ_ROWS_SORTPRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows/rows.h"

/* The order of two labels a != b of lb. */
typedef int label_cmp_fn(const struct labels *lb, uint32_t a, uint32_t b);

struct sort_ctx {
	const struct rowtree *t;
	enum col_id col;
	uint64_t (*key)(const struct rowtree *t, const struct row *r,
			enum col_id c);
	label_cmp_fn *lcmp;
	const uint32_t *rank; /* a value order's label strings ranked
				 (rows_rank_labels()), or NULL */
};

/* The key a row sorts by in a value order (larger first). */
typedef uint64_t rows_vkey_fn(const struct sort_ctx *ctx, const struct row *r);

/* Rows by their labels in ctx's label order (siblings share a label only
 * as a timeline's chains: then by the rest of the path). */
static inline int row_tie(const struct sort_ctx *ctx, const struct row *x,
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

/* Room for the items of the largest level sorted so far (and as many for
 * the merge); the caller frees items. */
struct sort_buf {
	struct sort_item *items;
	size_t cap;
};

/* Sort r's children by value in ctx's order (vkey: its key); with a
 * limit under their number, only the limit that go first (the others,
 * after them in no order, are for fold()). */
void rows_sort_by_value(const struct sort_ctx *ctx, struct row *r,
			rows_vkey_fn *vkey, size_t limit, struct sort_buf *buf);

/* Where a tree's rows share labels a lot, each label's rank among the
 * label strings, by label (the caller frees it); NULL where comparing
 * the strings of ties is cheaper. */
uint32_t *rows_rank_labels(const struct sort_ctx *ctx, struct sort_buf *buf);

/* rowtree_finish() of t's leaves in a value order (vkey not NULL): the
 * rows the sort and fold would leave, true; else (vkey NULL) every leaf
 * made a row for the usual finish, false. */
bool rows_leaves_finish(struct rowtree *t, const struct sort_ctx *ctx,
			rows_vkey_fn *vkey, size_t limit, struct sort_buf *buf);

#endif
