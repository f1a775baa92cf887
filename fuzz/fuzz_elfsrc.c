/* fuzz_elfsrc.c — libFuzzer target: one source map of an ELF image over
 * the fuzz bytes as a file: FUZZ_SRC (ELFSRC_SYMBOLS for fuzz_symbols, the
 * symbol tables; ELFSRC_COMPILEUNITS for fuzz_dwarf, libdw's DWARF and
 * memsz's line reader) built with imgmaps_open and imgmaps_source, debug
 * files looked for under a root that does not exist. No report, no
 * printing. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "elf/imagemaps.h"
#include "fuzz/fuzzutil.h"
#include "maps/labels.h"
#include "util/strlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct elf_map_opts opts = { .debug_root = "/nonexistent" };
	struct labels *lb = labels_new();
	struct strlist notes = { 0 };
	struct imgmaps im = { 0 };
	struct dualmap *out;

	if (imgmaps_open(&im, fuzz_file(data, size), lb) == 0) {
		(void)imgmaps_source(&im, FUZZ_SRC, lb, &opts, &notes, &out);
		imgmaps_close(&im);
	}
	strlist_free(&notes);
	labels_free(lb);
	return 0;
}
