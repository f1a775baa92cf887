// SPDX-License-Identifier: GPL-2.0-or-later
/* test_jitmap.c — perf-PID.map parsing (record/jitmap.c) and the report's
 * JIT symbol table (report/jitsyms.c). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "record/jitmap.h"
#include "report/jitsyms.h"
#include "util/util.h"
#include "tests/testutil.h"

/* Complete lines are parsed, a partial last one is left for later; hex
 * with or without 0x; names keep their spaces; malformed lines counted. */
static void test_parse(void **state)
{
	static const char text[] =
	    "3ef414c0 398 RegExp:[{(]\n"
	    "0x7f445c006240 0x5a4 JS:*hot /tmp/x.js:1:22\n"
	    "zz 10 bad start\n"
	    "1000 0 zero size\n"
	    "2000 10\n"
	    "7f0000000000 20 Builtin: ArgumentsAdaptorTrampoline\n"
	    "7f0000001000 20 partial";
	struct jitmap jm = {0};
	uint64_t used;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	assert_non_null(f);
	assert_int_equal(jitmap_parse(f, &jm, &used), 3);
	fclose(f);
	assert_int_equal(used, strrchr(text, '\n') + 1 - text);
	assert_int_equal(jm.n, 3);
	assert_int_equal(jm.bad, 3);
	assert_int_equal(jm.syms[0].start, 0x3ef414c0);
	assert_int_equal(jm.syms[0].size, 0x398);
	assert_string_equal(jm.syms[0].name, "RegExp:[{(]");
	assert_int_equal(jm.syms[1].start, 0x7f445c006240);
	assert_int_equal(jm.syms[1].size, 0x5a4);
	assert_string_equal(jm.syms[1].name, "JS:*hot /tmp/x.js:1:22");
	assert_string_equal(jm.syms[2].name,
			    "Builtin: ArgumentsAdaptorTrampoline");
	jitmap_free(&jm);
	(void)state;
}

/* Of two symbols over the same bytes the later one names them; other
 * pids see nothing. */
static void test_later_wins(void **state)
{
	struct labels *lb = labels_new();
	struct jitsyms *j = jitsyms_new(lb);
	const struct md_jit_sym a[] = {{0x1000, 0x100, "old"},
				       {0x2000, 0x10, "other"}};
	const struct md_jit_sym b[] = {{0x1080, 0x100, "new"}};
	struct md_jitmap ma = {.pid = 5, .nsyms = 2, .syms = a};
	struct md_jitmap mb = {.pid = 5, .nsyms = 1, .syms = b};
	size_t npids;

	jitsyms_add(j, &ma);
	assert_string_equal(labels_str(lb, jitsyms_lookup(j, 5, 0x10a0)),
			    "old");
	jitsyms_add(j, &mb);
	assert_string_equal(labels_str(lb, jitsyms_lookup(j, 5, 0x107f)),
			    "old");
	assert_string_equal(labels_str(lb, jitsyms_lookup(j, 5, 0x1080)),
			    "new");
	assert_string_equal(labels_str(lb, jitsyms_lookup(j, 5, 0x117f)),
			    "new");
	assert_int_equal(jitsyms_lookup(j, 5, 0x1180), LABEL_NONE);
	assert_string_equal(labels_str(lb, jitsyms_lookup(j, 5, 0x200f)),
			    "other");
	assert_int_equal(jitsyms_lookup(j, 6, 0x1000), LABEL_NONE);
	assert_null(jitsyms_map(j, 6));
	assert_int_equal(jitsyms_count(j, &npids), 3);
	assert_int_equal(npids, 1);
	jitsyms_free(j);
	labels_free(lb);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_later_wins),
	};

	return test_run_group(tests, NULL, NULL);
}
