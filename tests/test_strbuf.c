// SPDX-License-Identifier: GPL-2.0-or-later
/* test_strbuf.c — the growable string: appends, formatted appends that
 * outgrow the room, detach, reset, free. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/strbuf.h"
#include "util/util.h"
#include "tests/testutil.h"

static void test_empty(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(strbuf_str(&sb), "");
	s = strbuf_detach(&sb);
	assert_string_equal(s, "");
	free(s);
	strbuf_reset(&sb);
	strbuf_free(&sb);
	strbuf_free(NULL);
	assert_null(sb.buf);
}

static void test_add(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	strbuf_adds(&sb, "pid ");
	strbuf_add(&sb, "12345678", 3);
	strbuf_addf(&sb, ", %d and %s", 42, "more");
	assert_string_equal(strbuf_str(&sb), "pid 123, 42 and more");
	assert_int_equal(sb.len, strlen("pid 123, 42 and more"));
	s = strbuf_detach(&sb);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_string_equal(s, "pid 123, 42 and more");
	free(s);
	/* detached, it starts over */
	strbuf_addf(&sb, "%s", "");
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_free(&sb);
}

/* Formatted appends longer than the room they find, one after another:
 * the result equals the same text written in one go. */
static void test_grow(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *want = xstrdup(""), *t;

	(void)state;
	for (int i = 0; i < 500; i++) {
		strbuf_addf(&sb, "%d:%0*d,", i, i % 300, 7);
		t = xasprintf("%s%d:%0*d,", want, i, i % 300, 7);
		free(want);
		want = t;
		assert_int_equal(sb.len, strlen(want));
		assert_true(sb.cap > sb.len);
	}
	assert_string_equal(strbuf_str(&sb), want);
	/* reset keeps the room */
	strbuf_reset(&sb);
	assert_string_equal(strbuf_str(&sb), "");
	assert_true(sb.cap > strlen(want));
	strbuf_adds(&sb, "again");
	assert_string_equal(strbuf_str(&sb), "again");
	free(want);
	strbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_add),
	    cmocka_unit_test(test_grow),
	};

	return test_run_group(tests, NULL, NULL);
}
