// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_rangemap.c — RangeMap at the scale of a big library.
 *
 * Builds a map of N symbol ranges (non-overlapping, with gaps, added in
 * random order) plus overlapping fallbacks (sections, then one segment),
 * then does N random lookups, a rollup of the whole map against a section
 * map, and many small page-sized rollups. Prints wall times and peak RSS.
 *
 * usage: bench_rangemap [N]   (default 1000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "maps/labels.h"
#include "maps/rangemap.h"
#include "util/util.h"
#include "bench/benchutil.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

struct sym {
	uint64_t start, size;
};

static int count_piece(void *arg, const uint32_t *labels, uint64_t start,
		       uint64_t end)
{
	uint64_t *acc = arg;

	acc[0]++;
	if (labels[0] != LABEL_NONE)
		acc[1] += end - start;
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	struct sym *syms = xmalloc(n * sizeof(*syms));
	struct rmap *m = rmap_new(), *sec = rmap_new();
	struct rmap *maps[2];
	uint64_t addr = 0x1000, total, acc[2] = {0, 0}, hits = 0;
	size_t i, nsec = 64, pages;
	double t0, t1, t2, t3, t4, t5;

	for (i = 0; i < n; i++) {
		addr += rnd() % 4 ? 0 : 16 + rnd() % 64; /* gaps */
		syms[i].start = addr;
		syms[i].size = 8 + rnd() % 256;
		addr += syms[i].size;
	}
	total = addr;
	for (i = n; i > 1; i--) { /* shuffle */
		size_t j = rnd() % i;
		struct sym t = syms[i - 1];

		syms[i - 1] = syms[j];
		syms[j] = t;
	}

	t0 = bench_now();
	for (i = 0; i < n; i++)
		rmap_add_translated(m, syms[i].start, syms[i].size,
				    syms[i].start - 0x1000, (uint32_t)i);
	/* fallbacks: sections over everything, then the segment */
	for (i = 0; i < nsec; i++) {
		uint64_t s = total / nsec * i, e = total / nsec * (i + 1);

		rmap_add(m, s, e - s, (uint32_t)(n + i));
		rmap_add(sec, s, e - s, (uint32_t)i);
	}
	rmap_add(m, 0, total + 4096, (uint32_t)(n + nsec));
	t1 = bench_now();
	rmap_count(m);
	rmap_count(sec);
	t2 = bench_now();

	for (i = 0; i < n; i++) {
		uint64_t a = rnd() % total;
		uint64_t o;

		if (rmap_lookup(m, a, &o) < n)
			hits++;
	}
	t3 = bench_now();

	maps[0] = m;
	maps[1] = sec;
	rmap_rollup(maps, 2, 0, total + 8192, count_piece, acc);
	t4 = bench_now();

	/* page-sized rollups, as done once per resident page */
	pages = total / 4096;
	for (i = 0; i < pages; i++)
		rmap_rollup(maps, 2, i * 4096, (i + 1) * 4096, count_piece,
			    acc);
	t5 = bench_now();

	printf("ranges: %zu symbols + %zu fallbacks over %.1f MiB, "
	       "%zu entries after settle\n",
	       n, nsec + 1, total / 1048576.0, rmap_count(m));
	printf("add:             %8.3f s\n", t1 - t0);
	printf("settle:          %8.3f s\n", t2 - t1);
	printf("build total:     %8.3f s\n", t2 - t0);
	printf("%zu lookups:  %8.3f s (%.0f ns each, %" PRIu64 " on symbols)\n",
	       n, t3 - t2, (t3 - t2) * 1e9 / n, hits);
	printf("rollup whole:    %8.3f s\n", t4 - t3);
	printf("%zu page rollups: %8.3f s (%.0f ns each)\n", pages, t5 - t4,
	       (t5 - t4) * 1e9 / (pages ? pages : 1));
	printf("peak RSS:        %8.1f MiB\n", bench_peak_rss_kib() / 1024.0);

	rmap_free(m);
	rmap_free(sec);
	free(syms);
	return 0;
}
