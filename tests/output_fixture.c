// SPDX-License-Identifier: GPL-2.0-or-later
/* output_fixture.c — row trees for the output writer tests
 * (output_fixture.h). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "tests/output_fixture.h"

const char *const keys2[2] = {"sections", "symbols"};
const enum col_id cols_fv[2] = {COL_FILE, COL_VM};

void add(struct rowtree *t, const char *a, const char *b, uint64_t file,
	 uint64_t vm)
{
	uint32_t path[2];
	uint64_t vals[COL__COUNT] = {0};

	path[0] = labels_intern(t->lb, a);
	if (t->depth > 1)
		path[1] = labels_intern(t->lb, b);
	vals[COL_FILE] = file;
	vals[COL_VM] = vm;
	rowtree_add(t, path, vals);
}

char *render(const struct rowtree *t, const struct out_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(out_write(f, t, o), 0);
	fclose(f);
	return buf;
}
