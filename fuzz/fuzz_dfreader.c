/* fuzz_dfreader.c — libFuzzer target: the memsz.data reader alone
 * (md_reader_open_mem, md_read_next to the end or the first error) over
 * the fuzz bytes in memory, their checksums recomputed first so that mutations reach
 * the record decoders behind the CRC. No report, no printing, no image
 * lookup: every execution is the reader's (fuzz_datafile drives the whole
 * dump and report). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct md_reader *r;
	struct md_record rec;

	memcpy(copy, data, size);
	md_checksum_fix(copy, size);
	if (md_reader_open_mem(copy, size, &r) == 0) {
		while (md_read_next(r, &rec) > 0)
			;
		md_reader_close(r);
	}
	free(copy);
	return 0;
}
