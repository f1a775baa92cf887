// SPDX-License-Identifier: GPL-2.0-or-later
/* pgstate.c — the compact page-state encoding of SNAP_MAPPING records:
 * runs where runs are long, a presence bitmap with a small per-block
 * palette where they are short: the encoder (pgstate_dec.c decodes). See
 * pgstate.h and man/memsz-data.5. */
#include "config.h"

#include "data/pgstate.h"
#include "data/pgstate_int.h"
#include "util/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void le32_put(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Bytes of v as LEB128. */
static size_t var_len(uint64_t v)
{
	/* 7 bits a byte: (bits + 6) / 7, without a loop (the encoder asks
	 * it for every run) */
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);

	return (bits * 37 + 6 * 37) >> 8;
}

/* --- encoder --- */

/* n zeroed bytes appended to the stream. */
static uint8_t *out_grow(struct pgstate_enc *e, size_t n)
{
	uint8_t *q;

	xgrow(&e->out, &e->out_cap, e->len + n, 1);
	q = e->out + e->len;
	memset(q, 0, n);
	e->len += n;
	return q;
}

/* v as LEB128 at q: its length. */
static size_t var_put(uint8_t *q, uint64_t v)
{
	size_t n = 1;

	for (; v >= 0x80; v >>= 7, n++)
		*q++ = (uint8_t)(v | 0x80);
	*q = (uint8_t)v;
	return n;
}

static void out_var(struct pgstate_enc *e, uint64_t v)
{
	uint8_t *q = out_grow(e, var_len(v));

	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q = (uint8_t)v;
}

/* The palette index of (fl, mc), added to the palette if new. */
static uint32_t pal_index(struct pgstate_enc *e, uint32_t fl, uint32_t mc)
{
	struct hashmap_probe hp;
	uint32_t i;
	uint8_t *p;

	for (i = hashmap_first(&e->pal_map,
			       hashmap_hash_u64((uint64_t)fl << 32 | mc), &hp);
	     i != HASHMAP_NONE; i = hashmap_next(&e->pal_map, &hp)) {
		p = e->pal + (size_t)i * PGSTATE_PAL_SIZE;
		if (le32_get(p) == fl && le32_get(p + 4) == mc)
			return i;
	}
	xgrow(&e->pal, &e->pal_cap, (size_t)(e->npal + 1) * PGSTATE_PAL_SIZE,
	      1);
	p = e->pal + (size_t)e->npal * PGSTATE_PAL_SIZE;
	le32_put(p, fl);
	le32_put(p + 4, mc);
	hashmap_put(&e->pal_map, &hp, e->npal);
	if (e->npal >= e->local_cap) {
		size_t cap = MAX(2 * e->local_cap, (size_t)64);

		e->local_gen =
		    xrealloc(e->local_gen, cap * sizeof(*e->local_gen));
		e->local_idx =
		    xrealloc(e->local_idx, cap * sizeof(*e->local_idx));
		/* no new slot belongs to a block yet */
		memset(e->local_gen + e->local_cap, 0,
		       (cap - e->local_cap) * sizeof(*e->local_gen));
		e->local_cap = cap;
	}
	return e->npal++;
}

/* The local code of palette entry idx in the open block, or -1. */
static int local_code(const struct pgstate_enc *e, uint32_t idx)
{
	return e->local_gen[idx] == e->lgen ? (int)e->local_idx[idx] : -1;
}

/* Add idx to the block's local entries; false if they are full. */
static bool local_add(struct pgstate_enc *e, struct pgstate_blk *b,
		      uint32_t idx)
{
	if (local_code(e, idx) >= 0)
		return true;
	if (b->nlocal == LOCAL_MAX)
		return false;
	e->local_gen[idx] = e->lgen;
	e->local_idx[idx] = b->nlocal;
	b->local[b->nlocal++] = idx;
	return true;
}

static void emit_run(struct pgstate_enc *e, uint64_t len, uint32_t idx)
{
	out_var(e, len << 2 | BLK_RUN);
	out_var(e, idx);
}

/* Frequencies f[0..m) of RANS_BITS bits summing to RANS_M, each at least
 * 1, from the counts cnt (each at least 1) of n pages. */
static void coded_freqs(const uint64_t *cnt, uint32_t m, uint64_t n,
			uint32_t *f)
{
	uint32_t sum = 0, big = 0, i;

	for (i = 0; i < m; i++) {
		f[i] = (uint32_t)MAX((cnt[i] * RANS_M + n / 2) / n, 1);
		sum += f[i];
		big = f[i] > f[big] ? i : big;
	}
	if (sum < RANS_M)
		f[big] += RANS_M - sum;
	/* rounding up gave too much: take it from the largest, one by one */
	while (sum > RANS_M) {
		for (big = 0, i = 1; i < m; i++)
			big = f[i] > f[big] ? i : big;
		f[big]--;
		sum--;
	}
}

/* 256 * log2(f) for 1 <= f <= RANS_M, within 0.016 * 256: the exponent,
 * and log2(1 + m) ~ m + 0.343 m (1 - m) for the mantissa m. */
static uint32_t log2_256(uint32_t f)
{
	uint32_t e = 31 - (uint32_t)__builtin_clz(f);
	uint32_t m = ((f << 8) >> e) - 256;

	return e * 256 + m + 88 * m * (256 - m) / 65536;
}

/* A symbol as the encoder uses it: frequency, cumulated frequency, and
 * ceil(2^43 / f), which divides by f exactly (below). */
struct rans_sym {
	uint32_t f, c;
	uint64_t inv;
};

/* rANS: put symbol s in front of the state *x, its renormalisation bytes
 * appended to q (backwards). After renormalisation x < 2^19 f, so x * inv
 * < 2^63 and its error x * (inv * f - 2^43) < 2^19 f^2 <= 2^43: the
 * quotient x * inv >> 43 is x / f exactly, without a division. */
static void rans_put(uint8_t **q, uint32_t *x, const struct rans_sym *s)
{
	uint32_t xmax = ((RANS_L >> RANS_BITS) << 8) * s->f, quot;

	while (*x >= xmax) {
		*(*q)++ = (uint8_t)*x;
		*x >>= 8;
	}
	quot = (uint32_t)((uint64_t)*x * s->inv >> 43);
	*x = (quot << RANS_BITS) + (*x - quot * s->f) + s->c;
}

/* The open block as one CODED block in e->cbuf: its length in bytes, or
 * SIZE_MAX if it has too many symbols or would plainly take best bytes or
 * more (an estimate from the frequencies spares coding it). Symbol i <
 * nlocal is local entry i, symbol nlocal (if some page is absent) an
 * absent page. */
static size_t coded_build(struct pgstate_enc *e, struct pgstate_blk *b,
			  size_t best)
{
	uint64_t n = b->end - b->start, cnt[CODED_MAX + 1] = {0};
	uint32_t m = b->nlocal + (b->present < n), f[CODED_MAX + 1];
	uint32_t x = RANS_L, hole = b->nlocal, c = 0;
	struct rans_sym sym[CODED_MAX + 1];
	size_t i, nb, hdr;
	uint8_t *q, *p;

	if (m > CODED_MAX || m < 2)
		return SIZE_MAX;
	/* one entry: the presence alone (no pass over the segments, which
	 * would cost as much as the common case of a bitmap) */
	for (i = 0; b->nlocal > 1 && i < b->nseg; i++)
		cnt[local_code(e, e->segs[i].idx)] += e->segs[i].len;
	if (b->nlocal == 1)
		cnt[0] = b->present;
	cnt[hole] = n - b->present;
	coded_freqs(cnt, m, n, f);
	/* the code's length is about sum cnt * log2(RANS_M / f) bits (the
	 * estimate errs by 0.016 bits a page at most). Coding costs about
	 * 2 ns a page, as much as gathering the block: a CODED block must
	 * save a quarter of the best other way to be worth it (forked
	 * memory saves half; one state at a presence of 1/4 only a fifth) */
	for (i = 0, nb = 0; i < m; i++)
		nb += cnt[i] * (RANS_BITS * 256 - log2_256(f[i]));
	if (nb / 2048 > best - best / 4)
		return SIZE_MAX;
	/* coded: page by page, from the segments (a block of bits has one
	 * entry: counted above without them) */
	if (b->bits)
		pgstate_bits_flatten(e);
	for (i = 0; i < m; c += f[i++])
		sym[i] = (struct rans_sym){f[i], c,
					   ((1ull << 43) + f[i] - 1) / f[i]};
	/* a symbol puts out at most 2 bytes (x < 2^31, xmax >= 2^19), the
	 * final state 4: the block is at most hdr + 2n + 4 bytes long. The
	 * bytes come out last first, beyond that, and are reversed into
	 * place behind the header. */
	hdr = var_len(n << 2) + 1 + var_len(n * 2 + 4);
	for (i = 0; i < m; i++)
		hdr += var_len(i < b->nlocal ? b->local[i] + 1 : 0) +
		       var_len(f[i]);
	xgrow(&e->cbuf, &e->cbuf_cap, hdr + 2 * (n * 2 + 4), 1);
	q = p = e->cbuf + hdr + n * 2 + 4;
	for (i = b->nseg, nb = n; i-- > 0;) {
		const struct pgstate_seg *s = &e->segs[i];
		const struct rans_sym *y = &sym[local_code(e, s->idx)];

		for (; nb > (uint64_t)s->off + s->len; nb--)
			rans_put(&q, &x, &sym[hole]);
		for (uint32_t j = 0; j < s->len; j++)
			rans_put(&q, &x, y);
		nb = s->off;
	}
	for (i = 0; i < 4; i++, x >>= 8)
		*q++ = (uint8_t)x;
	nb = (size_t)(q - p);
	/* the header, and the bytes reversed behind it */
	q = e->cbuf;
	q += var_put(q, n << 2 | BLK_CODED);
	*q++ = (uint8_t)(m - 1);
	for (i = 0; i < m; i++)
		q += var_put(q, i < b->nlocal ? b->local[i] + 1 : 0);
	for (i = 0; i < m; i++)
		q += var_put(q, f[i]);
	q += var_put(q, nb);
	for (i = 0; i < nb; i++)
		q[i] = p[nb - 1 - i];
	return (size_t)(q - e->cbuf) + nb;
}

/* pgstate_presence_words: each segment (under 64 pages) set as a mask
 * over at most two 64-bit words, the two a segment may touch held in
 * registers until a segment starts past them (a loop over the bits of
 * each segment costs a mispredicted branch where the lengths change;
 * or-ing each mask into memory, a chain of loads waiting on stores). */
void pgstate_presence_words(struct pgstate_enc *e, const struct pgstate_blk *b,
			    uint64_t n)
{
	uint64_t *w = e->words, cv = 0, nv = 0;
	uint32_t cw = 0;

	memset(w, 0, ((n + 63) / 64 + 1) * sizeof(*w));
	for (size_t i = 0; i < b->nseg; i++) {
		const struct pgstate_seg *s = &e->segs[i];
		uint64_t m = ((uint64_t)1 << s->len) - 1;
		uint32_t wi = s->off >> 6;
		unsigned sh = s->off & 63;

		if (wi != cw) {
			/* word cw is done with, word cw + 1 too unless it is
			 * the new cw */
			w[cw] = cv;
			w[cw + 1] = nv;
			cv = wi == cw + 1 ? nv : 0;
			nv = 0;
			cw = wi;
		}
		cv |= m << sh;
		nv |= m >> 1 >> (63 - sh);
	}
	w[cw] = cv;
	w[cw + 1] = nv;
}

/* The presence bitmap of the open block of n pages at q (zeroed), from
 * e->words (pgstate_presence_words, or a block of bits: there already). */
static void map_presence(struct pgstate_enc *e, const struct pgstate_blk *b,
			 uint8_t *q, uint64_t n)
{
	const uint64_t *w = e->words;

	if (!b->bits)
		pgstate_presence_words(e, b, n);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(q, w, (n + 7) / 8);
#else
	for (uint64_t i = 0; i < (n + 7) / 8; i++)
		q[i] = (uint8_t)(w[i >> 3] >> ((i & 7) * 8));
#endif
}

/* The open block's bytes as SKIP and RUN blocks, or if it plainly takes
 * more than limit bytes (at least 2 a segment), some number above limit:
 * a dense block, most often, is not gone over once more. */
static size_t runs_cost(const struct pgstate_enc *e,
			const struct pgstate_blk *b, size_t limit)
{
	size_t cost = 0;
	uint32_t prev = 0;

	if (2 * b->nseg > limit)
		return 2 * b->nseg;
	for (size_t i = 0; i < b->nseg; i++) {
		const struct pgstate_seg *s = &e->segs[i];

		if (s->off > prev)
			cost += var_len((uint64_t)(s->off - prev) << 2);
		cost += var_len((uint64_t)s->len << 2) + var_len(s->idx);
		prev = s->off + s->len;
	}
	return cost;
}

/* Write the open block as one MAP block or as SKIP and RUN blocks,
 * whichever is shorter, or as one CODED block if that saves a quarter. */
static void map_close(struct pgstate_enc *e, struct pgstate_blk *b)
{
	uint64_t n = b->end - b->start, present = b->present, bit;
	unsigned k = code_bits(b->nlocal);
	size_t map_cost, coded_cost, run_cost, i;
	uint32_t prev = 0;
	uint8_t *q;

	b->open = false;
	e->nruns += b->nseg;
	map_cost = var_len(n << 2) + 1 + (n + 7) / 8 + (present * k + 7) / 8;
	for (i = 0; i < b->nlocal; i++)
		map_cost += var_len(b->local[i]);
	/* a block of bits is made segments only where runs may cost less
	 * (runs_cost's first test) or it is coded */
	if (b->bits && 2 * b->nseg <= map_cost)
		pgstate_bits_flatten(e);
	run_cost = b->bits ? 2 * b->nseg : runs_cost(e, b, map_cost);
	coded_cost = coded_build(e, b, MIN(map_cost, run_cost));
	if (coded_cost < map_cost && coded_cost < run_cost) {
		memcpy(out_grow(e, coded_cost), e->cbuf, coded_cost);
		return;
	}
	if (run_cost <= map_cost) {
		for (i = 0; i < b->nseg; i++) {
			const struct pgstate_seg *s = &e->segs[i];

			if (s->off > prev)
				out_var(e, (uint64_t)(s->off - prev) << 2 |
					       BLK_SKIP);
			emit_run(e, s->len, s->idx);
			prev = s->off + s->len;
		}
		return;
	}
	out_var(e, n << 2 | BLK_MAP);
	*out_grow(e, 1) = (uint8_t)(b->nlocal - 1);
	for (i = 0; i < b->nlocal; i++)
		out_var(e, b->local[i]);
	map_presence(e, b, out_grow(e, (n + 7) / 8), n);
	b->bits = false;
	if (!k)
		return;
	q = out_grow(e, (present * k + 7) / 8);
	bit = 0;
	for (i = 0; i < b->nseg; i++) {
		const struct pgstate_seg *s = &e->segs[i];
		unsigned code = (unsigned)local_code(e, s->idx);

		for (uint32_t j = 0; j < s->len; j++, bit += k) {
			unsigned sh = bit & 7;

			q[bit >> 3] |= (uint8_t)(code << sh);
			if (sh + k > 8)
				q[(bit >> 3) + 1] |=
				    (uint8_t)(code >> (8 - sh));
		}
	}
}

void pgstate_close(struct pgstate_enc *e)
{
	map_close(e, e->blk);
}

/* Add the segment of len pages of entry idx at page to the open block
 * b, which holds idx (local_add). */
static void seg_add(struct pgstate_enc *e, struct pgstate_blk *b, uint64_t page,
		    uint64_t len, uint32_t idx)
{
	b->present += len;
	b->end = page + len;
	e->segs[b->nseg++] = (struct pgstate_seg){
	    (uint32_t)(page - b->start),
	    (uint32_t)len,
	    idx,
	};
}

/* push_run past its common case: the open block is closed (a long gap
 * or run, no room, no local entry left) or none is open. */
static void push_run_slow(struct pgstate_enc *e, struct pgstate_blk *b,
			  uint64_t gap, uint64_t page, uint64_t len,
			  uint32_t idx)
{
	bool long_run = len >= LONG_PAGES;

	if (b->open &&
	    (gap >= LONG_PAGES || long_run ||
	     page + len - b->start > PGSTATE_MAP_MAX || !local_add(e, b, idx)))
		map_close(e, b);
	if (!b->open && gap)
		out_var(e, gap << 2 | BLK_SKIP);
	if (long_run) {
		emit_run(e, len, idx);
		e->nruns++;
		return;
	}
	if (!b->open) {
		/* a new block with fresh local entries */
		if (++e->lgen == 0) {
			memset(e->local_gen, 0,
			       e->local_cap * sizeof(*e->local_gen));
			e->lgen = 1;
		}
		b->open = true;
		b->bits = false;
		b->start = b->end = page;
		b->present = 0;
		b->nseg = 0;
		b->nlocal = 0;
		local_add(e, b, idx);
	}
	seg_add(e, b, page, len, idx);
}

/* Encode the run being joined as it decodes (a->slen pages of entry
 * a->sidx at a->spage, past the previous one): a long run as RUN, a long
 * hole as SKIP, short ones gathered into a MAP block. The common case in
 * a's registers: a short run after a short gap, of an entry the open
 * block holds, that fits in it. */
static inline void push_run(struct pgstate_enc *e, struct add_state *a)
{
	uint64_t page = a->spage, len = a->slen, gap = page - a->pos;
	uint32_t idx = a->sidx;

	/* (the block's end is a->pos: its runs are all segments) */
	if (a->bopen && (gap | len) < LONG_PAGES &&
	    page + len - a->bstart <= PGSTATE_MAP_MAX &&
	    e->local_gen[idx] == e->lgen) {
		a->pos = page + len;
		a->bpresent += (uint32_t)len;
		e->segs[a->bnseg++] = (struct pgstate_seg){
		    (uint32_t)(page - a->bstart),
		    (uint32_t)len,
		    idx,
		};
		return;
	}
	add_store(e, a);
	push_run_slow(e, e->blk, gap, page, len, idx);
	add_load(e, a);
	a->pos = page + len;
}

void pgstate_begin(struct pgstate_enc *e, uint64_t start, uint64_t npages,
		   unsigned page_shift)
{
	e->npal = 0;
	e->len = 0;
	e->nruns = 0;
	e->start = start;
	e->npages = npages;
	e->page_shift = page_shift;
	e->pgmask = ((uint64_t)1 << page_shift) - 1;
	e->pos = 0;
	e->spage = e->slen = 0;
	e->pfl = e->pmc = 0;
	e->pidx = e->sidx = UINT32_MAX;
	/* the pages must not run past the end of the address space: the
	 * range checks of pgstate_add() take a page below start to wrap to
	 * one at or past npages */
	e->err = npages && npages - 1 > (UINT64_MAX - start) >> page_shift
		     ? -EINVAL
		     : 0;
	e->open = true;
	if (!e->blk)
		e->blk = xmalloc(sizeof(*e->blk));
	e->blk->open = false;
	e->blk->bits = false;
	hashmap_clear(&e->pal_map);
	/* a MAP block holds at most one segment a page */
	xgrow(&e->segs, &e->segs_cap, PGSTATE_MAP_MAX, sizeof(*e->segs));
	if (!e->words)
		e->words =
		    xmalloc((PGSTATE_MAP_MAX / 64 + 1) * sizeof(*e->words));
}

/* pgstate_add's common case on scattered pages, in a loop of its own
 * from runs[i] on while it holds: the run being joined can be pushed as
 * a segment of the open block (a short run a short gap past the last
 * one, of an entry the block holds), and the next run, of its entry, is
 * short, starts a short gap past it (so is not joined to it) and ends
 * inside the block and the mapping. The conditions are tested together,
 * branch by branch as few as they can be. Returns the index of the first
 * run it leaves for the general case. */
static size_t add_scattered(struct pgstate_enc *e, struct add_state *a,
			    const struct md_run *runs, size_t i, size_t nruns)
{
	const uint64_t start = e->start, pgmask = e->pgmask, npages = e->npages;
	const unsigned shift = e->page_shift;
	struct pgstate_seg *segs = e->segs;
	uint64_t spage = a->spage, slen = a->slen, pos = a->pos;
	uint64_t bstart = a->bstart;
	size_t nseg = a->bnseg;
	uint32_t present = a->bpresent, idx = a->sidx;

	if (!a->bopen || !slen || ((spage - pos) | slen) >= LONG_PAGES ||
	    idx != a->pidx || spage + slen - bstart > PGSTATE_MAP_MAX ||
	    e->local_gen[idx] != e->lgen)
		return i;
	for (; i < nruns; i++) {
		const struct md_run *r = &runs[i];
		uint64_t v = r->vaddr - start, page = v >> shift;
		uint64_t len = r->npages, end = page + len;

		if (((v & pgmask) | (r->flags ^ a->pfl) |
		     (r->mapcount ^ a->pmc)) != 0 ||
		    page - (spage + slen) - 1 >= LONG_PAGES - 1 ||
		    len - 1 >= LONG_PAGES - 1 ||
		    end - bstart > PGSTATE_MAP_MAX || end > npages)
			break;
		segs[nseg++] = (struct pgstate_seg){
		    (uint32_t)(spage - bstart),
		    (uint32_t)slen,
		    idx,
		};
		present += (uint32_t)slen;
		pos = spage + slen;
		spage = page;
		slen = len;
	}
	a->pos = pos;
	a->spage = spage;
	a->slen = slen;
	a->bnseg = nseg;
	a->bpresent = present;
	return i;
}

int pgstate_add(struct pgstate_enc *e, const struct md_run *runs, size_t nruns)
{
	const uint32_t kinds = MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_ZERO;
	const uint64_t start = e->start, pgmask = e->pgmask, npages = e->npages;
	const unsigned shift = e->page_shift;
	struct add_state a;
	int ret = 0;

	if (!e->open)
		return -EINVAL;
	if (e->err)
		return e->err;
	/* its runs go to the block's segments */
	if (e->blk->bits && nruns)
		pgstate_bits_flatten(e);
	add_load(e, &a);
	for (size_t i = 0; i < nruns; i++) {
		const struct md_run *r;
		uint64_t page, next, len;

		i = add_scattered(e, &a, runs, i, nruns);
		if (i == nruns)
			break;
		r = &runs[i];
		len = r->npages;

		/* page in [next, npages] (next, the page after the last
		 * run, is at most npages), and len in [1, npages - page]; a
		 * vaddr below start wraps to a page of npages or more, which
		 * leaves no room for len */
		page = (r->vaddr - start) >> shift;
		next = a.spage + a.slen;
		if (((r->vaddr - start) & pgmask) || !(r->flags & kinds) ||
		    page - next > npages - next || len - 1 >= npages - page) {
			ret = -EINVAL;
			break;
		}
		/* neighbouring runs mostly share an entry */
		if (a.pidx == UINT32_MAX || r->flags != a.pfl ||
		    r->mapcount != a.pmc) {
			a.pfl = r->flags;
			a.pmc = r->mapcount;
			a.pidx = pal_index(e, a.pfl, a.pmc);
		}
		/* join runs of one entry as the decoder does */
		if (a.spage + a.slen == page && a.slen && a.sidx == a.pidx &&
		    a.slen < UINT32_MAX) {
			uint64_t add = MIN(len, UINT32_MAX - a.slen);

			a.slen += add;
			page += add;
			len -= add;
			if (!len)
				continue;
		}
		if (a.slen)
			push_run(e, &a);
		a.spage = page;
		a.slen = len;
		a.sidx = a.pidx;
	}
	add_store(e, &a);
	return ret ? (e->err = ret) : 0;
}

int pgstate_end(struct pgstate_enc *e)
{
	if (!e->open)
		return -EINVAL; /* not begun, or ended already */
	e->open = false;
	if (e->err)
		return e->err;
	/* a block of bits takes the run being joined as bits, or closes as
	 * it is before it (as push_run_slow would close it) */
	if (e->blk->bits && e->slen && !pgstate_bits_push(e))
		map_close(e, e->blk);
	if (e->slen) {
		struct add_state a;

		add_load(e, &a);
		push_run(e, &a);
		add_store(e, &a);
	}
	e->slen = 0;
	if (e->blk->open)
		map_close(e, e->blk);
	return 0;
}

int pgstate_encode(struct pgstate_enc *e, uint64_t start, uint64_t npages,
		   unsigned page_shift, const struct md_run *runs, size_t nruns)
{
	int ret;

	pgstate_begin(e, start, npages, page_shift);
	ret = pgstate_add(e, runs, nruns);
	return ret ? ret : pgstate_end(e);
}

void pgstate_enc_free(struct pgstate_enc *e)
{
	if (!e)
		return;
	free(e->pal);
	free(e->out);
	free(e->segs);
	free(e->words);
	free(e->blk);
	free(e->cbuf);
	hashmap_free(&e->pal_map);
	free(e->local_gen);
	free(e->local_idx);
	memset(e, 0, sizeof(*e));
}

/* CRC-32 (IEEE 802.3) is zlib's crc32(); crc32_z() takes a size_t. */
uint32_t pgstate_crc(uint32_t crc, const uint8_t *p, size_t n)
{
	return crc32_z(crc, p, n);
}
