/* test_difftree.c — two row trees merged into a diff tree (new, gone,
 * changed and unchanged rows, renames, order by |change|, -n folding, the
 * csv writer's signed changes) and row trees over time (rows/timeline). */
#include "config.h"

#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "rows/difftree.h"
#include "rows/rows.h"
#include "rows/timeline.h"
#include "tests/testutil.h"

/* Add a leaf "a/b" (depth 2) or "a" (depth 1) with RSS rss and PSS
 * rss/3 in fixed point, FILE SIZE file. */
static void add(struct rowtree *t, const char *a, const char *b,
		uint64_t file, uint64_t rss)
{
	uint32_t path[2];
	uint64_t vals[COL__COUNT] = { 0 };

	path[0] = labels_intern(t->lb, a);
	if (t->depth > 1)
		path[1] = labels_intern(t->lb, b);
	vals[COL_FILE] = file;
	vals[COL_RSS] = rss;
	vals[COL_PSS] = (rss << COL_PSS_SHIFT) / 3;
	rowtree_add(t, path, vals);
}

static const struct diffrow *child(const struct difftree *d,
				   const struct diffrow *r, const char *name)
{
	for (size_t i = 0; i < r->nchildren; i++)
		if (!strcmp(labels_str(d->lb, r->children[i].label), name))
			return &r->children[i];
	return NULL;
}

static void test_merge_states(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 2), *n = rowtree_new(lb, 2);
	struct difftree *d;
	const struct diffrow *r;

	(void)state;
	add(o, "libc", ".text", 100, 40);
	add(o, "libc", ".data", 10, 10);
	add(o, "old.so", ".text", 50, 5);
	add(n, "libc", ".text", 100, 48);
	add(n, "libc", ".data", 10, 10);
	add(n, "new.so", ".text", 70, 7);
	d = diff_merge(o, n, NULL, 0);
	assert_non_null(d);
	assert_int_equal(d->total.old[COL_RSS], 55);
	assert_int_equal(d->total.new[COL_RSS], 65);
	assert_int_equal(d->total.nchildren, 3);
	r = child(d, &d->total, "old.so");
	assert_non_null(r);
	assert_int_equal(r->state, DIFF_GONE);
	assert_int_equal(r->new[COL_FILE], 0);
	r = child(d, &d->total, "new.so");
	assert_int_equal(r->state, DIFF_NEW);
	assert_int_equal(r->old[COL_FILE], 0);
	assert_int_equal(r->children[0].state, DIFF_NEW);
	r = child(d, &d->total, "libc");
	assert_int_equal(r->state, DIFF_BOTH);
	assert_int_equal(r->nchildren, 2);

	/* unchanged libc/.data goes, libc stays for its .text */
	diff_finish(d, COL_RSS, 0);
	assert_int_equal(d->unchanged, 1);
	r = child(d, &d->total, "libc");
	assert_int_equal(r->nchildren, 1);
	assert_string_equal(labels_str(lb, r->children[0].label), ".text");
	/* by |change| of RSS: libc +8, new.so +7, old.so -5 */
	assert_string_equal(labels_str(lb, d->total.children[0].label),
			    "libc");
	assert_string_equal(labels_str(lb, d->total.children[1].label),
			    "new.so");
	assert_string_equal(labels_str(lb, d->total.children[2].label),
			    "old.so");
	/* the total keeps everything */
	assert_int_equal(d->total.old[COL_RSS], 55);
	diff_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

static void test_rename_and_fold(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 1), *n = rowtree_new(lb, 1);
	struct diff_rename rn;
	struct difftree *d;
	char name[16];

	(void)state;
	add(o, "a/lib.so", NULL, 100, 0);
	add(n, "b/lib.so", NULL, 130, 0);
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		add(o, name, NULL, 10, 0);
		add(n, name, NULL, 10 + (uint64_t)i, 0);
	}
	rn.from = labels_intern(lb, "a/lib.so");
	rn.to = labels_intern(lb, "b/lib.so");
	d = diff_merge(o, n, &rn, 1);
	diff_finish(d, COL_FILE, 2);
	/* s0 is unchanged and dropped; lib.so +30, s4 +4, then 3 others */
	assert_int_equal(d->unchanged, 1);
	assert_int_equal(d->total.nchildren, 3);
	assert_string_equal(labels_str(lb, d->total.children[0].label),
			    "b/lib.so");
	assert_int_equal(d->total.children[0].state, DIFF_BOTH);
	assert_int_equal(d->total.children[0].old[COL_FILE], 100);
	assert_string_equal(labels_str(lb, d->total.children[1].label), "s4");
	assert_int_equal(d->total.children[2].folded, 3);
	assert_int_equal(d->total.children[2].old[COL_FILE], 30);
	assert_int_equal(d->total.children[2].new[COL_FILE], 36);
	assert_false(diff_col_is_zero(d, COL_FILE));
	assert_true(diff_col_is_zero(d, COL_SWAP));
	diff_free(d);

	/* different depths cannot be merged */
	rowtree_free(n);
	n = rowtree_new(lb, 2);
	assert_null(diff_merge(o, n, NULL, 0));
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

static void test_csv(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 1), *n = rowtree_new(lb, 1);
	enum col_id cols[] = { COL_RSS, COL_PSS };
	const char *keys[] = { "files" };
	struct out_opts oo = { .fmt = OUT_CSV, .keys = keys, .cols = cols,
			       .ncols = 2 };
	struct difftree *d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(o, "shrunk", NULL, 0, 4096);
	add(n, "shrunk", NULL, 0, 1024);
	add(o, "gone,quoted", NULL, 0, 3);
	d = diff_merge(o, n, NULL, 0);
	diff_finish(d, COL_RSS, 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(diff_write(f, d, &oo), 0);
	fclose(f);
	assert_string_equal(buf,
			    "files,rss_old,rss_new,rss_delta,pss_old,pss_new,"
			    "pss_delta,change\n"
			    "shrunk,4096,1024,-3072,1365.33,341.33,-1024.00,"
			    "changed\n"
			    "\"gone,quoted\",3,0,-3,1.00,0.00,-1.00,gone\n");
	free(buf);
	oo.fmt = OUT_FOLDED;
	assert_int_equal(diff_write(stdout, d, &oo), -EINVAL);
	diff_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

static void test_timeline(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t[3];
	struct timeline_point pts[3] = { { 0, 0, 1 }, { 1000, 1000, 1 },
					 { 2000, 2500, 2 } };
	enum col_id cols[] = { COL_RSS, COL_FILE };
	struct timeline *tl;

	(void)state;
	for (int i = 0; i < 3; i++)
		t[i] = rowtree_new(lb, 1);
	add(t[0], "heap", NULL, 0, 10);
	add(t[1], "heap", NULL, 0, 50);
	add(t[2], "heap", NULL, 0, 20);
	add(t[0], "libc", NULL, 7, 30);
	add(t[1], "libc", NULL, 7, 30);
	add(t[2], "libc", NULL, 7, 30);
	add(t[2], "late", NULL, 0, 5);
	add(t[2], "small", NULL, 0, 1);
	tl = timeline_build(t, pts, 3, cols, 2, 2);
	assert_non_null(tl);
	/* by peak RSS: heap (50), libc (30), then late+small folded */
	assert_int_equal(tl->nseries, 3);
	assert_string_equal(labels_str(lb, tl->series[0].path[0]), "heap");
	assert_int_equal(tl->series[0].vals[1 * 2 + 0], 50);
	assert_int_equal(tl->series[1].vals[2 * 2 + 1], 7);
	assert_null(tl->series[2].path);
	assert_int_equal(tl->series[2].folded, 2);
	assert_int_equal(tl->series[2].vals[0], 0);
	assert_int_equal(tl->series[2].vals[2 * 2], 6);
	for (int p = 0; p < 3; p++) {
		uint64_t s = 0;

		for (size_t i = 0; i < tl->nseries; i++)
			s += tl->series[i].vals[p * 2];
		assert_int_equal(s, tl->total[p * 2]);
	}
	assert_int_equal(tl->points[2].time_last, 2500);
	timeline_free(tl);
	assert_null(timeline_build(t, pts, 0, cols, 2, 0));
	for (int i = 0; i < 3; i++)
		rowtree_free(t[i]);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_states),
		cmocka_unit_test(test_rename_and_fold),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_timeline),
	};

	return test_run_group(tests, NULL, NULL);
}
