// SPDX-License-Identifier: GPL-2.0-or-later
/* test_snap_kpage.c — record/snap_kpage.c's reading of kpageflags' bit
 * 34 (PG_anon_exclusive) for PMD-mapped anonymous huge pages, against a
 * kpageflags file written here.
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
	assert_false(kpage_pmd_maybe_shared(s, excl));
	/* exclusive, bit clear: shared since a fork */
	assert_true(
	    kpage_pmd_maybe_shared(s, PM_PRESENT | PM_EXCLUSIVE | 1536));
	/* shared, bit clear: as it should be; nothing changes */
	assert_false(kpage_pmd_maybe_shared(s, PM_PRESENT | 1536));
	assert_false(kpage_pmd_maybe_shared(s, excl));
	assert_false(off);
	/* shared with the bit: the bit is not PG_anon_exclusive */
	assert_false(kpage_pmd_maybe_shared(s, PM_PRESENT | 1024));
	assert_true(off); /* the flag kept outside the snapper */
	assert_true(kpage_pmd_maybe_shared(s, excl));
	/* a file huge page is still as pagemap says */
	assert_false(kpage_pmd_maybe_shared(s, PM_PRESENT | PM_EXCLUSIVE |
						   PM_FILE | 512));
	close(s->kpageflags_fd);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bit_not_exclusive),
	};

	return test_run_group(tests, NULL, NULL);
}
