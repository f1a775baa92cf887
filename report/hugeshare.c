// SPDX-License-Identifier: GPL-2.0-or-later
/* hugeshare.c — see hugeshare.h. */
#include "config.h"

#include "report/hugeshare.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/util.h"

/* The file a page is of. */
struct hs_file {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
};

/* A stretch of a file's pages one snapshot maps, hugetlb pages that
 * count (run_counts). */
struct hs_range {
	struct hs_file f;
	uint64_t lo, hi;     /* file offsets, bytes */
	uint32_t snap;	     /* pass 1: its snapshot */
	uint32_t first, end; /* after hugeshare_choose: the points it
				counts in, [first, end) */
};

/* A step of the number of ranges that map a file's pages at one point:
 * users from off to the next step of the same file (a file's last step
 * has 0). */
struct hs_step {
	struct hs_file f;
	uint64_t off;
	uint32_t users;
};

/* An end of a range: +1 where it starts, -1 where it ends. */
struct hs_edge {
	struct hs_file f;
	uint64_t off;
	int d;
};

struct hugeshare {
	struct hs_range *v; /* after hugeshare_choose: its snapshots', sorted
			       by first */
	size_t n, cap;
	uint32_t *snap_first; /* per snapshot, its first point */
	size_t nsnaps;
	uint32_t *pmap; /* hugeshare_map_points: point charged -> point */
	size_t npmap;
	/* the step function of point step_at (step_built) */
	struct hs_step *steps;
	size_t nsteps, stepcap;
	uint32_t step_at;
	bool step_built;
	/* the ranges counting at step_at (indices into v) and the first of
	 * v not yet looked at (its first is after step_at) */
	size_t *act;
	size_t nact, actcap, next;
	struct hs_edge *edges;
	size_t edgecap;
	struct md_run *out;
	size_t nout, outcap;
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
	free(h->snap_first);
	free(h->pmap);
	free(h->steps);
	free(h->act);
	free(h->edges);
	free(h->out);
	free(h);
}

/* A present hugetlb page with a mapcount (PFNs were readable) of a file
 * other processes may map too: in a MAP_SHARED mapping, or in a private
 * one still the file's page, not a copy (pagemap's file bit: a process
 * reading the page through a MAP_PRIVATE mapping is one more mapper of
 * it); whatever pagemap's exclusive bit says: kernels 6.1 to 6.9 set it
 * on a page whose one mapping is a shared page table
 * (pagemap_hugetlb_range did not check hugetlb_pmd_shared before 6.10),
 * so the snapshots' own count of its mappers is all there is. */
static bool run_counts(const struct md_snap_mapping *m, const struct md_run *r)
{
	return m->ino && r->mapcount &&
	       (r->flags & (MD_PG_HUGE | MD_PG_PRESENT)) ==
		   (MD_PG_HUGE | MD_PG_PRESENT) &&
	       ((m->flags & MAP_SHARED) || (r->flags & MD_PG_FILE));
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
		    .f = {m->dev_major, m->dev_minor, m->ino},
		    .lo = lo,
		    .hi = lo + (uint64_t)r->npages * page_size,
		    .snap = snap,
		};
	}
}

static int cmp_first(const void *a, const void *b)
{
	const struct hs_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

void hugeshare_choose(struct hugeshare *h, const bool *chosen,
		      const uint32_t *first, const uint32_t *end, size_t nsnaps,
		      bool at)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++) {
		struct hs_range x = h->v[i];

		if (!chosen[x.snap])
			continue;
		x.first = at ? first[x.snap] : 0;
		x.end = at ? end[x.snap] : 1;
		if (x.end > x.first)
			h->v[n++] = x;
	}
	h->n = n;
	/* by first, so that the step function of the next point only adds
	 * the ranges starting there (steps_at) */
	if (n)
		qsort(h->v, n, sizeof(*h->v), cmp_first);
	h->nsnaps = nsnaps;
	h->snap_first = xcalloc(nsnaps + 1, sizeof(*h->snap_first));
	if (at)
		memcpy(h->snap_first, first, nsnaps * sizeof(*first));
	h->step_built = false;
}

uint32_t hugeshare_point_of(const struct hugeshare *h, size_t snap)
{
	return snap < h->nsnaps ? h->snap_first[snap] : 0;
}

void hugeshare_map_points(struct hugeshare *h, const uint32_t *map, size_t n)
{
	free(h->pmap);
	h->pmap = xcalloc(n + 1, sizeof(*h->pmap));
	memcpy(h->pmap, map, n * sizeof(*map));
	h->npmap = n;
	h->step_built = false;
}

static int cmp_file(const struct hs_file *x, const struct hs_file *y)
{
	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct hs_edge *x = a, *y = b;
	int c = cmp_file(&x->f, &y->f);

	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The ranges counting at point into h->act: from those at step_at, the
 * ones ended dropped and the ones started since added (points are
 * charged in nondecreasing order, so a long timeline reads each range
 * twice, not once per point); from none when point goes back or nothing
 * was built since hugeshare_choose (a full rebuild). */
static void active_at(struct hugeshare *h, uint32_t point)
{
	size_t k = 0;

	if (!h->step_built || point < h->step_at) {
		h->nact = 0;
		h->next = 0;
	}
	for (size_t i = 0; i < h->nact; i++)
		if (h->v[h->act[i]].end > point)
			h->act[k++] = h->act[i];
	h->nact = k;
	for (; h->next < h->n && h->v[h->next].first <= point; h->next++) {
		if (h->v[h->next].end <= point)
			continue; /* ended before point */
		xgrow(&h->act, &h->actcap, h->nact + 1, sizeof(*h->act));
		h->act[h->nact++] = h->next;
	}
}

/* The step function of point: the ranges counting there, their ends
 * sorted by file and offset, summed from the left (O(A log A) for the A
 * ranges counting there). */
static void build_steps(struct hugeshare *h, uint32_t point)
{
	size_t ne = 0;
	int64_t users = 0;

	active_at(h, point);
	h->nsteps = 0;
	xgrow(&h->edges, &h->edgecap, 2 * h->nact + 1, sizeof(*h->edges));
	for (size_t i = 0; i < h->nact; i++) {
		const struct hs_range *x = &h->v[h->act[i]];

		h->edges[ne++] = (struct hs_edge){x->f, x->lo, 1};
		h->edges[ne++] = (struct hs_edge){x->f, x->hi, -1};
	}
	if (ne)
		qsort(h->edges, ne, sizeof(*h->edges), cmp_edge);
	for (size_t i = 0; i < ne; i++) {
		const struct hs_edge *e = &h->edges[i];

		users += e->d;
		if (i + 1 < ne && !cmp_edge(e, &h->edges[i + 1]))
			continue; /* the count after all edges at off */
		xgrow(&h->steps, &h->stepcap, h->nsteps + 1, sizeof(*h->steps));
		h->steps[h->nsteps++] =
		    (struct hs_step){e->f, e->off, (uint32_t)users};
	}
	h->step_at = point;
	h->step_built = true;
}

/* The index of the first step after offset off of file f (sorted by file
 * and offset: an upper bound). */
static size_t step_after(const struct hugeshare *h, const struct hs_file *f,
			 uint64_t off)
{
	size_t a = 0, b = h->nsteps;

	while (a < b) {
		size_t mid = a + (b - a) / 2;
		int c = cmp_file(&h->steps[mid].f, f);

		if (c < 0 || (!c && h->steps[mid].off <= off))
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* Append to h->out the run r (file offsets [a, b)) cut where the number of
 * ranges mapping its pages changes, each piece's mapcount raised to the
 * most of its own, that number and, for a page pagemap does not call
 * exclusive, 2 (shared: some other process maps it through the shared
 * page table, how many only their own snapshots tell). */
static void run_split(struct hugeshare *h, const struct hs_file *f,
		      const struct md_run *r, uint64_t a, uint64_t b,
		      uint64_t page_size)
{
	size_t k = step_after(h, f, a);
	uint32_t floor = (r->flags & MD_PG_EXCLUSIVE) ? 0 : 2;
	uint64_t lo = a;

	while (lo < b) {
		/* the step at lo (0 before the file's first) and the next */
		uint32_t users = k && !cmp_file(&h->steps[k - 1].f, f)
				     ? h->steps[k - 1].users
				     : 0;
		uint64_t hi = b;
		struct md_run piece = *r;

		if (k < h->nsteps && !cmp_file(&h->steps[k].f, f) &&
		    h->steps[k].off < b)
			hi = h->steps[k].off;
		piece.vaddr = r->vaddr + (lo - a);
		piece.npages = (uint32_t)((hi - lo) / page_size);
		piece.mapcount = MAX(MAX(r->mapcount, floor), users);
		xgrow(&h->out, &h->outcap, h->nout + 1, sizeof(*h->out));
		h->out[h->nout++] = piece;
		lo = hi;
		k++;
	}
}

const struct md_run *hugeshare_runs(struct hugeshare *h, uint32_t point,
				    uint64_t page_size,
				    const struct md_snap_mapping *m, size_t *n)
{
	struct hs_file f = {m->dev_major, m->dev_minor, m->ino};
	size_t i;

	*n = m->nruns;
	for (i = 0; i < m->nruns && !run_counts(m, &m->runs[i]); i++)
		;
	if (i == m->nruns)
		return m->runs;
	if (h->pmap && point < h->npmap)
		point = h->pmap[point];
	if (!h->step_built || h->step_at != point)
		build_steps(h, point);
	h->nout = 0;
	for (i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];
		uint64_t a = m->pgoff + (r->vaddr - m->start);

		if (run_counts(m, r)) {
			run_split(h, &f, r, a,
				  a + (uint64_t)r->npages * page_size,
				  page_size);
			continue;
		}
		xgrow(&h->out, &h->outcap, h->nout + 1, sizeof(*h->out));
		h->out[h->nout++] = *r;
	}
	*n = h->nout;
	return h->out;
}
