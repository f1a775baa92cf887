// SPDX-License-Identifier: GPL-2.0-or-later
/* rangemap_fixture.c — DualMap mutations checked after each
 * (rangemap_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/rangemap_fixture.h"
void dm_check(struct dualmap *d)
{
	assert_int_equal(rmap_check(d->vm), 0);
	assert_int_equal(rmap_check(d->file), 0);
}

void dm_vm(struct dualmap *d, struct dualmap *b, uint64_t vmaddr, uint64_t size,
	   uint32_t l)
{
	dualmap_add_vm(d, b, vmaddr, size, l);
	dm_check(d);
}

void dm_file(struct dualmap *d, struct dualmap *b, uint64_t off, uint64_t size,
	     uint32_t l)
{
	dualmap_add_file(d, b, off, size, l);
	dm_check(d);
}

void dm_both(struct dualmap *d, uint64_t vmaddr, uint64_t vmsize, uint64_t off,
	     uint64_t filesize, uint32_t l)
{
	dualmap_add_both(d, vmaddr, vmsize, off, filesize, l);
	dm_check(d);
}
