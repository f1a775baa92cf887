/* fuzz_elfhdr.c — libFuzzer target: elfimg_open alone (the ELF header,
 * program and section header tables, build-id, debuglink) over the fuzz
 * bytes as a file, then, when FUZZ_RELOCS is defined (fuzz_relocs), the
 * relocation reader. No debug-file lookup, no report. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "elf/elfimg.h"
#include "elf/relocs.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfimg *img;

	if (elfimg_open(fuzz_file(data, size), &img) < 0)
		return 0;
#ifdef FUZZ_RELOCS
	{
		struct elf_reloc *r = NULL;
		size_t n = 0;

		(void)elf_relocs_read(img, &r, &n);
		free(r);
	}
#endif
	elfimg_close(img);
	return 0;
}
