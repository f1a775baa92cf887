// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_datafile.c — libFuzzer target: the memsz.data reader over the fuzz
 * bytes in memory (md_reader_open_mem): the header, every record's size,
 * checksum and decoder (PACKED records, zstd included, opened and their
 * records handed out), the invariants between records, and each record
 * printed as `memsz dump -v` prints it (to /dev/null).
 *
 * The checksums are recomputed first (md_checksum_fix), so that mutations
 * reach the checks and the decoders behind them (the version 2 page-state
 * decoder among them) instead of stopping at the first checksum. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	uint8_t *copy = malloc(size ? size : 1);
	struct md_reader *r;
	struct md_record rec;
	uint32_t page_size;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	memcpy(copy, data, size);
	md_checksum_fix(copy, size);
	if (md_reader_open_mem(copy, size, &r) == 0) {
		page_size = md_reader_header(r)->page_size;
		while (md_read_next(r, &rec) > 0)
			md_record_print(null, &rec, true, page_size);
		md_reader_why(r);
		md_reader_cut_short(r);
		md_reader_close(r);
	}
	free(copy);
	return 0;
}
