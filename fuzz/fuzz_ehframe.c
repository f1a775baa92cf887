// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_ehframe.c — libFuzzer target: the .eh_frame and .eh_frame_hdr
 * parsers (elf/ehframe.c) over a buffer, no ELF file around it. Input:
 * a flags byte (bit 0: ELFCLASS64, bit 1: big-endian), the section's VM
 * address (8 bytes, little-endian), then the section bytes, parsed both
 * as .eh_frame and as .eh_frame_hdr. Every FDE handed out must lie inside
 * the buffer, as ehframe.h promises: one that does not aborts. */
#include "config.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/ehframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_ehhdr_entry *ents = NULL;
	struct elf_fde *fdes = NULL;
	size_t n = 0, len;
	uint64_t addr = 0, count;
	const uint8_t *buf;
	int cls;
	bool be;

	if (size < 9)
		return 0;
	cls = data[0] & 1 ? ELFCLASS64 : ELFCLASS32;
	be = data[0] & 2;
	for (int i = 0; i < 8; i++)
		addr |= (uint64_t)data[1 + i] << (8 * i);
	buf = data + 9;
	len = size - 9;
	elf_ehframe_parse(buf, len, addr, cls, be, &fdes, &n, NULL);
	for (size_t i = 0; i < n; i++)
		if (fdes[i].off > len || fdes[i].size > len - fdes[i].off)
			abort();
	free(fdes);
	n = 0;
	elf_ehframe_hdr_parse(buf, len, addr, cls, be, &ents, &n, &count);
	for (size_t i = 0; i < n; i++)
		if (ents[i].off > len || ents[i].size > len - ents[i].off)
			abort();
	free(ents);
	return 0;
}
