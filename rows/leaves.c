// SPDX-License-Identifier: GPL-2.0-or-later
/* leaves.c — a tree of depth 1 whose rows stay bare leaves (label, FILE
 * SIZE, VM SIZE: 24 bytes, not a row's 200) until rowtree_finish(): `size
 * --by symbols` of a big library adds some ten thousand rows of which -n
 * are shown (rowtree_defer_leaves()). */
#include "config.h"

#include "rows/leaves.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void rowtree_defer_leaves(struct rowtree *t)
{
	if (t->depth == 1 && t->kind == ROWS_SINGLE && !t->total.nchildren &&
	    !t->leaves)
		t->leaves = xcalloc(1, sizeof(*t->leaves));
}

void rows_leaves_free(struct rowtree *t)
{
	if (t->leaves) {
		free(t->leaves->v);
		free(t->leaves->of);
		free(t->leaves);
		t->leaves = NULL;
	}
}

void rows_leaves_to_rows(struct row *r, const struct rows_leaf *leaves,
			 size_t n)
{
	row_grow(r, r->nchildren + n);
	for (size_t i = 0; i < n; i++) {
		struct row *c = rowtree_child(r, leaves[i].label);

		c->vals[COL_FILE] += leaves[i].file;
		c->vals[COL_VM] += leaves[i].vm;
		c->vm_sum += leaves[i].vm;
	}
}

void rows_leaves_make_rows(struct rowtree *t)
{
	if (t->leaves) {
		rows_leaves_to_rows(&t->total, t->leaves->v, t->leaves->n);
		rows_leaves_free(t);
	}
}

/* Room in lv for one more leaf, made resident prefault_ahead() at a
 * time: a call per 256 KiB rather than a page fault per 4 KiB. */
static void leaves_grow(struct rows_leaves *lv)
{
	size_t k;

	if (lv->n >= lv->cap) {
		xgrow_huge(&lv->v, &lv->cap, lv->n + 1, sizeof(*lv->v));
		lv->ready = lv->n; /* the copy wrote the others */
	}
	if (lv->n < lv->ready)
		return;
	k = MIN(lv->cap, lv->n + prefault_ahead(lv->n * sizeof(*lv->v)) /
				     sizeof(*lv->v));
	if (k - lv->n > 16)
		prefault_write(&lv->v[lv->n], (k - lv->n) * sizeof(*lv->v));
	lv->ready = k;
}

bool rows_leaf_add(struct rowtree *t, uint32_t label, const uint64_t *vals,
		   bool refuse)
{
	struct rows_leaves *lv = t->leaves;
	struct rows_leaf *l;

	for (int c = 0; c < COL__COUNT; c++)
		if (vals[c] && c != COL_FILE && c != COL_VM)
			refuse = true;
	if (refuse || t->tag) {
		rows_leaves_make_rows(t);
		return false;
	}
	/* the total, as rowtree_add() adds to it (no tag, no other column) */
	t->total.vals[COL_FILE] += vals[COL_FILE];
	t->total.vals[COL_VM] += vals[COL_VM];
	t->total.vm_sum += vals[COL_VM];
	if (label >= lv->nof) {
		size_t old = lv->nof;

		xgrow(&lv->of, &lv->nof, (size_t)label + 1, sizeof(*lv->of));
		memset(lv->of + old, 0, (lv->nof - old) * sizeof(*lv->of));
	}
	if (!lv->of[label]) {
		leaves_grow(lv);
		lv->v[lv->n] = (struct rows_leaf){label, 0, 0};
		lv->of[label] = (uint32_t)++lv->n;
	}
	l = &lv->v[lv->of[label] - 1];
	l->file += vals[COL_FILE];
	l->vm += vals[COL_VM];
	return true;
}
