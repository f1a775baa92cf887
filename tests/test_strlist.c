// SPDX-License-Identifier: GPL-2.0-or-later
/* test_strlist.c — footer notes: kinds, subjects, the summary that groups
 * a kind's notes about several subjects into one line. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/strlist.h"
#include "util/util.h"
#include "tests/testutil.h"

static void add_dynsym(struct strlist *l, const char *path)
{
	strlist_add_note(l, NOTE_DYNSYM, path,
			 xasprintf("%s: no .symtab, only the dynamic symbols "
				   "(.dynsym) are named",
				   path));
}

static void test_plain(void **state)
{
	struct strlist l = {0}, out = {0};

	(void)state;
	strlist_add(&l, xstrdup("first"));
	strlist_add(&l, xstrdup("second"));
	strlist_add(&l, xstrdup("first")); /* the same line: printed once */
	assert_int_equal(l.n, 3);
	assert_int_equal(l.kinds[0], NOTE_OTHER);
	assert_null(l.subjects[1]);
	strlist_summarize(&l, NULL, false, &out);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.lines[0], "first");
	assert_string_equal(out.lines[1], "second");
	strlist_free(&out);
	strlist_summarize(&l, NULL, true, &out);
	assert_int_equal(out.n, 3);
	strlist_free(&out);
	strlist_free(&l);
	strlist_free(&l); /* empty again: free is harmless */
}

static void test_group(void **state)
{
	static const char *const libs[] = {
	    "/usr/lib/libz.so.1", "/usr/lib/libbz2.so.1.0",
	    "/usr/lib/libm.so.6", "/usr/lib/libq.so",
	    "/usr/lib/libr.so",
	};
	struct strlist l = {0}, out = {0};

	(void)state;
	strlist_add(&l, xstrdup("before"));
	for (size_t i = 0; i < 5; i++)
		add_dynsym(&l, libs[i]);
	/* a second note of the kind about one subject counts once */
	add_dynsym(&l, libs[0]);
	strlist_add_note(&l, NOTE_ALIASES, libs[0],
			 xstrdup("/usr/lib/libz.so.1: 3 symbols share"));
	strlist_summarize(&l, NULL, false, &out);
	assert_int_equal(out.n, 3);
	assert_string_equal(out.lines[0], "before");
	assert_string_equal(out.lines[1],
			    "5 images have only .dynsym symbols: libz.so.1, "
			    "libbz2.so.1.0, libm.so.6, \u2026 \u2014 install "
			    "their debug symbols (-dbgsym or -dbg packages) "
			    "or name their directory with --debug-root");
	/* one subject: the note as it is */
	assert_string_equal(out.lines[2],
			    "/usr/lib/libz.so.1: 3 symbols share");
	strlist_free(&out);

	strlist_summarize(&l, NULL, true, &out);
	assert_int_equal(out.n, l.n);
	for (size_t i = 0; i < l.n; i++)
		assert_string_equal(out.lines[i], l.lines[i]);
	strlist_free(&out);
	strlist_free(&l);
}

static void test_keep(void **state)
{
	struct strlist l = {0}, out = {0};
	bool keep[3] = {true, false, true};

	(void)state;
	add_dynsym(&l, "/a/liba.so");
	add_dynsym(&l, "/a/libb.so");
	add_dynsym(&l, "/a/libc.so");
	strlist_summarize(&l, keep, false, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.lines[0],
			    "2 images have only .dynsym symbols: liba.so, "
			    "libc.so \u2014 install their debug symbols "
			    "(-dbgsym or -dbg packages) or name their "
			    "directory with --debug-root");
	strlist_free(&out);
	keep[2] = false;
	strlist_summarize(&l, keep, false, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.lines[0], l.lines[0]);
	assert_int_equal(out.kinds[0], NOTE_DYNSYM);
	assert_string_equal(out.subjects[0], "/a/liba.so");
	strlist_free(&out);
	strlist_free(&l);
}

static void test_many(void **state)
{
	struct strlist l = {0}, out = {0};
	char path[32];

	(void)state;
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "/lib/l%d.so", i);
		strlist_add_note(&l, NOTE_FALLBACK, path, xstrdup(path));
	}
	strlist_summarize(&l, NULL, false, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.lines[0],
			    "1000 files have bytes under "
			    "fallback labels: l0.so, l1.so, l2.so, \u2026 "
			    "\u2014 -v gives the bytes");
	strlist_free(&out);
	strlist_free(&l);
}

/* A kind with a summary note: that one line without -v, every other
 * note (and not the summary) with it. */
static void test_summary(void **state)
{
	struct strlist l = {0}, out = {0};

	(void)state;
	strlist_add(&l, xstrdup("other"));
	strlist_add_notef(&l, NOTE_PEAK_RSS, NULL, "pid 1: peak");
	strlist_add_notef(&l, NOTE_PEAK_RSS, NULL, "pid 2: peak");
	strlist_add_about(&l, NOTE_PEAK_RSS, 0, NOTEF_SUMMARY,
			  xstrdup("peaks of 2 processes"));
	strlist_summarize(&l, NULL, false, &out);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.lines[0], "other");
	assert_string_equal(out.lines[1], "peaks of 2 processes");
	strlist_free(&out);
	strlist_summarize(&l, NULL, true, &out);
	assert_int_equal(out.n, 3);
	assert_string_equal(out.lines[1], "pid 1: peak");
	assert_string_equal(out.lines[2], "pid 2: peak");
	strlist_free(&out);
	/* the two sides of a diff: each side's summary, prefixed, and the
	 * kind kept through the copy */
	{
		struct strlist d = {0};

		for (size_t i = 0; i < l.n; i++)
			strlist_add_copy_prefixed(&d, &l, i, "OLD: ");
		for (size_t i = 1; i < l.n; i++)
			strlist_add_copy_prefixed(&d, &l, i, "NEW: ");
		strlist_summarize(&d, NULL, false, &out);
		assert_int_equal(out.n, 3);
		assert_string_equal(out.lines[0], "OLD: other");
		assert_string_equal(out.lines[1], "OLD: peaks of 2 processes");
		assert_string_equal(out.lines[2], "NEW: peaks of 2 processes");
		strlist_free(&out);
		strlist_free(&d);
	}
	strlist_free(&l);
}

/* A kind counted per note: its notes without a subject, one line with
 * their count; a single one as it is. */
static void test_counted(void **state)
{
	struct strlist l = {0}, out = {0};

	(void)state;
	strlist_add_notef(&l, NOTE_PAGES_CHANGED, NULL, "pid 1, snapshot 2");
	strlist_summarize(&l, NULL, false, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.lines[0], "pid 1, snapshot 2");
	strlist_free(&out);
	strlist_add_notef(&l, NOTE_PAGES_CHANGED, NULL, "pid 1, snapshot 5");
	strlist_add_notef(&l, NOTE_PAGES_CHANGED, NULL, "pid 3, snapshot 1");
	strlist_summarize(&l, NULL, false, &out);
	assert_int_equal(out.n, 1);
	assert_non_null(strstr(out.lines[0], "3 snapshots have pages that "
					     "changed"));
	assert_non_null(strstr(out.lines[0], "-v lists each"));
	strlist_free(&out);
	strlist_summarize(&l, NULL, true, &out);
	assert_int_equal(out.n, 3);
	strlist_free(&out);
	strlist_free(&l);
}

/* Notes about parts of the output are kept only where one is shown. */
static void test_about(void **state)
{
	struct strlist l = {0}, out = {0};
	bool *keep;

	(void)state;
	strlist_add(&l, xstrdup("always"));
	strlist_add_about(&l, NOTE_COUNT_ONCE, 1u << 0 | 1u << 1, 0,
			  xstrdup("columns 0 and 1"));
	keep = strlist_keep_about(&l, 1u << 2);
	assert_true(keep[0]);
	assert_false(keep[1]);
	strlist_summarize(&l, keep, false, &out);
	assert_int_equal(out.n, 1);
	free(keep);
	strlist_free(&out);
	keep = strlist_keep_about(&l, 1u << 1 | 1u << 2);
	assert_true(keep[1]);
	strlist_summarize(&l, keep, false, &out);
	assert_int_equal(out.n, 2);
	free(keep);
	strlist_free(&out);
	strlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),   cmocka_unit_test(test_group),
	    cmocka_unit_test(test_keep),    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_summary), cmocka_unit_test(test_counted),
	    cmocka_unit_test(test_about),
	};

	return test_run_group(tests, NULL, NULL);
}
