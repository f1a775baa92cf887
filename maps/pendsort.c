// SPDX-License-Identifier: GPL-2.0-or-later
/* pendsort.c — the range map's pending adds sorted into settling order
 * (by start, then by arrival) for rangemap.c's settle(). */
#include "config.h"

#include "maps/rmappriv.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Pending adds in settling order: by start, then by arrival. */
static inline bool pend_before(const struct pend *x, const struct pend *y)
{
	return x->start < y->start ||
	       (x->start == y->start && PEND_SEQ(x) < PEND_SEQ(y));
}

static int pend_cmp(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	return pend_before(x, y) ? -1 : pend_before(y, x);
}

/* Buckets of at most this many adds are sorted by insertion. */
#define SORT_SMALL 32

static void insertion_sort(struct pend *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct pend v = a[i];
		size_t j = i;

		for (; j && pend_before(&v, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* In-place MSD radix sort (American flag sort) of a[0, n) by (start,
 * seq), on the byte of start at shift and below: no buffer as large as
 * the array (an LSD sort needs one), at most 8 levels of 256 buckets. The
 * radix order is not stable, but seq is in each add: buckets left with
 * one start are sorted by it. */
static void flag_sort(struct pend *a, size_t n, int shift)
{
	size_t count[256] = {0}, head[256], tail[256], sum = 0, first;

	if (n <= SORT_SMALL) {
		insertion_sort(a, n);
		return;
	}
	if (shift < 0) { /* one start: by arrival */
		qsort(a, n, sizeof(*a), pend_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++)
		count[(a[i].start >> shift) & 255]++;
	if (count[(a[0].start >> shift) & 255] == n) { /* one bucket */
		flag_sort(a, n, shift - 8);
		return;
	}
	for (unsigned d = 0; d < 256; d++) {
		head[d] = sum;
		sum += count[d];
		tail[d] = sum;
	}
	for (unsigned d = 0; d < 256; d++)
		while (head[d] < tail[d]) {
			struct pend v = a[head[d]];
			unsigned k = (v.start >> shift) & 255;

			while (k != d) { /* swap v into its bucket */
				struct pend t = a[head[k]];

				a[head[k]++] = v;
				v = t;
				k = (v.start >> shift) & 255;
			}
			a[head[d]++] = v;
		}
	first = 0;
	for (unsigned d = 0; d < 256; first += count[d], d++)
		if (count[d] > 1)
			flag_sort(a + first, count[d], shift - 8);
}

/* Sort a[0, n) by (start, seq) in place. */
static void pend_sort_all(struct pend *a, size_t n)
{
	uint64_t max = 0;
	int shift = 0;

	for (size_t i = 0; i < n; i++)
		max |= a[i].start;
	while (shift < 56 && (max >> (shift + 8)))
		shift += 8;
	flag_sort(a, n, shift);
}

/* Runs of adds in order at least this long, and at least n / RUN_PARTS
 * of the n pending, are kept as they came and merged; the adds between
 * them are sorted. */
#define RUN_MIN 64
#define RUN_PARTS 32

/* Index of the first of a[0, n) that p comes before (n if none). */
static size_t pend_upper(const struct pend *a, size_t n, const struct pend *p)
{
	size_t lo = 0;

	while (n) {
		size_t half = n / 2;

		if (pend_before(p, &a[lo + half])) {
			n = half;
		} else {
			lo += half + 1;
			n -= half + 1;
		}
	}
	return lo;
}

/* Merge the sorted a[0, na) and a[na, na + nb) in place. Only the adds
 * out of place are moved: those of a[0, na) after a[na], and of the
 * second part before a[na - 1]. The smaller of these two sets goes
 * through *buf (of *cap adds, grown as needed). */
static void pend_merge(struct pend *a, size_t na, size_t nb, struct pend **buf,
		       size_t *cap)
{
	struct pend *b = a + na;
	size_t lo, i, j, w;

	if (!na || !nb || !pend_before(&b[0], &a[na - 1]))
		return; /* in order already */
	lo = pend_upper(a, na, &b[0]);
	nb = pend_upper(b, nb, &a[na - 1]);
	a += lo;
	na -= lo;
	if (MIN(na, nb) > *cap) {
		xgrow_huge(buf, cap, MIN(na, nb), sizeof(**buf));
		/* written whole below: resident in one call */
		prefault_write(*buf, MIN(na, nb) * sizeof(**buf));
	}
	if (na <= nb) { /* a's through the buffer, from the front */
		memcpy(*buf, a, na * sizeof(*a));
		for (i = 0, j = 0, w = 0; i < na && j < nb; w++)
			a[w] = pend_before(&b[j], &(*buf)[i]) ? b[j++]
							      : (*buf)[i++];
		memcpy(a + w, *buf + i, (na - i) * sizeof(*a));
		return;
	}
	memcpy(*buf, b, nb * sizeof(*b)); /* b's, from the back */
	for (i = na, j = nb, w = na + nb; i && j;)
		a[--w] = pend_before(&(*buf)[j - 1], &a[i - 1]) ? a[--i]
								: (*buf)[--j];
	memcpy(a, *buf, j * sizeof(*a));
}

/* Sort the pending adds by (start, seq) in place. The adds of a source
 * mostly come in long runs in order: the metadata of a big file, the
 * symbols, the references the disassembly charges, each in order, and
 * between them shorter runs (the names of a string table, the
 * sections). The long runs are kept, the adds between them sorted, and
 * the sorted parts merged pairwise. A run of equal starts is in arrival
 * order: the seqs increase along it, so it is sorted by (start, seq). */
void rmap_pend_sort(struct pend *a, size_t n)
{
	size_t min = MAX((size_t)RUN_MIN, n / RUN_PARTS), nb = 0, from = 0;
	size_t *b = xmalloc((2 * (n / min) + 3) * sizeof(*b)), cap = 0;
	struct pend *buf = NULL;

	b[nb++] = 0;
	for (size_t i = 0, r; i < n; i = r) {
		for (r = i + 1; r < n && a[r - 1].start <= a[r].start; r++)
			;
		if (r - i < min)
			continue;
		if (from < i) { /* the short runs before it */
			pend_sort_all(a + from, i - from);
			b[nb++] = i;
		}
		b[nb++] = r;
		from = r;
	}
	if (from < n) {
		pend_sort_all(a + from, n - from);
		b[nb++] = n;
	}
	/* parts k in [0, nb - 1): a[b[k], b[k + 1]), each sorted */
	while (nb > 2) {
		size_t k, m = 0;

		for (k = 0; k + 2 < nb; k += 2) {
			pend_merge(a + b[k], b[k + 1] - b[k],
				   b[k + 2] - b[k + 1], &buf, &cap);
			b[m++] = b[k];
		}
		if (k + 1 < nb)
			b[m++] = b[k];
		b[m++] = n;
		nb = m;
	}
	free(buf);
	free(b);
}
