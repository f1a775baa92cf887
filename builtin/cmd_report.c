/* cmd_report.c — `memsz report`: recorded resident memory, attributed to
 * files, segments, sections, symbols. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "out/output.h"
#include "report/report.h"
#include "out/rows.h"
#include "util/util.h"

void usage_report(FILE *out)
{
	fprintf(out,
		"usage: memsz report [-i FILE] [--by KEY[,KEY...]] [--sort COL]"
		" [-n N]\n"
		"                    [--filter REGEX] [--pid PID]\n"
		"                    [--snapshot first|last|peak|N]\n"
		"                    [--format table|csv|tsv|json|folded]\n"
		"\n"
		"Attribute the resident memory recorded by 'memsz record'\n"
		"to files, segments, sections and symbols of the mapped\n"
		"images, and anonymous memory to its kind, beside the\n"
		"images' size on disk; with fault samples ('memsz record\n"
		"--faults'), to the call stack that made each page resident\n"
		"(keys callers and faultsite). Columns: FILE SIZE, VM SIZE, RSS,\n"
		"PSS, USS, DIRTY (private dirty), SWAP and RES%% (RSS / VM SIZE);\n"
		"with --by relocs also RELOCS (relocation targets on private\n"
		"dirty pages).\n"
		"\n"
		"    -i, --input FILE   recording to read (default memsz.data)\n"
		"    --by KEY[,KEY...]  keys, outermost first (default files):\n"
		"                       %s\n"
		"    --sort COL         file, vm, rss (default), pss, uss,\n"
		"                       dirty, swap, relocs\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20; 0: all)\n"
		"    --filter REGEX     keep rows with a label matching REGEX\n"
		"                       (POSIX extended) at any level\n"
		"    --pid PID          only this process\n"
		"    --snapshot WHICH   per process: first, last (default),\n"
		"                       peak\n"
		"                       (highest RSS) or N (the Nth, from 0)\n"
		"    --format FMT       table (default), csv, tsv, json or\n"
		"                       folded (flame-graph stacks: the key\n"
		"                       path joined by ';' and the --sort\n"
		"                       column in bytes, all rows)\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n"
		"\nWith DEBUGINFOD_URLS set, debug files missing locally are\n"
		"fetched from those debuginfod servers (libdebuginfod's cache).\n",
		report_key_list());
}

static const struct option report_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "by", required_argument, NULL, 'b' },
	{ "sort", required_argument, NULL, 's' },
	{ "filter", required_argument, NULL, 'F' },
	{ "pid", required_argument, NULL, 'p' },
	{ "snapshot", required_argument, NULL, 'S' },
	{ "format", required_argument, NULL, 'f' },
	{ "debug-root", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {
		.input = "memsz.data",
		.keys = { RKEY_FILES },
		.nkeys = 1,
		.pid = -1,
		.pick = PICK_LAST,
	};
	const char *keynames[REPORT_MAX_KEYS];
	enum col_id cols[COL__COUNT];
	enum col_id sort = COL_RSS;
	struct out_opts oo = { .fmt = OUT_TABLE };
	struct report_result res = { 0 };
	struct labels *lb = NULL;
	regex_t re;
	bool have_re = false, with_relocs = false;
	uint64_t limit = 20, u;
	size_t ncols = 0;
	int c, n, ret = 1;
	char *bad, *msg = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:n:", report_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'b':
			n = report_keys_parse(optarg, o.keys, &bad);
			if (n < 0) {
				memsz_error("unknown or repeated key '%s' "
					    "(keys: %s)", bad,
					    report_key_list());
				free(bad);
				ret = EXIT_USAGE;
				goto out;
			}
			o.nkeys = n;
			with_relocs = false;
			for (int k = 0; k < n; k++)
				if (o.keys[k] == RKEY_RELOCS)
					with_relocs = true;
			break;
		case 'n':
			if (parse_u64(optarg, &limit) < 0) {
				memsz_error("-n wants a number, not '%s'",
					    optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 's':
			n = col_from_name(optarg);
			if (n < 0) {
				memsz_error("cannot sort by '%s' (columns: "
					    "file, vm, rss, pss, uss, dirty, "
					    "swap, relocs)", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			sort = n;
			break;
		case 'F':
			if (have_re)
				regfree(&re);
			have_re = false;
			n = regcomp(&re, optarg, REG_EXTENDED | REG_NOSUB);
			if (n) {
				char ebuf[128];

				regerror(n, &re, ebuf, sizeof(ebuf));
				memsz_error("bad --filter '%s': %s", optarg,
					    ebuf);
				ret = EXIT_USAGE;
				goto out;
			}
			have_re = true;
			o.filter = &re;
			break;
		case 'p':
			if (parse_u64(optarg, &u) < 0 || u > INT32_MAX) {
				memsz_error("--pid wants a process id, not "
					    "'%s'", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			o.pid = (long)u;
			break;
		case 'S':
			if (report_pick_parse(optarg, &o.pick, &o.index) < 0) {
				memsz_error("--snapshot wants first, last, "
					    "peak or a number, not '%s'",
					    optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'f':
			if (out_format_parse(optarg, &oo.fmt) < 0) {
				memsz_error("unknown format '%s' (formats: "
					    "table, csv, tsv, json, folded)",
					    optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'd':
			o.debug_root = optarg;
			break;
		case 'h':
			usage_report(stdout);
			ret = 0;
			goto out;
		default:
			usage_report(stderr);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		usage_report(stderr);
		ret = EXIT_USAGE;
		goto out;
	}

	lb = labels_new();
	if (report_build(&o, lb, &res, &msg) < 0) {
		out_error(oo.fmt, msg);
		goto out;
	}
	if (sort == COL_PSS && !res.have_pss)
		sort = COL_RSS;
	if (oo.fmt == OUT_FOLDED)
		limit = 0; /* every stack, nothing folded into [N others] */
	rowtree_finish(res.t, sort, limit);
	if (oo.fmt == OUT_FOLDED)
		cols[ncols++] = sort; /* folded prints one value */
	for (int i = 0; i < COL__COUNT && oo.fmt != OUT_FOLDED; i++)
		if ((i != COL_PSS || res.have_pss) &&
		    (i != COL_RELOCS || with_relocs))
			cols[ncols++] = i;
	for (size_t i = 0; i < o.nkeys; i++)
		keynames[i] = report_key_name(o.keys[i]);
	oo.keys = keynames;
	oo.cols = cols;
	oo.ncols = ncols;
	oo.res_pct = true;
	for (size_t i = 0; i < o.nkeys; i++)
		oo.aliases |= o.keys[i] == RKEY_SYMBOLS;
	oo.notes = (const char *const *)res.notes.lines;
	oo.nnotes = res.notes.n;
	if (out_write(stdout, res.t, &oo) < 0 || fflush(stdout) == EOF) {
		memsz_error("cannot write the report: %s",
			    memsz_strerror(-errno));
		goto out;
	}
	if (oo.fmt == OUT_CSV || oo.fmt == OUT_TSV || oo.fmt == OUT_FOLDED)
		for (size_t i = 0; i < res.notes.n; i++)
			fprintf(stderr, "memsz: note: %s\n",
				res.notes.lines[i]);
	ret = 0;
out:
	free(msg);
	report_result_free(&res);
	labels_free(lb);
	if (have_re)
		regfree(&re);
	return ret;
}
