// SPDX-License-Identifier: GPL-2.0-or-later
/* hugeshare.c — see hugeshare.h. */
#include "config.h"

#include "report/hugeshare.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/util.h"

/* A stretch of a file's pages one snapshot maps, shared hugetlb pages. */
struct hs_range {
	uint32_t snap;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint64_t lo, hi; /* file offsets, bytes */
	uint32_t point;	 /* hugeshare_choose: a point it counts in */
};

struct hugeshare {
	/* after hugeshare_choose: one per point a range counts in, sorted
	 * by point: the ranges of a moment are a slice */
	struct hs_range *v;
	size_t n, cap;
	struct md_run *out;
	size_t nout, outcap;
	uint64_t *cuts;
	size_t cutcap;
};

struct hugeshare *hugeshare_new(void)
{
	return xcalloc(1, sizeof(struct hugeshare));
}

void hugeshare_free(struct hugeshare *h)
{
	if (!h)
		return;
	free(h->v);
	free(h->out);
	free(h->cuts);
	free(h);
}

/* A present hugetlb page that is not mapped exclusively, with a mapcount
 * (PFNs were readable), in a file mapping shared between processes. */
static bool run_counts(const struct md_snap_mapping *m, const struct md_run *r)
{
	return (m->flags & MAP_SHARED) && m->ino && r->mapcount &&
	       (r->flags & (MD_PG_HUGE | MD_PG_PRESENT | MD_PG_EXCLUSIVE)) ==
		   (MD_PG_HUGE | MD_PG_PRESENT);
}

void hugeshare_add(struct hugeshare *h, uint32_t snap, uint64_t page_size,
		   const struct md_snap_mapping *m)
{
	for (size_t i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t lo;

		if (!run_counts(m, r))
			continue;
		lo = m->pgoff + (r->vaddr - m->start);
		xgrow(&h->v, &h->cap, h->n + 1, sizeof(*h->v));
		h->v[h->n++] = (struct hs_range){
		    .snap = snap,
		    .dev_major = m->dev_major,
		    .dev_minor = m->dev_minor,
		    .ino = m->ino,
		    .lo = lo,
		    .hi = lo + (uint64_t)r->npages * page_size,
		};
	}
}

static int cmp_point(const void *a, const void *b)
{
	const struct hs_range *x = a, *y = b;

	return x->point < y->point ? -1 : x->point > y->point;
}

void hugeshare_choose(struct hugeshare *h, const bool *chosen,
		      const uint32_t *first, const uint32_t *end, bool at)
{
	struct hs_range *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < h->n; i++) {
		struct hs_range x = h->v[i];
		uint32_t p0 = at ? first[x.snap] : 0, p1 = at ? end[x.snap] : 1;

		if (!chosen[x.snap])
			continue;
		for (uint32_t p = p0; p < p1; p++) {
			x.point = p;
			xgrow(&v, &cap, n + 1, sizeof(*v));
			v[n++] = x;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_point);
	free(h->v);
	h->v = v;
	h->n = n;
	h->cap = cap;
}

/* The ranges that count at point: [*lo, *hi) of h->v. */
static void point_slice(const struct hugeshare *h, uint32_t point, size_t *lo,
			size_t *hi)
{
	size_t a = 0, b = h->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (h->v[mid].point < point)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	for (b = a; b < h->n && h->v[b].point == point; b++)
		;
	*hi = b;
}

/* Whether range x is of the same file as m. */
static bool same_file(const struct hs_range *x, const struct md_snap_mapping *m)
{
	return x->ino == m->ino && x->dev_major == m->dev_major &&
	       x->dev_minor == m->dev_minor;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Append to h->out the run r (file offsets [a, b)) cut where the number of
 * ranges mapping its pages changes, each piece's mapcount raised to the
 * most of its own, 2 (shared) and that number. */
static void run_split(struct hugeshare *h, const struct md_snap_mapping *m,
		      const struct md_run *r, uint64_t a, uint64_t b,
		      uint64_t page_size, size_t lo0, size_t hi0)
{
	size_t nc = 0;

	xgrow(&h->cuts, &h->cutcap, 2, sizeof(*h->cuts));
	h->cuts[nc++] = a;
	h->cuts[nc++] = b;
	for (size_t i = lo0; i < hi0; i++) {
		const struct hs_range *x = &h->v[i];

		if (!same_file(x, m) || x->hi <= a || x->lo >= b)
			continue;
		xgrow(&h->cuts, &h->cutcap, nc + 2, sizeof(*h->cuts));
		if (x->lo > a)
			h->cuts[nc++] = x->lo;
		if (x->hi < b)
			h->cuts[nc++] = x->hi;
	}
	qsort(h->cuts, nc, sizeof(*h->cuts), cmp_u64);
	for (size_t c = 0; c + 1 < nc; c++) {
		uint64_t lo = h->cuts[c], hi = h->cuts[c + 1];
		uint32_t users = 0;
		struct md_run piece = *r;

		if (hi <= lo)
			continue;
		for (size_t i = lo0; i < hi0; i++)
			users += same_file(&h->v[i], m) && h->v[i].lo <= lo &&
				 hi <= h->v[i].hi;
		piece.vaddr = r->vaddr + (lo - a);
		piece.npages = (uint32_t)((hi - lo) / page_size);
		piece.mapcount = MAX(MAX(r->mapcount, 2u), users);
		xgrow(&h->out, &h->outcap, h->nout + 1, sizeof(*h->out));
		h->out[h->nout++] = piece;
	}
}

const struct md_run *hugeshare_runs(struct hugeshare *h, uint32_t point,
				    uint64_t page_size,
				    const struct md_snap_mapping *m, size_t *n)
{
	size_t i, lo, hi;

	*n = m->nruns;
	for (i = 0; i < m->nruns && !run_counts(m, &m->runs[i]); i++)
		;
	if (i == m->nruns)
		return m->runs;
	point_slice(h, point, &lo, &hi);
	h->nout = 0;
	for (i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t a = m->pgoff + (r->vaddr - m->start);

		if (run_counts(m, r)) {
			run_split(h, m, r, a,
				  a + (uint64_t)r->npages * page_size,
				  page_size, lo, hi);
			continue;
		}
		xgrow(&h->out, &h->outcap, h->nout + 1, sizeof(*h->out));
		h->out[h->nout++] = *r;
	}
	*n = h->nout;
	return h->out;
}
