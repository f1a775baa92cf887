/* fuzz_pgstate.c — libFuzzer target: the page-state decoder of
 * SNAP_MAPPING records (pgstate_decode) over the fuzz bytes, in memory:
 * a 12-byte head (palette entries, pages, runs; little-endian) then the
 * palette (PGSTATE_PAL_SIZE bytes per entry) and the stream. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t start = 0x7f0000000000ull;
	struct md_run *runs = NULL;
	size_t cap = 0, palbytes;
	uint32_t npal;
	uint64_t npages, nruns;

	if (size < 12)
		return 0;
	npal = le32(data) & 0xff;
	npages = le32(data + 4) & 0xfffff; /* at most 4 GiB of 4 KiB pages */
	nruns = le32(data + 8) & 0xffff;
	palbytes = (size_t)npal * PGSTATE_PAL_SIZE;
	if (size - 12 < palbytes)
		return 0;
	(void)pgstate_decode(data + 12, npal, data + 12 + palbytes,
			     size - 12 - palbytes, start, npages, 12, nruns,
			     &runs, &cap);
	free(runs);
	return 0;
}
