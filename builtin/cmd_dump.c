// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_dump.c — `memsz dump`: every record of a memsz.data file, one line
 * each, like `perf script -D`, as each record type's row in data/ prints
 * it. A damaged file prints every complete record before the damage, then
 * one error line. */
#include "config.h"

#include "builtin/builtin.h"
#include "builtin/options.h"
#include "data/datafile.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

static const struct opt dump_opts[] = {
    {'i', "input", OPT_ARG, "FILE", 'i', "file to read (default memsz.data)",
     NULL},
    {'v', "verbose", OPT_NOARG, NULL, 'v',
     "also print every page run of a snapshot,\n"
     "every JIT symbol and each note's kind",
     NULL},
    OPT_END,
};

const struct opts_cmd dump_cmd = {
    .name = "dump",
    .synopsis = "usage: memsz dump [-v] [-i FILE]\n",
    .about = "Print every record of a memsz.data file, one per line.\n",
    .opts = dump_opts,
    .col = 23,
};

void usage_dump(FILE *out)
{
	opts_usage(&dump_cmd, out);
}

/* The options: -i and -v. */
struct dump_args {
	const char *input;
	bool verbose;
};

static int dump_option(int id, const char *arg, void *ctx)
{
	struct dump_args *a = ctx;

	if (id == 'i')
		a->input = arg;
	else
		a->verbose = true;
	return -1;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_args a = {.input = "memsz.data"};
	const struct md_file_header *h;
	struct md_reader *r;
	struct md_record rec;
	const char *input;
	bool verbose;
	int ret, werr;

	ret = opts_parse(&dump_cmd, argc, argv, dump_option, NULL, &a);
	if (ret >= 0)
		return ret;
	if (optind != argc) {
		memsz_error("unexpected argument '%s'; see 'memsz help dump'",
			    argv[optind]);
		return EXIT_USAGE;
	}
	input = a.input;
	verbose = a.verbose;
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
	/* one error line: stdout's when the output was lost, else the
	 * recording's when it is damaged */
	werr = 0;
	while ((ret = md_read_next(r, &rec)) == 1) {
		md_record_print(stdout, &rec, verbose, h->page_size);
		/* the reason is errno just after the write that failed:
		 * by the final fflush() stdio may have nothing left to
		 * write, and errno may be another call's */
		if (ferror(stdout)) {
			werr = errno;
			break;
		}
	}
	if (ret >= 0 && !werr && md_reader_cut_short(r))
		printf("# cut short at offset %" PRIu64 ": no END record (the "
		       "recording was killed or its disk was full)\n",
		       md_reader_offset(r));
	if (fflush(stdout) && !werr)
		werr = errno;
	if (ferror(stdout))
		memsz_error("cannot write the output%s%s", werr ? ": " : "",
			    werr ? memsz_strerror(-werr) : "");
	else if (ret < 0)
		memsz_error("'%s': %s at offset %" PRIu64 " (%s)", input,
			    memsz_strerror(ret), md_reader_offset(r),
			    md_reader_why(r));
	md_reader_close(r);
	return ferror(stdout) || ret < 0 ? 1 : 0;
}
