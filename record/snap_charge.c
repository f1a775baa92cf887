// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_charge.c — the snapshot's queue of pages whose memory cgroup is
 * looked up (see kpage_charges_add in snap_kpage.h): in PFN order (a
 * bitmap of their frames, or sorted), read from /proc/kpagecgroup in one
 * pass and turned into the snapshot's charge runs. Moved out of
 * snap_kpage.c, which classifies the pages and queues them
 * (charge_queue).
 */
#include "config.h"

#include "record/snap_kpage.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Add npages pages at va charged to memory cgroup cg to the snapshot's
 * charge runs, joining the last run when they continue it. */
static void charge_add(struct snapper *s, uint64_t va, uint64_t cg,
		       uint32_t npages)
{
	struct md_charge_run *p = s->ncgacc ? &s->cgacc[s->ncgacc - 1] : NULL;

	if (p && p->cgroup == cg &&
	    (uint64_t)p->npages + npages <= UINT32_MAX &&
	    p->vaddr + ((uint64_t)p->npages << s->page_shift) == va) {
		p->npages += npages;
		return;
	}
	xgrow(&s->cgacc, &s->cgacc_cap, s->ncgacc + 1, sizeof(*s->cgacc));
	s->cgacc[s->ncgacc++] =
	    (struct md_charge_run){.vaddr = va, .cgroup = cg, .npages = npages};
}

/* The largest PFN a key of the charge queue holds: a larger one, which
 * no machine has (physical addresses have at most 52 bits), is looked up
 * as this one, beyond kpagecgroup's end, where it reads as 0 as it would
 * itself. */
#define CGQ_PFN_MAX (UINT64_MAX >> CGQ_IDX_BITS)

/* The charge queue's arrays grow as xgrow_huge grows them (doubling) up
 * to this many entries, then straight to CGQ_MAX: a large snapshot's
 * queue (an 8 GiB file half cached: 1 Mi pages) was copied at every
 * doubling, 16 MiB of copies and faults on memory touched once. The
 * 8 MiB is advised for huge pages whole (xmalloc_huge_aligned), a fault
 * per 2 MiB: the 2 MiB pages it never touches cost no memory, but the
 * one it stops in is resident whole, up to 2 MiB more than it fills for
 * each of cgkey, cgva and cgtmp, until the snapshot ends (a queue this
 * large is then freed, snap_pool.c). Advising only what is filled, as
 * xgrow_huge does, would leave cgkey and cgva next to no huge page: a
 * chunk appends its pages' look-ups, at most 128 KiB (16 Ki pages), and
 * a 2 MiB page is first touched part filled. */
#define CGQ_RESERVE (1u << 16)

/* Make room for need entries in the charge queue's array *a of *cap, its
 * first keep entries kept. */
static void charge_room(uint64_t **a, size_t *cap, size_t need, size_t keep)
{
	size_t got;
	uint64_t *q;

	if (need <= *cap)
		return;
	if (need <= CGQ_RESERVE || need > CGQ_MAX) {
		xgrow_huge(a, cap, need, sizeof(**a));
		return;
	}
	q = xmalloc_huge_aligned(CGQ_MAX * sizeof(*q), &got);
	if (keep)
		memcpy(q, *a, keep * sizeof(*q));
	free(*a);
	*a = q;
	*cap = got / sizeof(*q);
}

/* Sort the n keys of a by the bits above their low CGQ_IDX_BITS, unless
 * they rise already, through tmp (room for n). */
static void charge_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t mx = 0;
	size_t i;

	for (i = 1; i < n && a[i] >= a[i - 1]; i++)
		;
	if (i >= n)
		return;
	for (i = 0; i < n; i++)
		mx = MAX(mx, a[i]);
	kpage_keys_sort(a, tmp, n, mx, CGQ_IDX_BITS);
}

/* The narrow key i of the queue's keys k (a 32-bit PFN, the i-th of
 * the array of uint32_t they are while snapper.cgq_wide is false), read
 * through memcpy: the same bytes are written as uint64_t when widened. */
static inline uint32_t charge_pfn32(const uint64_t *k, size_t i)
{
	uint32_t v;

	memcpy(&v, (const char *)k + i * sizeof(v), sizeof(v));
	return v;
}

/* The n narrow keys of the queue (32-bit PFNs, snapper.cgq_wide false)
 * made 64-bit keys in place (each its PFN above its index), the last
 * first: key i's 8 bytes start at or past the 4 of every narrow key
 * after it, which are read before. */
static void charge_widen(struct snapper *s, size_t n)
{
	for (size_t i = n; i-- > 0;)
		s->cgkey[i] =
		    (uint64_t)charge_pfn32(s->cgkey, i) << CGQ_IDX_BITS | i;
	s->cgq_wide = true;
}

/* The PFN of the charge queue's key i. */
static inline uint64_t charge_pfn(const struct snapper *s, size_t i)
{
	return s->cgq_wide ? s->cgkey[i] >> CGQ_IDX_BITS
			   : charge_pfn32(s->cgkey, i);
}

/* kpage_charges_flush of the n keys of a queue whose frames lie too far
 * apart for a bitmap (charges_by_bitmap): the keys sorted by PFN (one
 * radix sort), the cgroups read in their order into the scratch cgtmp,
 * the pages charged elsewhere sorted back into queue order. */
static int charges_by_sort(struct snapper *s, size_t n)
{
	uint64_t *key = s->cgkey, *va = s->cgva, *cg, *tmp;
	uint64_t pmask = s->page_size - 1, imask = (1u << CGQ_IDX_BITS) - 1;
	size_t i, m;
	int ret;

	charge_room(&s->cgtmp, &s->cgtmp_cap, n, 0);
	cg = s->cgtmp;
	charge_sort(key, cg, n);
	/* the cgroups in the keys' order, not scattered to their indexes */
	ret = kpage_keys_read_sorted(s, key, n, CGQ_IDX_BITS, s->kpagecgroup_fd,
				     cg);
	if (ret < 0)
		return ret;
	/* the pages charged elsewhere, kept in place (m <= i), each key now
	 * its queue index above its position among them */
	for (i = m = 0; i < n; i++) {
		uint64_t c = cg[i];

		key[m] = (key[i] & imask) << CGQ_IDX_BITS | m;
		cg[m] = c;
		m += c != s->own_cg;
	}
	/* in queue order (by address), the free end of key as scratch */
	tmp = m <= n - m ? key + m : xmalloc(m * sizeof(*tmp));
	charge_sort(key, tmp, m);
	if (tmp != key + m)
		free(tmp);
	for (i = 0; i < m; i++) {
		uint64_t q = key[i] >> CGQ_IDX_BITS;

		charge_add(s, va[q] & ~pmask, cg[key[i] & imask],
			   (uint32_t)(va[q] & pmask) + 1);
	}
	return 0;
}

/* The first set bit of bm at or after bit b, or end (a multiple of 64)
 * if none is before it. */
static inline uint64_t bit_next(const uint64_t *bm, uint64_t b, uint64_t end)
{
	size_t w = b >> 6, we = end >> 6;
	uint64_t x;

	if (w >= we)
		return end;
	x = bm[w] & (~0ull << (b & 63));
	while (!x) {
		if (++w >= we)
			return end;
		x = bm[w];
	}
	return (uint64_t)w << 6 | (unsigned)__builtin_ctzll(x);
}

/* One part of charges_by_bitmap's bitmap, words [w0, w1), read by
 * charge_part_main through the buffer buf of nbuf entries: the cgroups
 * of its frames charged to another cgroup than own, in frame order, into
 * val (nval of them; the caller frees). */
struct charge_part {
	uint64_t *bm, base, own;
	size_t w0, w1;
	uint64_t *buf;
	size_t nbuf;
	int fd;
	uint64_t *val;
	size_t nval, valcap;
	int ret;
};

/* Of the frames of bits [first, last] of p's bitmap, read into p->buf
 * from first (got entries; a frame beyond them reads as 0): keep the bit
 * of each charged elsewhere, its cgroup appended to p->val; clear the
 * others'. */
static void charge_block_keep(struct charge_part *p, uint64_t first,
			      uint64_t last, size_t got)
{
	for (size_t w = first >> 6; w <= last >> 6; w++) {
		uint64_t in = ~0ull, m, keep = 0;

		if (w == first >> 6)
			in &= ~0ull << (first & 63);
		if (w == last >> 6)
			in &= ~0ull >> (63 - (last & 63));
		for (m = p->bm[w] & in; m; m &= m - 1) {
			unsigned t = (unsigned)__builtin_ctzll(m);
			uint64_t o = ((uint64_t)w << 6 | t) - first;
			uint64_t c = o < got ? p->buf[o] : 0;

			if (c == p->own)
				continue;
			keep |= m & -m;
			xgrow(&p->val, &p->valcap, p->nval + 1,
			      sizeof(*p->val));
			p->val[p->nval++] = c;
		}
		p->bm[w] = (p->bm[w] & ~in) | keep;
	}
}

/* Read the part's frames in kpagecgroup, one pread per block of frames
 * at most KPAGE_GAP apart and nbuf entries long (the blocks
 * kpage_keys_read_sorted reads of the same frames sorted); ret 0 or
 * -errno. */
static void *charge_part_main(void *arg)
{
	struct charge_part *p = arg;
	uint64_t end = (uint64_t)p->w1 << 6;
	uint64_t b = bit_next(p->bm, (uint64_t)p->w0 << 6, end);

	while (b < end) {
		uint64_t first = b, last = b;
		ssize_t r;

		for (;;) {
			b = bit_next(p->bm, last + 1, end);
			if (b >= end || b - last > KPAGE_GAP ||
			    b - first >= p->nbuf)
				break;
			last = b;
		}
		r = snap_pread_full(p->fd, p->buf, (last - first + 1) * 8,
				    (p->base + first) * 8);
		if (r < 0) {
			p->ret = (int)r;
			return NULL;
		}
		charge_block_keep(p, first, last, (size_t)r / 8);
	}
	return NULL;
}

/* Cut the nw words of bitmap bm (the frames from base) into np parts of
 * about as many set bits each, read each (charge_part_main: the first
 * through the scratch of s->ctx[0], the others through buffers of their
 * own) and gather their cgroups in frame order into *val (*nval; the
 * caller frees). Returns 0 or the first error. */
static int charge_parts_read(struct snapper *s, uint64_t *bm, size_t nw,
			     uint64_t base, unsigned np, uint64_t **val,
			     size_t *nval)
{
	struct charge_part part[SNAP_THREADS_MAX];
	size_t bits = 0, acc = 0, w = 0, cap = 0;
	int ret = 0;

	for (size_t k = 0; k < nw; k++)
		bits += (size_t)__builtin_popcountll(bm[k]);
	for (unsigned t = 0; t < np; t++) {
		size_t w0 = w;

		/* the part ends where the set bits before reach its share */
		for (; w < nw && (t == np - 1 || acc < bits * (t + 1) / np);
		     w++)
			acc += (size_t)__builtin_popcountll(bm[w]);
		part[t] = (struct charge_part){
		    .bm = bm,
		    .base = base,
		    .own = s->own_cg,
		    .w0 = w0,
		    .w1 = w,
		    .buf = t ? xmalloc(KPAGE_BLOCK * sizeof(uint64_t))
			     : s->ctx[0]->kbuf,
		    .nbuf = t ? KPAGE_BLOCK : s->ctx[0]->nkbuf,
		    .fd = s->kpagecgroup_fd,
		};
	}
	kpage_parts_run(part, sizeof(*part), np, charge_part_main);
	*val = NULL;
	*nval = 0;
	for (unsigned t = 0; t < np; t++) {
		if (!ret)
			ret = part[t].ret;
		xgrow(val, &cap, *nval + part[t].nval, sizeof(**val));
		if (part[t].nval)
			memcpy(*val + *nval, part[t].val,
			       part[t].nval * sizeof(**val));
		*nval += part[t].nval;
		free(part[t].val);
		if (t)
			free(part[t].buf);
	}
	return ret;
}

/* kpage_charges_flush of the n keys of a queue whose frames lie within
 * nw words of bits from frame base: each queued frame a bit (a frame
 * queued twice, one bit), read in frame order with the bits as they are
 * (no sort: ~8% of a snapshot's CPU on an 8 GiB file half cached, 1 Mi
 * pages in one queue, the charge queue's whole share going from ~15% to
 * ~7%; setting the bits costs ~1 ns a page), each
 * left set where the frame is charged elsewhere; then the pages in queue
 * order whose bits are set, with their cgroups (val in frame order, at
 * each bit's rank among the set ones), to the charge runs. */
static int charges_by_bitmap(struct snapper *s, size_t n, uint64_t base,
			     size_t nw)
{
	const uint64_t *va = s->cgva;
	uint64_t *bm = xcalloc(nw, sizeof(*bm)), *val;
	uint64_t pmask = s->page_size - 1;
	uint32_t *rank;
	size_t i, nval;
	int ret;

	for (i = 0; i < n; i++) {
		uint64_t b = charge_pfn(s, i) - base;

		bm[b >> 6] |= 1ull << (b & 63);
	}
	ret = charge_parts_read(s, bm, nw, base, kpage_keys_nparts(s, n), &val,
				&nval);
	if (ret < 0 || !nval)
		goto out;
	rank = xmalloc(nw * sizeof(*rank));
	for (i = 0, nval = 0; i < nw; i++) {
		rank[i] = (uint32_t)nval;
		nval += (size_t)__builtin_popcountll(bm[i]);
	}
	for (i = 0; i < n; i++) {
		uint64_t b = charge_pfn(s, i) - base, x = bm[b >> 6];
		uint64_t below = x & ((1ull << (b & 63)) - 1);

		if (x >> (b & 63) & 1)
			charge_add(s, va[i] & ~pmask,
				   val[rank[b >> 6] +
				       (size_t)__builtin_popcountll(below)],
				   (uint32_t)(va[i] & pmask) + 1);
	}
	free(rank);
out:
	free(val);
	free(bm);
	return ret;
}

int kpage_charges_flush(struct snapper *s)
{
	uint64_t lo = s->cgq_lo, hi = s->cgq_hi;
	size_t n = s->ncgq;

	if (!n)
		return 0;
	s->ncgq = 0;
	/* a bitmap of a word a page queued at most: no larger than the
	 * sort's scratch, and walked in less time than the sort takes */
	if ((hi - lo) >> 6 >= n) {
		/* the sort's keys hold their queue index */
		if (!s->cgq_wide)
			charge_widen(s, n);
		return charges_by_sort(s, n);
	}
	return charges_by_bitmap(s, n, lo, (size_t)((hi - lo) >> 6) + 1);
}

int kpage_charges_add(struct snapper *s, const struct snap_slot *sl)
{
	uint64_t lo, hi;
	size_t n, i;
	int ret = 0;

	if (s->ncgq + sl->ncg > CGQ_MAX)
		ret = kpage_charges_flush(s);
	n = s->ncgq;
	if (!n) {
		s->cgq_lo = UINT64_MAX;
		s->cgq_hi = 0;
		s->cgq_wide = false;
	}
	/* narrow keys fill half of cgkey: copied as half as many entries
	 * (rounded up), the other half of the array never touched */
	charge_room(&s->cgkey, &s->cgkey_cap, n + sl->ncg,
		    s->cgq_wide ? n : (n + 1) / 2);
	charge_room(&s->cgva, &s->cgva_cap, n + sl->ncg, n);
	/* the queue's lowest and highest PFNs while its keys are in the
	 * cache: a pass over them at the flush cost more */
	lo = s->cgq_lo;
	hi = s->cgq_hi;
	i = 0;
	if (!s->cgq_wide) {
		char *pfn32 = (char *)s->cgkey;

		/* 32-bit PFNs while they fit (all of them on a machine of
		 * less than 16 TiB with 4 KiB pages): 4 bytes a page less
		 * of fresh memory to fault in (an 8 GiB file half cached
		 * queues 1 Mi pages: 4 MiB) */
		for (; i < sl->ncg; i++, n++) {
			uint64_t pfn = sl->cg[i].pfn;

			if (pfn > s->cgq_narrow_max)
				break;
			lo = MIN(lo, pfn);
			hi = MAX(hi, pfn);
			memcpy(pfn32 + n * sizeof(uint32_t),
			       &(uint32_t){(uint32_t)pfn}, sizeof(uint32_t));
			s->cgva[n] = sl->cg[i].va_n;
		}
		if (i < sl->ncg)
			charge_widen(s, n);
	}
	for (; i < sl->ncg; i++, n++) {
		uint64_t pfn = MIN(sl->cg[i].pfn, CGQ_PFN_MAX);

		lo = MIN(lo, pfn);
		hi = MAX(hi, pfn);
		s->cgkey[n] = pfn << CGQ_IDX_BITS | n;
		s->cgva[n] = sl->cg[i].va_n;
	}
	s->cgq_lo = lo;
	s->cgq_hi = hi;
	s->ncgq = n;
	return ret;
}
