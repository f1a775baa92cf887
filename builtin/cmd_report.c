/* cmd_report.c — `memsz report`: recorded resident memory, attributed to
 * files, segments, sections, symbols. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "report/report.h"
#include "out/rows.h"
#include "util/util.h"

void usage_report(FILE *out)
{
	fprintf(out,
		"usage: memsz report [-i FILE] [--by KEY[,KEY...]]"
		" [-F|--fields COL[,COL...]]\n"
		"                    [--sort COL] [-n N]"
		" [--filter [KEY=]REGEX]...\n"
		"                    [--exclude [KEY=]REGEX]... [--pid PID]"
		" [--skip-frames REGEX]\n"
		"                    [--snapshot first|last|peak|N |"
		" --timeline[=COL[,COL...]]]\n"
		"                    [--width N] [-v] [--disasm]"
		" [--format table|csv|tsv|json|folded|pprof|html]\n"
		"       memsz report --list-keys\n"
		"\n"
		"Attribute the resident memory recorded by 'memsz record'\n"
		"to files, segments, sections and symbols of the mapped\n"
		"images, and anonymous memory to its kind, beside the\n"
		"images' size on disk; with fault samples ('memsz record\n"
		"--faults'), to the call stack that made each page resident\n"
		"(keys callers and faultsite). Columns: file (FILE SIZE),\n"
		"vm (VM SIZE), rss, pss, uss, dirty (private dirty), swap,\n"
		"relocs (relocation targets on private dirty pages, with\n"
		"--by relocs), shclean and shdirty (SHR CLEAN, SHR DIRTY:\n"
		"resident pages other processes map too), thp (THP: in\n"
		"PMD-mapped huge pages), locked (LOCKED: the PSS of locked\n"
		"mappings) and res (RES%%: RSS / VM SIZE).\n"
		"\n"
		"    -i, --input FILE   recording to read (default memsz.data)\n"
		"    --by KEY[,KEY...]  keys, outermost first (default files):\n"
		"                       %s\n"
		"    --list-keys        print every key with what it labels\n"
		"    -F, --fields COLS  columns and their order; table\n"
		"                       default file,vm,rss,pss,dirty (uss\n"
		"                       for pss without PSS; relocs with\n"
		"                       --by relocs), other formats all\n"
		"                       but thp and locked (procs when the\n"
		"                       report covers more than one\n"
		"                       process), folded the first\n"
		"    --sort COL         file, vm, rss (default, or the first\n"
		"                       of --fields), pss, uss, dirty, swap,\n"
		"                       relocs, shclean, shdirty, thp,\n"
		"                       locked, procs (the processes in a\n"
		"                       row)\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20, with\n"
		"                       --timeline 10; 0: all)\n"
		VIEW_HELP_FILTER
		"    --pid PID          only this process\n"
		"    --skip-frames REGEX  frames the faultsite key looks past\n"
		"                       to name the first frame that is the\n"
		"                       program's (default: the C library's\n"
		"                       memory and string routines, malloc\n"
		"                       and its internals, operator new;\n"
		"                       '': none)\n"
		"    --snapshot WHICH   per process: first, last (default),\n"
		"                       peak (highest RSS) or N (the Nth,\n"
		"                       from 0)\n"
		"    --timeline[=COLS]  the top -n rows at every snapshot: the\n"
		"                       Nth snapshot of each process summed\n"
		"                       (as --snapshot N), at the time of the\n"
		"                       earliest of them; COLS: rss, pss, uss,\n"
		"                       dirty, swap... (default --fields, else\n"
		"                       the --sort column); table, csv, tsv\n"
		"                       or json\n"
		VIEW_HELP_WIDTH_VERBOSE
		"    --format FMT       table (default), csv, tsv, json,\n"
		"                       folded (flame-graph stacks: the key\n"
		"                       path joined by ';' and the first\n"
		"                       field or the --sort column in\n"
		"                       bytes, all rows), pprof (gzipped\n"
		"                       profile.proto for 'go tool pprof',\n"
		"                       a sample type per field, all rows;\n"
		"                       redirect it) or html (one offline\n"
		"                       page: treemap, column switch,\n"
		"                       search, flame graph for callers,\n"
		"                       RSS timeline)\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n"
		VIEW_HELP_DISASM
		"\nWith DEBUGINFOD_URLS set, debug files missing locally are\n"
		"fetched from those debuginfod servers (libdebuginfod's cache).\n",
		keys_list(KEY_IN_REPORT));
}

static const struct option report_options[] = {
	VIEW_LONG_OPTIONS,
	{ "input", required_argument, NULL, 'i' },
	{ "pid", required_argument, NULL, 'p' },
	{ "snapshot", required_argument, NULL, 'S' },
	{ "timeline", optional_argument, NULL, 'T' },
	{ "skip-frames", required_argument, NULL, 'K' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --timeline[=COLS] and --snapshot, which exclude each other. */
struct report_when {
	bool timeline, snapshot;
	const char *cols;         /* --timeline=COLS */
};

/* One option of report's own (not a view option) into o. Returns -1 to
 * go on, or the exit status. */
static int report_option(int c, const char *arg, struct report_opts *o,
			 const struct view *v, struct report_when *w)
{
	regex_t skip;
	uint64_t u;

	switch (c) {
	case 'T':
		w->timeline = true;
		w->cols = arg;
		return -1;
	case 'i':
		o->input = arg;
		return -1;
	case 'p':
		if (parse_u64(arg, &u) < 0 || u > INT32_MAX)
			return view_usage_error(v, "--pid wants a process id, "
						"not '%s'", arg);
		o->pid = (long)u;
		return -1;
	case 'K':
		if (arg[0] && regcomp(&skip, arg, REG_EXTENDED | REG_NOSUB))
			return view_usage_error(v, "bad --skip-frames '%s': "
						"not a POSIX extended regex",
						arg);
		if (arg[0])
			regfree(&skip);
		o->skip_frames = arg;
		return -1;
	case 'S':
		if (report_pick_parse(arg, &o->pick, &o->index) < 0)
			return view_usage_error(v, "--snapshot wants first, "
						"last, peak or a number, not "
						"'%s'", arg);
		w->snapshot = true;
		return -1;
	case 'h':
		usage_report(stdout);
		return 0;
	default:
		return view_usage_error(v, "unknown option; see 'memsz help "
					"report'");
	}
}

struct report_parse_ctx {
	struct report_opts *o;
	struct report_when *w;
};

static int report_option_cb(int c, const char *arg, struct view *v,
			    void *ctx)
{
	struct report_parse_ctx *p = ctx;

	return report_option(c, arg, p->o, v, p->w);
}

/* Parse argv into v and o. Returns -1 to go on, or the exit status. */
static int report_parse(int argc, char **argv, struct view *v,
			struct report_opts *o, struct report_when *w)
{
	struct report_parse_ctx p = { o, w };
	int ret = view_parse(argc, argv, v, "i:" VIEW_SHORT, report_options,
			     report_option_cb, &p);

	if (ret >= 0)
		return ret;
	if (optind < argc)
		return view_usage_error(v, "unexpected argument '%s'; see "
					"'memsz help report'", argv[optind]);
	if (!v->sort_given && v->nfields &&
	    !coldefs[v->fields[0]].derived)
		v->sort = v->fields[0];
	for (size_t i = 0; i < v->nfields; i++) {
		bool relocs = false;

		for (size_t k = 0; k < v->nkeys; k++)
			relocs |= v->keys[k] == KEY_RELOCS;
		if (v->fields[i] == COL_RELOCS && !relocs)
			return view_usage_error(v, "field 'relocs' needs the "
						"relocs key in --by");
	}
	if (w->timeline && (w->snapshot || v->fmt == OUT_FOLDED ||
			    v->fmt == OUT_PPROF || v->fmt == OUT_HTML))
		return view_usage_error(v, "--timeline shows every snapshot: "
					"no --snapshot, and formats table, "
					"csv, tsv or json");
	return view_check(v);
}

/* The message for a recording that cannot be read; caller frees. */
static char *input_msg(const char *input, int err, char *msg)
{
	char *m;

	if (err != -ENOENT || access(input, F_OK) == 0)
		return msg;
	m = xasprintf("cannot read '%s': No such file or directory (make "
		      "one with 'memsz record -p PID' or 'memsz record -- "
		      "COMMAND', or name one with -i)", input);
	free(msg);
	return m;
}

/* A footer note for each column that --fields or --sort names and the
 * recording cannot give for a reason the notes do not say yet (no PSS has
 * its own note). */
static void unknown_notes(const struct view *v, struct report_result *res)
{
	unsigned asked = 1u << v->sort;

	for (size_t i = 0; i < v->nfields; i++)
		asked |= 1u << v->fields[i];
	asked &= res->unknown_cols;
	if (!res->have_pss)
		asked &= ~(1u << COL_PSS | 1u << COL_LOCKED);
	for (int c = 0; c < COL__COUNT; c++)
		if (asked & (1u << c))
			strlist_add(&res->notes,
				    xasprintf("no %s: not in this recording "
					      "(recorded by an older memsz, "
					      "or THP without PAGEMAP_SCAN)",
					      coldefs[c].header));
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {
		.input = "memsz.data",
		.pid = -1,
		.pick = PICK_LAST,
	};
	struct view v = {
		.cmdname = "report",
		.cmd = KEY_IN_REPORT,
		.keys = { KEY_FILES },
		.nkeys = 1,
		.sort = COL_RSS,
		.columns = (1u << COL__COUNT) - 1,
		.limit = UINT64_MAX, /* 20, or 10 with --timeline */
		.fmt = OUT_TABLE,
	};
	/* The table's default columns, most useful first: what is on disk
	 * and mapped, what is resident, its fair share, and what is this
	 * process's own dirty memory. */
	enum col_id table_dflt[] = { COL_FILE, COL_VM, COL_RSS, COL_PSS,
				     COL_DIRTY, COL_RELOCS };
	enum col_id cols[COL__COUNT];
	struct report_result res = { 0 };
	struct labels *lb = NULL;
	struct report_when when = { 0 };
	bool with_relocs = false;
	unsigned avail;
	size_t ncols;
	char *msg = NULL, *title = NULL;
	int ret;

	ret = report_parse(argc, argv, &v, &o, &when);
	if (ret >= 0)
		goto out;
	ret = 1;
	memcpy(o.keys, v.keys, sizeof(o.keys));
	o.nkeys = v.nkeys;
	o.debug_root = v.debug_root;
	o.disasm = v.disasm;
	o.filter = &v.filter;
	if (v.limit == UINT64_MAX)
		v.limit = when.timeline ? 10 : 20;
	if (when.timeline) {
		ret = report_timeline(&v, &o, when.cols);
		goto out;
	}
	for (size_t k = 0; k < v.nkeys; k++)
		with_relocs |= v.keys[k] == KEY_RELOCS;

	lb = labels_new();
	ret = report_build(&o, lb, &res, &msg);
	if (ret < 0) {
		msg = input_msg(o.input, ret, msg);
		out_error(v.fmt, msg);
		ret = 1;
		goto out;
	}
	avail = v.columns & ~res.unknown_cols;
	unknown_notes(&v, &res);
	if (!res.have_pss)
		table_dflt[3] = COL_USS;
	if (res.unknown_cols & (1u << v.sort))
		v.sort = COL_RSS;
	if (!with_relocs)
		avail &= ~(1u << COL_RELOCS);
	/* PROCS only where several processes share rows; pprof samples
	 * and the page's treemap areas are sums, which it is not */
	if (res.nprocs < 2 || v.fmt == OUT_PPROF || v.fmt == OUT_HTML)
		avail &= ~(1u << COL_PROCS);
	if (v.fmt == OUT_FOLDED || v.fmt == OUT_PPROF)
		v.limit = 0; /* every stack, nothing folded into [N others] */
	rowtree_finish(res.t, v.sort, v.limit);
	ncols = view_columns(&v, avail, table_dflt, ARRAY_SIZE(table_dflt),
			     cols);
	if (!ncols) {
		out_error(v.fmt, "no column of --fields is in this report "
				 "(no PSS or LOCKED without page frame "
				 "numbers, no THP or LOCKED in recordings "
				 "that did not record them, no procs for one "
				 "process, in pprof or html)");
		ret = 1;
		goto out;
	}
	v.images = res.images;
	v.nimages = res.nimages;
	v.snaps = res.snaps;
	v.nsnaps = res.nsnaps;
	title = xasprintf("memsz report of %s", o.input);
	v.title = title;
	ret = view_write(&v, res.t, cols, ncols, false, &res.notes);
out:
	free(title);
	free(msg);
	report_result_free(&res);
	labels_free(lb);
	view_free(&v);
	return ret;
}
