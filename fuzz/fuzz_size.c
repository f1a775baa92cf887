// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_size.c — libFuzzer target, end to end and slow (built by `make
 * fuzz`, not run by `make fuzz-check`, for long runs beside the reader
 * targets): `memsz size` over an ELF image made of
 * the fuzz bytes, by every key nested, in table, json, csv, pprof or html
 * and with one of three --fields lists (by the input's size), keeping
 * only symbols that do not start with an underscore.
 * Debug files are looked for under a root that does not exist, so nothing
 * of the machine is read. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "builtin/builtin.h"
#include "fuzz/fuzzutil.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const formats[] = {"table", "json", "csv", "pprof",
					"html"};
	static char *const fields[] = {"file,vm", "vm", "file"};
	const char *path = fuzz_file(data, size);
	char *argv[] = {"size",
			"--debug-root",
			"/nonexistent-memsz-fuzz",
			"--by",
			"files,segments,sections,symbols,bbs,relocs,"
			"compileunits,inlines",
			"-n",
			"5",
			"--format",
			formats[size % 5],
			"--fields",
			fields[size / 5 % 3],
			"--exclude",
			"symbols=^_",
			(char *)path,
			NULL};
	int ret;

	fuzz_quiet_begin();
	ret = cmd_size(ARRAY_SIZE(argv) - 1, argv);
	fuzz_quiet_end();
	/* a usage error means the harness no longer matches the command */
	if (ret == EXIT_USAGE)
		abort();
	return 0;
}
