/* fuzz_datafile.c — libFuzzer target: a memsz.data file made of the fuzz
 * bytes through `memsz dump -v` and `memsz report` by every key (odd
 * sizes: pids, mappings, files, segments, sections, symbols, bbs and kinds
 * nested, with one of the --snapshot picks; even sizes: callers,
 * faultsite, relocs, compileunits and inlines in one of the formats).
 *
 * The checksums are recomputed first (md_checksum_fix), so that mutations
 * reach the checks and the code behind them instead of stopping at the
 * first checksum. Image lookups never reach the machine's files: the
 * target is linked with --wrap=imgmaps_open and every image the recording
 * names is opened as $MEMSZ_FUZZ_IMAGE (a small ELF the seed recordings
 * were made of, so its build-id matches and attribution runs through ELF
 * maps), or as a path that does not exist when that is unset. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "data/datafile.h"
#include "elf/imagemaps.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __real_imgmaps_open(struct imgmaps *im, const char *path,
			struct labels *lb);
int __wrap_imgmaps_open(struct imgmaps *im, const char *path,
			struct labels *lb);

int __wrap_imgmaps_open(struct imgmaps *im, const char *path,
			struct labels *lb)
{
	static const char *image;

	(void)path;
	if (!image) {
		image = getenv("MEMSZ_FUZZ_IMAGE");
		if (!image || !image[0])
			image = "/nonexistent-memsz-fuzz/image";
	}
	return __real_imgmaps_open(im, image, lb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const picks[] = { "last", "first", "peak", "1" };
	static const char *const formats[] = { "table", "csv", "json",
					       "folded" };
	uint8_t *copy = malloc(size ? size : 1);
	const char *path;

	memcpy(copy, data, size);
	md_checksum_fix(copy, size);
	path = fuzz_file(copy, size);
	free(copy);
	{
		char *dump[] = { "dump", "-v", "-i", (char *)path, NULL };
		char *inner[] = { "report", "-i", (char *)path, "--debug-root",
				  "/nonexistent-memsz-fuzz", "--by",
				  "pids,mappings,files,segments,sections,"
				  "symbols,bbs,kinds",
				  "-n", "3", "--snapshot",
				  (char *)picks[size / 2 % 4], NULL };
		char *outer[] = { "report", "-i", (char *)path, "--debug-root",
				  "/nonexistent-memsz-fuzz", "--by",
				  "callers,faultsite,relocs,compileunits,"
				  "inlines",
				  "--format", (char *)formats[size / 2 % 4],
				  NULL };

		int r1, r2;

		/* one report per input (the keys by the input's size): twice
		 * the runs per second of both, and mutations that add or drop
		 * a byte try the other keys */
		fuzz_quiet_begin();
		r1 = cmd_dump(4, dump);
		r2 = size % 2 ? cmd_report(11, inner) : cmd_report(9, outer);
		fuzz_quiet_end();
		/* a usage error: the harness no longer matches the commands */
		if (r1 == EXIT_USAGE || r2 == EXIT_USAGE)
			abort();
	}
	return 0;
}
