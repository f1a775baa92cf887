// SPDX-License-Identifier: GPL-2.0-or-later
/* test_rows.c — the row tree: sums, ordering, ties, -n folding, depth. */
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

struct fixture {
	struct labels *lb;
	struct rowtree *t;
};

static struct fixture *fx_new(size_t depth)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	fx->lb = labels_new();
	fx->t = rowtree_new(fx->lb, depth);
	return fx;
}

static void fx_free(struct fixture *fx)
{
	rowtree_free(fx->t);
	labels_free(fx->lb);
	free(fx);
}

/* Add one leaf: path given as up to 3 strings, file and vm values, the
 * other columns derived so that every column carries distinct data. */
static void add3(struct fixture *fx, const char *a, const char *b,
		 const char *c, uint64_t file, uint64_t vm)
{
	const char *p[3] = {a, b, c};
	uint32_t path[3];
	uint64_t vals[COL__COUNT] = {0};
	size_t i;

	for (i = 0; i < fx->t->depth; i++)
		path[i] = labels_intern(fx->lb, p[i]);
	vals[COL_FILE] = file;
	vals[COL_VM] = vm;
	vals[COL_RSS] = vm / 2;
	vals[COL_PSS] = (vm << COL_PSS_SHIFT) / 3;
	vals[COL_USS] = vm / 4;
	vals[COL_DIRTY] = file % 7;
	vals[COL_SWAP] = 1;
	rowtree_add(fx->t, path, vals);
}

static const char *name(const struct fixture *fx, const struct row *r)
{
	return labels_str(fx->lb, r->label);
}

/* Every row with children equals the sum of its children in every column;
 * each level is sorted by col (desc, ties by label) except a trailing
 * "[N others]" row. Returns the number of leaves. */
static size_t check_tree(const struct fixture *fx, const struct row *r,
			 enum col_id col, size_t level)
{
	uint64_t sum[COL__COUNT] = {0};
	size_t i, leaves = 0, n = r->nchildren;
	int c;

	if (!n)
		return 1;
	assert_true(level < fx->t->depth);
	for (i = 0; i < n; i++) {
		const struct row *ch = &r->children[i];

		for (c = 0; c < COL__COUNT; c++)
			sum[c] += ch->vals[c];
		if (ch->folded) {
			assert_int_equal(i, n - 1);
			assert_int_equal(ch->nchildren, 0);
		} else {
			leaves += check_tree(fx, ch, col, level + 1);
		}
		if (i + 1 < n && !r->children[i + 1].folded) {
			const struct row *nx = &r->children[i + 1];

			assert_true(ch->vals[col] >= nx->vals[col]);
			if (ch->vals[col] == nx->vals[col])
				assert_true(strcmp(name(fx, ch), name(fx, nx)) <
					    0);
		}
	}
	for (c = 0; c < COL__COUNT; c++)
		assert_int_equal(sum[c], r->vals[c]);
	return leaves;
}

static void test_coldefs(void **state)
{
	(void)state;
	assert_int_equal(col_from_name("file"), COL_FILE);
	assert_int_equal(col_from_name("file_size"), COL_FILE);
	assert_int_equal(col_from_name("vm"), COL_VM);
	assert_int_equal(col_from_name("vm_size"), COL_VM);
	assert_int_equal(col_from_name("rss"), COL_RSS);
	assert_int_equal(col_from_name("pss"), COL_PSS);
	assert_int_equal(col_from_name("uss"), COL_USS);
	assert_int_equal(col_from_name("dirty"), COL_DIRTY);
	assert_int_equal(col_from_name("swap"), COL_SWAP);
	assert_int_equal(col_from_name("FILE SIZE"), -1);
	assert_int_equal(col_from_name("bogus"), -1);
	assert_int_equal(col_from_name(""), -1);
	assert_int_equal(col_from_name(NULL), -1);
	assert_string_equal(coldefs[COL_FILE].header, "FILE SIZE");
	assert_string_equal(coldefs[COL_VM].header, "VM SIZE");
	assert_string_equal(coldefs[COL_PSS].key, "pss");
	assert_int_equal(coldefs[COL_PSS].shift, 12);
	assert_int_equal(coldefs[COL_RSS].shift, 0);
}

/* COL_PROCS counts each tag (process) once per row: librank's process
 * count beside the sums. */
static void test_procs_tagged(void **state)
{
	struct fixture *fx = fx_new(2);
	uint64_t vals[COL__COUNT] = {0};
	/* process 1 maps libc (two pieces) and a.out; 2 libc; 3 libz */
	static const struct {
		uint64_t tag;
		const char *a, *b;
	} add[] = {
	    {1, "libc", ".text"}, {1, "libc", ".data"}, {1, "a.out", ".text"},
	    {2, "libc", ".text"}, {3, "libz", ".text"},
	};
	const struct row *ch;

	(void)state;
	vals[COL_RSS] = 4096;
	for (size_t i = 0; i < sizeof(add) / sizeof(add[0]); i++) {
		uint32_t path[2] = {labels_intern(fx->lb, add[i].a),
				    labels_intern(fx->lb, add[i].b)};

		rowtree_set_tag(fx->t, add[i].tag);
		rowtree_add(fx->t, path, vals);
	}
	rowtree_finish(fx->t, COL_PROCS, 1);
	ch = fx->t->total.children;
	assert_int_equal(fx->t->total.vals[COL_PROCS], 3);
	assert_int_equal(fx->t->total.vals[COL_RSS], 5 * 4096);
	assert_string_equal(name(fx, &ch[0]), "libc");
	assert_int_equal(ch[0].vals[COL_PROCS], 2);
	assert_int_equal(ch[0].vals[COL_RSS], 3 * 4096);
	/* .text of libc: processes 1 and 2; .data (folded): 1 */
	assert_string_equal(name(fx, &ch[0].children[0]), ".text");
	assert_int_equal(ch[0].children[0].vals[COL_PROCS], 2);
	assert_int_equal(ch[0].children[1].vals[COL_PROCS], 1);
	/* a.out (1) and libz (3) fold: 1 + 1, at most the total's 3 */
	assert_string_equal(name(fx, &ch[1]), "[2 others]");
	assert_int_equal(ch[1].vals[COL_PROCS], 2);
	fx_free(fx);

	/* one process in every folded row: capped at the parent's count */
	fx = fx_new(1);
	for (const char *l = "xyzwx"; *l; l++) {
		char lab[2] = {*l, 0};
		uint32_t path[1] = {labels_intern(fx->lb, lab)};

		/* process 1 maps x, y, z and w; then process 2 maps x */
		rowtree_set_tag(fx->t, l[1] ? 1 : 2);
		rowtree_add(fx->t, path, vals);
	}
	rowtree_finish(fx->t, COL_PROCS, 1);
	ch = fx->t->total.children;
	assert_string_equal(name(fx, &ch[0]), "x");
	assert_int_equal(ch[0].vals[COL_PROCS], 2);
	assert_string_equal(name(fx, &ch[1]), "[3 others]");
	assert_int_equal(ch[1].vals[COL_PROCS], 2);
	assert_string_equal(coldefs[COL_PROCS].key, "processes");
	assert_true(coldefs[COL_PROCS].count);
	assert_int_equal(col_from_name("procs"), COL_PROCS);
	fx_free(fx);
}

static void test_empty(void **state)
{
	struct fixture *fx = fx_new(2);
	int c;

	(void)state;
	rowtree_finish(fx->t, COL_FILE, 3);
	assert_int_equal(fx->t->total.nchildren, 0);
	assert_int_equal(fx->t->total.label, LABEL_NONE);
	for (c = 0; c < COL__COUNT; c++)
		assert_int_equal(fx->t->total.vals[c], 0);
	fx_free(fx);
	rowtree_free(NULL);
}

static void test_depth1_order(void **state)
{
	struct fixture *fx = fx_new(1);
	const struct row *ch;

	(void)state;
	add3(fx, "a", NULL, NULL, 10, 100);
	add3(fx, "b", NULL, NULL, 30, 10);
	add3(fx, "c", NULL, NULL, 20, 1);
	add3(fx, "a", NULL, NULL, 5, 0);
	add3(fx, "zero", NULL, NULL, 0, 0);
	rowtree_finish(fx->t, COL_FILE, 0);
	ch = fx->t->total.children;
	assert_int_equal(fx->t->total.nchildren, 4);
	assert_string_equal(name(fx, &ch[0]), "b");
	assert_string_equal(name(fx, &ch[1]), "c");
	assert_string_equal(name(fx, &ch[2]), "a");
	assert_string_equal(name(fx, &ch[3]), "zero"); /* kept though 0 */
	assert_int_equal(ch[2].vals[COL_FILE], 15);
	assert_int_equal(ch[2].vals[COL_VM], 100);
	assert_int_equal(ch[2].vals[COL_SWAP], 2);
	assert_int_equal(fx->t->total.vals[COL_FILE], 65);
	assert_int_equal(fx->t->total.vals[COL_VM], 111);
	assert_int_equal(fx->t->total.vals[COL_SWAP], 5);
	assert_int_equal(check_tree(fx, &fx->t->total, COL_FILE, 0), 4);
	fx_free(fx);
}

static void test_sort_other_column(void **state)
{
	struct fixture *fx = fx_new(1);
	const struct row *ch;

	(void)state;
	add3(fx, "a", NULL, NULL, 10, 100);
	add3(fx, "b", NULL, NULL, 30, 10);
	add3(fx, "c", NULL, NULL, 20, 1000);
	rowtree_finish(fx->t, COL_PSS, 0);
	ch = fx->t->total.children;
	assert_string_equal(name(fx, &ch[0]), "c");
	assert_string_equal(name(fx, &ch[1]), "a");
	assert_string_equal(name(fx, &ch[2]), "b");
	check_tree(fx, &fx->t->total, COL_PSS, 0);
	fx_free(fx);
}

static void test_ties(void **state)
{
	struct fixture *fx = fx_new(1);
	const struct row *ch;

	(void)state;
	/* interned in an order unlike the string order */
	add3(fx, "zeta", NULL, NULL, 7, 0);
	add3(fx, "alpha", NULL, NULL, 7, 0);
	add3(fx, "mid", NULL, NULL, 7, 0);
	add3(fx, "Upper", NULL, NULL, 7, 0);
	add3(fx, "big", NULL, NULL, 8, 0);
	rowtree_finish(fx->t, COL_FILE, 0);
	ch = fx->t->total.children;
	assert_string_equal(name(fx, &ch[0]), "big");
	assert_string_equal(name(fx, &ch[1]), "Upper"); /* 'U' < 'a' */
	assert_string_equal(name(fx, &ch[2]), "alpha");
	assert_string_equal(name(fx, &ch[3]), "mid");
	assert_string_equal(name(fx, &ch[4]), "zeta");
	fx_free(fx);
}

static void test_fold(void **state)
{
	struct fixture *fx = fx_new(2);
	const struct row *ch;
	uint32_t id;

	(void)state;
	add3(fx, "e", "e1", NULL, 10, 1);
	add3(fx, "a", "a1", NULL, 50, 1);
	add3(fx, "d", "d1", NULL, 15, 1);
	add3(fx, "d", "d2", NULL, 5, 1);
	add3(fx, "b", "b1", NULL, 40, 1);
	add3(fx, "c", "c1", NULL, 30, 1);
	rowtree_finish(fx->t, COL_FILE, 2);
	ch = fx->t->total.children;
	assert_int_equal(fx->t->total.nchildren, 3);
	assert_string_equal(name(fx, &ch[0]), "a");
	assert_string_equal(name(fx, &ch[1]), "b");
	assert_string_equal(name(fx, &ch[2]), "[3 others]");
	assert_int_equal(ch[0].folded, 0);
	assert_int_equal(ch[2].folded, 3);
	assert_int_equal(ch[2].vals[COL_FILE], 60);
	assert_int_equal(ch[2].vals[COL_VM], 4);
	/* the folded rows' children are dropped, their sums kept */
	assert_int_equal(ch[2].nchildren, 0);
	id = labels_find(fx->lb, "[3 others]");
	assert_int_equal(id, ch[2].label);
	assert_int_equal(fx->t->total.vals[COL_FILE], 150);
	assert_int_equal(check_tree(fx, &fx->t->total, COL_FILE, 0), 2);
	fx_free(fx);

	/* limit equal to the row count: nothing folds */
	fx = fx_new(1);
	add3(fx, "x", NULL, NULL, 1, 0);
	add3(fx, "y", NULL, NULL, 2, 0);
	rowtree_finish(fx->t, COL_FILE, 2);
	assert_int_equal(fx->t->total.nchildren, 2);
	assert_int_equal(fx->t->total.children[1].folded, 0);
	fx_free(fx);

	/* the others row goes last even when it is the biggest */
	fx = fx_new(1);
	add3(fx, "x", NULL, NULL, 10, 0);
	add3(fx, "y", NULL, NULL, 9, 0);
	add3(fx, "z", NULL, NULL, 8, 0);
	rowtree_finish(fx->t, COL_FILE, 1);
	ch = fx->t->total.children;
	assert_int_equal(fx->t->total.nchildren, 2);
	assert_string_equal(name(fx, &ch[0]), "x");
	assert_string_equal(name(fx, &ch[1]), "[2 others]");
	assert_int_equal(ch[1].vals[COL_FILE], 17);
	fx_free(fx);
}

/* Set the position of label s (interned). */
static void at_pos(struct fixture *fx, const char *s, uint64_t pos)
{
	labels_set_pos(fx->lb, labels_intern(fx->lb, s), pos);
}

/* ROWS_ORDER_POS: ascending by position at every level, labels without
 * one after (by string), values ignored; -n folds past the first N. */
static void test_order_pos(void **state)
{
	struct fixture *fx = fx_new(2);
	const struct row *ch;

	(void)state;
	/* string order (and interning order) unlike address order */
	add3(fx, "7f00-7f10 libc", "text", NULL, 1, 1);
	add3(fx, "fff600-fff601 vsyscall", "x", NULL, 100, 1);
	add3(fx, "400000-401000 prog", "data", NULL, 50, 1);
	add3(fx, "400000-401000 prog", "bss", NULL, 60, 1);
	add3(fx, "400000-401000 prog", "abs", NULL, 70, 1);
	add3(fx, "[unplaced]", "u", NULL, 1000, 1);
	at_pos(fx, "7f00-7f10 libc", 0x7f00);
	at_pos(fx, "fff600-fff601 vsyscall", 0xfff600);
	at_pos(fx, "400000-401000 prog", 0x400000);
	at_pos(fx, "data", 0x10);
	at_pos(fx, "bss", 0x20);
	rowtree_set_order(fx->t, ROWS_ORDER_POS);
	rowtree_finish(fx->t, COL_FILE, 0);
	ch = fx->t->total.children;
	assert_int_equal(fx->t->total.nchildren, 4);
	assert_string_equal(name(fx, &ch[0]), "7f00-7f10 libc");
	assert_string_equal(name(fx, &ch[1]), "400000-401000 prog");
	assert_string_equal(name(fx, &ch[2]), "fff600-fff601 vsyscall");
	assert_string_equal(name(fx, &ch[3]), "[unplaced]");
	assert_int_equal(ch[1].nchildren, 3);
	assert_string_equal(name(fx, &ch[1].children[0]), "data");
	assert_string_equal(name(fx, &ch[1].children[1]), "bss");
	assert_string_equal(name(fx, &ch[1].children[2]), "abs");
	fx_free(fx);

	fx = fx_new(1);
	add3(fx, "c", NULL, NULL, 1, 0);
	add3(fx, "a", NULL, NULL, 2, 0);
	add3(fx, "b", NULL, NULL, 3, 0);
	at_pos(fx, "c", 1);
	at_pos(fx, "a", 2);
	at_pos(fx, "b", 3);
	rowtree_set_order(fx->t, ROWS_ORDER_POS);
	rowtree_finish(fx->t, COL_FILE, 1);
	ch = fx->t->total.children;
	assert_int_equal(fx->t->total.nchildren, 2);
	assert_string_equal(name(fx, &ch[0]), "c");
	assert_string_equal(name(fx, &ch[1]), "[2 others]");
	assert_int_equal(ch[1].vals[COL_FILE], 5);
	fx_free(fx);
}

/* ROWS_ORDER_NAME: ascending by label string, whatever the values. */
static void test_order_name(void **state)
{
	struct fixture *fx = fx_new(1);
	const struct row *ch;

	(void)state;
	add3(fx, "zeta", NULL, NULL, 100, 0);
	add3(fx, "alpha", NULL, NULL, 1, 0);
	add3(fx, "Upper", NULL, NULL, 50, 0);
	at_pos(fx, "zeta", 0); /* positions play no part */
	rowtree_set_order(fx->t, ROWS_ORDER_NAME);
	rowtree_finish(fx->t, COL_FILE, 0);
	ch = fx->t->total.children;
	assert_string_equal(name(fx, &ch[0]), "Upper");
	assert_string_equal(name(fx, &ch[1]), "alpha");
	assert_string_equal(name(fx, &ch[2]), "zeta");
	fx_free(fx);
}

/* Deterministic pseudo-random numbers (64-bit LCG, top bits). */
static uint64_t rnd_state = 42;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rnd_state >> 33);
}

/* Depth 1, 2 and 3 trees fed random leaves; each leaf's expected sums are
 * kept in a plain array indexed by its coordinates and compared. */
static void check_random_depth(size_t depth, size_t limit)
{
	enum { W = 6 };
	uint64_t expect[W][W][W][2];
	uint64_t tot[2] = {0, 0};
	struct fixture *fx = fx_new(depth);
	char s[3][16];
	size_t i, n, leaves = 0;

	memset(expect, 0, sizeof(expect));
	for (n = 0; n < 3000; n++) {
		size_t x = rnd() % W, y = rnd() % W, z = rnd() % W;
		uint64_t f = rnd() % 5000, v = rnd() % 3;

		if (depth < 3)
			z = 0;
		if (depth < 2)
			y = 0;
		snprintf(s[0], sizeof(s[0]), "f%zu", x);
		snprintf(s[1], sizeof(s[1]), "s%zu", y);
		snprintf(s[2], sizeof(s[2]), "y%zu", z);
		add3(fx, s[0], s[1], s[2], f, v);
		expect[x][y][z][0] += f;
		expect[x][y][z][1] += v;
		tot[0] += f;
		tot[1] += v;
	}
	rowtree_finish(fx->t, COL_FILE, limit);
	assert_int_equal(fx->t->total.vals[COL_FILE], tot[0]);
	assert_int_equal(fx->t->total.vals[COL_VM], tot[1]);
	leaves = check_tree(fx, &fx->t->total, COL_FILE, 0);
	if (!limit) {
		size_t want = 1;

		for (i = 0; i < depth; i++)
			want *= W;
		assert_int_equal(leaves, want); /* every cell was hit */
	}
	/* look every unfolded leaf up by its path */
	for (i = 0; i < fx->t->total.nchildren; i++) {
		const struct row *a = &fx->t->total.children[i];
		size_t j, k;

		if (a->folded)
			continue;
		for (j = 0; j < (depth > 1 ? a->nchildren : 1); j++) {
			const struct row *b = depth > 1 ? &a->children[j] : a;

			if (b->folded)
				continue;
			for (k = 0; k < (depth > 2 ? b->nchildren : 1); k++) {
				const struct row *c =
				    depth > 2 ? &b->children[k] : b;
				size_t x, y = 0, z = 0;

				if (c->folded)
					continue;
				x = atoi(name(fx, a) + 1);
				if (depth > 1)
					y = atoi(name(fx, b) + 1);
				if (depth > 2)
					z = atoi(name(fx, c) + 1);
				assert_int_equal(c->nchildren, 0);
				assert_int_equal(c->vals[COL_FILE],
						 expect[x][y][z][0]);
				assert_int_equal(c->vals[COL_VM],
						 expect[x][y][z][1]);
			}
		}
	}
	fx_free(fx);
}

static void test_depths(void **state)
{
	(void)state;
	check_random_depth(1, 0);
	check_random_depth(2, 0);
	check_random_depth(3, 0);
	check_random_depth(3, 4);
	check_random_depth(2, 1);
}

/* Ties of values told apart by label strings with long common prefixes,
 * strings that end within 8 bytes and strings that are prefixes of
 * others: once with every label under every parent (the rows at least
 * twice their labels: the labels are ranked once, rowsort.c
 * rows_rank_labels()), once with labels of their own per parent (each
 * level compares its ties' strings); check_tree() checks the order
 * against strcmp. */
static void test_ties_prefixes(void **state)
{
	static const char *const stems[] = {
	    "",		  "a",
	    "ab",	  "abcdefg",
	    "abcdefgh",	  "abcdefghi",
	    "abcdefgh0",  "v8::internal::",
	    "v8::intern", "v8::internal::Heap::"};

	(void)state;
	for (int shared = 0; shared < 2; shared++) {
		struct fixture *fx = fx_new(2);
		char a[32], b[64];

		for (size_t g = 0; g < 12; g++) {
			snprintf(a, sizeof(a), "group%zu", g);
			for (size_t i = 0; i < 60; i++) {
				snprintf(
				    b, sizeof(b), "%s%s%zu", shared ? "" : a,
				    stems[i % (sizeof(stems) / sizeof(*stems))],
				    i / 7);
				add3(fx, a, b, NULL, rnd() % 3, rnd() % 2);
			}
		}
		rowtree_finish(fx->t, COL_FILE, 0);
		check_tree(fx, &fx->t->total, COL_FILE, 0);
		fx_free(fx);
	}
}

/* A limit keeps the rows a full sort puts first, in its order, at every
 * level, and folds the rest into sums: each level of a tree finished
 * with limits 1, 3 and 50 against the same tree finished without. */
static void check_limit_level(const struct fixture *fx, const struct row *full,
			      const struct row *lim, size_t limit)
{
	size_t kept = limit < full->nchildren ? limit : full->nchildren;
	uint64_t rest = 0;

	assert_int_equal(lim->nchildren,
			 kept + (full->nchildren > limit ? 1 : 0));
	for (size_t i = 0; i < kept; i++) {
		assert_string_equal(name(fx, &full->children[i]),
				    name(fx, &lim->children[i]));
		assert_int_equal(full->children[i].vals[COL_FILE],
				 lim->children[i].vals[COL_FILE]);
		check_limit_level(fx, &full->children[i], &lim->children[i],
				  limit);
	}
	for (size_t i = kept; i < full->nchildren; i++)
		rest += full->children[i].vals[COL_FILE];
	if (full->nchildren > limit) {
		assert_int_equal(lim->children[kept].folded,
				 full->nchildren - limit);
		assert_int_equal(lim->children[kept].vals[COL_FILE], rest);
	}
}

static void test_limit_like_full(void **state)
{
	static const size_t limits[] = {1, 3, 50};

	(void)state;
	for (size_t k = 0; k < sizeof(limits) / sizeof(*limits); k++) {
		struct fixture *full = fx_new(2), *lim = fx_new(2);
		char a[32], b[64];

		for (size_t n = 0; n < 4000; n++) {
			uint64_t f = rnd() % 4, v = rnd() % 2;

			snprintf(a, sizeof(a), "group%u", rnd() % 9);
			snprintf(b, sizeof(b), "v8::internal::sym%u",
				 rnd() % 300);
			add3(full, a, b, NULL, f, v);
			add3(lim, a, b, NULL, f, v);
		}
		rowtree_finish(full->t, COL_FILE, 0);
		rowtree_finish(lim->t, COL_FILE, limits[k]);
		check_limit_level(full, &full->t->total, &lim->t->total,
				  limits[k]);
		fx_free(full);
		fx_free(lim);
	}
}

/* Two finished trees are the same: rows, their labels' strings, every
 * value, RES% denominators and folded counts, level by level. */
static void check_same_rows(const struct fixture *a, const struct row *x,
			    const struct fixture *b, const struct row *y)
{
	assert_int_equal(x->nchildren, y->nchildren);
	assert_memory_equal(x->vals, y->vals, sizeof(x->vals));
	assert_int_equal(x->vm_sum, y->vm_sum);
	assert_int_equal(x->folded, y->folded);
	if (x->label != LABEL_NONE || y->label != LABEL_NONE)
		assert_string_equal(name(a, x), name(b, y));
	for (size_t i = 0; i < x->nchildren; i++)
		check_same_rows(a, &x->children[i], b, &y->children[i]);
}

/* A tree still holding leaves, given before it is finished: diff
 * refuses it (it cannot make the rows of a const tree, and would have
 * found none), a timeline makes its rows first and holds its values. */
static void defer_leaves_unfinished(void)
{
	struct fixture *a = fx_new(1), *b = fx_new(1);
	struct rows_point pt = {0, 0, 1};
	uint64_t vals[COL__COUNT] = {0};
	uint32_t id = labels_intern(a->lb, "x");
	struct rows_timeline *tl;
	struct rowtree *t;

	vals[COL_FILE] = vals[COL_VM] = 10;
	rowtree_defer_leaves(a->t);
	rowtree_add(a->t, &id, vals);
	assert_non_null(a->t->leaves);
	rowtree_add(b->t, &id, vals);
	assert_null(rowtree_diff(a->t, b->t, NULL, 0));
	assert_null(rowtree_diff(b->t, a->t, NULL, 0));
	tl = rowtree_timeline_begin(a->lb, 1, &pt, 1);
	assert_int_equal(rowtree_timeline_add(tl, 0, a->t), 0);
	a->t = NULL; /* the timeline took it */
	t = rowtree_timeline_end(tl);
	rowtree_finish(t, COL_FILE, 0);
	assert_int_equal(t->total.nchildren, 1);
	assert_int_equal(t->total.vals[COL_FILE], 10);
	rowtree_free(t);
	fx_free(a);
	fx_free(b);
}

/* A tree whose rows stay leaves until finished (rowtree_defer_leaves)
 * finishes as the same tree of rows would: every order and limit, values
 * tied and repeated, labels added more than once; and where an add the
 * leaves cannot hold comes (another column, a tag), from then on. */
static void test_defer_leaves(void **state)
{
	static const size_t limits[] = {0, 1, 3, 50, 299, 300, 301, 1000};
	static const enum rows_order order[] = {
	    ROWS_ORDER_VALUE, ROWS_ORDER_BOTH, ROWS_ORDER_NAME, ROWS_ORDER_POS};
	static const enum col_id sort[] = {COL_FILE, COL_VM, COL_RSS};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(limits) * ARRAY_SIZE(order) * 3 * 3;
	     k++) {
		size_t lim = limits[k % ARRAY_SIZE(limits)];
		size_t o = k / ARRAY_SIZE(limits) % ARRAY_SIZE(order);
		size_t s = k / ARRAY_SIZE(limits) / ARRAY_SIZE(order) % 3;
		int late =
		    (int)(k / ARRAY_SIZE(limits) / ARRAY_SIZE(order) / 3);
		struct fixture *rows = fx_new(1), *leaves = fx_new(1);
		uint64_t vals[COL__COUNT] = {0};

		rowtree_defer_leaves(leaves->t);
		for (size_t n = 0; n < 2000; n++) {
			struct fixture *fx[2] = {rows, leaves};
			char a[32];

			/* 300 labels; ties of values, shared 8-byte prefixes */
			snprintf(a, sizeof(a), "v8::internal::sym%u",
				 rnd() % 300);
			vals[COL_FILE] = rnd() % 3 * 100;
			vals[COL_VM] = rnd() % 2 * 100;
			if (late && n == 1500) /* late 1: another column */
				vals[COL_RSS] = late == 1 ? 4096 : 0;
			for (int f = 0; f < 2; f++) {
				uint32_t id = labels_intern(fx[f]->lb, a);

				if (late == 2 && n == 1500) /* and a tag */
					rowtree_set_tag(fx[f]->t, 7);
				rowtree_add(fx[f]->t, &id, vals);
			}
		}
		for (int f = 0; f < 2; f++) {
			struct fixture *fx = f ? leaves : rows;

			rowtree_set_order(fx->t, order[o]);
			rowtree_finish(fx->t, sort[s], lim);
		}
		assert_null(leaves->t->leaves);
		check_same_rows(rows, &rows->t->total, leaves,
				&leaves->t->total);
		fx_free(rows);
		fx_free(leaves);
	}
	/* not a tree of depth 1: rows as ever */
	{
		struct fixture *fx = fx_new(2);

		rowtree_defer_leaves(fx->t);
		assert_null(fx->t->leaves);
		fx_free(fx);
	}
	defer_leaves_unfinished();
}

/* One million distinct leaves (two adds each) under few parents, then a
 * million under one parent: sums, order and folding stay right at that
 * size. bench/bench_rows times the same trees. */
static void test_million(void **state)
{
	enum { N = 1000000 };
	struct fixture *fx = fx_new(2);
	uint32_t *ids = malloc(N * sizeof(*ids)), top[4], path[2];
	uint64_t vals[COL__COUNT] = {0}, want = 0;
	char s[32];
	size_t i, pass, leaves;

	(void)state;
	for (i = 0; i < N; i++) {
		snprintf(s, sizeof(s), "sym%zu", i);
		ids[i] = labels_intern(fx->lb, s);
	}
	for (i = 0; i < 4; i++) {
		snprintf(s, sizeof(s), "lib%zu.so", i);
		top[i] = labels_intern(fx->lb, s);
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < N; i++) {
			size_t j = (i * 7919) % N; /* scattered order */

			path[0] = top[j % 4];
			path[1] = ids[j];
			vals[COL_FILE] = j % 4096;
			vals[COL_RSS] = 4096;
			want += vals[COL_FILE];
			rowtree_add(fx->t, path, vals);
		}
	}
	rowtree_finish(fx->t, COL_FILE, 0);
	assert_int_equal(fx->t->total.vals[COL_FILE], want);
	assert_int_equal(fx->t->total.vals[COL_RSS], 2ull * N * 4096);
	leaves = check_tree(fx, &fx->t->total, COL_FILE, 0);
	assert_int_equal(leaves, N);
	rowtree_free(fx->t);

	/* one level, one million siblings, folded to 10 */
	fx->t = rowtree_new(fx->lb, 1);
	for (i = 0; i < N; i++) {
		path[0] = ids[i];
		vals[COL_FILE] = i % 1000;
		rowtree_add(fx->t, path, vals);
	}
	rowtree_finish(fx->t, COL_FILE, 10);
	assert_int_equal(fx->t->total.nchildren, 11);
	assert_int_equal(fx->t->total.children[10].folded, N - 10);
	assert_int_equal(fx->t->total.children[0].vals[COL_FILE], 999);
	check_tree(fx, &fx->t->total, COL_FILE, 0);
	free(ids);
	fx_free(fx);
}

/* rowtree_add_from: the shared columns reach only the rows at depth >=
 * from; the others, vm_sum and the process tag (PROCS) every row. */
static void test_add_from(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	uint64_t vals[COL__COUNT] = {0};
	uint32_t p1[2], p2[2];
	const struct row *a, *b;

	(void)state;
	p1[0] = labels_intern(lb, "1 a");
	p2[0] = labels_intern(lb, "2 b");
	p1[1] = p2[1] = labels_intern(lb, "libc.so.6");
	vals[COL_FILE] = 1000;
	vals[COL_VM] = 400;
	vals[COL_RSS] = 100;
	rowtree_set_tag(t, 1);
	rowtree_add_from(t, p1, vals, 1u << COL_FILE | 1u << COL_VM, 0);
	rowtree_set_tag(t, 2);
	rowtree_add_from(t, p2, vals, 1u << COL_FILE | 1u << COL_VM, 1);
	vals[COL_FILE] = 0;
	rowtree_add_from(t, p2, vals, 1u << COL_VM, 3); /* VM nowhere */
	rowtree_finish(t, COL_RSS, 0);
	/* both processes in the total, each once in its rows */
	assert_int_equal(t->total.vals[COL_PROCS], 2);
	assert_int_equal(t->total.children[0].vals[COL_PROCS], 1);
	assert_int_equal(t->total.children[0].children[0].vals[COL_PROCS], 1);
	assert_int_equal(t->total.children[1].vals[COL_PROCS], 1);
	assert_int_equal(t->total.vals[COL_FILE], 1000);
	assert_int_equal(t->total.vals[COL_VM], 400);
	assert_int_equal(t->total.vals[COL_RSS], 300);
	assert_int_equal(t->total.vm_sum, 1200);
	assert_int_equal(t->total.nchildren, 2);
	a = &t->total.children[0];
	b = &t->total.children[1];
	assert_string_equal(labels_str(lb, a->label), "2 b");
	assert_int_equal(a->vals[COL_FILE], 1000);
	assert_int_equal(a->vals[COL_VM], 400);
	assert_int_equal(a->vals[COL_RSS], 200);
	assert_int_equal(a->vm_sum, 800);
	assert_int_equal(a->children[0].vals[COL_FILE], 1000);
	assert_int_equal(a->children[0].vals[COL_VM], 400);
	assert_int_equal(a->children[0].vm_sum, 800);
	assert_int_equal(b->vals[COL_FILE], 1000);
	assert_int_equal(b->children[0].vals[COL_VM], 400);
	rowtree_free(t);
	labels_free(lb);
}

/* rowtree_add_upto: the rows at depth from..to-1 only, the deeper rows
 * not made; an "[N others]" row's FILE SIZE and VM SIZE at most its
 * parent's (two processes' rows of one file counted once above them). */
static void test_add_upto_others(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	uint64_t vals[COL__COUNT] = {0};
	uint32_t p[2];

	(void)state;
	p[0] = labels_intern(lb, "libc.so.6");
	p[1] = labels_intern(lb, "1000-2000 r-xp libc.so.6");
	vals[COL_FILE] = 5000;
	rowtree_add_upto(t, p, vals, 0, 2); /* the total and the file */
	vals[COL_FILE] = 4096;
	rowtree_add_from(t, p, vals, 1u << COL_FILE, 2); /* the mapping */
	assert_int_equal(t->total.vals[COL_FILE], 5000);
	assert_int_equal(t->total.nchildren, 1);
	assert_int_equal(t->total.children[0].vals[COL_FILE], 5000);
	assert_int_equal(t->total.children[0].nchildren, 1);
	assert_int_equal(t->total.children[0].children[0].vals[COL_FILE], 4096);
	vals[COL_FILE] = 7;
	rowtree_add_upto(t, p, vals, 1, 2); /* the file row only */
	assert_int_equal(t->total.vals[COL_FILE], 5000);
	assert_int_equal(t->total.children[0].vals[COL_FILE], 5007);
	rowtree_free(t);

	t = rowtree_new(lb, 1);
	memset(vals, 0, sizeof(vals));
	vals[COL_FILE] = 1000;
	vals[COL_VM] = 400;
	vals[COL_RSS] = 100;
	for (int i = 0; i < 3; i++) {
		char s[8];

		snprintf(s, sizeof(s), "%d p", i + 1);
		p[0] = labels_intern(lb, s);
		rowtree_add_from(t, p, vals, 1u << COL_FILE | 1u << COL_VM,
				 i ? 1 : 0);
	}
	rowtree_finish(t, COL_RSS, 1);
	assert_int_equal(t->total.nchildren, 2);
	assert_int_equal(t->total.children[1].folded, 2);
	assert_int_equal(t->total.children[1].vals[COL_RSS], 200);
	assert_int_equal(t->total.children[1].vals[COL_FILE], 1000);
	assert_int_equal(t->total.children[1].vals[COL_VM], 400);
	rowtree_free(t);
	labels_free(lb);
}

/* The child of r labelled s, or NULL. */
static const struct row *child_named(const struct fixture *fx,
				     const struct row *r, const char *s)
{
	for (size_t i = 0; i < r->nchildren; i++)
		if (!strcmp(name(fx, &r->children[i]), s))
			return &r->children[i];
	return NULL;
}

/* A row whose rows below only repeat its label down to a leaf becomes a
 * leaf (keys with nothing to add add no level); a repeat with something
 * new below it, or beside it, stays. Sums are kept. */
static void test_repeats(void **state)
{
	struct fixture *fx = fx_new(3);
	const struct row *heap, *libc, *text, *x, *xx;

	(void)state;
	add3(fx, "[heap]", "[heap]", "[heap]", 0, 4096);
	add3(fx, "[heap]", "[heap]", "[heap]", 0, 8192);
	add3(fx, "libc", ".text", "memcpy", 10, 4096);
	add3(fx, "libc", ".text", ".text", 20, 4096);
	add3(fx, "libc", ".data", ".data", 30, 4096);
	add3(fx, "x", "x", "y", 40, 4096);
	rowtree_finish(fx->t, COL_VM, 0);
	heap = child_named(fx, &fx->t->total, "[heap]");
	assert_non_null(heap);
	assert_int_equal(heap->nchildren, 0);
	assert_int_equal(heap->vals[COL_VM], 12288);
	libc = child_named(fx, &fx->t->total, "libc");
	text = child_named(fx, libc, ".text");
	assert_int_equal(text->nchildren, 2); /* memcpy and .text */
	assert_int_equal(child_named(fx, libc, ".data")->nchildren, 0);
	x = child_named(fx, &fx->t->total, "x");
	xx = child_named(fx, x, "x");
	assert_non_null(xx);
	assert_non_null(child_named(fx, xx, "y"));
	assert_int_equal(fx->t->total.vals[COL_VM], 4 * 4096 + 12288);
	assert_int_equal(fx->t->total.vals[COL_FILE], 100);
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_coldefs),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_procs_tagged),
	    cmocka_unit_test(test_depth1_order),
	    cmocka_unit_test(test_sort_other_column),
	    cmocka_unit_test(test_ties),
	    cmocka_unit_test(test_ties_prefixes),
	    cmocka_unit_test(test_limit_like_full),
	    cmocka_unit_test(test_defer_leaves),
	    cmocka_unit_test(test_fold),
	    cmocka_unit_test(test_order_pos),
	    cmocka_unit_test(test_order_name),
	    cmocka_unit_test(test_depths),
	    cmocka_unit_test(test_million),
	    cmocka_unit_test(test_add_from),
	    cmocka_unit_test(test_add_upto_others),
	    cmocka_unit_test(test_repeats),
	};

	return test_run_group(tests, NULL, NULL);
}
