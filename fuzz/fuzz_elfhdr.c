// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_elfhdr.c — libFuzzer target: the ELF header reader. The fuzz bytes
 * are opened as an image (elfimg_open: ELF header, extended numbering,
 * program and section header tables, section names, build-id notes,
 * .gnu_debuglink) and, when accepted, mapped by segments and sections
 * (elfimg_base_map and the two header sources), which check every
 * header against the file. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "elf/elfimg.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfimg *img = fuzz_elf_open(data, size);
	size_t len;

	if (!img)
		return 0;
	elfimg_raw(img, &len);
	fuzz_elf_map(img, ELFSRC_SEGMENTS);
	fuzz_elf_map(img, ELFSRC_SECTIONS);
	elfimg_close(img);
	return 0;
}
