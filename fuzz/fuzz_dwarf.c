// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dwarf.c — libFuzzer target: the DWARF reader (elf/dwarf.c over
 * libdw) of an ELF image made of the fuzz bytes, called directly
 * (elf_dwarf_source: no fallbacks, no symbols): compile units (names,
 * ranges, aranges, variables, .debug_info and .debug_line bytes) for
 * inputs of even size, inlines (line tables) for odd ones. No debug file
 * is looked for. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "elf/dwarf.h"
#include "elf/elfimg.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfimg *img = fuzz_elf_open(data, size);
	struct elfsrc_stats st = {0};
	struct fuzz_maps m;

	if (!img)
		return 0;
	fuzz_maps_begin(img, &m);
	elf_dwarf_source(img, size & 1 ? ELFSRC_INLINES : ELFSRC_COMPILEUNITS,
			 m.lb, &m.base, &m.out, &st);
	fuzz_maps_end(&m);
	elfimg_close(img);
	return 0;
}
