/* SPDX-License-Identifier: GPL-2.0-or-later */
/* leaves.h — private to rows/: the bare leaves of a tree of depth 1
 * (rowtree_defer_leaves()), kept until rowtree_finish() makes rows of
 * those it keeps. */
#ifndef MEMSZ_ROWS_LEAVES_H
#define MEMSZ_ROWS_LEAVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rows/rows.h"

/* A row of the level below the total, bare: its label and the sums of
 * FILE SIZE and VM SIZE rowtree_add() gave it (also its RES%
 * denominator). */
struct rows_leaf {
	uint32_t label;
	uint64_t file, vm;
};

struct rows_leaves {
	struct rows_leaf *v; /* in the order they came: the rows' order */
	size_t n, cap;
	size_t ready; /* v[0, ready) is resident (prefault_write()) */
	uint32_t *of; /* by label: index + 1 into v, 0: none */
	size_t nof;
};

/* rowtree_add_from() of a piece to t's leaves (t->leaves set), true; or,
 * where it cannot be one (refuse: columns kept out of the total; another
 * column than FILE SIZE and VM SIZE; a tag), false with the leaves made
 * rows (t->leaves NULL), for the caller to add it as a row. */
bool rows_leaf_add(struct rowtree *t, uint32_t label, const uint64_t *vals,
		   bool refuse);

/* Rows, at the end of r's children, of leaves[0..n-1]: what
 * rowtree_add() would have made of their pieces. */
void rows_leaves_to_rows(struct row *r, const struct rows_leaf *leaves,
			 size_t n);

/* The rows of t's leaves made (if it has leaves), the leaves freed. */
void rows_leaves_make_rows(struct rowtree *t);

/* t's leaves freed, without rows (t->leaves NULL). */
void rows_leaves_free(struct rowtree *t);

#endif
