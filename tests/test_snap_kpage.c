// SPDX-License-Identifier: GPL-2.0-or-later
/* test_snap_kpage.c — record/snap_kpage.c's reading of kpageflags' bit
 * 34 (PG_anon_exclusive) for PMD-mapped anonymous huge pages, against a
 * kpageflags file written here; and of pagemap entries swapped that are
 * no swap (guard regions, PTE markers, migration entries), crafted as
 * fs/proc/task_mmu.c's pte_to_pagemap_entry() makes them; and of bit 60,
 * memsz's own mark, should pagemap set it.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/snap_int.h"
#include "record/snap_kpage.h"
#include "util/util.h"
#include "tests/testutil.h"

#define BIT34 (1ull << 34)

/* A kpageflags file whose entries at the PFNs pfn[] hold flags[]. */
static int flags_file(const uint64_t *pfn, const uint64_t *flags, size_t n)
{
	char path[] = "/tmp/memsz-test-snap-kpage-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pwrite(fd, &flags[i], 8, (off_t)pfn[i] * 8),
				 8);
	return fd;
}

/* An exclusive huge page with the bit is taken as exclusive until a huge
 * page pagemap calls shared shows the bit set too: from then on every
 * exclusive one is maybe shared (read from kpagecount). */
static void test_bit_not_exclusive(void **state)
{
	uint64_t pfn[] = {512, 1024, 1536}, fl[] = {BIT34, BIT34, 0};
	struct snapper *s = calloc(1, sizeof(*s));
	uint64_t excl = PM_PRESENT | PM_EXCLUSIVE | 512;
	bool off = false;

	(void)state;
	s->anon_excl_off = &off;
	s->kpageflags_fd = flags_file(pfn, fl, 3);
	s->has_pfn = true;
	s->pmd_pages = 512;
	assert_false(kpage_pmd_maybe_shared(s, excl, NULL, 0));
	/* exclusive, bit clear: shared since a fork */
	assert_true(kpage_pmd_maybe_shared(s, PM_PRESENT | PM_EXCLUSIVE | 1536,
					   NULL, 0));
	/* shared, bit clear: as it should be; nothing changes */
	assert_false(kpage_pmd_maybe_shared(s, PM_PRESENT | 1536, NULL, 0));
	assert_false(kpage_pmd_maybe_shared(s, excl, NULL, 0));
	assert_false(off);
	/* shared with the bit: the bit is not PG_anon_exclusive */
	assert_false(kpage_pmd_maybe_shared(s, PM_PRESENT | 1024, NULL, 0));
	assert_true(off); /* the flag kept outside the snapper */
	assert_true(kpage_pmd_maybe_shared(s, excl, NULL, 0));
	/* a file huge page is still as pagemap says */
	assert_false(kpage_pmd_maybe_shared(
	    s, PM_PRESENT | PM_EXCLUSIVE | PM_FILE | 512, NULL, 0));
	close(s->kpageflags_fd);
	free(s);
}

/* A swapped entry's frame as pagemap shows it with PFNs: type | offset
 * << 5 (offset the PFN of a PFN entry, the marker bits of a marker). */
#define SWP(type, off) (PM_SWAPPED | (type) | (uint64_t)(off) << 5)

/* The swapped entries that are no swap, with and without PFNs: each as
 * smaps (smaps_pte_entry) counts its page. */
static void test_swap_entry(void **state)
{
	struct snapper s = {.has_pfn = true};
	uint64_t mig = SWP(27, 0x12345) | PM_FILE | PM_SOFTDIRTY;

	(void)state;
	/* real swap (type 3, offset 1000) and a frame zero (fabricated by
	 * pagemap_reconcile): swap */
	assert_true(kpage_swap_entry(&s, SWP(3, 1000)) == SWP(3, 1000));
	assert_true(kpage_swap_entry(&s, PM_SWAPPED) == PM_SWAPPED);
	/* a guard region: bit 58 (6.15+), or type 31 with marker bit 4
	 * (6.13, 6.14) */
	assert_true(kpage_swap_entry(&s, SWP(31, 4) | PM_GUARD_REGION) == 0);
	assert_true(kpage_swap_entry(&s, SWP(31, 4)) == 0);
	/* uffd-wp and poisoned markers */
	assert_true(kpage_swap_entry(&s, SWP(31, 1) | PM_SOFTDIRTY) == 0);
	assert_true(kpage_swap_entry(&s, SWP(31, 2)) == 0);
	/* migration (27) and device-private (29) entries: their page is
	 * resident, without its PFN */
	assert_true(kpage_swap_entry(&s, mig) ==
		    (PM_PRESENT | PM_EXCLUSIVE | PM_FILE | PM_SOFTDIRTY));
	assert_true(kpage_swap_entry(&s, SWP(29, 0x80000)) ==
		    (PM_PRESENT | PM_EXCLUSIVE));
	/* without PFNs the frame is zero: only bit 58 tells */
	s.has_pfn = false;
	assert_true(kpage_swap_entry(&s, PM_SWAPPED | PM_GUARD_REGION) == 0);
	assert_true(kpage_swap_entry(&s, PM_SWAPPED) == PM_SWAPPED);
}

/* The edges of the type rule on 6.2+ with few swap areas: type 21 is a
 * real swap area's, 22 and 23 are no swap (a PFN entry's page, resident);
 * the marker type's offset 255 is a marker's bits, 256 a PFN. */
static void test_swap_type_edges(void **state)
{
	struct snapper s = {.has_pfn = true};
	uint64_t res = PM_PRESENT | PM_EXCLUSIVE;

	(void)state;
	kpage_swap_layout(&s, 6, 18, 2);
	assert_true(kpage_swap_entry(&s, SWP(21, 5)) == SWP(21, 5));
	assert_true(kpage_swap_entry(&s, SWP(21, 1ull << 40)) ==
		    SWP(21, 1ull << 40));
	assert_true(kpage_swap_entry(&s, SWP(22, 0x9000)) == res);
	assert_true(kpage_swap_entry(&s, SWP(23, 0x9000)) == res);
	assert_true(kpage_swap_entry(&s, SWP(31, 255)) == 0);
	assert_true(kpage_swap_entry(&s, SWP(31, 256)) == res);
}

/* Where RAM starts at physical 0 (arm64), a page under migration may have
 * a PFN below 256: its entry (migration types 24-26 on 6.2+, 28-30 without
 * CONFIG_DEVICE_PRIVATE, device-private 27-30) is no marker, as its type
 * is not the marker's. */
static void test_swap_low_pfn(void **state)
{
	struct snapper s = {.has_pfn = true};
	uint64_t res = PM_PRESENT | PM_EXCLUSIVE;

	(void)state;
	kpage_swap_layout(&s, 6, 18, 0);
	for (unsigned type = 22; type < 31; type++) {
		assert_true(kpage_swap_entry(&s, SWP(type, 1)) == res);
		assert_true(kpage_swap_entry(&s, SWP(type, 4)) == res);
		assert_true(kpage_swap_entry(&s, SWP(type, 255)) == res);
	}
}

/* With 22 swap areas or more on (/proc/swaps), a real swap type may be 22
 * or more (MAX_SWAPFILES is 23 on 6.2-6.14, 24 on 6.15+, 27 without
 * CONFIG_DEVICE_PRIVATE): every swapped entry is swap, but for bit 58. */
static void test_swap_many_areas(void **state)
{
	struct snapper s = {.has_pfn = true};

	(void)state;
	kpage_swap_layout(&s, 6, 18, 21);
	assert_true(kpage_swap_entry(&s, SWP(22, 100)) ==
		    (PM_PRESENT | PM_EXCLUSIVE));
	kpage_swap_layout(&s, 6, 18, 22);
	assert_true(kpage_swap_entry(&s, SWP(22, 100)) == SWP(22, 100));
	assert_true(kpage_swap_entry(&s, SWP(22, 0x9000)) == SWP(22, 0x9000));
	assert_true(kpage_swap_entry(&s, SWP(26, 7)) == SWP(26, 7));
	assert_true(kpage_swap_entry(&s, SWP(31, 4)) == SWP(31, 4));
	assert_true(kpage_swap_entry(&s, SWP(31, 4) | PM_GUARD_REGION) == 0);
	assert_true(kpage_swap_entry(&s, SWP(3, 9)) == SWP(3, 9));
	kpage_swap_layout(&s, 6, 1, 30);
	assert_true(kpage_swap_entry(&s, SWP(31, 9)) == SWP(31, 9));
}

/* 5.19-6.1 (include/linux/swap.h of 6.1): the PTE marker's type is 30,
 * the swap-in error entry's 31, which smaps does not count; 5.18 had
 * neither, 6.2 made the marker 31 (swap-in errors became its bit 2). */
static void test_swap_layout_6_1(void **state)
{
	struct snapper s = {.has_pfn = true};
	uint64_t res = PM_PRESENT | PM_EXCLUSIVE;

	(void)state;
	kpage_swap_layout(&s, 6, 1, 1);
	assert_true(kpage_swap_entry(&s, SWP(30, 1)) == 0);
	assert_true(kpage_swap_entry(&s, SWP(30, 0x9000)) == res);
	assert_true(kpage_swap_entry(&s, SWP(31, 0)) == 0);
	assert_true(kpage_swap_entry(&s, SWP(31, 0x9000)) == 0);
	assert_true(kpage_swap_entry(&s, SWP(29, 1)) == res);
	assert_true(kpage_swap_entry(&s, SWP(21, 1)) == SWP(21, 1));
	kpage_swap_layout(&s, 5, 19, 0);
	assert_true(kpage_swap_entry(&s, SWP(31, 0x9000)) == 0);
	/* 5.18, 6.2 and an unknown release: the marker is 31 */
	kpage_swap_layout(&s, 5, 18, 0);
	assert_true(kpage_swap_entry(&s, SWP(30, 1)) == res);
	assert_true(kpage_swap_entry(&s, SWP(31, 0x9000)) == res);
	kpage_swap_layout(&s, 6, 2, 0);
	assert_true(kpage_swap_entry(&s, SWP(30, 1)) == res);
	assert_true(kpage_swap_entry(&s, SWP(31, 1)) == 0);
	kpage_swap_layout(&s, 0, 0, 0);
	assert_true(kpage_swap_entry(&s, SWP(31, 0x9000)) == res);
	assert_true(kpage_swap_entry(&s, SWP(31, 4)) == 0);
}

/* kpage_prepass rewrites a chunk's swapped entries that are no swap
 * before it lists the entries held and the pages to look up. */
static void test_prepass_swap(void **state)
{
	struct snapper s = {.has_pfn = true};
	uint64_t pm[] = {PM_PRESENT | PM_EXCLUSIVE | 4096,
			 SWP(31, 4) | PM_GUARD_REGION,
			 SWP(0, 77),
			 0,
			 SWP(26, 0x4000),
			 PM_PRESENT | PM_FILE | 8192,
			 SWP(31, 1)};
	size_t n = ARRAY_SIZE(pm), nlook = 0;
	uint64_t look[ARRAY_SIZE(pm)], maxkey = 0;
	uint32_t w[ARRAY_SIZE(pm)];
	uint8_t extra[ARRAY_SIZE(pm)] = {0};
	struct snap_ctx c = {.pm = pm, .extra = extra, .look = look, .w = w};

	(void)state;
	assert_int_equal(kpage_prepass(&s, &c, n, &nlook, &maxkey), 4);
	assert_int_equal(c.npresent, 4);
	assert_int_equal(w[0], 0);
	assert_int_equal(w[1], 2);
	assert_int_equal(w[2], 4);
	assert_int_equal(w[3], 5);
	assert_true(pm[1] == 0 && pm[6] == 0);
	assert_true(pm[2] == SWP(0, 77));
	assert_true(pm[4] == (PM_PRESENT | PM_EXCLUSIVE));
	/* only the file page is looked up: the migrated one has no PFN */
	assert_int_equal(nlook, 1);
	assert_true(LOOK_PFN(look[0]) == 8192 && LOOK_IDX(look[0]) == 5);
}

/* A dirty file page whose pagemap entry has bit 60 set (pagemap leaves
 * it 0 today; memsz's PM_CLEAN in c->pm) is still looked up in
 * kpageflags: kpage_prepass clears the bit, entries without it are left
 * as they were. */
static void test_prepass_bit60(void **state)
{
	struct snapper s = {.has_pfn = true, .has_kpageflags = true};
	uint64_t pm[] = {PM_PRESENT | PM_FILE | PM_CLEAN | 4096,
			 PM_PRESENT | PM_FILE | PM_EXCLUSIVE | PM_CLEAN | 8192,
			 PM_PRESENT | PM_FILE | 12288};
	size_t n = ARRAY_SIZE(pm), nlook = 0;
	uint64_t look[ARRAY_SIZE(pm)], maxkey = 0;
	uint32_t w[ARRAY_SIZE(pm)];
	uint8_t extra[ARRAY_SIZE(pm)] = {0};
	struct snap_ctx c = {.pm = pm, .extra = extra, .look = look, .w = w};

	(void)state;
	assert_int_equal(kpage_prepass(&s, &c, n, &nlook, &maxkey), 3);
	assert_int_equal(nlook, 3);
	assert_true(pm[0] == (PM_PRESENT | PM_FILE | 4096));
	assert_true(pm[1] == (PM_PRESENT | PM_FILE | PM_EXCLUSIVE | 8192));
	assert_true(pm[2] == (PM_PRESENT | PM_FILE | 12288));
	for (size_t i = 0; i < nlook; i++)
		assert_true(kpage_wants(&s, &c, pm[LOOK_IDX(look[i])]) &
			    KF_FLAGS);
	/* a page memsz marks clean after the pass is not read */
	assert_false(kpage_wants(&s, &c, pm[0] | PM_CLEAN) & KF_FLAGS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bit_not_exclusive),
	    cmocka_unit_test(test_swap_entry),
	    cmocka_unit_test(test_swap_type_edges),
	    cmocka_unit_test(test_swap_low_pfn),
	    cmocka_unit_test(test_swap_many_areas),
	    cmocka_unit_test(test_swap_layout_6_1),
	    cmocka_unit_test(test_prepass_swap),
	    cmocka_unit_test(test_prepass_bit60),
	};

	return test_run_group(tests, NULL, NULL);
}
