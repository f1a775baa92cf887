// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_report.c — libFuzzer target, end to end and slow (a few hundred
 * runs a second; built by `make fuzz`, not run by `make fuzz-check`, for
 * long runs beside the reader targets): a memsz.data file made of the fuzz
 * bytes through `memsz dump -v` and one `memsz report` by every key, which
 * one by the input's size: sizes 0 mod 3 nest pids, mappings, files,
 * segments, sections, symbols, bbs and kinds with one of the --snapshot
 * picks, --fields and a --filter; 1 mod 3 name callers, faultsite,
 * relocs, compileunits and inlines in one of the formats (pprof and html
 * included); 2 mod 3 are a --timeline by files and sections with an
 * --exclude.
 *
 * The checksums are recomputed first (md_checksum_fix), so that mutations
 * reach the checks and the code behind them (the version 2 page-state
 * decoder among them: with record checksums it is not stopped by its own
 * CRC) instead of stopping at the first checksum. Image lookups never
 * reach the machine's files: the target is linked with
 * --wrap=imgmaps_open and every image the recording names is opened as
 * $MEMSZ_FUZZ_IMAGE (a small ELF the seed recordings were made of, so its
 * build-id matches and attribution runs through ELF maps), or as a path
 * that does not exist when that is unset. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "data/datafile.h"
#include "elf/imagemaps.h"
#include "fuzz/fuzzutil.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __real_imgmaps_open(struct imgmaps *im, const char *path,
			struct labels *lb);
int __wrap_imgmaps_open(struct imgmaps *im, const char *path,
			struct labels *lb);

int __wrap_imgmaps_open(struct imgmaps *im, const char *path, struct labels *lb)
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

/* dump and one report of the file at path, made of size bytes. Returns
 * EXIT_USAGE if either command refused its options. */
static int run(const char *file, size_t size)
{
	static const char *const picks[] = {"last", "first", "peak", "1"};
	static const char *const formats[] = {"table",	"csv",	 "tsv", "json",
					      "folded", "pprof", "html"};
	static const char *const fields[] = {"rss,pss,uss", "dirty,swap",
					     "vm,rss,res"};
	char *path = (char *)file;
	char *dump[] = {"dump", "-v", "-i", path, NULL};
	char *nested[] = {"report",
			  "-i",
			  path,
			  "--debug-root",
			  "/nonexistent-memsz-fuzz",
			  "--by",
			  "pids,mappings,files,segments,sections,symbols,bbs,"
			  "kinds",
			  "-n",
			  "3",
			  "--snapshot",
			  (char *)picks[size / 3 % 4],
			  "--fields",
			  (char *)fields[size / 3 % 3],
			  "--filter",
			  "files=^/|anon",
			  NULL};
	char *faults[] = {"report",
			  "-i",
			  path,
			  "--debug-root",
			  "/nonexistent-memsz-fuzz",
			  "--by",
			  "callers,faultsite,relocs,compileunits,inlines",
			  "--format",
			  (char *)formats[size / 3 % 7],
			  NULL};
	char *timeline[] = {"report",
			    "-i",
			    path,
			    "--debug-root",
			    "/nonexistent-memsz-fuzz",
			    "--by",
			    "files,sections",
			    "--timeline=rss,pss",
			    "--exclude",
			    "sections=^\\.debug",
			    "--format",
			    (char *)formats[size / 3 % 4],
			    NULL};
	int r1, r2;

	/* one report per input (the keys by the input's size): more runs
	 * per second, and mutations that add or drop a byte try the others */
	fuzz_quiet_begin();
	r1 = cmd_dump(4, dump);
	switch (size % 3) {
	case 0:
		r2 = cmd_report(ARRAY_SIZE(nested) - 1, nested);
		break;
	case 1:
		r2 = cmd_report(ARRAY_SIZE(faults) - 1, faults);
		break;
	default:
		r2 = cmd_report(ARRAY_SIZE(timeline) - 1, timeline);
		break;
	}
	fuzz_quiet_end();
	return r1 == EXIT_USAGE ? r1 : r2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	const char *path;

	memcpy(copy, data, size);
	md_checksum_fix(copy, size);
	path = fuzz_file(copy, size);
	free(copy);
	/* a usage error: the harness no longer matches the commands */
	if (run(path, size) == EXIT_USAGE)
		abort();
	return 0;
}
