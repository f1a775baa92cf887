// SPDX-License-Identifier: GPL-2.0-or-later
/* test_filter.c — --filter/--exclude rules: KEY=REGEX on one level, bare
 * REGEX on any, AND of filters, exclusion, errors. */
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

#include "maps/labels.h"
#include "report/filter.h"
#include "tests/testutil.h"

static const enum key_id keys[] = {KEY_FILES, KEY_SECTIONS, KEY_SYMBOLS};

/* The path files/sections/symbols, interned into lb. */
static bool keeps(struct filter *f, struct labels *lb, const char *file,
		  const char *sec, const char *sym)
{
	uint32_t path[3] = {labels_intern(lb, file), labels_intern(lb, sec),
			    labels_intern(lb, sym)};

	return filter_keep(f, lb, path, 3);
}

static void add(struct filter *f, const char *arg, bool exclude)
{
	char *err = NULL;

	assert_int_equal(filter_add(f, arg, exclude, KEY_IN_REPORT, &err), 0);
	assert_null(err);
}

static void test_empty(void **state)
{
	struct labels *lb = labels_new();
	struct filter f = {0};

	(void)state;
	assert_true(filter_empty(&f));
	assert_true(filter_empty(NULL));
	assert_true(keeps(&f, lb, "a", "b", "c"));
	assert_true(keeps(NULL, lb, "a", "b", "c"));
	filter_free(&f);
	filter_free(NULL);
	labels_free(lb);
}

static void test_keyed(void **state)
{
	struct labels *lb = labels_new();
	struct filter f = {0};
	char *err = NULL;

	(void)state;
	add(&f, "files=node$", false);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_true(keeps(&f, lb, "/usr/bin/node", ".text", "main"));
	/* the symbol matches, but the rule is on files */
	assert_false(
	    keeps(&f, lb, "/lib/libc.so.6", ".text", "re_dfa_add_node"));
	filter_free(&f);

	add(&f, "node$", false); /* bare: any level */
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_true(
	    keeps(&f, lb, "/lib/libc.so.6", ".text", "re_dfa_add_node"));
	assert_false(keeps(&f, lb, "/lib/libc.so.6", ".text", "malloc"));
	filter_free(&f);

	/* two keys AND together */
	add(&f, "files=libjvm", false);
	add(&f, "sections=^\\.text$", false);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_true(keeps(&f, lb, "/x/libjvm.so", ".text", "a"));
	assert_false(keeps(&f, lb, "/x/libjvm.so", ".data", "a"));
	assert_false(keeps(&f, lb, "/x/libc.so", ".text", "a"));
	filter_free(&f);
	labels_free(lb);
}

static void test_exclude(void **state)
{
	struct labels *lb = labels_new();
	struct filter f = {0};
	char *err = NULL;

	(void)state;
	add(&f, "files=^\\[", true);
	add(&f, "^_", true);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_false(keeps(&f, lb, "[heap]", "[heap]", "[heap]"));
	assert_false(keeps(&f, lb, "/bin/a", ".text", "_start"));
	assert_true(keeps(&f, lb, "/bin/a", ".text", "main"));
	/* bare rules match labels a cache already holds the same way */
	assert_true(keeps(&f, lb, "/bin/a", ".text", "main"));
	add(&f, "symbols=main", false);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_true(keeps(&f, lb, "/bin/a", ".text", "main"));
	assert_false(keeps(&f, lb, "/bin/a", ".text", "other"));
	filter_free(&f);
	labels_free(lb);
}

static void test_errors(void **state)
{
	struct filter f = {0};
	char *err = NULL;

	(void)state;
	assert_int_equal(filter_add(&f, "flies=x", false, KEY_IN_REPORT, &err),
			 -1);
	assert_non_null(strstr(err, "unknown key 'flies' in --filter"));
	free(err);
	err = NULL;
	/* a report-only key offered to size */
	assert_int_equal(filter_add(&f, "pids=1", true, KEY_IN_SIZE, &err), -1);
	assert_non_null(strstr(err, "unknown key 'pids' in --exclude"));
	free(err);
	err = NULL;
	assert_int_equal(filter_add(&f, "symbols=(", false, KEY_IN_SIZE, &err),
			 -1);
	assert_non_null(strstr(err, "bad --filter 'symbols=('"));
	free(err);
	err = NULL;
	assert_true(filter_empty(&f));
	/* back-references are refused; an escaped backslash before a digit
	 * and a \ in a bracket expression are none */
	add(&f, "\\\\1", false);
	add(&f, "[\\1]", false);
	assert_int_equal(f.n, 2);
	assert_int_equal(filter_add(&f, "a\\1", false, KEY_IN_SIZE, &err), -1);
	assert_non_null(strstr(err, "back-reference '\\1'"));
	free(err);
	err = NULL;
	assert_int_equal(filter_add(&f, "\\\\\\1", true, KEY_IN_SIZE, &err),
			 -1);
	assert_non_null(strstr(err, "bad --exclude"));
	free(err);
	err = NULL;
	assert_int_equal(f.n, 2);
	filter_free(&f);
	memset(&f, 0, sizeof(f));
	/* not a key prefix: a bare regex with '=' in it */
	add(&f, "A=b", false);
	add(&f, "[a]=b", false);
	assert_int_equal(f.rules[0].key, -1);
	assert_int_equal(f.rules[1].key, -1);
	add(&f, "symbols=x", false);
	assert_int_equal(filter_bind(&f, keys, 2, &err), -1);
	assert_string_equal(err, "--filter key 'symbols' is not in --by");
	free(err);
	filter_free(&f);
}

/* filter_may_keep() on a path whose symbols level is not known yet (a
 * part of a mapping before its pieces are labelled). */
static bool may_keep(struct filter *f, struct labels *lb, const char *file,
		     const char *sec)
{
	uint32_t path[3] = {labels_intern(lb, file), labels_intern(lb, sec),
			    LABEL_NONE};
	const bool known[3] = {true, true, false};

	return filter_may_keep(f, lb, path, known, 3);
}

static void test_may_keep(void **state)
{
	struct labels *lb = labels_new();
	struct filter f = {0};
	char *err = NULL;

	(void)state;
	assert_true(may_keep(&f, lb, "libc", ".text"));
	assert_true(may_keep(NULL, lb, "libc", ".text"));
	/* a keyed rule decides on its known level... */
	add(&f, "files=libc", false);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_true(may_keep(&f, lb, "libc", ".text"));
	assert_false(may_keep(&f, lb, "libm", ".text"));
	filter_free(&f);
	/* ...not on an unknown one */
	add(&f, "symbols=malloc", false);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_true(may_keep(&f, lb, "libm", ".text"));
	filter_free(&f);
	/* a bare rule may still match the unknown level */
	add(&f, "malloc", false);
	assert_true(may_keep(&f, lb, "libm", ".text"));
	filter_free(&f);
	/* an exclusion that matches a known level drops the path */
	add(&f, "files=libm", true);
	assert_int_equal(filter_bind(&f, keys, 3, &err), 0);
	assert_false(may_keep(&f, lb, "libm", ".text"));
	assert_true(may_keep(&f, lb, "libc", ".text"));
	filter_free(&f);
	add(&f, "text", true);
	assert_false(may_keep(&f, lb, "libc", ".text"));
	assert_true(may_keep(&f, lb, "libc", ".data"));
	filter_free(&f);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),    cmocka_unit_test(test_keyed),
	    cmocka_unit_test(test_exclude),  cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_may_keep),
	};

	return test_run_group(tests, NULL, NULL);
}
