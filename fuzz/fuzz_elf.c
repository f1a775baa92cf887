/* fuzz_elf.c — libFuzzer target: `memsz size` over an ELF image made of
 * the fuzz bytes, by every key nested, in table, json or csv (by the
 * input's size).
 * Debug files are looked for under a root that does not exist, so nothing
 * of the machine is read. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "builtin/builtin.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const formats[] = { "table", "json", "csv" };
	const char *path = fuzz_file(data, size);
	char *argv[] = { "size", "--debug-root", "/nonexistent-memsz-fuzz",
			 "--by", "files,segments,sections,symbols,bbs,relocs,"
				 "compileunits,inlines",
			 "-n", "5", "--format", formats[size % 3],
			 (char *)path, NULL };
	int ret;

	fuzz_quiet_begin();
	ret = cmd_size(10, argv);
	fuzz_quiet_end();
	/* a usage error means the harness no longer matches the command */
	if (ret == EXIT_USAGE)
		abort();
	return 0;
}
