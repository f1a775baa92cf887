// SPDX-License-Identifier: GPL-2.0-or-later
/* pgstate_int.h — what the page-state encoder (pgstate.c, and
 * pgstate_bits.c for bitmaps) and decoder (pgstate_dec.c) share: the
 * block kinds, the rANS parameters, the little-endian and code-width
 * helpers, and the encoder's open block and run state. Private to
 * data/. */
#ifndef MEMSZ_DATA_PGSTATE_INT_H
#define MEMSZ_DATA_PGSTATE_INT_H

#include "data/pgstate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run or a hole this many pages long gets a block of its own (RUN or
 * SKIP, 2 to 4 bytes): in a bitmap it would cost a bit a page. */
#define LONG_PAGES 64
/* Distinct entries of one MAP block (its count is stored in a byte). */
#define LOCAL_MAX 256

enum { BLK_SKIP = 0, BLK_RUN = 1, BLK_MAP = 2, BLK_CODED = 3 };

/* CODED blocks: rANS (byte-wise renormalisation, a 32-bit state kept in
 * [RANS_L, 256 * RANS_L)) over symbol frequencies of RANS_BITS bits. */
#define RANS_BITS 12
#define RANS_M (1u << RANS_BITS)
#define RANS_L (1u << 23)
/* Symbols of a CODED block: its local entries and "absent". */
#define CODED_MAX 256

static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Bits of a code that can name any of m local entries. */
static inline unsigned code_bits(uint32_t m)
{
	return m > 1 ? 32 - (unsigned)__builtin_clz(m - 1) : 0;
}

/* A short segment of the open MAP block: consecutive pages of one
 * palette entry (fewer than LONG_PAGES), from the block's first page. */
struct pgstate_seg {
	uint32_t off;
	uint32_t len;
	uint32_t idx;
};

/* The MAP block being gathered. */
struct pgstate_blk {
	uint64_t start;	  /* its first page */
	uint64_t end;	  /* the page after its last segment */
	uint64_t present; /* pages of its segments */
	size_t nseg;	  /* segments in e->segs (bits: segments counted) */
	bool open;
	/* its segments are not in e->segs but in e->words, a bit a page
	 * from start, all of its one local entry (pgstate_bits.c: a bitmap
	 * of scattered pages goes in a word at a time); made segments by
	 * pgstate_bits_flatten before anything else adds to the block */
	bool bits;
	uint32_t nlocal;
	uint32_t local[LOCAL_MAX];
};

/* What pgstate_add changes run by run, in local variables for the length
 * of a slice (kept in the encoder, the compiler would reload them after
 * every segment stored, which might alias them): the open block's
 * counters (b->open ... b->nseg), the previous run's entry and the run
 * being joined (as in struct pgstate_enc), whose end is the page the next
 * run may start at. The runs are counted as blocks close (e->nruns). */
struct add_state {
	uint64_t pos, spage, slen;
	uint64_t bstart;
	size_t bnseg;
	/* at most PGSTATE_MAP_MAX; not of pos's type, which lets the
	 * compiler pair their updates in a vector register, slower */
	uint32_t bpresent;
	uint32_t pfl, pmc, pidx, sidx;
	bool bopen;
};

static inline void add_load(const struct pgstate_enc *e, struct add_state *a)
{
	const struct pgstate_blk *b = e->blk;

	*a = (struct add_state){
	    .pos = e->pos,
	    .spage = e->spage,
	    .slen = e->slen,
	    .bstart = b->start,
	    .bpresent = (uint32_t)b->present,
	    .bnseg = b->nseg,
	    .pfl = e->pfl,
	    .pmc = e->pmc,
	    .pidx = e->pidx,
	    .sidx = e->sidx,
	    .bopen = b->open,
	};
}

static inline void add_store(struct pgstate_enc *e, const struct add_state *a)
{
	struct pgstate_blk *b = e->blk;

	e->pos = a->pos;
	e->spage = a->spage;
	e->slen = a->slen;
	b->start = a->bstart;
	if (a->bopen)
		b->end = a->pos;
	b->present = a->bpresent;
	b->nseg = a->bnseg;
	e->pfl = a->pfl;
	e->pmc = a->pmc;
	e->pidx = a->pidx;
	e->sidx = a->sidx;
	b->open = a->bopen;
}

/* The presence bitmap of the n pages of open block b (its segments in
 * e->segs) into e->words, bit i page b->start + i, the words up to page
 * n zeroed first (pgstate.c). */
void pgstate_presence_words(struct pgstate_enc *e, const struct pgstate_blk *b,
			    uint64_t n);
/* Close the open block e->blk (its fields as stored): put it out as MAP,
 * CODED or SKIP and RUN blocks, whichever is shortest (pgstate.c). */
void pgstate_close(struct pgstate_enc *e);
/* The open block's bits made segments in e->segs (b->bits cleared), its
 * fields as stored (add_store) (pgstate_bits.c). */
void pgstate_bits_flatten(struct pgstate_enc *e);
/* In a block of bits, the run being joined (e->spage, e->slen) pushed as
 * one more segment, set in e->words, if it may be (short, a short gap
 * past e->pos, inside the block's room); false if not (nothing changed).
 * (pgstate_bits.c) */
bool pgstate_bits_push(struct pgstate_enc *e);

#endif
