// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_pgstate.c — libFuzzer target: the page-state decoder of format
 * version 2 SNAP_MAPPING records (data/pgstate.c), straight from the fuzz
 * bytes, no file around it. Input: a byte (bit 0: 64 KiB pages, else
 * 4 KiB; bit 1: a stream of version 2 to 4, without CODED blocks), the
 * palette size (1 byte), the mapping's pages (4 bytes) and
 * the run count (4 bytes), little-endian, then the palette (8 bytes an
 * entry) and the block stream. A stream that decodes is encoded again
 * (when its runs are of kinds the encoder takes) and the encoding must
 * decode to the same runs: a difference aborts. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/pgstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Can pgstate_encode() take these runs? */
static bool encodable(const struct md_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(runs[i].flags &
		      (MD_PG_PRESENT | MD_PG_SWAPPED | MD_PG_ZERO)))
			return false;
	return true;
}

/* Encode the n runs and decode them again: the same runs or abort. */
static void roundtrip(const struct md_run *runs, size_t n, uint64_t start,
		      uint64_t npages, unsigned shift)
{
	struct pgstate_enc e = {0};
	struct md_run *again = NULL;
	size_t cap = 0;

	if (pgstate_encode(&e, start, npages, shift, runs, n) || e.nruns != n ||
	    pgstate_decode(e.pal, e.npal, e.out, e.len, start, npages, shift, n,
			   true, &again, &cap) ||
	    (n && memcmp(again, runs, n * sizeof(*runs))))
		abort();
	free(again);
	pgstate_enc_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t start = 0x7f0000000000;
	struct md_run *runs = NULL;
	size_t cap = 0, npal, need = 10;
	uint64_t npages, nruns;
	unsigned shift;

	if (size < need)
		return 0;
	shift = data[0] & 1 ? 16 : 12;
	npal = data[1];
	npages = le32(data + 2);
	nruns = le32(data + 6);
	if (size - need < npal * PGSTATE_PAL_SIZE)
		return 0;
	if (!pgstate_decode(
		data + need, npal, data + need + npal * PGSTATE_PAL_SIZE,
		size - need - npal * PGSTATE_PAL_SIZE, start, npages, shift,
		nruns, !(data[0] & 2), &runs, &cap) &&
	    encodable(runs, nruns))
		roundtrip(runs, nruns, start, npages, shift);
	free(runs);
	return 0;
}
