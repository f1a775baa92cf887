// SPDX-License-Identifier: GPL-2.0-or-later
/* pgstate_dec.c — the decoder of the compact page-state encoding of
 * SNAP_MAPPING records (pgstate.c encodes): every length, count and code
 * checked against the stream and the palette before use, since a
 * recording may be cut short or crafted. See pgstate.h. */
#include "config.h"

#include "data/pgstate.h"
#include "data/pgstate_int.h"
#include "util/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct dec {
	struct md_run *runs;
	size_t n, max;
	uint64_t start;
	unsigned shift;
};

static bool var_get(const uint8_t *s, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;
	unsigned sh = 0;

	while (*pos < len) {
		uint8_t b = s[(*pos)++];

		if (sh == 63 && b > 1)
			return false;
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
		sh += 7;
		if (sh > 63)
			return false;
	}
	return false;
}

/* Append len pages at page, joined to the last run when it continues it.
 * False if that makes more runs than announced. */
static bool dec_emit(struct dec *d, uint64_t page, uint64_t len, uint32_t fl,
		     uint32_t mc)
{
	uint64_t va = d->start + (page << d->shift);

	while (len) {
		struct md_run *r = d->n ? &d->runs[d->n - 1] : NULL;
		uint64_t add;

		if (r && r->flags == fl && r->mapcount == mc &&
		    r->npages < UINT32_MAX &&
		    r->vaddr + ((uint64_t)r->npages << d->shift) == va) {
			add = MIN(len, UINT32_MAX - r->npages);
			r->npages += (uint32_t)add;
		} else {
			if (d->n == d->max)
				return false;
			add = MIN(len, UINT32_MAX);
			d->runs[d->n++] = (struct md_run){
			    .vaddr = va,
			    .npages = (uint32_t)add,
			    .flags = fl,
			    .mapcount = mc,
			};
		}
		len -= add;
		va += add << d->shift;
	}
	return true;
}

/* Append the page at page, joined to the last run when it continues it.
 * False if that makes more runs than announced. */
static bool dec_page(struct dec *d, uint64_t page, uint32_t fl, uint32_t mc)
{
	uint64_t va = d->start + (page << d->shift);
	struct md_run *r = d->n ? &d->runs[d->n - 1] : NULL;

	if (r && r->flags == fl && r->mapcount == mc &&
	    r->npages < UINT32_MAX &&
	    r->vaddr + ((uint64_t)r->npages << d->shift) == va) {
		r->npages++;
		return true;
	}
	if (d->n == d->max)
		return false;
	d->runs[d->n++] = (struct md_run){
	    .vaddr = va,
	    .npages = 1,
	    .flags = fl,
	    .mapcount = mc,
	};
	return true;
}

/* Bits set in each byte value. */
static const uint8_t popcount8[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0), B6(1), B6(1), B6(2)
#undef B6
#undef B4
#undef B2
};

/* One MAP block of n pages at page; *pos is just after its header. */
static bool dec_map(struct dec *d, const uint8_t *pal, uint32_t npal,
		    const uint8_t *s, size_t len, size_t *pos, uint64_t page,
		    uint64_t n)
{
	uint32_t lfl[LOCAL_MAX], lmc[LOCAL_MAX], m;
	uint64_t v, present = 0, bit = 0, nb, cb;
	const uint8_t *bm, *codes;
	unsigned k, mask;

	if (n > PGSTATE_MAP_MAX || *pos >= len)
		return false;
	m = (uint32_t)s[(*pos)++] + 1;
	for (uint32_t j = 0; j < m; j++) {
		if (!var_get(s, len, pos, &v) || v >= npal)
			return false;
		lfl[j] = le32_get(pal + v * PGSTATE_PAL_SIZE);
		lmc[j] = le32_get(pal + v * PGSTATE_PAL_SIZE + 4);
	}
	k = code_bits(m);
	mask = (1u << k) - 1;
	nb = (n + 7) / 8;
	if (len - *pos < nb)
		return false;
	bm = s + *pos;
	*pos += nb;
	if ((n & 7) && (bm[nb - 1] >> (n & 7)))
		return false;
	for (uint64_t i = 0; i < nb; i++)
		present += popcount8[bm[i]];
	cb = (present * k + 7) / 8;
	if (len - *pos < cb)
		return false;
	codes = s + *pos;
	*pos += cb;
	if (((present * k) & 7) && (codes[cb - 1] >> ((present * k) & 7)))
		return false;
	for (uint64_t i = 0; i < nb; i++) {
		unsigned b = bm[i];

		while (b) {
			unsigned t = (unsigned)__builtin_ctz(b), c = 0;

			b &= b - 1;
			if (k) {
				uint64_t at = bit >> 3;
				unsigned w = codes[at];

				if (at + 1 < cb)
					w |= (unsigned)codes[at + 1] << 8;
				c = (w >> (bit & 7)) & mask;
				bit += k;
				if (c >= m)
					return false;
			}
			if (!dec_page(d, page + i * 8 + t, lfl[c], lmc[c]))
				return false;
		}
	}
	return true;
}

/* The local entries and frequencies of a CODED block: m entries (flags,
 * mapcount, or absent), cum[] their cumulated frequencies (cum[m] ==
 * RANS_M). False if anything is out of range. */
static bool dec_coded_tables(const uint8_t *pal, uint32_t npal,
			     const uint8_t *s, size_t len, size_t *pos,
			     uint32_t m, uint32_t *lfl, uint32_t *lmc,
			     bool *absent, uint32_t *cum)
{
	uint64_t v;

	for (uint32_t j = 0; j < m; j++) {
		if (!var_get(s, len, pos, &v) || v > npal)
			return false;
		absent[j] = !v;
		if (v) {
			lfl[j] = le32_get(pal + (v - 1) * PGSTATE_PAL_SIZE);
			lmc[j] = le32_get(pal + (v - 1) * PGSTATE_PAL_SIZE + 4);
		}
	}
	cum[0] = 0;
	for (uint32_t j = 0; j < m; j++) {
		if (!var_get(s, len, pos, &v) || !v || v > RANS_M - cum[j])
			return false;
		cum[j + 1] = cum[j] + (uint32_t)v;
	}
	return cum[m] == RANS_M;
}

/* One CODED block of n pages at page; *pos is just after its header. */
static bool dec_coded(struct dec *d, const uint8_t *pal, uint32_t npal,
		      const uint8_t *s, size_t len, size_t *pos, uint64_t page,
		      uint64_t n)
{
	uint32_t lfl[CODED_MAX], lmc[CODED_MAX], cum[CODED_MAX + 1], m, x;
	uint32_t prev = CODED_MAX, same = 0;
	bool absent[CODED_MAX];
	const uint8_t *q;
	uint64_t nb;
	size_t at = 4;

	if (n > PGSTATE_MAP_MAX || *pos >= len)
		return false;
	m = (uint32_t)s[(*pos)++] + 1;
	if (!dec_coded_tables(pal, npal, s, len, pos, m, lfl, lmc, absent,
			      cum) ||
	    !var_get(s, len, pos, &nb) || nb < 4 || nb > len - *pos)
		return false;
	q = s + *pos;
	*pos += nb;
	x = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 |
	    q[3];
	if (x < RANS_L || x >= RANS_L << 8)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t slot = x & (RANS_M - 1), lo = 0, hi = m;

		/* the symbol j with cum[j] <= slot < cum[j + 1] */
		while (hi - lo > 1) {
			uint32_t mid = (lo + hi) / 2;

			if (cum[mid] <= slot)
				lo = mid;
			else
				hi = mid;
		}
		x = (cum[lo + 1] - cum[lo]) * (x >> RANS_BITS) + slot - cum[lo];
		while (x < RANS_L) {
			if (at == nb)
				return false;
			x = x << 8 | q[at++];
		}
		/* like a MAP block, no run or hole of LONG_PAGES pages */
		same = lo == prev ? same + 1 : 1;
		prev = lo;
		if (same >= LONG_PAGES)
			return false;
		if (!absent[lo] && !dec_page(d, page + i, lfl[lo], lmc[lo]))
			return false;
	}
	/* the encoder starts from RANS_L and puts out every byte */
	return x == RANS_L && at == nb;
}

int pgstate_decode(const uint8_t *pal, uint32_t npal, const uint8_t *s,
		   size_t nbytes, uint64_t start, uint64_t npages,
		   unsigned page_shift, uint64_t nruns, bool coded,
		   struct md_run **runs, size_t *cap)
{
	const uint32_t kinds = MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_ZERO;
	struct dec d = {.start = start, .shift = page_shift};
	uint64_t page = 0, h, n, v;
	size_t pos = 0;

	/* every run starts at a present page of a MAP block (a bit of the
	 * stream), is a RUN block (two bytes or more), or starts at a change
	 * of symbol in a CODED block: coded by their own frequencies, pages
	 * take at least a bit per run (with q the largest symbol's share,
	 * entropy >= h(q) >= 2 (1 - q), and runs <= 2 (1 - q) pages + 1,
	 * the + 1 paid by the 4-byte state) */
	if (nruns > npages || nruns / 8 > nbytes)
		return -MEMSZ_EBADDATA;
	for (uint32_t i = 0; i < npal; i++)
		if (!(le32_get(pal + (size_t)i * PGSTATE_PAL_SIZE) & kinds))
			return -MEMSZ_EBADDATA;
	xgrow(runs, cap, nruns + 1, sizeof(**runs));
	d.runs = *runs;
	d.max = nruns;
	while (pos < nbytes) {
		if (!var_get(s, nbytes, &pos, &h))
			return -MEMSZ_EBADDATA;
		n = h >> 2;
		if (!n || n > npages - page)
			return -MEMSZ_EBADDATA;
		switch (h & 3) {
		case BLK_SKIP:
			break;
		case BLK_RUN:
			if (n > UINT32_MAX || !var_get(s, nbytes, &pos, &v) ||
			    v >= npal ||
			    !dec_emit(&d, page, n,
				      le32_get(pal + v * PGSTATE_PAL_SIZE),
				      le32_get(pal + v * PGSTATE_PAL_SIZE + 4)))
				return -MEMSZ_EBADDATA;
			break;
		case BLK_MAP:
			if (!dec_map(&d, pal, npal, s, nbytes, &pos, page, n))
				return -MEMSZ_EBADDATA;
			break;
		case BLK_CODED:
			if (!coded ||
			    !dec_coded(&d, pal, npal, s, nbytes, &pos, page, n))
				return -MEMSZ_EBADDATA;
			break;
		default:
			return -MEMSZ_EBADDATA;
		}
		page += n;
	}
	if (d.n != nruns)
		return -MEMSZ_EBADDATA;
	return 0;
}
