/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output_fixture.h — what the output writer tests share
 * (test_output_text.c, test_output_pprof_html.c): row trees built by hand
 * and rendered into a string.
 *
 * Include after <cmocka.h>; a failure inside a helper fails the running
 * test through cmocka's assertions.
 */
#ifndef MEMSZ_OUTPUT_FIXTURE_H
#define MEMSZ_OUTPUT_FIXTURE_H

#include <stdint.h>

#include "rows/output.h"
#include "rows/rows.h"

/* The keys of a two-level tree, and the file and VM columns. */
extern const char *const keys2[2];
extern const enum col_id cols_fv[2];

/* Adds a row of file and vm bytes under path a (and b if t has depth 2). */
void add(struct rowtree *t, const char *a, const char *b, uint64_t file,
	 uint64_t vm);

/* Render t with o into a malloc'ed string. */
char *render(const struct rowtree *t, const struct out_opts *o);

#endif
