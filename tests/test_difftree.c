// SPDX-License-Identifier: GPL-2.0-or-later
/* test_difftree.c — the row trees of several value sets (rows/merge.c):
 * two trees merged into a diff tree (new, gone, changed and unchanged
 * rows, renames, order by |change|, -n folding, the csv writer's signed
 * changes, the table fitted to a width) and trees over time (series
 * ranked by peak and folded, the table's choice of points). */
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
#include "rows/output.h"
#include "rows/rows.h"
#include "tests/testutil.h"

/* Add a leaf "a/b" (depth 2) or "a" (depth 1) with RSS rss and PSS
 * rss/3 in fixed point, FILE SIZE file. */
static void add(struct rowtree *t, const char *a, const char *b, uint64_t file,
		uint64_t rss)
{
	uint32_t path[2];
	uint64_t vals[COL__COUNT] = {0};

	path[0] = labels_intern(t->lb, a);
	if (t->depth > 1)
		path[1] = labels_intern(t->lb, b);
	vals[COL_FILE] = file;
	vals[COL_RSS] = rss;
	vals[COL_PSS] = (rss << COL_PSS_SHIFT) / 3;
	rowtree_add(t, path, vals);
}

static const struct row *child(const struct rowtree *d, const struct row *r,
			       const char *name)
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
	struct rowtree *d;
	const struct row *r;

	(void)state;
	add(o, "libc", ".text", 100, 40);
	add(o, "libc", ".data", 10, 10);
	add(o, "old.so", ".text", 50, 5);
	add(n, "libc", ".text", 100, 48);
	add(n, "libc", ".data", 10, 10);
	add(n, "new.so", ".text", 70, 7);
	d = rowtree_diff(o, n, NULL, 0);
	assert_non_null(d);
	assert_int_equal(d->total.vals[COL_RSS], 55);
	assert_int_equal(row_set(&d->total, 1)[COL_RSS], 65);
	assert_int_equal(d->total.nchildren, 3);
	r = child(d, &d->total, "old.so");
	assert_non_null(r);
	assert_int_equal(r->state, ROW_GONE);
	assert_int_equal(row_set(r, 1)[COL_FILE], 0);
	r = child(d, &d->total, "new.so");
	assert_int_equal(r->state, ROW_NEW);
	assert_int_equal(r->vals[COL_FILE], 0);
	assert_int_equal(r->children[0].state, ROW_NEW);
	r = child(d, &d->total, "libc");
	assert_int_equal(r->state, ROW_BOTH);
	assert_int_equal(r->nchildren, 2);

	/* unchanged libc/.data goes, libc stays for its .text */
	rowtree_finish(d, COL_RSS, 0);
	assert_int_equal(d->unchanged, 1);
	r = child(d, &d->total, "libc");
	assert_int_equal(r->nchildren, 1);
	assert_string_equal(labels_str(lb, r->children[0].label), ".text");
	/* by |change| of RSS: libc +8, new.so +7, old.so -5 */
	assert_string_equal(labels_str(lb, d->total.children[0].label), "libc");
	assert_string_equal(labels_str(lb, d->total.children[1].label),
			    "new.so");
	assert_string_equal(labels_str(lb, d->total.children[2].label),
			    "old.so");
	/* the total keeps everything */
	assert_int_equal(d->total.vals[COL_RSS], 55);
	rowtree_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

static void test_rename_and_fold(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 1), *n = rowtree_new(lb, 1);
	struct diff_rename rn = {0};
	struct rowtree *d;
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
	rn.levels = 1; /* the outermost key's */
	d = rowtree_diff(o, n, &rn, 1);
	rowtree_finish(d, COL_FILE, 2);
	/* s0 is unchanged and dropped; lib.so +30, s4 +4, then 3 others */
	assert_int_equal(d->unchanged, 1);
	assert_int_equal(d->total.nchildren, 3);
	assert_string_equal(labels_str(lb, d->total.children[0].label),
			    "b/lib.so");
	assert_int_equal(d->total.children[0].state, ROW_BOTH);
	assert_int_equal(d->total.children[0].vals[COL_FILE], 100);
	assert_string_equal(labels_str(lb, d->total.children[1].label), "s4");
	assert_int_equal(d->total.children[2].folded, 3);
	assert_int_equal(d->total.children[2].vals[COL_FILE], 30);
	assert_int_equal(row_set(&d->total.children[2], 1)[COL_FILE], 36);
	assert_false(rowtree_col_is_zero(d, COL_FILE));
	assert_true(rowtree_col_is_zero(d, COL_SWAP));
	rowtree_free(d);

	/* different depths cannot be merged */
	rowtree_free(n);
	n = rowtree_new(lb, 2);
	assert_null(rowtree_diff(o, n, NULL, 0));
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

/* A rename is made at the levels it names only: a symbol spelled as
 * OLD's path (a program "main" with a function main) stays itself. */
static void test_rename_level(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 2), *n = rowtree_new(lb, 2);
	struct diff_rename rn = {0};
	struct rowtree *d;
	const struct row *f;

	(void)state;
	add(o, "main", "main", 10, 0);
	add(o, "main", "foo", 20, 0);
	add(n, "foo", "main", 10, 0);
	add(n, "foo", "foo", 25, 0);
	rn.from = labels_intern(lb, "main");
	rn.to = labels_intern(lb, "foo");
	rn.levels = 1; /* the files level only */
	d = rowtree_diff(o, n, &rn, 1);
	rowtree_finish(d, COL_FILE, 0);
	assert_int_equal(d->total.nchildren, 1);
	f = &d->total.children[0];
	assert_string_equal(labels_str(lb, f->label), "foo");
	assert_int_equal(f->state, ROW_BOTH);
	/* main is unchanged (left out); foo 20 -> 25, one row */
	assert_int_equal(f->nchildren, 1);
	assert_string_equal(labels_str(lb, f->children[0].label), "foo");
	assert_int_equal(f->children[0].state, ROW_BOTH);
	assert_int_equal(f->children[0].vals[COL_FILE], 20);
	assert_int_equal(row_set(&f->children[0], 1)[COL_FILE], 25);
	assert_int_equal(d->unchanged, 1);
	rowtree_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

/* A rename made beside its target only: under a process of both sides
 * OLD's stale label of a file is NEW's path; under a process NEW lacks
 * (gone) it stays OLD's own label, not the path with OLD's bytes. */
static void test_rename_beside(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 2), *n = rowtree_new(lb, 2);
	struct diff_rename rn = {0};
	struct rowtree *d;
	const struct row *p, *f;

	(void)state;
	add(o, "1 a", "[deleted] /l.so", 0, 10);
	add(o, "2 b", "[deleted] /l.so", 0, 5);
	add(n, "1 a", "/l.so", 0, 12);
	rn.from = labels_intern(lb, "[deleted] /l.so");
	rn.to = labels_intern(lb, "/l.so");
	rn.levels = 2; /* the files level, inside pids */
	rn.beside = true;
	d = rowtree_diff(o, n, &rn, 1);
	rowtree_finish(d, COL_RSS, 0);
	p = child(d, &d->total, "1 a");
	assert_non_null(p);
	assert_int_equal(p->nchildren, 1);
	f = child(d, p, "/l.so");
	assert_non_null(f);
	assert_int_equal(f->state, ROW_BOTH);
	assert_int_equal(f->vals[COL_RSS], 10);
	assert_int_equal(row_set(f, 1)[COL_RSS], 12);
	p = child(d, &d->total, "2 b");
	assert_non_null(p);
	assert_int_equal(p->state, ROW_GONE);
	assert_null(child(d, p, "/l.so"));
	f = child(d, p, "[deleted] /l.so");
	assert_non_null(f);
	assert_int_equal(f->vals[COL_RSS], 5);
	rowtree_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

static void test_csv(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 1), *n = rowtree_new(lb, 1);
	enum col_id cols[] = {COL_RSS, COL_PSS};
	const char *keys[] = {"files"};
	struct out_opts oo = {
	    .fmt = OUT_CSV, .keys = keys, .cols = cols, .ncols = 2};
	struct rowtree *d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(o, "shrunk", NULL, 0, 4096);
	add(n, "shrunk", NULL, 0, 1024);
	add(o, "gone,quoted", NULL, 0, 3);
	d = rowtree_diff(o, n, NULL, 0);
	rowtree_finish(d, COL_RSS, 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(out_write(f, d, &oo), 0);
	fclose(f);
	assert_string_equal(buf,
			    "files,rss_old,rss_new,rss_delta,pss_old,pss_new,"
			    "pss_delta,change\n"
			    "shrunk,4096,1024,-3072,1365.33,341.33,-1024.00,"
			    "changed\n"
			    "\"gone,quoted\",3,0,-3,1.00,0.00,-1.00,gone\n");
	free(buf);
	oo.fmt = OUT_FOLDED;
	assert_int_equal(out_write(stdout, d, &oo), -EINVAL);
	rowtree_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

/* Render t with o into a string; caller frees. */
static char *render(const struct rowtree *t, const struct out_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(out_write(f, t, o), 0);
	fclose(f);
	return buf;
}

/* The widest line of s in code points. */
static size_t widest(const char *s)
{
	size_t w = 0, cur = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			w = cur > w ? cur : w;
			cur = 0;
		} else if (((unsigned char)*s & 0xc0) != 0x80) {
			cur++;
		}
	}
	return cur > w ? cur : w;
}

/* A diff table fits its width: labels cut in the middle, the [new] mark
 * kept; without a width, labels are whole. */
static void test_diff_table_width(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *o = rowtree_new(lb, 1), *n = rowtree_new(lb, 1);
	enum col_id cols[] = {COL_RSS, COL_PSS};
	const char *keys[] = {"files"};
	const char *longname = "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1."
			       "and-some-more-to-be-long";
	struct out_opts oo = {.fmt = OUT_TABLE,
			      .keys = keys,
			      .cols = cols,
			      .ncols = 2,
			      .width = 80};
	struct rowtree *d;
	char *s;

	(void)state;
	add(o, "libc", NULL, 0, 4096);
	add(n, "libc", NULL, 0, 8192);
	add(n, longname, NULL, 0, 1024);
	d = rowtree_diff(o, n, NULL, 0);
	rowtree_finish(d, COL_RSS, 0);
	s = render(d, &oo);
	assert_int_equal(widest(s), 80);
	assert_non_null(strstr(s, "    /usr/l\u2026be-long [new]\n"));
	assert_non_null(strstr(s, "    libc\n"));
	free(s);
	oo.width = 0;
	s = render(d, &oo);
	assert_non_null(strstr(s, longname));
	assert_true(widest(s) > 80);
	free(s);
	rowtree_free(d);
	rowtree_free(o);
	rowtree_free(n);
	labels_free(lb);
}

static void test_timeline(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t[3], *tl;
	struct rows_point pts[3] = {
	    {0, 0, 1}, {1000, 1000, 1}, {2000, 2500, 2}};
	const struct row *r;

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
	tl = rowtree_timeline(t, pts, 3);
	assert_non_null(tl);
	assert_null(t[0]); /* taken: freed once read */
	assert_int_equal(tl->kind, ROWS_TIMELINE);
	assert_int_equal(tl->nsets, 3);
	rowtree_finish(tl, COL_RSS, 2);
	/* by peak RSS: heap (50), libc (30), then late+small folded */
	r = tl->total.children;
	assert_int_equal(tl->total.nchildren, 3);
	assert_string_equal(labels_str(lb, r[0].label), "heap");
	assert_int_equal(row_set(&r[0], 1)[COL_RSS], 50);
	assert_int_equal(row_set(&r[1], 2)[COL_FILE], 7);
	assert_int_equal(r[2].folded, 2);
	assert_string_equal(labels_str(lb, r[2].label), "[2 others]");
	assert_int_equal(r[2].vals[COL_RSS], 0);
	assert_int_equal(row_set(&r[2], 2)[COL_RSS], 6);
	for (size_t p = 0; p < 3; p++) {
		uint64_t s = 0;

		for (size_t i = 0; i < tl->total.nchildren; i++)
			s += row_set(&r[i], p)[COL_RSS];
		assert_int_equal(s, row_set(&tl->total, p)[COL_RSS]);
	}
	assert_int_equal(tl->points[2].time_last, 2500);
	rowtree_free(tl);
	assert_null(rowtree_timeline(t, pts, 0));
	for (int i = 0; i < 3; i++)
		rowtree_free(t[i]);
	labels_free(lb);
}

/* A timeline built point by point, out of order, one point never added
 * (0 everywhere); a tree of another depth does not fit. */
static void test_timeline_incremental(void **state)
{
	struct labels *lb = labels_new();
	struct rows_point pts[3] = {{0, 0, 1}, {10, 10, 0}, {20, 20, 1}};
	struct rows_timeline *b = rowtree_timeline_begin(lb, 1, pts, 3);
	struct rowtree *t = rowtree_new(lb, 1), *deep = rowtree_new(lb, 2);
	struct rowtree *tl;
	const struct row *r;

	(void)state;
	assert_non_null(b);
	assert_null(rowtree_timeline_begin(lb, 0, pts, 3));
	assert_null(rowtree_timeline_begin(lb, 1, pts, 0));
	add(t, "heap", NULL, 0, 20);
	assert_int_equal(rowtree_timeline_add(b, 2, t), 0);
	assert_int_equal(rowtree_timeline_add(b, 3, deep), -1);
	assert_int_equal(rowtree_timeline_add(b, 0, deep), -1);
	rowtree_free(deep);
	t = rowtree_new(lb, 1);
	add(t, "libc", NULL, 7, 30);
	add(t, "heap", NULL, 0, 10);
	assert_int_equal(rowtree_timeline_add(b, 0, t), 0);
	tl = rowtree_timeline_end(b);
	assert_null(rowtree_timeline_end(NULL));
	assert_int_equal(tl->nsets, 3);
	r = tl->total.children;
	assert_int_equal(tl->total.nchildren, 2);
	assert_string_equal(labels_str(lb, r[0].label), "heap");
	assert_int_equal(row_set(&r[0], 0)[COL_RSS], 10);
	assert_int_equal(row_set(&r[0], 1)[COL_RSS], 0);
	assert_int_equal(row_set(&r[0], 2)[COL_RSS], 20);
	assert_int_equal(row_set(&r[1], 2)[COL_RSS], 0);
	assert_int_equal(row_set(&tl->total, 0)[COL_RSS], 40);
	assert_int_equal(row_set(&tl->total, 1)[COL_RSS], 0);
	assert_int_equal(row_set(&tl->total, 2)[COL_RSS], 20);
	rowtree_free(tl);
	labels_free(lb);
}

/* Series of a depth-2 timeline are whole paths, ranked across parents;
 * ties go by the path's labels. */
static void test_timeline_paths(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t[2], *tl;
	struct rows_point pts[2] = {{0, 0, 1}, {1, 1, 1}};
	enum col_id cols[] = {COL_RSS};
	const char *keys[] = {"files", "sections"};
	struct out_opts oo = {
	    .fmt = OUT_CSV, .keys = keys, .cols = cols, .ncols = 1};
	char *s;

	(void)state;
	for (int i = 0; i < 2; i++)
		t[i] = rowtree_new(lb, 2);
	add(t[0], "libc", ".text", 0, 40);
	add(t[0], "libc", ".data", 0, 5);
	add(t[1], "bash", ".text", 0, 20);
	add(t[1], "libc", ".data", 0, 20);
	tl = rowtree_timeline(t, pts, 2);
	rowtree_finish(tl, COL_RSS, 0);
	s = render(tl, &oo);
	assert_string_equal(s, "files,sections,snapshot,time,rss\n"
			       "libc,.text,0,0.000000,40\n"
			       "libc,.text,1,0.000000,0\n"
			       "bash,.text,0,0.000000,0\n"
			       "bash,.text,1,0.000000,20\n"
			       "libc,.data,0,0.000000,5\n"
			       "libc,.data,1,0.000000,20\n");
	free(s);
	rowtree_free(tl);
	for (int i = 0; i < 2; i++)
		rowtree_free(t[i]);
	labels_free(lb);
}

/* Series that tie on their peak and share their head's label are told
 * apart down their paths, also where the tree's labels are ranked once
 * (rowsort.c: the rows at least twice their labels): every series of two
 * files over the same four sections, all at one value. */
static void test_timeline_ties_ranked(void **state)
{
	static const char *const files[] = {"libc", "bash"};
	static const char *const secs[] = {".text", ".data", ".rodata", ".bss"};
	struct labels *lb = labels_new();
	struct rowtree *t[1], *tl;
	struct rows_point pts[1] = {{0, 0, 1}};
	enum col_id cols[] = {COL_RSS};
	const char *keys[] = {"files", "sections"};
	struct out_opts oo = {
	    .fmt = OUT_CSV, .keys = keys, .cols = cols, .ncols = 1};
	char *s;

	(void)state;
	t[0] = rowtree_new(lb, 2);
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < 4; i++)
			add(t[0], files[f], secs[i], 0, 10);
	tl = rowtree_timeline(t, pts, 1);
	rowtree_finish(tl, COL_RSS, 0);
	s = render(tl, &oo);
	assert_string_equal(s, "files,sections,snapshot,time,rss\n"
			       "bash,.bss,0,0.000000,10\n"
			       "bash,.data,0,0.000000,10\n"
			       "bash,.rodata,0,0.000000,10\n"
			       "bash,.text,0,0.000000,10\n"
			       "libc,.bss,0,0.000000,10\n"
			       "libc,.data,0,0.000000,10\n"
			       "libc,.rodata,0,0.000000,10\n"
			       "libc,.text,0,0.000000,10\n");
	free(s);
	rowtree_free(tl);
	labels_free(lb);
}

/* The timeline table shows the points that fit its width: the first, the
 * last and the peak of the TOTAL kept, and says so; csv has every one. */
static void test_timeline_table_width(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t[40], *tl;
	struct rows_point pts[40];
	enum col_id cols[] = {COL_RSS};
	const char *keys[] = {"files"};
	struct out_opts oo = {.fmt = OUT_TABLE,
			      .keys = keys,
			      .cols = cols,
			      .ncols = 1,
			      .width = 80};
	char *s, *line, *note;

	(void)state;
	for (int i = 0; i < 40; i++) {
		t[i] = rowtree_new(lb, 1);
		pts[i] = (struct rows_point){(uint64_t)i * 1000000000, 0, 1};
		/* the peak at point 17, which even spacing would miss */
		add(t[i], "heap", NULL, 0, i == 17 ? 1 << 30 : 4096);
	}
	tl = rowtree_timeline(t, pts, 40);
	rowtree_finish(tl, COL_RSS, 0);
	s = render(tl, &oo);
	note = strstr(s, "5 of 40 snapshots shown (first, last, peak of "
			 "TOTAL RSS, evenly between); csv and json have "
			 "all\n");
	assert_non_null(note);
	*note = 0; /* the table's lines fit; the footer is not cut */
	assert_true(widest(s) <= 80);
	/* (80 - 3 - 24) / 9 = 5 points */
	line = strchr(s, '\n') + 1;
	assert_memory_equal(line,
			    "   0.000s  10.000s  17.000s  29.000s  "
			    "39.000s\n",
			    46);
	assert_non_null(strstr(s, "1.00Gi"));
	free(s);
	oo.width = 0;
	s = render(tl, &oo);
	assert_null(strstr(s, "snapshots shown"));
	assert_non_null(strstr(s, "39.000s\n"));
	free(s);
	oo.fmt = OUT_CSV;
	s = render(tl, &oo);
	assert_non_null(strstr(s, "heap,39,39.000000,4096\n"));
	free(s);
	rowtree_free(tl);
	for (int i = 0; i < 40; i++)
		rowtree_free(t[i]);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge_states),
	    cmocka_unit_test(test_rename_and_fold),
	    cmocka_unit_test(test_rename_level),
	    cmocka_unit_test(test_rename_beside),
	    cmocka_unit_test(test_csv),
	    cmocka_unit_test(test_diff_table_width),
	    cmocka_unit_test(test_timeline),
	    cmocka_unit_test(test_timeline_incremental),
	    cmocka_unit_test(test_timeline_paths),
	    cmocka_unit_test(test_timeline_ties_ranked),
	    cmocka_unit_test(test_timeline_table_width),
	};

	return test_run_group(tests, NULL, NULL);
}
