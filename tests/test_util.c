// SPDX-License-Identifier: GPL-2.0-or-later
/* test_util.c — util's memory helpers for big arrays: xgrow_huge() keeps
 * the contents and aligns big blocks, xmalloc_huge_aligned() rounds to
 * whole huge pages, prefault_write() makes exactly the whole pages inside
 * its range resident (the kernel's mincore() says which are). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/util.h"
#include "tests/testutil.h"

#define MIB ((size_t)1 << 20)

/* Grown one element at a time from empty to 6 MiB of uint64_t: every
 * element keeps its value through each new block; once 2 MiB or more,
 * the block is 2 MiB-aligned. */
static void test_grow_huge(void **state)
{
	size_t cap = 0, n = 6 * MIB / sizeof(uint64_t);
	uint64_t *v = NULL;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		xgrow_huge(&v, &cap, i + 1, sizeof(*v));
		assert_true(cap >= i + 1);
		v[i] = i * 0x9e3779b97f4a7c15ull;
		if (cap * sizeof(*v) > 2 * MIB)
			assert_int_equal((uintptr_t)v % (2 * MIB), 0);
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] != i * 0x9e3779b97f4a7c15ull)
			fail_msg("element %zu lost", i);
	xgrow_huge(&v, &cap, 10, sizeof(*v)); /* room enough: no change */
	assert_true(cap >= n);
	free(v); /* a plain free(): ASan checks it is malloc's */
}

static void test_malloc_huge_aligned(void **state)
{
	size_t got;
	char *p;

	(void)state;
	p = xmalloc_huge_aligned(1000, &got);
	assert_int_equal(got, 1000);
	memset(p, 1, got);
	free(p);
	p = xmalloc_huge_aligned(3 * MIB + 1, &got);
	assert_int_equal(got, 4 * MIB);
	assert_int_equal((uintptr_t)p % (2 * MIB), 0);
	memset(p, 1, got); /* all of it is usable */
	free(p);
}

/* Which of the npages pages from p are resident. */
static void resident(void *p, size_t npages, unsigned char *vec)
{
	assert_int_equal(
	    mincore(p, npages * (size_t)sysconf(_SC_PAGESIZE), vec), 0);
}

static void test_prefault(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), npages = 64;
	unsigned char vec[64];
	char *p;

	(void)state;
	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	madvise(p, npages * page, MADV_NOHUGEPAGE);
	/* an older kernel has no MADV_POPULATE_WRITE (EINVAL), a memory
	 * cgroup at its limit or a seccomp filter refuses it: prefault_write
	 * is advice only there, and nothing here can be checked */
	if (madvise(p + 60 * page, page, MADV_POPULATE_WRITE)) {
		int e = errno;

		munmap(p, npages * page);
		test_skip(
		    e == EINVAL
			? "the kernel has no MADV_POPULATE_WRITE (Linux 5.14)"
			: "MADV_POPULATE_WRITE is refused here");
	}
	/* from the middle of page 1 to the middle of page 40: pages 2 to
	 * 39 only (the others may be another allocation's); inside page
	 * 50, or empty: none */
	prefault_write(p + page + page / 2, 39 * page);
	prefault_write(p + 50 * page + 3, page - 4);
	prefault_write(p + 52 * page, 0);
	resident(p, npages, vec);
	for (size_t i = 0; i < 60; i++)
		if (!!(vec[i] & 1) != (i >= 2 && i < 40))
			fail_msg("page %zu resident: %d", i, vec[i] & 1);
	/* and nothing written (read after mincore: a read maps pages) */
	for (size_t i = 0; i < npages * page; i++)
		if (p[i])
			fail_msg("byte %zu written", i);
	munmap(p, npages * page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grow_huge),
	    cmocka_unit_test(test_malloc_huge_aligned),
	    cmocka_unit_test(test_prefault),
	};

	return test_run_group(tests, NULL, NULL);
}
