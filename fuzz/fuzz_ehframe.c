/* fuzz_ehframe.c — libFuzzer target: the .eh_frame and .eh_frame_hdr
 * parsers over the fuzz bytes as a section, in memory. The first byte
 * chooses the class (bit 0: 32-bit), the byte order (bit 1: big-endian)
 * and the parser (bit 2: .eh_frame_hdr). */
#include "config.h"

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "elf/ehframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int cls;
	bool be;

	if (!size)
		return 0;
	cls = data[0] & 1 ? ELFCLASS32 : ELFCLASS64;
	be = data[0] & 2;
	if (data[0] & 4) {
		struct elf_ehhdr_entry *e = NULL;
		size_t n = 0;
		uint64_t count;

		(void)elf_ehframe_hdr_parse(data + 1, size - 1, 0x400000, cls,
					    be, &e, &n, &count);
		free(e);
	} else {
		struct elf_fde *f = NULL;
		size_t n = 0, ncies;

		(void)elf_ehframe_parse(data + 1, size - 1, 0x400000, cls, be,
					&f, &n, &ncies);
		free(f);
	}
	return 0;
}
