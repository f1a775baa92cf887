/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pgstate.h — the compact page-state encoding of a SNAP_MAPPING record
 * (format version 2; CODED blocks from version 5), used by the SNAP_MAPPING
 * codec (dfmapping.c) only.
 *
 * A mapping's pages are described by a palette of distinct (flags,
 * mapcount) pairs and a byte stream of blocks, each one a LEB128 header
 * h (kind = h & 3, pages = h >> 2, at least 1):
 *   0 SKIP  pages absent pages
 *   1 RUN   a LEB128 palette index; pages (<= UINT32_MAX) of that entry
 *   2 MAP   pages (<= PGSTATE_MAP_MAX) described page by page: a byte
 *           m - 1 (m local entries, 1..256), m LEB128 palette indices, a
 *           presence bitmap of ceil(pages / 8) bytes (page i is bit i % 8
 *           of byte i / 8), then for each present page in order a k-bit
 *           code (k = bits of m - 1, 0 when m == 1) packed the same way,
 *           ceil(present * k / 8) bytes; a code < m names local entry.
 *           Unused bits of both bitmaps are zero.
 *   3 CODED (format version 5 on; invalid before) pages (<=
 *           PGSTATE_MAP_MAX) entropy coded page by page: a byte m - 1
 *           (m symbols, 1..256), m LEB128 symbols (0: an absent page, v:
 *           palette index v - 1), m LEB128 frequencies (>= 1, summing to
 *           4096), a LEB128 byte count b >= 4 and b bytes of rANS code:
 *           a 32-bit big-endian state in [2^23, 2^31), then the bytes
 *           that renormalise it, one page a symbol; the state ends at
 *           2^23 with every byte used. No 64 consecutive pages of a block
 *           have the same symbol (such a run is a RUN or SKIP block).
 *           It costs about the entropy of the pages' states: forked
 *           memory, where each page has one of many mapcounts.
 * Blocks follow each other from the mapping's first page; pages after the
 * last block are absent. Decoding merges consecutive pages with equal
 * flags and mapcount into runs of at most UINT32_MAX pages, so the
 * decoded runs are the same whatever blocks the encoder chose.
 */
#ifndef MEMSZ_DATA_PGSTATE_H
#define MEMSZ_DATA_PGSTATE_H

#include "data/datafile.h"
#include "util/hashmap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PGSTATE_MAP_MAX (1u << 16) /* pages in one MAP block */

/* One palette entry, as encoded: u32 flags, u32 mapcount. */
#define PGSTATE_PAL_SIZE 8

/* Encoder scratch, reused from one mapping to the next. Zero-initialise;
 * free with pgstate_enc_free(). */
struct pgstate_enc {
	uint8_t *pal; /* npal encoded palette entries */
	uint32_t npal;
	uint8_t *out;	/* the block stream */
	size_t len;	/* its length in bytes */
	uint64_t nruns; /* runs the stream decodes to */

	/* private */
	size_t pal_cap, out_cap;
	struct pgstate_seg *segs;
	size_t segs_cap;
	uint64_t *words; /* the presence bitmap of a MAP block being put out */
	uint8_t *cbuf;	 /* a CODED block being tried */
	size_t cbuf_cap;
	struct hashmap pal_map; /* of pal: entries by value */
	uint32_t *local_gen, *local_idx;
	size_t local_cap;
	uint32_t lgen; /* of the local tables: per block */
	/* the mapping being encoded piecewise (pgstate_begin) */
	struct pgstate_blk *blk; /* the open MAP block */
	uint64_t npages, pgmask;
	uint64_t pos;	      /* the page after the last run pushed */
	uint64_t spage, slen; /* the run being joined, not yet pushed */
	unsigned page_shift;
	uint64_t start;
	uint32_t pfl, pmc, pidx, sidx;
	int err;
	bool open; /* begun and not yet ended */
};

/* Encode the runs of a mapping of npages pages at start (pages of
 * 1 << page_shift bytes) into e->pal / e->out / e->nruns. The runs must be
 * sorted, page-aligned, inside the mapping, not overlapping, of at least
 * one page, and each must be present, swapped or the zero page (flags
 * MD_PG_PRESENT, MD_PG_SWAPPED or MD_PG_ZERO). Returns 0 or -EINVAL. */
int pgstate_encode(struct pgstate_enc *e, uint64_t start, uint64_t npages,
		   unsigned page_shift, const struct md_run *runs,
		   size_t nruns);

/* The same, piecewise: pgstate_begin() for a mapping, pgstate_add() for
 * consecutive slices of its runs (with the same rules; a run may continue
 * the last one of the previous slice), pgstate_end() to finish. The result
 * is what pgstate_encode() gives for all the runs at once. pgstate_add()
 * returns 0 or -EINVAL, after which the encoding is void; pgstate_end()
 * returns 0 or the error of an add. Both return -EINVAL, changing nothing,
 * when no mapping is begun or it is already ended. */
void pgstate_begin(struct pgstate_enc *e, uint64_t start, uint64_t npages,
		   unsigned page_shift);
int pgstate_add(struct pgstate_enc *e, const struct md_run *runs, size_t nruns);
/* pgstate_add() of the pages of a bitmap, all of one palette entry:
 * page vaddr + (i << page_shift), for first <= i < npages, is present
 * with flags fl and mapcount mc if bit i % 64 of words[i / 64] is set,
 * else absent (not a run); the bits below first are not read (a bitmap
 * added in pieces, other runs between them). The same as pgstate_add()
 * of the maximal runs of set bits (as a classification into runs gives
 * them), without a list of runs in memory: a chunk of scattered pages
 * costs a word per 64 pages instead of a run of 24 bytes per page.
 * Returns as pgstate_add() (0 when first >= npages). */
int pgstate_add_bits(struct pgstate_enc *e, uint64_t vaddr,
		     const uint64_t *words, uint64_t first, uint64_t npages,
		     uint32_t fl, uint32_t mc);
int pgstate_end(struct pgstate_enc *e);
void pgstate_enc_free(struct pgstate_enc *e);

/* Decode npal palette entries at pal and the nbytes-byte stream at s of a
 * mapping of npages pages at start into exactly nruns runs (CODED blocks
 * allowed only if coded: files of version 5 on), stored in
 * *runs (grown as needed, *cap its capacity; the caller frees). Every field
 * is checked: returns 0, or -MEMSZ_EBADDATA if anything is out of range,
 * the stream is cut or too long, or the run count differs. */
int pgstate_decode(const uint8_t *pal, uint32_t npal, const uint8_t *s,
		   size_t nbytes, uint64_t start, uint64_t npages,
		   unsigned page_shift, uint64_t nruns, bool coded,
		   struct md_run **runs, size_t *cap);

/* CRC-32 of n bytes at p continuing crc (0 to start): zlib's crc32(),
 * a SNAP_MAPPING record's check of its page states. */
uint32_t pgstate_crc(uint32_t crc, const uint8_t *p, size_t n);

#endif
