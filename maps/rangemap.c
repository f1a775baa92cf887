// SPDX-License-Identifier: GPL-2.0-or-later
/* rangemap.c — sparse maps of [start, end) -> label, and DualMaps.
 *
 * Adds are appended to a pending array; their index is their sequence
 * number. The first query settles the map:
 *
 *  1. the pending adds are sorted in place by (start, sequence): the
 *     long runs of them added in order are kept, the rest sorted with an
 *     MSD radix sort, and the parts merged; each keeps its sequence
 *     number;
 *  2. the starts of all adds ever made (kept sorted and unique across
 *     settles) are merged with the pending starts, and every open add is
 *     resolved to [start, min(next start, limit));
 *  3. one sweep over the settled entries and the sorted adds paints the
 *     result: a min-heap keyed by sequence number holds the ranges covering
 *     the sweep position (settled entries have sequence 0, so they beat every
 *     pending add; among adds the first one wins). Expired ranges are removed
 *     lazily when they reach the top. Each piece is emitted, merged with the
 *     previous one when it has the same label and a contiguous translation.
 *
 * Cost: O(n + p log p) per settle for n settled entries and p pending adds.
 */
#include "maps/rmappriv.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/util.h"

#define TOP_SHIFT 5

struct rmap *rmap_new(void)
{
	struct rmap *m = xcalloc(1, sizeof(*m));

	m->pend_sorted = true;
	return m;
}

void rmap_free(struct rmap *m)
{
	if (!m)
		return;
	free(m->ent);
	free(m->pend);
	free(m->starts);
	free(m->top);
	rmap_tables_free(m);
	free(m);
}

/* Transparent huge page size on x86-64 (and arm64 with 4 KiB pages). */
#define HUGE_SIZE ((size_t)2 << 20)

/* settle()'s in-place array: m->pend grown to cap adds by realloc(), the
 * np of them moved to slot shift on (the margin before them). A big
 * array is an anonymous mapping of its own, which realloc() moves with
 * mremap(): its pages are never held twice, where a new 2 MiB-aligned
 * array and a copy held the adds twice for a moment (libLLVM-14's file
 * map: 0.7 MiB of the peak RSS). The part past the old end, not touched
 * yet, is asked for transparent huge pages (madvise mode). */
static void pend_resize(struct rmap *m, size_t cap, size_t shift)
{
	size_t old = m->pcap * sizeof(*m->pend);

	if (cap > SIZE_MAX / sizeof(*m->pend))
		abort(); /* cannot fit in memory anyway */
	m->pend = xrealloc(m->pend, cap * sizeof(*m->pend));
	if (cap * sizeof(*m->pend) > old)
		advise_huge((char *)m->pend + old,
			    cap * sizeof(*m->pend) - old);
	memmove(m->pend + shift, m->pend, m->np * sizeof(*m->pend));
	m->pcap = cap;
}

/* Adds made resident ahead of the next add, prefault_ahead() at a time:
 * a call per 256 KiB rather than a page fault per 4 KiB (libLLVM-14's
 * symbols: 1 000 of them). */
static void pend_prefault(struct rmap *m)
{
	size_t k =
	    MIN(m->pcap, m->np + prefault_ahead(m->np * sizeof(*m->pend)) /
				     sizeof(*m->pend));

	if (k - m->np > 16)
		prefault_write(&m->pend[m->np], (k - m->np) * sizeof(*m->pend));
	m->pready = k;
}

static void pend_push(struct rmap *m, uint64_t start, uint64_t end,
		      uint64_t other, uint32_t label, bool open)
{
	struct pend *p;

	if (m->np >= PEND_OPEN - 1)
		abort(); /* sequence numbers are 31-bit */
	/* xgrow() only when full: a call per add was 1.5 % of the adds of
	 * libLLVM-14's 400 k metadata entries */
	if (m->np >= m->pcap) {
		xgrow_huge(&m->pend, &m->pcap, m->np + 1, sizeof(*m->pend));
		m->pready = m->np; /* the copy wrote the others */
	}
	if (m->np >= m->pready)
		pend_prefault(m);
	if (m->np && m->pend[m->np - 1].start > start)
		m->pend_sorted = false;
	m->pend_open |= open;
	p = &m->pend[m->np++];
	p->start = start;
	p->end = end;
	p->other = other;
	p->label = label;
	p->seq = (uint32_t)(m->np - 1) | (open ? PEND_OPEN : 0);
}

void rmap_add_raw(struct rmap *m, uint64_t s, uint64_t e, uint64_t other,
		  uint32_t label)
{
	pend_push(m, s, e, other, label, false);
}

void rmap_add_translated(struct rmap *m, uint64_t start, uint64_t size,
			 uint64_t other, uint32_t label)
{
	if (label == LABEL_NONE)
		return;
	if (is_tab(label))
		abort(); /* not a label of labels.c: see TAB_BIT */
	if (size > UINT64_MAX - start)
		size = UINT64_MAX - start;
	if (other != NO && size > UINT64_MAX - other)
		size = UINT64_MAX - other;
	if (!size)
		return;
	pend_push(m, start, start + size, other, label, false);
}

void rmap_add(struct rmap *m, uint64_t start, uint64_t size, uint32_t label)
{
	rmap_add_translated(m, start, size, NO, label);
}

void rmap_add_open(struct rmap *m, uint64_t start, uint64_t limit,
		   uint32_t label)
{
	if (m->no_open)
		abort(); /* a DualMap's map: see dualmap_init() */
	if (label == LABEL_NONE || limit <= start)
		return;
	pend_push(m, start, limit, NO, label, true);
}

/* --- settling --- */

struct hitem {
	uint64_t start, end, other;
	uint32_t seq, label;
};

struct heap {
	struct hitem *v;
	size_t n, cap;
};

static void heap_push(struct heap *h, const struct hitem *it)
{
	size_t i;

	if (h->n >= h->cap)
		xgrow(&h->v, &h->cap, h->n + 1, sizeof(*h->v));
	i = h->n++;
	while (i) {
		size_t parent = (i - 1) / 2;

		if (h->v[parent].seq <= it->seq)
			break;
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = *it;
}

static void heap_pop(struct heap *h)
{
	struct hitem last = h->v[--h->n];
	size_t i = 0, n = h->n;

	if (!n)
		return;
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && h->v[c + 1].seq < h->v[c].seq)
			c++;
		if (last.seq <= h->v[c].seq)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = last;
}

/* The entries a sweep emits. While inplace, v is the pending array
 * itself (settle() passes it when its elements have the size of an
 * entry), the adds moved up by a margin: entry i overwrites slot i,
 * which is only done for i < lim, the margin and the adds the sweep has
 * consumed; an entry that would pass them moves v to a buffer of its
 * own. The output runs ahead of the adds consumed by the settled entries
 * it copies and the pieces split adds leave, so the margin is the
 * settled entries and a quarter of the adds: that saves most of a second
 * array as large as both in the common case. It is only done for a batch
 * of at least as many adds as there are settled entries: a small batch
 * saves little, and a few adds may split many more entries than a
 * quarter of their number (moving out would then cost a second array). */
struct outv {
	struct rmap *m; /* the map settled, for its tables */
	struct rmap_entry *v;
	size_t n, cap;
	bool inplace;
	size_t margin;	  /* inplace: slots before the first pending add */
	size_t lim;	  /* inplace: slots free to write */
	size_t left;	  /* inplace: entries and adds the sweep has not read */
	bool gaps;	  /* only the pieces of adds (see settle_gaps()) */
	struct sumv *sum; /* not NULL: the pieces summed, not kept */
};

/* The sums of rmap_sum_ranges(): the ranges (sorted, disjoint), the one
 * being summed and its next byte, whether a byte of them had no label
 * or one past the sums. */
struct sumv {
	const struct rmap_entry *r;
	size_t nr, i;
	uint64_t pos;
	uint64_t (*sums)[2];
	size_t nsums;
	int col;
	bool bad;
};

/* Past the ranges of s that end at or before its position. */
static void sumv_skip_done(struct sumv *s)
{
	while (s->i < s->nr && s->pos >= s->r[s->i].end)
		if (++s->i < s->nr)
			s->pos = s->r[s->i].start;
}

/* The bytes of piece [start, end) labelled label (pieces come in order)
 * that lie in s's ranges added to s's sums; a range byte before the
 * piece that no piece held makes s bad. */
static void sumv_add(const struct rmap *m, struct sumv *s, uint64_t start,
		     uint64_t end, uint32_t label)
{
	for (sumv_skip_done(s); s->i < s->nr && !s->bad; sumv_skip_done(s)) {
		uint64_t x = MIN(end, s->r[s->i].end);

		if (end <= s->pos)
			return;
		if (start > s->pos) { /* a byte of no label */
			s->bad = true;
			return;
		}
		if (rmap_sum_piece(m, label, s->pos, x, s->sums, s->nsums,
				   s->col))
			s->bad = true;
		s->pos = x;
	}
}

/* Move o out of the pending array into a buffer of its own. */
static void outv_detach(struct outv *o)
{
	struct rmap_entry *v;

	o->cap = o->n + o->left + 16;
	v = xmalloc(o->cap * sizeof(*v));
	memcpy(v, o->v, o->n * sizeof(*v));
	o->v = v;
	o->inplace = false;
}

static inline bool contiguous(const struct rmap_entry *e, uint64_t other)
{
	if (other == NO || e->other == NO)
		return other == e->other;
	return e->other + (e->end - e->start) == other;
}

/* May [start, end), labelled label, join table entry e (which ends at
 * start) as its fill? Only if every element it overlaps is a hole of the
 * table and the table's holes were filled with label or not yet: then it
 * becomes the table's fill. A big image's unwind table has two holes in
 * three; filled by the section's fallback, each was an entry. */
static bool fills_holes(struct rmap *m, const struct rmap_entry *e,
			uint64_t start, uint64_t end, uint32_t label)
{
	struct rtab *t = &m->tab[e->label & ~TAB_BIT];
	uint64_t k, last;

	if (is_tab(label) || (t->fill != LABEL_NONE && t->fill != label) ||
	    end > tab_at(t, t->n))
		return false;
	last = tab_index(t, end - 1);
	for (k = tab_index(t, start); k <= last; k++)
		if (t->l->id[t->first + k] != LABEL_NONE &&
		    tab_at(t, k) < tab_at(t, k + 1))
			return false;
	t->fill = label;
	return true;
}

static void emit(struct outv *o, uint64_t start, uint64_t end, uint64_t other,
		 uint32_t label)
{
	struct rmap_entry *e;

	if (o->sum) {
		sumv_add(o->m, o->sum, start, end, label);
		return;
	}
	if (o->n) {
		e = &o->v[o->n - 1];
		if (e->end == start && contiguous(e, other) &&
		    (e->label == label ||
		     (is_tab(e->label) &&
		      fills_holes(o->m, e, start, end, label)))) {
			e->end = end;
			return;
		}
	}
	if (o->inplace && o->n >= o->lim)
		outv_detach(o);
	if (!o->inplace && o->n >= o->cap)
		xgrow(&o->v, &o->cap, o->n + 1, sizeof(*o->v));
	e = &o->v[o->n++];
	e->start = start;
	e->end = end;
	e->other = other;
	e->label = label;
}

/* Merge the sorted unique m->starts with the sorted pending adds. */
static void merge_starts(struct rmap *m, const struct pend *k, size_t nk)
{
	uint64_t *out = xmalloc((m->nstarts + nk) * sizeof(*out));
	size_t i = 0, j = 0, n = 0;

	while (i < m->nstarts || j < nk) {
		uint64_t v;

		if (j == nk || (i < m->nstarts && m->starts[i] <= k[j].start))
			v = m->starts[i++];
		else
			v = k[j++].start;
		if (!n || out[n - 1] != v)
			out[n++] = v;
	}
	free(m->starts);
	m->starts = xrealloc(out, (n ? n : 1) * sizeof(*out));
	m->nstarts = n;
}

/* Clip every open-ended pending range at the first start of another
 * range after its own (k: the pending ranges by start). */
static void close_open(struct rmap *m, size_t np)
{
	for (size_t i = 0, p = 0; i < np; i++) {
		struct pend *a = &m->pend[i];

		if (!PEND_IS_OPEN(a))
			continue;
		while (p < m->nstarts && m->starts[p] <= a->start)
			p++;
		if (p < m->nstarts && m->starts[p] < a->end)
			a->end = m->starts[p];
		a->seq &= ~PEND_OPEN;
	}
}

/* The next start after a lone range ending at end: none of the settled
 * entries from i nor of the adds from j starts before it. */
static inline bool alone_until(const struct rmap *m, size_t i,
			       const struct pend *k, size_t np, size_t j,
			       uint64_t end)
{
	return (i == m->n || m->ent[i].start >= end) &&
	       (j == np || k[j].start >= end);
}

/* With nothing covering the sweep position, emit the first of the
 * settled entries m->ent[*i] and the adds k[*j] (the one that starts
 * first, the entry on a tie) whole if nothing else starts before its end,
 * as the heap would, and step past it. Returns whether it did. */
static bool sweep_alone(struct rmap *m, const struct pend *k, size_t np,
			struct outv *o, size_t *i, size_t *j)
{
	if (*j == np || (*i < m->n && m->ent[*i].start <= k[*j].start)) {
		const struct rmap_entry *e = &m->ent[*i];

		if (!alone_until(m, *i + 1, k, np, *j, e->end))
			return false;
		(*i)++;
		o->lim = o->margin + *j;
		o->left = (m->n - *i) + (np - *j);
		if (!o->gaps)
			emit(o, e->start, e->end, e->other, e->label);
		return true;
	}
	if (!alone_until(m, *i, k, np, *j + 1, k[*j].end))
		return false;
	(*j)++;
	o->lim = o->margin + *j;
	o->left = (m->n - *i) + (np - *j);
	emit(o, k[*j - 1].start, k[*j - 1].end, k[*j - 1].other,
	     k[*j - 1].label);
	return true;
}

/* With ranges covering the sweep position x, emit the next of the
 * settled entries m->ent[*i] and the adds k[*j] whole if it starts at x,
 * beats every range covering x (a lower sequence than the heap's top)
 * and nothing else starts before its end: what the heap would emit, with
 * no push and pop. The metadata of a big file goes in under the section
 * ranges added after it: each entry took a push and a pop. Returns
 * whether it did (then x is the end of what it emitted). */
static bool sweep_beat(struct rmap *m, const struct pend *k, size_t np,
		       struct outv *o, struct heap *h, size_t *i, size_t *j,
		       uint64_t *x)
{
	bool ent = *i < m->n && (*j == np || m->ent[*i].start <= k[*j].start);
	struct hitem c;

	while (h->n && h->v[0].end <= *x)
		heap_pop(h);
	if (ent)
		c = (struct hitem){m->ent[*i].start, m->ent[*i].end,
				   m->ent[*i].other, 0, m->ent[*i].label};
	else if (*j < np)
		c = (struct hitem){k[*j].start, k[*j].end, k[*j].other,
				   PEND_SEQ(&k[*j]) + 1, k[*j].label};
	else
		return false;
	if (!h->n || c.start != *x || c.seq >= h->v[0].seq ||
	    !alone_until(m, *i + ent, k, np, *j + !ent, c.end))
		return false;
	*i += ent;
	*j += !ent;
	o->lim = o->margin + *j;
	o->left = (m->n - *i) + (np - *j);
	if (!o->gaps || c.seq)
		emit(o, c.start, c.end, c.other, c.label);
	*x = c.end;
	return true;
}

/* The sweep of settle(): merge the settled entries and the pending ones
 * (k: sorted by start) into o, each byte to the first writer that covers
 * it. */
static void sweep(struct rmap *m, const struct pend *k, size_t np,
		  struct outv *o)
{
	struct heap h = {0};
	size_t i = 0, j = 0;
	uint64_t x = 0;

	for (;;) {
		const struct hitem *top;
		uint64_t nb;

		if (!h.n) {
			if (i == m->n && j == np)
				break;
			if (j == np ||
			    (i < m->n && m->ent[i].start <= k[j].start))
				x = m->ent[i].start;
			else
				x = k[j].start;
			/* the common case: one range alone up to the next
			 * start, emitted whole without the heap */
			if (sweep_alone(m, k, np, o, &i, &j))
				continue;
		} else if (sweep_beat(m, k, np, o, &h, &i, &j, &x)) {
			continue;
		}
		while (i < m->n && m->ent[i].start <= x) {
			const struct rmap_entry *e = &m->ent[i++];
			struct hitem it = {e->start, e->end, e->other, 0,
					   e->label};

			heap_push(&h, &it);
		}
		while (j < np && k[j].start <= x) {
			const struct pend *a = &k[j];
			struct hitem it = {a->start, a->end, a->other,
					   PEND_SEQ(a) + 1, a->label};

			j++;
			heap_push(&h, &it);
		}
		while (h.n && h.v[0].end <= x)
			heap_pop(&h);
		if (!h.n)
			continue;
		top = &h.v[0];
		nb = top->end;
		if (i < m->n && m->ent[i].start < nb)
			nb = m->ent[i].start;
		if (j < np && k[j].start < nb)
			nb = k[j].start;
		o->lim = o->margin + j;
		o->left = (m->n - i) + (np - j);
		if (!o->gaps || top->seq)
			emit(o, x, nb,
			     top->other == NO ? NO
					      : top->other + (x - top->start),
			     top->label);
		x = nb;
	}
	free(h.v);
}

/* Put e before the entries from v[*w] on (written from the back), or
 * merge it into v[*w] as emit() merges a piece into the one before. */
static void place_back(struct rmap_entry *v, size_t *w, size_t end,
		       const struct rmap_entry *e)
{
	struct rmap_entry *r = &v[*w];

	if (*w < end && e->end == r->start && e->label == r->label &&
	    contiguous(e, r->other)) {
		r->start = e->start;
		r->other = e->other;
		return;
	}
	v[--*w] = *e;
}

/* settle() for a batch of fewer adds than settled entries (k: sorted).
 * Settled entries win every byte they hold, so they stay as they are:
 * the sweep keeps only the pieces of the adds that fall in their gaps,
 * and these are merged into the entries from the back, the array grown
 * by their number. A second array as large as the map (13 MB for
 * libLLVM's 420 k entries, where --disasm's few thousand adds came)
 * is not needed. The entries are those the full sweep emits: a piece
 * merges with its neighbours, settled or not, as emit() merges them. */
static void settle_gaps(struct rmap *m, const struct pend *k, size_t np)
{
	struct outv g = {.m = m, .gaps = true};
	size_t i = m->n, w, total;

	sweep(m, k, np, &g);
	total = m->n + g.n;
	if (total > m->cap) {
		m->ent = xrealloc(m->ent, total * sizeof(*m->ent));
		m->cap = total;
	}
	w = total;
	for (size_t j = g.n; j;) {
		if (i && m->ent[i - 1].start > g.v[j - 1].start)
			place_back(m->ent, &w, total, &m->ent[--i]);
		else
			place_back(m->ent, &w, total, &g.v[--j]);
	}
	/* m->ent[0, i) is where it was: join the rest to it, merging
	 * across the seam too */
	if (i && w < total) {
		struct rmap_entry *l = &m->ent[i - 1], *r = &m->ent[w];

		if (l->end == r->start && l->label == r->label &&
		    contiguous(l, r->other)) {
			l->end = r->end;
			w++;
		}
	}
	memmove(m->ent + i, m->ent + w, (total - w) * sizeof(*m->ent));
	m->n = i + (total - w);
	free(g.v);
}

static void settle(struct rmap *m)
{
	struct outv o = {.m = m};
	struct pend *k;
	size_t np = m->np;

	if (!np || m->frozen)
		return;
	if (!m->pend_sorted)
		rmap_pend_sort(m->pend, np);

	if (!m->no_open)
		merge_starts(m, m->pend, np);
	if (m->pend_open)
		close_open(m, np);

	k = m->pend;
	if (np < m->n) {
		settle_gaps(m, k, np);
	} else if (sizeof(struct pend) == sizeof(struct rmap_entry)) {
		o.margin = m->n + np / 4 + 16;
		if (np + o.margin > m->pcap &&
		    (np + o.margin) * sizeof(*m->pend) >= HUGE_SIZE) {
			/* the adds moved once, to after the margin */
			pend_resize(m, np + o.margin, o.margin);
		} else {
			xgrow(&m->pend, &m->pcap, np + o.margin,
			      sizeof(*m->pend));
			memmove(m->pend + o.margin, m->pend,
				np * sizeof(*m->pend));
		}
		k = m->pend + o.margin;
		o.v = (struct rmap_entry *)m->pend;
		o.cap = np + o.margin;
		o.inplace = true;
	} else {
		o.cap = m->n + np + 16;
		o.v = xmalloc(o.cap * sizeof(*o.v));
	}
	if (o.v) {
		sweep(m, k, np, &o);
		free(m->ent);
		if (o.inplace)
			m->pend = NULL; /* it is o.v now */
		m->ent = o.n ? xrealloc(o.v, o.n * sizeof(*o.v)) : o.v;
		m->n = o.n;
		m->cap = o.n;
	}
	free(m->pend);
	m->pend = NULL;
	m->np = 0;
	m->pcap = 0;
	m->pready = 0;
	m->pend_sorted = true;
	m->pend_open = false;
	m->np_checked = 0;
	m->ent_checked = false;
	rmap_build_top(m);
}

/* --- queries --- */

/* Index of the first of top[0..n) that is > addr (n if none): a
 * branchless lower bound. */
static inline size_t lb_u64(const uint64_t *v, size_t n, uint64_t addr)
{
	const uint64_t *b = v;

	if (!n)
		return 0;
	while (n > 1) {
		size_t half = n / 2;

		/* arithmetic, not ?:, so that it compiles without a branch */
		b += half & -(size_t)(b[half - 1] <= addr);
		n -= half;
	}
	return (size_t)(b - v) + (*b <= addr);
}

/* Same over the ends of n entries. */
static inline size_t lb_ent(const struct rmap_entry *v, size_t n, uint64_t addr)
{
	const struct rmap_entry *b = v;

	if (!n)
		return 0;
	while (n > 1) {
		size_t half = n / 2;

		b += half & -(size_t)(b[half - 1].end <= addr);
		n -= half;
	}
	return (size_t)(b - v) + (b->end <= addr);
}

/* Index of the first entry with end > addr: search the small, cache-hot
 * index of block ends, then one block. */
static size_t find(const struct rmap *m, uint64_t addr)
{
	size_t blk = lb_u64(m->top, m->ntop, addr), first, n, i;

	if (blk == m->ntop)
		return m->n;
	first = blk << TOP_SHIFT;
	n = MIN(m->n - first, (size_t)1 << TOP_SHIFT);
	/* fetch the whole block at once rather than line by line */
	for (i = 0; i < n; i += 64 / sizeof(*m->ent))
		__builtin_prefetch(&m->ent[first + i]);
	return first + lb_ent(m->ent + first, n, addr);
}

void rmap_build_top(struct rmap *m)
{
	size_t k;

	free(m->top);
	m->ntop = (m->n + (1u << TOP_SHIFT) - 1) >> TOP_SHIFT;
	m->top = xmalloc((m->ntop ? m->ntop : 1) * sizeof(*m->top));
	for (k = 0; k < m->ntop; k++)
		m->top[k] = m->ent[MIN(((k + 1) << TOP_SHIFT), m->n) - 1].end;
}

void rmap_settle(struct rmap *m)
{
	settle(m);
}

int rmap_sum_ranges(struct rmap *m, const struct rmap_entry *r, size_t nr,
		    uint64_t (*sums)[2], size_t nsums, int col)
{
	struct sumv sv = {.r = r,
			  .nr = nr,
			  .pos = nr ? r[0].start : 0,
			  .sums = sums,
			  .nsums = nsums,
			  .col = col};
	struct outv o = {.m = m, .sum = &sv};

	/* frozen, settled, or open adds to resolve: as rmap_sum_labels() */
	if (m->frozen || !m->np || !m->no_open || m->pend_open) {
		for (size_t i = 0; i < nr; i++)
			if (rmap_sum_labels(m, r[i].start, r[i].end, sums,
					    nsums, col))
				return -1;
		return 0;
	}
	if (!m->pend_sorted) {
		/* sorted in place: the adds keep their sequence numbers,
		 * and a settle to come needs not sort them again */
		rmap_pend_sort(m->pend, m->np);
		m->pend_sorted = true;
	}
	sweep(m, m->pend, m->np, &o);
	sumv_skip_done(&sv);
	return sv.bad || sv.i < sv.nr ? -1 : 0;
}

size_t rmap_find_raw(const struct rmap *m, uint64_t addr)
{
	return find(m, addr);
}

size_t rmap_find(struct rmap *m, uint64_t addr)
{
	settle(m);
	return find(m, addr);
}

bool rmap_find_holding(struct rmap *m, uint64_t addr, uint64_t size,
		       struct rmap_entry *e)
{
	size_t i;

	settle(m);
	i = find(m, addr);
	if (i >= m->n || m->ent[i].start > addr ||
	    size > m->ent[i].end - addr || is_tab(m->ent[i].label))
		return false;
	*e = m->ent[i];
	return true;
}

uint32_t rmap_lookup(struct rmap *m, uint64_t addr, uint64_t *other)
{
	size_t i;

	settle(m);
	i = find(m, addr);
	if (i < m->n && m->ent[i].start <= addr) {
		const struct rmap_entry *e = &m->ent[i];

		uint64_t end;

		if (other)
			*other =
			    e->other == NO ? NO : e->other + (addr - e->start);
		return rmap_label_at(m, e, addr, &end);
	}
	if (other)
		*other = NO;
	return LABEL_NONE;
}

uint32_t rmap_lookup_near(struct rmap *m, uint64_t addr, size_t *hint)
{
	size_t i = *hint, k;

	settle(m);
	/* a few steps on from the last answer, else a search */
	if (i > m->n || (i && m->ent[i - 1].end > addr))
		i = find(m, addr);
	for (k = 0; i < m->n && m->ent[i].end <= addr; i++)
		if (++k == 8) {
			i = find(m, addr);
			break;
		}
	*hint = i;
	if (i < m->n && m->ent[i].start <= addr) {
		uint64_t end;

		return rmap_label_at(m, &m->ent[i], addr, &end);
	}
	return LABEL_NONE;
}

bool rmap_translate(struct rmap *m, uint64_t addr, uint64_t *out)
{
	uint64_t o;

	if (rmap_lookup(m, addr, &o) == LABEL_NONE || o == NO)
		return false;
	*out = o;
	return true;
}

bool rmap_covers(struct rmap *m, uint64_t start, uint64_t end)
{
	size_t i;

	settle(m); /* an empty query settles too: see rangemap.h */
	if (start >= end)
		return true;
	for (i = find(m, start); i < m->n; i++) {
		if (m->ent[i].start > start)
			return false;
		if (m->ent[i].end >= end)
			return true;
		start = m->ent[i].end;
	}
	return false;
}

void rmap_freeze(struct rmap *m)
{
	settle(m);
	m->frozen = true;
}

void rmap_thaw(struct rmap *m)
{
	m->frozen = false;
}

int rmap_check(struct rmap *m)
{
	size_t i;

	for (i = m->np_checked; i < m->np; i++) {
		const struct pend *a = &m->pend[i];

		if (a->start >= a->end || a->label == LABEL_NONE)
			return -1;
		if (a->other != NO && a->end - a->start > UINT64_MAX - a->other)
			return -1;
		if (PEND_IS_OPEN(a) && a->other != NO)
			return -1;
		if (i && m->pend[i - 1].start > a->start && m->pend_sorted)
			return -1;
	}
	m->np_checked = m->np;
	if (m->ent_checked)
		return 0;
	if (m->n && !m->ent)
		return -1;
	for (i = 0; i < m->n; i++) {
		const struct rmap_entry *e = &m->ent[i];

		if (e->start >= e->end)
			return -1;
		if (e->label == LABEL_NONE ||
		    (is_tab(e->label) && (e->label & ~TAB_BIT) >= m->ntab))
			return -1;
		if (e->other != NO && e->end - e->start > UINT64_MAX - e->other)
			return -1;
		if (i && m->ent[i - 1].end > e->start)
			return -1;
	}
	for (i = 1; i < m->nstarts; i++)
		if (m->starts[i - 1] >= m->starts[i])
			return -1;
	m->ent_checked = true;
	return 0;
}

/* --- DualMap --- */

void dualmap_init(struct dualmap *dm)
{
	dm->vm = rmap_new();
	dm->file = rmap_new();
	dm->vm->no_open = true;
	dm->file->no_open = true;
}
