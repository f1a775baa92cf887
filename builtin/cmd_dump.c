/* cmd_dump.c — `memsz dump`: every record of a memsz.data file, one line
 * each, like `perf script -D`, as each record type's row in data/ prints
 * it. A damaged file prints every complete record before the damage, then
 * one error line. */
#include "config.h"

#include "builtin/builtin.h"
#include "data/datafile.h"
#include "util/util.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

static const struct option dump_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void usage_dump(FILE *out)
{
	fprintf(out,
		"usage: memsz dump [-v] [-i FILE]\n\n"
		"Print every record of a memsz.data file, one per line.\n\n"
		"    -i, --input FILE   file to read (default memsz.data)\n"
		"    -v, --verbose      also print every page run of a "
		"snapshot,\n"
		"                       every JIT symbol and each note's "
		"kind\n");
}

int cmd_dump(int argc, char **argv)
{
	const char *input = "memsz.data";
	const struct md_file_header *h;
	struct md_reader *r;
	struct md_record rec;
	bool verbose = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:v", dump_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage_dump(stdout);
			return 0;
		default:
			usage_dump(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage_dump(stderr);
		return EXIT_USAGE;
	}
	ret = md_reader_open(input, &r);
	if (ret < 0) {
		if (ret == -MEMSZ_EBADMAGIC || ret == -MEMSZ_EVERSION ||
		    ret == -MEMSZ_ETRUNC || ret == -MEMSZ_EBADDATA)
			memsz_error("'%s': %s at offset 0", input,
				    memsz_strerror(ret));
		else
			memsz_error("cannot open '%s': %s", input,
				    memsz_strerror(ret));
		return 1;
	}
	h = md_reader_header(r);
	printf("# memsz.data version %u, header %u bytes, page size %u, "
	       "started %" PRIu64 ".%09" PRIu64 " (monotonic %" PRIu64
	       ".%09" PRIu64 ")\n",
	       h->version, h->header_size, h->page_size,
	       h->start_realtime_ns / NSEC_PER_SEC,
	       h->start_realtime_ns % NSEC_PER_SEC,
	       h->start_mono_ns / NSEC_PER_SEC,
	       h->start_mono_ns % NSEC_PER_SEC);
	while ((ret = md_read_next(r, &rec)) == 1)
		md_record_print(stdout, &rec, verbose, h->page_size);
	fflush(stdout);
	if (ret < 0)
		memsz_error("'%s': %s at offset %" PRIu64 " (%s)", input,
			    memsz_strerror(ret), md_reader_offset(r),
			    md_reader_why(r));
	else if (md_reader_cut_short(r))
		printf("# cut short at offset %" PRIu64 ": no END record (the "
		       "recording was killed or its disk was full)\n",
		       md_reader_offset(r));
	md_reader_close(r);
	if (ferror(stdout)) {
		memsz_error("cannot write the output");
		return 1;
	}
	return ret < 0 ? 1 : 0;
}
