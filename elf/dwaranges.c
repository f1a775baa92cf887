// SPDX-License-Identifier: GPL-2.0-or-later
/* dwaranges.c — see dwaranges.h. Written here after what libdw 0.188's
 * dwarf_getaranges() accepts and answers, not taken from it. */
#include "config.h"

#include "elf/dwaranges.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <stdlib.h>

/* The set header of .debug_aranges at *p (before end): its unit's
 * offset and address size; *p then at its first entry. */
static bool aranges_set(const uint8_t **p, const uint8_t *end, bool be,
			uint64_t *cu, unsigned *asize)
{
	const uint8_t *h = *p, *q = h;
	unsigned lsize = 4;
	uint64_t len;

	if (end - q < 4)
		return false;
	len = elf_get_uint(q, 4, be);
	q += 4;
	if (len == DWARF64_LENGTH) {
		if (end - q < 8)
			return false;
		q += 8; /* the length itself is not checked, as libdw */
		lsize = 8;
	} else if (len >= DWARF_LENGTH_RESERVED) {
		return false;
	}
	if (end - q < 2 || elf_get_uint(q, 2, be) != 2)
		return false;
	q += 2;
	if ((size_t)(end - q) < lsize)
		return false;
	*cu = elf_get_uint(q, lsize, be);
	q += lsize;
	if (end - q < 2 || (q[0] != 4 && q[0] != 8) || q[1] != 0)
		return false;
	*asize = q[0];
	q += 2;
	/* the entries start at a multiple of twice the address size */
	q += (2 * *asize - (size_t)(q - h) % (2 * *asize)) % (2 * *asize);
	*p = q;
	return true;
}

/* The entries of the section (ar, n bytes) into *v (*nv), in its order.
 * Returns 0, or -1 where dwarf_getaranges() fails (*v NULL, *nv 0). */
static int aranges_entries(const uint8_t *ar, size_t n, size_t info_len,
			   bool be, struct dwarange **v, size_t *nv)
{
	const uint8_t *p = ar, *end = ar + n;
	size_t cap = 0;

	*v = NULL;
	*nv = 0;
	while (p < end) {
		uint64_t cu;
		unsigned as;

		if (!aranges_set(&p, end, be, &cu, &as) || info_len < 4 ||
		    cu > info_len - 4)
			goto fail;
		for (;;) {
			uint64_t addr, len;

			if (p > end || (size_t)(end - p) < 2 * (size_t)as)
				goto fail;
			addr = elf_get_uint(p, as, be);
			len = elf_get_uint(p + as, as, be);
			p += 2 * as;
			if (!addr && !len)
				break;
			if (*nv >= UINT32_MAX)
				goto fail;
			xgrow(v, &cap, *nv + 1, sizeof(**v));
			(*v)[*nv] = (struct dwarange){
			    .addr = addr, .len = len, .cu = cu, .idx = *nv};
			(*nv)++;
		}
	}
	return 0;
fail:
	free(*v);
	*v = NULL;
	*nv = 0;
	return -1;
}

static int hdroff_cmp(const void *a, const void *b)
{
	const struct dwcuent *x = a, *y = b;

	return u64_cmp(x->hdroff, y->hdroff);
}

/* By address, then by place in the section. This mirrors libdw 0.188's
 * dwarf_getaranges(): it qsort()s its entries, in the section's order, by
 * address alone, and glibc's qsort() (a merge sort) keeps equal ones in
 * that order; the tie-break gives that order with any qsort(). */
static int dwarange_cmp(const void *a, const void *b)
{
	const struct dwarange *x = a, *y = b;

	if (x->addr != y->addr)
		return u64_cmp(x->addr, y->addr);
	return u64_cmp(x->idx, y->idx);
}

int dwaranges_read(const uint8_t *ar, size_t n, size_t info_len, bool be,
		   const struct dwcuent *cus, size_t ncus, struct dwarange **v,
		   size_t *nv)
{
	if (aranges_entries(ar, n, info_len, be, v, nv) < 0)
		return -1;
	for (size_t i = 0; i < *nv; i++) {
		struct dwcuent key = {.hdroff = (*v)[i].cu};
		const struct dwcuent *hit =
		    bsearch(&key, cus, ncus, sizeof(*cus), hdroff_cmp);

		/* libdw checks the unit's DIE is in the section */
		if (!hit || hit->dieoff >= info_len) {
			free(*v);
			*v = NULL;
			*nv = 0;
			return -1;
		}
		(*v)[i].cu = hit->label;
	}
	qsort(*v, *nv, sizeof(**v), dwarange_cmp);
	return 0;
}
