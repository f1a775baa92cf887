// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_ehframe.c — libFuzzer target: the .eh_frame and .eh_frame_hdr
 * parsers and the LSDA reader (elf/ehframe.c) over a buffer, no ELF file
 * around it. Input: a flags byte (bit 0: ELFCLASS64, bit 1: big-endian),
 * the section's VM address (8 bytes, little-endian), then the section
 * bytes, parsed as .eh_frame, as .eh_frame_hdr, as an LSDA (GCC's and
 * ARM EHABI's) and as a descriptor list of ARM's compact models (pr0-pr2,
 * without relocations and with the address's low byte a relocated
 * word's offset). Every FDE handed out must lie inside the buffer, as
 * ehframe.h promises, and an LSDA's or a list's length too: one that
 * does not aborts. */
#include "config.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/armexidx.h"
#include "elf/ehframe.h"
#include "elf/lsdatab.h"

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
	/* the same bytes as an LSDA, both ways */
	for (int ehabi = 0; ehabi < 2; ehabi++) {
		struct elf_lsda_scratch sc = {0};
		uint64_t l = elf_lsda_len(buf, 0, len, cls, be, ehabi, &sc);

		if (l > len)
			abort();
		elf_lsda_scratch_free(&sc);
	}
	for (unsigned idx = 0; idx < 3; idx++) {
		uint64_t rel = addr & 0xfc;

		if (elf_armdesc_len(buf, 0, len, idx, be, NULL, 0) > len ||
		    elf_armdesc_len(buf, 0, len, idx, be, &rel, 1) > len)
			abort();
	}
	return 0;
}
