// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rows_again.c — rowtree_set_again(): what of FILE SIZE and VM SIZE a
 * row got that the TOTAL counted already, by every way of adding to the
 * rows, so that a reader summing the leaves (pprof) counts it once. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "rows/rows.h"
#include "tests/testutil.h"
#include "util/util.h"

enum add_way { BY_PATH, BY_INDEX, BY_STEPS, UPTO };

static const unsigned shared = 1u << COL_FILE | 1u << COL_VM;

/* Add process pid's piece of one file under key "pids,files" of t the
 * way way: the first process's is news in the TOTAL, the second's only
 * from the pids key down (from 1), counted again. */
static void add_piece(struct rowtree *t, struct labels *lb, uint32_t pid,
		      enum add_way way)
{
	char name[16];
	uint32_t path[2], ix[2];
	uint64_t vals[COL__COUNT] = {0};
	size_t from = pid > 1;
	struct rows_step steps[2];

	snprintf(name, sizeof(name), "%u cmd", pid);
	path[0] = labels_intern(lb, name);
	path[1] = labels_intern(lb, "/lib/a.so");
	vals[COL_FILE] = way == BY_STEPS ? 0 : 1000;
	vals[COL_VM] = 400;
	rowtree_set_tag(t, pid);
	rowtree_set_again(t, from > 0);
	switch (way) {
	case BY_PATH:
		rowtree_add_from(t, path, vals, shared, from);
		break;
	case BY_INDEX:
		rowtree_path_index(t, path, ix);
		rowtree_add_index(t, ix, vals, shared, from);
		break;
	case BY_STEPS:
		rowtree_path_index(t, path, ix);
		for (uint32_t d = 0; d < 2; d++)
			steps[d] = (struct rows_step){d, ix[d], 400};
		rowtree_add_steps(t, steps, 2, 400, COL_VM, true, from);
		break;
	case UPTO:
		rowtree_add_upto(t, path, vals, from, 3);
		break;
	}
	rowtree_set_again(t, false);
}

/* Each way: the TOTAL has the file once; the second process's rows have
 * all of it again, the first's none; the leaves less again sum to the
 * TOTAL. */
static void test_again_ways(void **state)
{
	(void)state;
	for (enum add_way way = BY_PATH; way <= UPTO; way++) {
		struct labels *lb = labels_new();
		struct rowtree *t = rowtree_new(lb, 2);
		uint64_t file = way == BY_STEPS ? 0 : 1000, sum[2] = {0};

		add_piece(t, lb, 1, way);
		add_piece(t, lb, 2, way);
		rowtree_finish(t, COL_VM, 0);
		assert_int_equal(t->total.vals[COL_FILE], file);
		assert_int_equal(t->total.vals[COL_VM], 400);
		assert_int_equal(t->total.again[COL_VM], 0);
		assert_int_equal(t->total.nchildren, 2);
		for (size_t i = 0; i < 2; i++) {
			const struct row *p = &t->total.children[i];
			const struct row *leaf = &p->children[0];
			bool second =
			    !strcmp(labels_str(lb, p->label), "2 cmd");

			assert_int_equal(p->nchildren, 1);
			assert_int_equal(leaf->vals[COL_VM], 400);
			assert_int_equal(p->again[COL_VM], second ? 400 : 0);
			assert_int_equal(leaf->again[COL_VM], second ? 400 : 0);
			assert_int_equal(leaf->again[COL_FILE],
					 second ? file : 0);
			for (int c = COL_FILE; c <= COL_VM; c++)
				sum[c] += leaf->vals[c] - leaf->again[c];
		}
		assert_int_equal(sum[COL_FILE], file);
		assert_int_equal(sum[COL_VM], 400);
		rowtree_free(t);
		labels_free(lb);
	}
}

/* An "[N others]" row has its rows' again, at most its own values (its
 * values capped at its parent's): the leaves less again still sum to the
 * TOTAL. */
static void test_again_folded(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	const struct row *others;

	(void)state;
	for (uint32_t pid = 1; pid <= 3; pid++)
		add_piece(t, lb, pid, BY_PATH);
	rowtree_finish(t, COL_VM, 1);
	assert_int_equal(t->total.nchildren, 2);
	others = &t->total.children[1];
	assert_int_equal(others->folded, 2);
	/* the first process's row kept (ties by label), the others' two
	 * rows folded: 800 of VM capped at the TOTAL's 400, all again */
	assert_string_equal(labels_str(lb, t->total.children[0].label),
			    "1 cmd");
	assert_int_equal(t->total.children[0].again[COL_VM], 0);
	assert_int_equal(others->vals[COL_VM], 400);
	assert_int_equal(others->again[COL_VM], 400);
	assert_int_equal(others->vals[COL_FILE], 1000);
	assert_int_equal(others->again[COL_FILE], 1000);
	rowtree_free(t);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_again_ways),
	    cmocka_unit_test(test_again_folded),
	};

	return test_run_group(tests, NULL, NULL);
}
