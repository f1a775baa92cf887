// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_elfsym.c — libFuzzer target: the symbol readers of an ELF image
 * made of the fuzz bytes: the symbols source (.symtab or .dynsym,
 * demangling, aliases, and the metadata it charges to symbols: .eh_frame
 * FDEs, .eh_frame_hdr entries, dynamic relocations, symbol and version
 * entries, padding) and the basic-block address map reader
 * (bbaddrmap_read). No debug file is looked for. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "elf/bbaddrmap.h"
#include "elf/elfimg.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfimg *img = fuzz_elf_open(data, size);
	struct bbaddrmap bb = {0};

	if (!img)
		return 0;
	fuzz_elf_map(img, ELFSRC_SYMBOLS);
	bbaddrmap_read(img, &bb);
	bbaddrmap_free(&bb);
	elfimg_close(img);
	return 0;
}
