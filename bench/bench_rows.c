// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_rows.c — the row tree at the scale of a big report.
 *
 * Two shapes, each timed for rowtree_add() and rowtree_finish(): N leaves
 * under 4 parents (depth 2), every leaf added twice in a scattered order,
 * beside the same adds in order; and N siblings at depth 1 finished with
 * -n 10. Prints wall times, the scattered/in-order ratio and peak RSS.
 * tests/test_rows checks the same trees for correctness.
 *
 * usage: bench_rows [N]   (default 1000000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "maps/labels.h"
#include "rows/rows.h"
#include "util/util.h"
#include "bench/benchutil.h"

/* Adds every one of the n leaves twice under 4 parents, in a scattered
 * order or in order, and finishes; the times go to *add and *fin. */
static void depth2(struct labels *lb, const uint32_t *ids, size_t n,
		   const uint32_t *top, int scattered, double *add, double *fin)
{
	struct rowtree *t = rowtree_new(lb, 2);
	uint64_t vals[COL__COUNT] = {0};
	uint32_t path[2];
	double t0, t1, t2;

	t0 = bench_now();
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			size_t j = scattered ? (i * 7919) % n : i;

			path[0] = top[j % 4];
			path[1] = ids[j];
			vals[COL_FILE] = j % 4096;
			vals[COL_RSS] = 4096;
			rowtree_add(t, path, vals);
		}
	}
	t1 = bench_now();
	rowtree_finish(t, COL_FILE, 0);
	t2 = bench_now();
	rowtree_free(t);
	*add = t1 - t0;
	*fin = t2 - t1;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	struct labels *lb = labels_new();
	uint32_t *ids = xmalloc(n * sizeof(*ids)), top[4], path[1];
	uint64_t vals[COL__COUNT] = {0};
	double sa, sf, oa, of, t0, t1, t2;
	struct rowtree *t;
	char s[32];

	if (!n || n % 7919 == 0) {
		fprintf(stderr, "bench_rows: N must be > 0 and not a multiple "
				"of 7919\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(s, sizeof(s), "sym%zu", i);
		ids[i] = labels_intern(lb, s);
	}
	for (size_t i = 0; i < 4; i++) {
		snprintf(s, sizeof(s), "lib%zu.so", i);
		top[i] = labels_intern(lb, s);
	}

	depth2(lb, ids, n, top, 1, &sa, &sf);
	depth2(lb, ids, n, top, 0, &oa, &of);

	t = rowtree_new(lb, 1);
	t0 = bench_now();
	for (size_t i = 0; i < n; i++) {
		path[0] = ids[i];
		vals[COL_FILE] = i % 1000;
		rowtree_add(t, path, vals);
	}
	t1 = bench_now();
	rowtree_finish(t, COL_FILE, 10);
	t2 = bench_now();
	rowtree_free(t);

	printf("depth 2, %zu leaves under 4 parents, %zu adds:\n", n, 2 * n);
	printf("  scattered order: %8.3f s add, %8.3f s finish\n", sa, sf);
	printf("  in order:        %8.3f s add, %8.3f s finish\n", oa, of);
	printf("  scattered / in order: %.2fx add, %.2fx finish\n",
	       oa > 0 ? sa / oa : 0, of > 0 ? sf / of : 0);
	printf("depth 1, %zu siblings, finish -n 10:\n", n);
	printf("  %8.3f s add, %8.3f s finish (%.0f ns per add)\n", t1 - t0,
	       t2 - t1, (t1 - t0) * 1e9 / n);
	printf("peak RSS: %.1f MiB\n", bench_peak_rss_kib() / 1024.0);
	labels_free(lb);
	free(ids);
	return 0;
}
