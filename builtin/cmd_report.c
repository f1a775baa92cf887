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
#include "builtin/view.h"
#include "report/report.h"
#include "out/rows.h"
#include "util/util.h"

void usage_report(FILE *out)
{
	fprintf(out,
		"usage: memsz report [-i FILE] [--by KEY[,KEY...]] [--sort COL]"
		" [-n N]\n"
		"                    [--filter REGEX] [--pid PID]\n"
		"                    [--snapshot first|last|peak|N |"
		" --timeline[=COL[,COL...]]]\n"
		"                    [--format table|csv|tsv|json|folded|pprof|html]\n"
		"       memsz report --list-keys\n"
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
		"    --list-keys        print every key with what it labels\n"
		"    --sort COL         file, vm, rss (default), pss, uss,\n"
		"                       dirty, swap, relocs, procs (the\n"
		"                       processes in a row: shown when the\n"
		"                       report covers more than one)\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20, with\n"
		"                       --timeline 10; 0: all)\n"
		"    --filter REGEX     keep rows with a label matching REGEX\n"
		"                       (POSIX extended) at any level\n"
		"    --pid PID          only this process\n"
		"    --snapshot WHICH   per process: first, last (default),\n"
		"                       peak\n"
		"                       (highest RSS) or N (the Nth, from 0)\n"
		"    --timeline[=COLS]  the top -n rows at every snapshot: the\n"
		"                       Nth snapshot of each process summed\n"
		"                       (as --snapshot N), at the time of the\n"
		"                       earliest of them; COLS: rss, pss, uss,\n"
		"                       dirty, swap... (default the --sort\n"
		"                       column); table, csv, tsv or json\n"
		"    --format FMT       table (default), csv, tsv, json,\n"
		"                       folded (flame-graph stacks: the key\n"
		"                       path joined by ';' and the --sort\n"
		"                       column in bytes, all rows), pprof\n"
		"                       (gzipped profile.proto for 'go tool\n"
		"                       pprof', all rows; redirect it) or\n"
		"                       html (one offline page: treemap,\n"
		"                       column switch, search, flame graph\n"
		"                       for callers, RSS timeline)\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n",
		keys_list(KEY_IN_REPORT));
}

static const struct option report_options[] = {
	VIEW_LONG_OPTIONS,
	{ "input", required_argument, NULL, 'i' },
	{ "filter", required_argument, NULL, 'F' },
	{ "pid", required_argument, NULL, 'p' },
	{ "snapshot", required_argument, NULL, 'S' },
	{ "timeline", optional_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --filter REGEX into *re (compiled once; a later --filter replaces it). */
static int parse_filter(const char *arg, regex_t *re, bool *have_re)
{
	char ebuf[128];
	int err;

	if (*have_re)
		regfree(re);
	*have_re = false;
	err = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, re, ebuf, sizeof(ebuf));
		memsz_error("bad --filter '%s': %s", arg, ebuf);
		return -1;
	}
	*have_re = true;
	return 0;
}

/* --timeline[=COLS] and --snapshot, which exclude each other. */
struct report_when {
	bool timeline, snapshot;
	const char *cols;         /* --timeline=COLS */
};

/* One option of report's own (not a view option) into o. Returns -1 to
 * go on, or the exit status. */
static int report_option(int c, const char *arg, struct report_opts *o,
			 regex_t *re, bool *have_re, struct report_when *w)
{
	uint64_t u;

	switch (c) {
	case 'T':
		w->timeline = true;
		w->cols = arg;
		return -1;
	case 'i':
		o->input = arg;
		return -1;
	case 'F':
		if (parse_filter(arg, re, have_re) < 0)
			return EXIT_USAGE;
		o->filter = re;
		return -1;
	case 'p':
		if (parse_u64(arg, &u) < 0 || u > INT32_MAX) {
			memsz_error("--pid wants a process id, not '%s'", arg);
			return EXIT_USAGE;
		}
		o->pid = (long)u;
		return -1;
	case 'S':
		if (report_pick_parse(arg, &o->pick, &o->index) < 0) {
			memsz_error("--snapshot wants first, last, peak or a "
				    "number, not '%s'", arg);
			return EXIT_USAGE;
		}
		w->snapshot = true;
		return -1;
	case 'h':
		usage_report(stdout);
		return 0;
	default:
		usage_report(stderr);
		return EXIT_USAGE;
	}
}

/* Parse argv into v and o. Returns -1 to go on, or the exit status. */
static int report_parse(int argc, char **argv, struct view *v,
			struct report_opts *o, regex_t *re, bool *have_re,
			struct report_when *w)
{
	int c, ret;

	optind = 1;
	while ((c = view_getopt(argc, argv, "i:n:", report_options, v)) !=
	       -1) {
		if (c == VIEW_GETOPT_USAGE)
			return EXIT_USAGE;
		ret = report_option(c, optarg, o, re, have_re, w);
		if (ret >= 0)
			return ret;
	}
	if (v->list_keys) {
		keys_print(stdout, v->cmd);
		return 0;
	}
	if (optind < argc) {
		usage_report(stderr);
		return EXIT_USAGE;
	}
	if (w->timeline && (w->snapshot || v->fmt == OUT_FOLDED)) {
		memsz_error("--timeline shows every snapshot: no --snapshot, "
			    "and formats table, csv, tsv or json");
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {
		.input = "memsz.data",
		.pid = -1,
		.pick = PICK_LAST,
	};
	struct view v = {
		.cmd = KEY_IN_REPORT,
		.keys = { KEY_FILES },
		.nkeys = 1,
		.sort = COL_RSS,
		.sortable = (1u << COL__COUNT) - 1,
		.limit = UINT64_MAX, /* 20, or 10 with --timeline */
		.fmt = OUT_TABLE,
	};
	enum col_id cols[COL__COUNT];
	struct report_result res = { 0 };
	struct labels *lb = NULL;
	struct report_when when = { 0 };
	regex_t re;
	bool have_re = false, with_relocs = false;
	size_t ncols = 0;
	char *msg = NULL, *title = NULL;
	int ret;

	ret = report_parse(argc, argv, &v, &o, &re, &have_re, &when);
	if (ret >= 0)
		goto out;
	ret = 1;
	memcpy(o.keys, v.keys, sizeof(o.keys));
	o.nkeys = v.nkeys;
	o.debug_root = v.debug_root;
	if (v.limit == UINT64_MAX)
		v.limit = when.timeline ? 10 : 20;
	if (when.timeline) {
		ret = report_timeline(&v, &o, when.cols);
		goto out;
	}
	for (size_t k = 0; k < v.nkeys; k++)
		with_relocs |= v.keys[k] == KEY_RELOCS;

	lb = labels_new();
	if (report_build(&o, lb, &res, &msg) < 0) {
		out_error(v.fmt, msg);
		goto out;
	}
	if (v.sort == COL_PSS && !res.have_pss)
		v.sort = COL_RSS;
	if (v.fmt == OUT_FOLDED || v.fmt == OUT_PPROF)
		v.limit = 0; /* every stack, nothing folded into [N others] */
	rowtree_finish(res.t, v.sort, v.limit);
	if (v.fmt == OUT_FOLDED)
		cols[ncols++] = v.sort; /* folded prints one value */
	for (int i = 0; i < COL__COUNT && v.fmt != OUT_FOLDED; i++)
		if ((i != COL_PSS || res.have_pss) &&
		    (i != COL_RELOCS || with_relocs) &&
		    (i != COL_PROCS || res.nprocs > 1))
			cols[ncols++] = i;
	v.images = res.images;
	v.nimages = res.nimages;
	v.snaps = res.snaps;
	v.nsnaps = res.nsnaps;
	title = xasprintf("memsz report of %s", o.input);
	v.title = title;
	ret = view_write(&v, res.t, cols, ncols, v.fmt != OUT_PPROF,
			 &res.notes);
out:
	free(title);
	free(msg);
	report_result_free(&res);
	labels_free(lb);
	if (have_re)
		regfree(&re);
	return ret;
}
