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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_old_kernel_exclusive),
	    cmocka_unit_test(test_alone),
	    cmocka_unit_test(test_kernel_count_kept),
	    cmocka_unit_test(test_private_reader),
	};

	return test_run_group(tests, NULL, NULL);
}
