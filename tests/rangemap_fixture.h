/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rangemap_fixture.h — what the RangeMap and DualMap tests share
 * (test_rangemap_literal.c, test_rangemap_random.c): short names and the
 * DualMap mutations followed by rmap_check() on both of its maps.
 *
 * Include after <cmocka.h>; a failed check fails the running test through
 * cmocka's assertions.
 */
#ifndef MEMSZ_RANGEMAP_FIXTURE_H
#define MEMSZ_RANGEMAP_FIXTURE_H

#include <stdint.h>

#include "maps/labels.h"
#include "maps/rangemap.h"

#define NO RMAP_NO_TRANSLATION
#define NONE LABEL_NONE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* rmap_check() of d's VM and file maps is 0. */
void dm_check(struct dualmap *d);

/* dualmap_add_vm(), dualmap_add_file() and dualmap_add_both(), each
 * followed by dm_check(d). */
void dm_vm(struct dualmap *d, struct dualmap *b, uint64_t vmaddr, uint64_t size,
	   uint32_t l);
void dm_file(struct dualmap *d, struct dualmap *b, uint64_t off, uint64_t size,
	     uint32_t l);
void dm_both(struct dualmap *d, uint64_t vmaddr, uint64_t vmsize, uint64_t off,
	     uint64_t filesize, uint32_t l);

#endif
