// SPDX-License-Identifier: GPL-2.0-or-later
/* pgstate_bits.c — the page-state encoder's bitmaps (pgstate_add_bits):
 * the runs of a bitmap of pages of one entry found a word at a time and
 * put into the open MAP block as segments, or where the pages are
 * scattered, short runs a short gap apart, the block kept as bits (a
 * block of bits: its presence bitmap set a word at a time, not a
 * segment a run, then put out as it is), made segments only where
 * anything else is added to it or it is coded or put out as runs. Moved
 * out of pgstate.c, which encodes runs and closes blocks. */
#include "config.h"

#include "data/pgstate.h"
#include "data/pgstate_int.h"
#include "util/util.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* What pgstate_add_bits hands its runs with: the bitmap's first page
 * and vaddr, its entry, whether the bitmap passed pgstate_add's checks. */
struct bits_ctx {
	uint64_t base, vaddr;
	uint32_t fl, mc;
	bool checked;
};

/* The run of bitmap pages [i, end) through pgstate_add, in pieces of at
 * most UINT32_MAX pages (it joins them, as the decoder does), the state
 * in a stored and loaded around it; in *fast whether the next run may
 * then take bits_word's common case (add_scattered's conditions on the
 * run being joined, which that case keeps). Returns 0 or its error. */
static int bits_slow(struct pgstate_enc *e, struct add_state *a,
		     const struct bits_ctx *x, uint64_t i, uint64_t end,
		     bool *fast)
{
	struct md_run r = {.flags = x->fl, .mapcount = x->mc};
	int ret;

	add_store(e, a);
	for (; i < end; i += r.npages) {
		r.vaddr = x->vaddr + (i << e->page_shift);
		r.npages = (uint32_t)MIN(end - i, UINT32_MAX);
		ret = pgstate_add(e, &r, 1);
		if (ret)
			return ret;
	}
	add_load(e, a);
	/* add_scattered's conditions but those that hold here: a run of
	 * entry (fl, mc) just added by pgstate_add (at least one: callers
	 * give i < end), joined or started, leaves the run being joined
	 * non-empty and of that entry (slen > 0, sidx == pidx, pfl and pmc
	 * x's). What is left may fail: that run may have left no block
	 * open, be long or after a long gap, end past the block's room or
	 * be of an entry new to the block */
	*fast = x->checked && a->bopen &&
		((a->spage - a->pos) | a->slen) < LONG_PAGES &&
		a->spage + a->slen - a->bstart <= PGSTATE_MAP_MAX &&
		e->local_gen[a->sidx] == e->lgen;
	return 0;
}

/* The runs of the bitmap's word w (its bit 0: page p of the bitmap) into
 * the encoder, *rs the start of a run that reached the end of the word
 * before (none: UINT64_MAX), set to that of a run reaching the end of
 * this one. The common case (*fast and the run's own checks) as in
 * add_scattered: the run being joined goes to the open block as a segment
 * when this one, short, starts a short gap past it and ends inside the
 * block (and the mapping, which x->checked says). The runs are found with
 * the word in a register, not bit by bit: the lowest run of w is cleared
 * by w & (w + (w & -w)), whose sum's lowest set bit is the run's end (no
 * sum: it reaches the word's end). Returns 0 or an error of pgstate_add. */
static int bits_word(struct pgstate_enc *e, struct add_state *a,
		     const struct bits_ctx *x, uint64_t w, uint64_t p,
		     uint64_t *rs, bool *fast)
{
	const uint64_t none = UINT64_MAX, base = x->base;
	struct pgstate_seg *segs = e->segs;
	/* a's fields the common case changes, in registers (a's address
	 * goes to bits_slow: kept there, they would be reloaded after every
	 * segment stored) */
	uint64_t spage = a->spage, slen = a->slen, pos = a->pos;
	uint64_t bstart = a->bstart;
	size_t nseg = a->bnseg;
	uint32_t present = a->bpresent, sidx = a->sidx;
	int ret = 0;

	if (*rs != none && !(w & 1)) {
		ret = bits_slow(e, a, x, *rs, p, fast);
		*rs = none;
		spage = a->spage, slen = a->slen, pos = a->pos;
		bstart = a->bstart, nseg = a->bnseg, present = a->bpresent;
		sidx = a->sidx;
	}
	while (w && !ret) {
		uint64_t sum = w + (w & -w),
			 st = p + (uint64_t)__builtin_ctzll(w);
		uint64_t en, send = spage + slen;

		w &= sum;
		if (!sum) {
			*rs = *rs == none ? st : *rs;
			break;
		}
		st = *rs == none ? st : *rs;
		*rs = none;
		en = p + (uint64_t)__builtin_ctzll(sum);
		if (!*fast || base + st - send - 1 >= LONG_PAGES - 1 ||
		    en - st - 1 >= LONG_PAGES - 1 ||
		    base + en - bstart > PGSTATE_MAP_MAX) {
			a->spage = spage, a->slen = slen, a->pos = pos;
			a->bnseg = nseg, a->bpresent = present;
			ret = bits_slow(e, a, x, st, en, fast);
			spage = a->spage, slen = a->slen, pos = a->pos;
			bstart = a->bstart, nseg = a->bnseg;
			present = a->bpresent, sidx = a->sidx;
			continue;
		}
		segs[nseg++] = (struct pgstate_seg){
		    (uint32_t)(spage - bstart),
		    (uint32_t)slen,
		    sidx,
		};
		present += (uint32_t)slen;
		pos = send;
		spage = base + st;
		slen = en - st;
	}
	a->spage = spage, a->slen = slen, a->pos = pos;
	a->bnseg = nseg, a->bpresent = present;
	return ret;
}

/* A block of bits is begun only where a bitmap has this many pages left
 * to add (its words' 8 KiB zeroed, its segments so far set in them). */
#define BITS_MIN_PAGES 1024

/* The pages [off, off + len) of words set, len < 64: in one word or two. */
static inline void words_set(uint64_t *w, uint64_t off, uint64_t len)
{
	uint64_t m = ((uint64_t)1 << len) - 1;
	unsigned sh = off & 63;

	w[off >> 6] |= m << sh;
	if (sh + len > 64)
		w[(off >> 6) + 1] |= m >> (64 - sh);
}

/* The first page at or past i and below n whose bit in w is set (set) or
 * clear (!set), else n. */
static uint64_t words_next(const uint64_t *w, uint64_t i, uint64_t n, bool set)
{
	while (i < n) {
		uint64_t x = (set ? w[i >> 6] : ~w[i >> 6]) >> (i & 63);

		if (x)
			return MIN(i + (uint64_t)__builtin_ctzll(x), n);
		i = (i | 63) + 1;
	}
	return n;
}

void pgstate_bits_flatten(struct pgstate_enc *e)
{
	struct pgstate_blk *b = e->blk;
	uint64_t n = b->end - b->start, i = 0, j;
	size_t ns = 0;

	while ((i = words_next(e->words, i, n, true)) < n) {
		j = words_next(e->words, i, n, false);
		e->segs[ns++] = (struct pgstate_seg){
		    (uint32_t)i, (uint32_t)(j - i), b->local[0]};
		i = j;
	}
	b->nseg = ns;
	b->bits = false;
}

bool pgstate_bits_push(struct pgstate_enc *e)
{
	struct pgstate_blk *b = e->blk;

	if (!e->slen || ((e->spage - e->pos) | e->slen) >= LONG_PAGES ||
	    e->spage + e->slen - b->start > PGSTATE_MAP_MAX)
		return false;
	words_set(e->words, e->spage - b->start, e->slen);
	b->nseg++;
	b->present += e->slen;
	e->pos = e->spage + e->slen;
	b->end = e->pos;
	e->slen = 0;
	return true;
}

/* Make the open block a block of bits (b->bits) if it may be one: a
 * bitmap of x's entry goes on (the run being joined of it, from
 * pgstate_add, pushable as bits_word's common case would push it), the
 * block's one local entry. Returns whether it is one. */
static bool bits_begin(struct pgstate_enc *e, struct add_state *a,
		       const struct bits_ctx *x)
{
	struct pgstate_blk *b = e->blk;

	if (b->bits)
		return true;
	if (!x->checked || !a->bopen || !a->slen || a->sidx != a->pidx ||
	    a->pfl != x->fl || a->pmc != x->mc || b->nlocal != 1 ||
	    b->local[0] != a->sidx ||
	    ((a->spage - a->pos) | a->slen) >= LONG_PAGES ||
	    a->spage + a->slen - a->bstart > PGSTATE_MAP_MAX)
		return false;
	add_store(e, a);
	memset(e->words, 0, (PGSTATE_MAP_MAX / 64 + 1) * sizeof(*e->words));
	pgstate_presence_words(e, b, b->end - b->start);
	b->bits = true;
	return true;
}

/* Word w of the bitmap (its bit 0: page p of the mapping) into a block of
 * bits, a word at a time: the run being joined is joined by w's first
 * run (w's bit 0 continuing it) or pushed into the block's words, w's
 * runs but its last set there too, counted (a run starts at each set bit
 * whose lower neighbour is clear), and w's last run becomes the run being
 * joined: what bits_word's common case does run by run. Only if every
 * run is short (under LONG_PAGES: w is not all ones, the run being
 * joined stays short), starts a short gap past the last and ends inside
 * the block's room; false (nothing changed) if not. */
static bool bits_word_block(struct pgstate_enc *e, struct add_state *a,
			    uint64_t w, uint64_t p)
{
	uint64_t *words = e->words, spage = a->spage, slen = a->slen;
	uint64_t f, l, x, sl, rest, send, pos, off;
	size_t nseg;
	uint32_t present;

	if (!w)
		return true;
	f = (uint64_t)__builtin_ctzll(w);
	if (spage + slen == p + f) {
		/* w's first run continues the run being joined (it starts
		 * at bit 0, or where the runs before this bitmap ended) */
		uint64_t y = w >> f,
			 r1 = ~y ? (uint64_t)__builtin_ctzll(~y) : 64 - f;

		if (slen + r1 >= LONG_PAGES)
			return false;
		slen += r1;
		w = f + r1 < 64 ? w & ~(uint64_t)0 << (f + r1) : 0;
		if (!w) {
			if (spage + slen - a->bstart > PGSTATE_MAP_MAX)
				return false;
			a->slen = slen;
			return true;
		}
		f = (uint64_t)__builtin_ctzll(w);
	}
	send = spage + slen;
	l = 63 - (uint64_t)__builtin_clzll(w);
	/* the run being joined pushed (push_run's common case: a short gap
	 * past the last pushed; short, and inside the room, as below), w's
	 * runs after short gaps, the last inside the room */
	if (!slen || ((spage - a->pos) | slen) >= LONG_PAGES ||
	    p + f - send - 1 >= LONG_PAGES - 1 || w == ~0ull ||
	    p + l + 1 - a->bstart > PGSTATE_MAP_MAX)
		return false;
	words_set(words, spage - a->bstart, slen);
	nseg = a->bnseg + 1;
	present = a->bpresent + (uint32_t)slen;
	/* w's last run starts past the highest clear bit below l (at 0 if
	 * none is): the runs below it are pushed, it is joined next */
	x = ~w & (((uint64_t)1 << l) - 1);
	sl = x ? 64 - (uint64_t)__builtin_clzll(x) : 0;
	rest = w & (((uint64_t)1 << sl) - 1);
	pos = send;
	if (rest) {
		off = p - a->bstart;
		words[off >> 6] |= rest << (off & 63);
		if (off & 63)
			words[(off >> 6) + 1] |= rest >> (64 - (off & 63));
		nseg += (size_t)__builtin_popcountll(rest & ~(rest << 1));
		present += (uint32_t)__builtin_popcountll(rest);
		pos = p + 64 - (uint64_t)__builtin_clzll(rest);
	}
	a->pos = pos;
	a->bnseg = nseg;
	a->bpresent = present;
	a->spage = p + sl;
	a->slen = l + 1 - sl;
	return true;
}

/* Whether a block of bits may take the run being joined as a segment:
 * push_run's common case (short, a short gap past the last, inside the
 * block's room; its entry the block's one). */
static bool bits_pushable(const struct add_state *a)
{
	return a->slen && ((a->spage - a->pos) | a->slen) < LONG_PAGES &&
	       a->spage + a->slen - a->bstart <= PGSTATE_MAP_MAX;
}

/* Word *w of the bitmap (its bit 0: page p) into a block of bits run by
 * run where bits_word_block would not take it whole: the run being joined
 * joined by w's first run if it continues it, else pushed as a segment
 * as each run starts, the run then the one being joined, as pgstate_add
 * does; until one may not be pushed (long, after a long gap, past the
 * block's room), where the block closes as it is (pgstate_add would
 * close it then, before anything else is put out) and the runs of *w
 * not yet taken are left in *w for bits_word. Returns true if *w was
 * taken whole. */
static bool bits_word_block_runs(struct pgstate_enc *e, struct add_state *a,
				 uint64_t *w, uint64_t p)
{
	uint64_t x = *w;

	if (x && a->slen &&
	    a->spage + a->slen == p + (uint64_t)__builtin_ctzll(x)) {
		uint64_t f = (uint64_t)__builtin_ctzll(x), y = x >> f;
		uint64_t r1 = ~y ? (uint64_t)__builtin_ctzll(~y) : 64 - f;

		a->slen += r1;
		x = f + r1 < 64 ? x & ~(uint64_t)0 << (f + r1) : 0;
	}
	while (x) {
		uint64_t st = (uint64_t)__builtin_ctzll(x);
		uint64_t above = ~x & (~(uint64_t)0 << st);
		uint64_t en = above ? (uint64_t)__builtin_ctzll(above) : 64;

		if (a->slen) {
			if (!bits_pushable(a)) {
				*w = x;
				add_store(e, a);
				pgstate_close(e);
				add_load(e, a);
				return false;
			}
			words_set(e->words, a->spage - a->bstart, a->slen);
			a->bnseg++;
			a->bpresent += (uint32_t)a->slen;
			a->pos = a->spage + a->slen;
		}
		a->spage = p + st;
		a->slen = en - st;
		x = en < 64 ? x & (~(uint64_t)0 << en) : 0;
	}
	*w = 0;
	return true;
}

int pgstate_add_bits(struct pgstate_enc *e, uint64_t vaddr,
		     const uint64_t *words, uint64_t first, uint64_t npages,
		     uint32_t fl, uint32_t mc)
{
	const uint32_t kinds = MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_ZERO;
	struct bits_ctx x = {(vaddr - e->start) >> e->page_shift, vaddr, fl, mc,
			     false};
	uint64_t rs = UINT64_MAX;
	struct add_state a;
	bool fast = false;
	int ret = 0;

	if (!e->open)
		return -EINVAL;
	if (e->err)
		return e->err;
	if (first >= npages)
		return 0;
	/* the runs' checks of pgstate_add, once for all: a bitmap that
	 * fails them goes to it run by run, which fails it */
	x.checked = !((vaddr - e->start) & e->pgmask) && (fl & kinds) &&
		    x.base + first >= e->spage + e->slen &&
		    x.base <= e->npages && npages <= e->npages - x.base;
	add_load(e, &a);
	for (uint64_t wi = first / 64; wi < (npages + 63) / 64 && !ret; wi++) {
		uint64_t w = words[wi], p = wi * 64;

		if (wi == first / 64)
			w &= ~(uint64_t)0 << (first & 63);
		if (npages - p < 64)
			w &= ((uint64_t)1 << (npages - p)) - 1;
		/* a word at a time into a block of bits where it may go: no
		 * run open at the word's start (rs) to hand on; a block made
		 * segments again here is not begun again (each begin zeroes
		 * 8 KiB and sets the segments so far) */
		if (rs == UINT64_MAX &&
		    (e->blk->bits ||
		     (npages - p >= BITS_MIN_PAGES && bits_begin(e, &a, &x)))) {
			if (a.pfl == fl && a.pmc == mc && a.sidx == a.pidx &&
			    (bits_word_block(e, &a, w, x.base + p) ||
			     bits_word_block_runs(e, &a, &w, x.base + p)))
				continue;
			/* a bitmap of another entry: segments again */
			if (e->blk->bits) {
				add_store(e, &a);
				pgstate_bits_flatten(e);
				add_load(e, &a);
			}
			/* bits_word's common case only after a run through
			 * bits_slow */
			fast = false;
		}
		ret = bits_word(e, &a, &x, w, p, &rs, &fast);
	}
	if (rs != UINT64_MAX && !ret)
		ret = bits_slow(e, &a, &x, rs, npages, &fast);
	if (ret)
		return ret;
	add_store(e, &a);
	return 0;
}
