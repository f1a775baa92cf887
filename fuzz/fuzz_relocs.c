// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_relocs.c — libFuzzer target: the dynamic relocation reader
 * (elf_relocs_read: REL, RELA and RELR tables, both classes and byte
 * orders) of an ELF image made of the fuzz bytes, the RELR size estimate
 * of what it read, and the labels of the relocs source (elfsrc_relocs,
 * called directly: no fallbacks). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "elf/elfimg.h"
#include "elf/relocs.h"
#include "elf/relocsrc.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfimg *img = fuzz_elf_open(data, size);
	struct elfsrc_stats st = {0};
	struct elf_reloc *rels;
	struct fuzz_maps m;
	size_t n;

	if (!img)
		return 0;
	elf_relocs_read(img, &rels, &n);
	elf_relocs_relr_size(rels, n, img->elfclass);
	for (size_t i = 0; i < n; i++)
		elf_reloc_type_name(img->machine, rels[i].type);
	free(rels);
	fuzz_maps_begin(img, &m);
	elfsrc_relocs(img, m.lb, &m.base, &m.out, &st);
	fuzz_maps_end(&m);
	elfimg_close(img);
	return 0;
}
