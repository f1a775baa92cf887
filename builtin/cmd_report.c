// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_report.c — `memsz report`: recorded resident memory, attributed to
 * files, segments, sections, symbols. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "report/report.h"
#include "rows/rows.h"
#include "util/util.h"

static const char *report_keys(void)
{
	return keys_list(KEY_IN_REPORT);
}

/* Ids of report's own options without a short name. */
enum {
	REPORT_OPT_PID = VIEW_OPT__END,
	REPORT_OPT_SNAPSHOT,
	REPORT_OPT_TIMELINE,
	REPORT_OPT_SKIP_FRAMES,
};

static const struct opt report_opts[] = {
    {'i', "input", OPT_ARG, "FILE", 'i',
     "recording to read (default memsz.data)", NULL},
    VIEW_ROW_BY("keys, outermost first (at most 8; default files):",
		report_keys),
    VIEW_ROW_LIST_KEYS,
    VIEW_ROW_FIELDS("columns and their order; table\n"
		    "default file,vm,rss,pss,charge,dirty\n"
		    "(uss for pss without PSS; charge\n"
		    "in -G recordings or by --sort;\n"
		    "relocs with\n"
		    "--by relocs), other formats all\n"
		    "but thp, locked and (outside -G)\n"
		    "charge (procs when the\n"
		    "report covers more than one\n"
		    "process and not in pprof or html:\n"
		    "asked for, a note says why not),\n"
		    "folded the first; the\n"
		    "table adds the --sort column after\n"
		    "them if they leave it out"),
    VIEW_ROW_SORT("file, vm, rss (default, or the first\n"
		  "of --fields), pss, uss, dirty, swap,\n"
		  "relocs, shclean, shdirty, thp,\n"
		  "locked, procs (the processes in a\n"
		  "row), charge (what the memory\n"
		  "cgroup pays for): largest first, ties\n"
		  "by name (relocs with --by relocs); or\n"
		  "an order, every row unless -n: addr\n"
		  "(mappings by address, as pmap -x,\n"
		  "processes by pid, other labels by\n"
		  "name) or name"),
    VIEW_ROW_LIMIT("rows per level, the rest folded into\n"
		   "'[N others]' (table default 20, with\n"
		   "--timeline 10, with --sort addr or\n"
		   "name all; csv, tsv and json: all\n"
		   "unless given; 0: all)"),
    VIEW_ROW_FILTER,
    {0, "pid", OPT_ARG, "PID,...", REPORT_OPT_PID,
     "only these processes; --pid A --pid B\n"
     "is --pid A,B (a note names those not\n"
     "recorded)",
     NULL},
    {0, "skip-frames", OPT_ARG, "REGEX", REPORT_OPT_SKIP_FRAMES,
     "frames the faultsite key looks past\n"
     "to name the first frame that is the\n"
     "program's (default: the C library's\n"
     "memory and string routines, malloc\n"
     "and its internals, operator new;\n"
     "'': none)",
     NULL},
    {0, "snapshot", OPT_ARG, "WHICH", REPORT_OPT_SNAPSHOT,
     "per process: first, last (default),\n"
     "peak (highest RSS) or N (the Nth,\n"
     "from 0); last of a -G or -a\n"
     "recording: none of a process that\n"
     "exited before the last snapshot",
     NULL},
    {0, "timeline", OPT_OPTARG, "COLS", REPORT_OPT_TIMELINE,
     "the top -n rows at every point in\n"
     "time: each process's latest snapshot\n"
     "then (none before its first, none\n"
     "once it exited); COLS: rss, pss, uss,\n"
     "dirty, swap... (default --fields, else\n"
     "the --sort column); table (the\n"
     "points that fit --width), csv, tsv\n"
     "or json (every point)",
     NULL},
    VIEW_ROW_WIDTH,
    VIEW_ROW_VERBOSE,
    VIEW_ROW_FORMAT("table (default), csv, tsv, json (control\n"
		    "characters, C1 too, as \\u00HH),\n"
		    "folded (flame-graph stacks: the key\n"
		    "path joined by ';', a ';' in a\n"
		    "label shown as ':', and the first\n"
		    "field or the --sort column in\n"
		    "bytes, all rows), pprof (gzipped\n"
		    "profile.proto for 'go tool pprof',\n"
		    "a sample type per field, the --sort\n"
		    "one (else the first) the default,\n"
		    "all rows, a file several processes\n"
		    "map in the first one's samples only,\n"
		    "names escaped as in the table,\n"
		    "each \\ doubled;\n"
		    "redirect it) or html (one offline\n"
		    "page: treemap, column switch,\n"
		    "search, flame graph for callers,\n"
		    "RSS timeline; its title escaped\n"
		    "as the table's labels)"),
    VIEW_ROW_DEBUG_ROOT,
    VIEW_ROW_DISASM,
    VIEW_ROW_DEMANGLE,
    OPT_END,
};

const struct opts_cmd report_cmd = {
    .name = "report",
    .synopsis =
	"usage: memsz report [-i FILE] [--by KEY[,KEY...]]"
	" [-F|--fields COL[,COL...]]\n"
	"                    [--sort COL|addr|name] [-n N]"
	" [--filter [KEY=]REGEX]...\n"
	"                    [--exclude [KEY=]REGEX]..."
	" [--pid PID[,PID...]]...\n"
	"                    [--skip-frames REGEX]"
	" [--snapshot first|last|peak|N |\n"
	"                    --timeline[=COL[,COL...]]]"
	" [--width N] [-v] [--no-disasm]\n"
	"                    [--debug-root DIR] [--demangle full|short|none]\n"
	"                    [--format table|csv|tsv|json|folded|pprof|html]\n"
	"       memsz report --list-keys\n",
    .about = "Attribute the resident memory recorded by 'memsz record'\n"
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
	     "mappings) and res (RES%: RSS / VM SIZE). Anonymous pages\n"
	     "read back from swap or freed with MADV_FREE may be clean:\n"
	     "then a mapping's dirty and shdirty are smaps', by mapping\n"
	     "(a note says how much, one line for all snapshots and\n"
	     "-v one a snapshot; within it, estimates).\n",
    .opts = report_opts,
    .col = VIEW_HELP_COL,
    .footer = VIEW_HELP_DEBUGINFOD,
};

void usage_report(FILE *out)
{
	opts_usage(&report_cmd, out);
}

/* --timeline[=COLS] and --snapshot, which exclude each other; --pid's
 * list, which report_opts borrows. */
struct report_when {
	bool timeline, snapshot;
	const char *cols; /* --timeline=COLS */
	struct pid_list pids;
};

/* One option of report's own (not a view option) into o. Returns -1 to
 * go on, or the exit status. */
static int report_option(int c, const char *arg, struct report_opts *o,
			 const struct view *v, struct report_when *w)
{
	regex_t skip;

	switch (c) {
	case REPORT_OPT_TIMELINE:
		w->timeline = true;
		w->cols = arg;
		return -1;
	case 'i':
		o->input = arg;
		return -1;
	case REPORT_OPT_PID:
		return view_pid_option(v, arg, &w->pids);
	case REPORT_OPT_SKIP_FRAMES:
		if (arg[0] && regcomp(&skip, arg, REG_EXTENDED | REG_NOSUB))
			return view_usage_error(v,
						"bad --skip-frames '%s': "
						"not a POSIX extended regex",
						arg);
		if (arg[0])
			regfree(&skip);
		o->skip_frames = arg;
		return -1;
	case REPORT_OPT_SNAPSHOT:
		if (report_pick_parse(arg, &o->pick, &o->index) < 0)
			return view_usage_error(v,
						"--snapshot wants first, "
						"last, peak or a number, not "
						"'%s'",
						arg);
		w->snapshot = true;
		return -1;
	default:
		return view_usage_error(v, "unknown option; see 'memsz help "
					   "report'");
	}
}

struct report_parse_ctx {
	struct report_opts *o;
	struct report_when *w;
};

static int report_option_cb(int c, const char *arg, struct view *v, void *ctx)
{
	struct report_parse_ctx *p = ctx;

	return report_option(c, arg, p->o, v, p->w);
}

/* Parse argv into v and o. Returns -1 to go on, or the exit status. */
static int report_parse(int argc, char **argv, struct view *v,
			struct report_opts *o, struct report_when *w)
{
	struct report_parse_ctx p = {o, w};
	int ret = view_parse(argc, argv, v, &report_cmd, report_option_cb, &p);

	if (ret >= 0)
		return ret;
	if (optind < argc)
		return view_usage_error(v,
					"unexpected argument '%s'; see "
					"'memsz help report'",
					argv[optind]);
	if (!v->sort_given && v->nfields && !coldefs[v->fields[0]].derived)
		v->sort = v->fields[0];
	if (w->timeline && (w->snapshot || !(out_format_get(v->fmt)->kinds &
					     ROWS_KIND_BIT(ROWS_TIMELINE)))) {
		char *names = out_format_names(ROWS_TIMELINE, "or");
		int err = view_usage_error(v,
					   "--timeline shows every "
					   "snapshot: no --snapshot, and "
					   "formats %s",
					   names);

		free(names);
		return err;
	}
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
		      "COMMAND', or name one with -i)",
		      input);
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

/* Take PROCS out of *avail (one process, or a format of sums); if
 * --fields or --sort asked for it, a note says why it is not shown. */
static void procs_left_out(const struct view *v, struct report_result *res,
			   unsigned *avail)
{
	bool asked = v->sort == COL_PROCS;

	*avail &= ~(1u << COL_PROCS);
	for (size_t i = 0; i < v->nfields; i++)
		asked |= v->fields[i] == COL_PROCS;
	if (!asked)
		return;
	strlist_add(&res->notes,
		    xstrdup(res->nprocs < 2
				? "PROCS left out: the report covers one "
				  "process"
				: "PROCS left out: a count, not a sum, it is "
				  "in no pprof or html output"));
}

/* Sort, fold and write the rows of res (a report of input) as v asks,
 * with the columns it has. Returns the exit status. */
static int report_print(struct view *v, const char *input,
			struct report_result *res)
{
	/* The table's default columns, most useful first: what is on disk
	 * and mapped, what is resident, its fair share, and what is this
	 * process's own dirty memory. */
	enum col_id table_dflt[] = {COL_FILE,	COL_VM,	   COL_RSS,   COL_PSS,
				    COL_CHARGE, COL_DIRTY, COL_RELOCS};
	enum col_id cols[COL__COUNT];
	unsigned avail = v->columns & ~res->unknown_cols;
	size_t ncols;
	char *title;
	int ret;

	unknown_notes(v, res);
	if (!res->have_pss)
		table_dflt[3] = COL_USS;
	if (res->unknown_cols & (1u << v->sort))
		v->sort = COL_RSS;
	/* CHARGE by default only where the report is of a cgroup (-G),
	 * or when the rows are sorted by it (view_columns() shows the
	 * sorted column) */
	if (!res->cgroup_charge && !v->nfields && v->sort != COL_CHARGE)
		avail &= ~(1u << COL_CHARGE);
	/* columns only a key not in --by gives (relocs) */
	avail &= ~keys_cols_missing(v->keys, v->nkeys);
	/* PROCS only where several processes share rows; pprof samples
	 * and the page's treemap areas are sums, which it is not */
	if (res->nprocs < 2 || (out_format_get(v->fmt)->flags & OUTF_SUMS))
		procs_left_out(v, res, &avail);
	view_finish(v, res->t, v->sort);
	ncols =
	    view_columns(v, avail, table_dflt, ARRAY_SIZE(table_dflt), cols);
	if (!ncols) {
		view_error(v->fmt, "no column of --fields is in this report "
				   "(no PSS or LOCKED without page frame "
				   "numbers, no THP or LOCKED in recordings "
				   "that did not record them, no procs for "
				   "one process, in pprof or html)");
		return 1;
	}
	v->images = res->images;
	v->nimages = res->nimages;
	v->snaps = res->snaps;
	v->nsnaps = res->nsnaps;
	v->start_ns = res->start_ns;
	title = xasprintf("memsz report of %s", input);
	v->title = title;
	ret = view_write(v, res->t, cols, ncols, false, &res->notes);
	v->title = NULL;
	free(title);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {
	    .input = "memsz.data",
	    .pick = PICK_LAST,
	};
	struct view v = {
	    .cmdname = "report",
	    .cmd = KEY_IN_REPORT,
	    .keys = {KEY_FILES},
	    .nkeys = 1,
	    .sort = COL_RSS,
	    .columns = (1u << COL__COUNT) - 1,
	    .limit = UINT64_MAX, /* 20, or 10 with --timeline */
	    .fmt = OUT_TABLE,
	};
	struct report_result res = {0};
	struct labels *lb = NULL;
	struct report_when when = {0};
	char *msg = NULL;
	int ret;

	ret = report_parse(argc, argv, &v, &o, &when);
	if (ret >= 0)
		goto out;
	ret = 1;
	o.pids = when.pids.v;
	o.npids = when.pids.n;
	memcpy(o.keys, v.keys, sizeof(o.keys));
	o.nkeys = v.nkeys;
	o.debug_root = v.debug_root;
	o.disasm = v.disasm;
	o.demangle = v.demangle;
	o.filter = &v.filter;
	if (v.limit == UINT64_MAX)
		v.limit = when.timeline ? 10 : 20;
	if (when.timeline) {
		ret = report_timeline(&v, &o, when.cols);
		goto out;
	}

	lb = labels_new();
	ret = report_build(&o, lb, &res, &msg);
	if (ret < 0) {
		msg = input_msg(o.input, ret, msg);
		view_error(v.fmt, msg);
		ret = 1;
		goto out;
	}
	ret = report_print(&v, o.input, &res);
out:
	free(msg);
	free(when.pids.v);
	report_result_free(&res);
	labels_free(lb);
	view_free(&v);
	return ret;
}
