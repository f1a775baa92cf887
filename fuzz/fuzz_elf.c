/* fuzz_elf.c — libFuzzer target: `memsz size` over an ELF image made of
 * the fuzz bytes, by every key (all nested, and symbols alone in json).
 * Debug files are looked for under a root that does not exist, so nothing
 * of the machine is read. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "builtin/builtin.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	char *all[] = { "size", "-d", "/nonexistent-memsz-fuzz",
			"--by", "files,segments,sections,symbols,bbs,relocs,"
				"compileunits,inlines",
			(char *)path, NULL };
	char *syms[] = { "size", "-d", "/nonexistent-memsz-fuzz", "--by",
			 "symbols", "-n", "5", "--format", "json",
			 (char *)path, NULL };

	fuzz_quiet_begin();
	cmd_size(6, all);
	cmd_size(10, syms);
	fuzz_quiet_end();
	return 0;
}
