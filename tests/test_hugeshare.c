// SPDX-License-Identifier: GPL-2.0-or-later
/* test_hugeshare.c — report/hugeshare.c: the mappers of hugetlb pages
 * processes map through a shared page table, from runs written here as a
 * snapshot would record them on kernels whose pagemap marks such a page
 * exclusive (6.1 to 6.9) or shared (6.10 on).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/mman.h>

#include "data/datafile.h"
#include "report/hugeshare.h"
#include "tests/testutil.h"
#include "util/util.h"

#define PAGE 4096ull
#define HUGE (2ull << 20)
#define BASE 0x40000000ull
#define NSNAP 8

/* One 2 MiB hugetlb page (file offset 0 of inode 7) in a mapping of flags
 * (MAP_SHARED or MAP_PRIVATE), with pagemap's flags pg and mapcount mc. */
struct one {
	struct md_run run;
	struct md_snap_mapping m;
};

static void one_set(struct one *o, uint32_t flags, uint32_t pg, uint32_t mc)
{
	o->run = (struct md_run){.vaddr = BASE,
				 .npages = HUGE / PAGE,
				 .flags = MD_PG_HUGE | MD_PG_PRESENT | pg,
				 .mapcount = mc};
	o->m = (struct md_snap_mapping){.start = BASE,
					.end = BASE + HUGE,
					.ino = 7,
					.dev_major = 0,
					.dev_minor = 15,
					.flags = flags,
					.runs = &o->run,
					.nruns = 1};
}

/* The mapcount hugeshare gives each of the n snapshots' page when all are
 * chosen, into mc[]. */
static void mappers(struct one *o, size_t n, uint32_t *mc)
{
	struct hugeshare *h = hugeshare_new();
	bool chosen[NSNAP] = {0};
	uint32_t zero[NSNAP] = {0};

	for (size_t i = 0; i < n; i++) {
		hugeshare_add(h, (uint32_t)i, PAGE, &o[i].m);
		chosen[i] = true;
	}
	hugeshare_choose(h, chosen, zero, zero, n, false);
	for (size_t i = 0; i < n; i++) {
		size_t nr;
		const struct md_run *r =
		    hugeshare_runs(h, 0, PAGE, &o[i].m, &nr);

		assert_int_equal(nr, 1);
		assert_int_equal(r[0].npages, HUGE / PAGE);
		mc[i] = r[0].mapcount;
	}
	hugeshare_free(h);
}

/* 6.1 to 6.9: three processes share the page table, the kernel counts
 * one mapping and pagemap says exclusive: each has 3 mappers, so their
 * PSS sums to the page. */
static void test_old_kernel_exclusive(void **state)
{
	struct one o[3];
	uint32_t mc[3];

	(void)state;
	for (size_t i = 0; i < 3; i++)
		one_set(&o[i], MAP_SHARED, MD_PG_EXCLUSIVE, 1);
	mappers(o, 3, mc);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(mc[i], 3);
}

/* One process alone, its page exclusive: its own (1), not the floor of
 * 2; not exclusive (6.10 on, or really shared): 2. */
static void test_alone(void **state)
{
	struct one o;
	uint32_t mc;

	(void)state;
	one_set(&o, MAP_SHARED, MD_PG_EXCLUSIVE, 1);
	mappers(&o, 1, &mc);
	assert_int_equal(mc, 1);
	one_set(&o, MAP_SHARED, 0, 1);
	mappers(&o, 1, &mc);
	assert_int_equal(mc, 2);
}

/* 6.10 on: shared, two recorded of four mappers the kernel counts (two
 * page tables of their own besides): the kernel's 4 stays. */
static void test_kernel_count_kept(void **state)
{
	struct one o[2];
	uint32_t mc[2];

	(void)state;
	for (size_t i = 0; i < 2; i++)
		one_set(&o[i], MAP_SHARED, 0, 4);
	mappers(o, 2, mc);
	assert_int_equal(mc[0], 4);
	assert_int_equal(mc[1], 4);
}

/* Two processes through the shared page table and a third reading the
 * page through a MAP_PRIVATE mapping of its own (the file's page, not a
 * copy): the kernel counts 2 (the table, the private mapping), there are
 * 3 mappers; a copy (no file bit) of the private mapping is its own. */
static void test_private_reader(void **state)
{
	struct one o[3];
	uint32_t mc[3];

	(void)state;
	one_set(&o[0], MAP_SHARED, 0, 2);
	one_set(&o[1], MAP_SHARED, 0, 2);
	one_set(&o[2], MAP_PRIVATE, MD_PG_FILE, 2);
	mappers(o, 3, mc);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(mc[i], 3);
	one_set(&o[2], MAP_PRIVATE, MD_PG_EXCLUSIVE, 1);
	mappers(o, 3, mc);
	assert_int_equal(mc[0], 2);
	assert_int_equal(mc[2], 1);
}

/* A long timeline of random ranges (3 files, 1-4 huge pages each, counting
 * over random spans of points): the step function charging the points in
 * order builds from the point before (ranges added and dropped) must give
 * every page the mapcount of a full rebuild (the points charged backwards,
 * each from none) and of the ranges counted here one by one. */
#define TL_POINTS 1000
#define TL_RANGES 2000
#define TL_FILES 3
#define TL_SPAN 24 /* huge pages of each file */

static uint32_t tl_rand(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

struct tl_range {
	uint32_t ino, lo, hi, first, end; /* lo, hi: huge pages */
};

/* A MAP_SHARED mapping of file ino's TL_SPAN huge pages, exclusive and
 * mapped once, so each page's mapcount is the most of 1 and its users. */
static void tl_probe(struct one *o, uint32_t ino)
{
	one_set(o, MAP_SHARED, MD_PG_EXCLUSIVE, 1);
	o->run.npages = TL_SPAN * (HUGE / PAGE);
	o->m.end = BASE + TL_SPAN * HUGE;
	o->m.ino = ino;
}

/* Into mc[file][page], the mapcount hugeshare_runs gives each huge page of
 * the probes at point. */
static void tl_read(struct hugeshare *h, uint32_t point,
		    uint32_t mc[TL_FILES][TL_SPAN])
{
	for (uint32_t f = 0; f < TL_FILES; f++) {
		struct one o;
		size_t nr, page = 0;
		const struct md_run *r;

		tl_probe(&o, f + 1);
		r = hugeshare_runs(h, point, PAGE, &o.m, &nr);
		for (size_t i = 0; i < nr; i++) {
			assert_int_equal(r[i].npages % (HUGE / PAGE), 0);
			for (size_t k = 0; k < r[i].npages / (HUGE / PAGE);
			     k++) {
				assert_true(page < TL_SPAN);
				mc[f][page++] = r[i].mapcount;
			}
		}
		assert_int_equal(page, TL_SPAN);
	}
}

/* The mapcounts at point counted from the ranges one by one. */
static void tl_expect(const struct tl_range *v, uint32_t point,
		      uint32_t mc[TL_FILES][TL_SPAN])
{
	for (uint32_t f = 0; f < TL_FILES; f++)
		for (uint32_t p = 0; p < TL_SPAN; p++)
			mc[f][p] = 0;
	for (size_t i = 0; i < TL_RANGES; i++)
		if (v[i].first <= point && point < v[i].end)
			for (uint32_t p = v[i].lo; p < v[i].hi; p++)
				mc[v[i].ino - 1][p]++;
	for (uint32_t f = 0; f < TL_FILES; f++)
		for (uint32_t p = 0; p < TL_SPAN; p++)
			mc[f][p] = mc[f][p] > 1 ? mc[f][p] : 1;
}

static struct hugeshare *tl_new(const struct tl_range *v)
{
	struct hugeshare *h = hugeshare_new();
	bool *chosen = xcalloc(TL_RANGES, sizeof(*chosen));
	uint32_t *first = xcalloc(TL_RANGES, sizeof(*first));
	uint32_t *end = xcalloc(TL_RANGES, sizeof(*end));

	for (uint32_t i = 0; i < TL_RANGES; i++) {
		struct one o;

		one_set(&o, MAP_SHARED, MD_PG_EXCLUSIVE, 1);
		o.m.ino = v[i].ino;
		o.m.pgoff = v[i].lo * HUGE;
		o.run.npages = (v[i].hi - v[i].lo) * (HUGE / PAGE);
		o.m.end = BASE + (v[i].hi - v[i].lo) * HUGE;
		hugeshare_add(h, i, PAGE, &o.m);
		chosen[i] = i % 7 != 0; /* some left out of the pick */
		first[i] = v[i].first;
		end[i] = v[i].end;
	}
	hugeshare_choose(h, chosen, first, end, TL_RANGES, true);
	free(chosen);
	free(first);
	free(end);
	return h;
}

static void test_timeline_incremental(void **state)
{
	struct tl_range *v = xcalloc(TL_RANGES, sizeof(*v));
	uint32_t(*fwd)[TL_FILES][TL_SPAN] = xcalloc(TL_POINTS, sizeof(*fwd));
	uint32_t back[TL_FILES][TL_SPAN], want[TL_FILES][TL_SPAN];
	uint32_t seed = 17;
	struct hugeshare *h;

	(void)state;
	for (uint32_t i = 0; i < TL_RANGES; i++) {
		v[i].ino = 1 + tl_rand(&seed) % TL_FILES;
		v[i].lo = tl_rand(&seed) % (TL_SPAN - 4);
		v[i].hi = v[i].lo + 1 + tl_rand(&seed) % 4;
		v[i].first = tl_rand(&seed) % TL_POINTS;
		v[i].end = v[i].first + tl_rand(&seed) % 40; /* may be empty */
	}
	h = tl_new(v);
	for (uint32_t p = 0; p < TL_POINTS; p++)
		tl_read(h, p, fwd[p]);
	for (uint32_t p = TL_POINTS; p-- > 0;) {
		tl_read(h, p, back);
		assert_memory_equal(back, fwd[p], sizeof(back));
	}
	hugeshare_free(h);
	/* the ranges left out of the pick count nowhere */
	for (uint32_t i = 0; i < TL_RANGES; i += 7)
		v[i].end = v[i].first;
	for (uint32_t p = 0; p < TL_POINTS; p++) {
		tl_expect(v, p, want);
		assert_memory_equal(fwd[p], want, sizeof(want));
	}
	free(fwd);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_old_kernel_exclusive),
	    cmocka_unit_test(test_alone),
	    cmocka_unit_test(test_kernel_count_kept),
	    cmocka_unit_test(test_private_reader),
	    cmocka_unit_test(test_timeline_incremental),
	};

	return test_run_group(tests, NULL, NULL);
}
