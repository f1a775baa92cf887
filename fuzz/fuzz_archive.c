// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_archive.c — libFuzzer target: the static archive reader
 * (ar_members_read) over the fuzz bytes as the whole archive, then a
 * check that every member it returns lies inside them, as the on-disk
 * report, which copies each member out, relies on. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "elf/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ar_member *m = NULL;
	size_t n = 0, end = 0;

	if (ar_members_read(data, size, &m, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		/* in order, inside the input, not overlapping */
		if (m[i].hdr_off < end ||
		    m[i].off != m[i].hdr_off + m[i].hdr_len ||
		    m[i].off + m[i].size + m[i].pad > size)
			abort();
		if ((m[i].kind == AR_FILE) != (m[i].name != NULL))
			abort();
		end = m[i].off + m[i].size + m[i].pad;
	}
	ar_members_free(m, n);
	return 0;
}
