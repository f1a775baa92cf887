// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_diff.c — `memsz diff`: what changed between two recordings, two
 * snapshots of one recording, or two builds of an ELF file. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "rows/output.h"
#include "rows/rows.h"
#include "report/diff.h"
#include "util/util.h"

static const char *diff_keys(void)
{
	return keys_list(KEY_IN_SIZE | KEY_IN_REPORT);
}

/* Ids of diff's own options without a short name. */
enum {
	DIFF_OPT_PID = VIEW_OPT__END,
	DIFF_OPT_SNAPSHOT,
};

static const struct opt diff_opts[] = {
    VIEW_ROW_BY("keys, outermost first (at most 8; default files for\n"
		"recordings, sections for ELF files):",
		diff_keys),
    VIEW_ROW_LIST_KEYS,
    VIEW_ROW_FIELDS("the columns compared, in order: file,\n"
		    "vm, rss, pss, uss, dirty, swap,\n"
		    "relocs, shclean, shdirty, thp,\n"
		    "locked, charge (default: all the\n"
		    "recordings have but thp, locked and\n"
		    "(outside -G) charge; file,vm for ELF\n"
		    "files); the table adds the --sort\n"
		    "column after them if they leave it out;\n"
		    "rows the same in these and the --sort\n"
		    "one are left out"),
    VIEW_ROW_SORT("order rows by the size of the change of\n"
		  "COL: file, vm, rss, pss, uss, dirty,\n"
		  "swap, relocs, shclean, shdirty, thp,\n"
		  "locked, charge (default the first of\n"
		  "--fields, else rss, or file for ELF\n"
		  "files); or name, or addr (recordings):\n"
		  "as report; or both: the larger change\n"
		  "of file and vm (Bloaty's -s both)"),
    VIEW_ROW_LIMIT("rows per level, the rest folded into\n"
		   "'[N others]' (table default 20; csv,\n"
		   "tsv and json: all unless given; 0: all)"),
    VIEW_ROW_FILTER,
    {'i', "input", OPT_ARG, "FILE", 'i',
     "compare two snapshots of FILE (default\n"
     "the first and the last)",
     NULL},
    {0, "pid", OPT_ARG, "PID,...", DIFF_OPT_PID,
     "only these processes (recordings);\n"
     "--pid A --pid B is --pid A,B",
     NULL},
    {0, "snapshot", OPT_ARG, "WHICH", DIFF_OPT_SNAPSHOT,
     "first, last (default), peak or N, per\n"
     "process as in 'memsz report'; once for\n"
     "both sides, twice for OLD then NEW",
     NULL},
    VIEW_ROW_WIDTH,
    VIEW_ROW_VERBOSE,
    VIEW_ROW_FORMAT("table (default), csv, tsv or json (each\n"
		    "change NEW - OLD of the values printed)"),
    VIEW_ROW_DEBUG_ROOT,
    VIEW_ROW_DISASM,
    VIEW_ROW_DEMANGLE,
    OPT_END,
};

const struct opts_cmd diff_cmd = {
    .name = "diff",
    .synopsis = "usage: memsz diff [--by KEY[,KEY...]]"
		" [-F|--fields COL[,COL...]] [--sort COL]\n"
		"                  [-n N] [--filter [KEY=]REGEX]..."
		" [--exclude [KEY=]REGEX]...\n"
		"                  [--pid PID[,PID...]]..."
		" [--snapshot WHICH [--snapshot WHICH]]\n"
		"                  [--width N] [-v] [--no-disasm]"
		" [--demangle full|short|none]\n"
		"                  [--debug-root DIR]"
		" [--format table|csv|tsv|json] OLD NEW\n"
		"       memsz diff -i FILE [--snapshot WHICH --snapshot WHICH]"
		" [...]\n"
		"       memsz diff --list-keys\n",
    .about = "Compare two recordings of 'memsz record', two snapshots of\n"
	     "one recording (-i), or two ELF files (FILE SIZE and VM SIZE,\n"
	     "as 'memsz size' counts them); the kind is told by each file's\n"
	     "first bytes. Every column is shown as OLD, NEW and the change\n"
	     "(NEW - OLD); rows only in NEW are marked [new], rows only in\n"
	     "OLD [gone], and rows equal on both sides are left out (the\n"
	     "footer says how many). Notes say when an image has a new\n"
	     "build-id, or changed without one, and when a file recorded\n"
	     "as not ELF on both sides (a data file) changed, or was ELF\n"
	     "on one side only; under files, a library changed since OLD\n"
	     "was recorded is compared with NEW's row of its build-id,\n"
	     "else with its path.\n",
    .opts = diff_opts,
    .col = VIEW_HELP_COL,
};

void usage_diff(FILE *out)
{
	opts_usage(&diff_cmd, out);
}

struct diff_args {
	const char *input;    /* -i */
	int nsnap;	      /* --snapshot given 0, 1 or 2 times */
	struct pid_list pids; /* --pid's, which diff_opts borrows */
	struct diff_side snap[2];
};

/* One option of diff's own into o and a. Returns -1 to go on, or the
 * exit status. */
static int diff_option(int c, const char *arg, const struct view *v,
		       struct diff_opts *o, struct diff_args *a)
{
	int ret;

	switch (c) {
	case 'i':
		a->input = arg;
		return -1;
	case DIFF_OPT_PID:
		ret = view_pid_option(v, arg, &a->pids);
		o->pids = a->pids.v; /* moved by a realloc */
		o->npids = a->pids.n;
		return ret;
	case DIFF_OPT_SNAPSHOT:
		if (a->nsnap == 2)
			return view_usage_error(v, "--snapshot given more "
						   "than twice");
		if (report_pick_parse(arg, &a->snap[a->nsnap].pick,
				      &a->snap[a->nsnap].index) < 0)
			return view_usage_error(v,
						"--snapshot wants first, "
						"last, peak or a number, not "
						"'%s'",
						arg);
		a->nsnap++;
		return -1;
	default:
		return view_usage_error(v, "unknown option; see 'memsz help "
					   "diff'");
	}
}

/* The two sides from the operands and -i / --snapshot. Returns -1 to go
 * on, or the exit status. */
static int diff_sides(int argc, char **argv, const struct view *v,
		      struct diff_opts *o, struct diff_args *a)
{
	int nargs = argc - optind;

	if (a->input && nargs)
		return view_usage_error(v,
					"unexpected argument '%s' with -i; "
					"see 'memsz help diff'",
					argv[optind]);
	if (!a->input && nargs != 2)
		return view_usage_error(v, "diff wants two files, OLD and NEW, "
					   "or -i FILE; see 'memsz help diff'");
	if (a->input && a->nsnap == 1)
		return view_usage_error(v,
					"with -i, give --snapshot twice "
					"(OLD, then NEW) or not at all (first "
					"and last)");
	o->old.path = a->input ? a->input : argv[optind];
	o->new.path = a->input ? a->input : argv[optind + 1];
	o->old.pick = o->new.pick = PICK_LAST;
	if (a->input && !a->nsnap)
		o->old.pick = PICK_FIRST;
	if (a->nsnap) {
		o->old.pick = a->snap[0].pick;
		o->old.index = a->snap[0].index;
		o->new.pick = a->snap[a->nsnap - 1].pick;
		o->new.index = a->snap[a->nsnap - 1].index;
	}
	return -1;
}

struct diff_parse_ctx {
	struct diff_opts *o;
	struct diff_args *a;
};

static int diff_option_cb(int c, const char *arg, struct view *v, void *ctx)
{
	struct diff_parse_ctx *p = ctx;

	return diff_option(c, arg, v, p->o, p->a);
}

/* Parse argv into v, o. Returns -1 to go on, or the exit status. */
static int diff_parse(int argc, char **argv, struct view *v,
		      struct diff_opts *o, struct diff_args *a)
{
	struct diff_parse_ctx p = {o, a};
	int ret = view_parse(argc, argv, v, &diff_cmd, diff_option_cb, &p);

	if (ret >= 0)
		return ret;
	if (!(out_format_get(v->fmt)->kinds & ROWS_KIND_BIT(ROWS_DIFF))) {
		char *names = out_format_names(ROWS_DIFF, "and");

		ret = view_usage_error(v, "diff writes formats %s only", names);
		free(names);
		return ret;
	}
	return diff_sides(argc, argv, v, o, a);
}

/* Which kind of files the two sides are; both must be the same. Returns
 * -1 to go on, or the exit status. */
static int diff_kinds(const struct view *v, struct diff_opts *o,
		      const struct diff_args *a)
{
	enum diff_kind k[2];
	const char *path[2] = {o->old.path, o->new.path};

	for (int i = 0; i < 2; i++) {
		int err = diff_detect(path[i], &k[i]);
		char *msg;

		if (err == 0)
			continue;
		msg = err == -MEMSZ_EBADMAGIC
			  ? xasprintf("'%s' is neither a memsz recording "
				      "nor an ELF file or archive",
				      path[i])
			  : xasprintf("cannot read '%s': %s", path[i],
				      memsz_strerror(err));
		view_error(v->fmt, msg);
		free(msg);
		return 1;
	}
	if (k[0] != k[1])
		return view_usage_error(
		    v, "cannot compare %s '%s' with %s '%s'",
		    k[0] == DIFF_KIND_ELF ? "the ELF file" : "the recording",
		    path[0],
		    k[1] == DIFF_KIND_ELF ? "the ELF file" : "the recording",
		    path[1]);
	o->kind = k[0];
	if (o->kind == DIFF_KIND_ELF && (a->nsnap || o->npids))
		return view_usage_error(v, "--snapshot and --pid are for "
					   "recordings, not ELF files");
	return -1;
}

/* Defaults that depend on the kind, and the keys and --sort column that
 * kind offers. Returns -1 to go on, or the exit status. */
static int diff_defaults(struct view *v, struct diff_opts *o)
{
	unsigned cmd = o->kind == DIFF_KIND_ELF ? KEY_IN_SIZE : KEY_IN_REPORT;

	if (!v->nkeys) {
		v->keys[0] =
		    o->kind == DIFF_KIND_ELF ? KEY_SECTIONS : KEY_FILES;
		v->nkeys = 1;
	}
	for (size_t i = 0; i < v->nkeys; i++)
		if (!(keydefs[v->keys[i]].cmds & cmd))
			return view_usage_error(
			    v, "key '%s' is not offered for %s (keys: %s)",
			    keydefs[v->keys[i]].name,
			    o->kind == DIFF_KIND_ELF ? "ELF files"
						     : "recordings",
			    keys_list(cmd));
	for (size_t i = 0; i < v->nfields && o->kind == DIFF_KIND_ELF; i++)
		if (v->fields[i] != COL_FILE && v->fields[i] != COL_VM)
			return view_usage_error(v,
						"ELF files have the fields "
						"file and vm, not '%s'",
						coldefs[v->fields[i]].sortname);
	if (v->sort == COL__COUNT && v->nfields)
		v->sort = v->fields[0];
	if (v->sort == COL__COUNT)
		v->sort = o->kind == DIFF_KIND_ELF ? COL_FILE : COL_RSS;
	/* the positions addr orders by are report's (mappings, pids):
	 * refused as memsz size refuses it */
	if (o->kind == DIFF_KIND_ELF && v->order == ROWS_ORDER_POS)
		return view_usage_error(v, "ELF files are sorted by file, vm, "
					   "both or name, not 'addr'");
	if (o->kind == DIFF_KIND_ELF && v->sort != COL_FILE &&
	    v->sort != COL_VM)
		return view_usage_error(v,
					"ELF files are sorted by file or "
					"vm, not '%s'",
					coldefs[v->sort].sortname);
	memcpy(o->keys, v->keys, sizeof(o->keys));
	o->nkeys = v->nkeys;
	o->debug_root = v->debug_root;
	o->disasm = v->disasm;
	o->demangle = v->demangle;
	o->filter = &v->filter;
	return view_check(v);
}

/* The columns to print, into cols; returns how many. Those of --fields
 * both sides have, else every column they have (FILE SIZE and VM SIZE
 * for ELF files); the table's defaults leave out the columns 0 on both
 * sides (but the --sort one), and view_columns() more to fit the
 * width. */
static size_t diff_cols(const struct view *v, const struct diff_opts *o,
			const struct diff_result *res, enum col_id *cols)
{
	enum col_id dflt[COL__COUNT];
	unsigned avail = v->columns & ~res->unknown_cols;
	size_t n = 0;

	/* columns only a key not in --by gives (relocs) */
	avail &= ~keys_cols_missing(v->keys, v->nkeys);
	if (o->kind == DIFF_KIND_ELF && !v->nfields)
		avail &= 1u << COL_FILE | 1u << COL_VM;
	/* CHARGE by default only where a side is of a cgroup (-G) or the
	 * rows are sorted by it, as in report */
	if (!res->cgroup_charge && !v->nfields && v->sort != COL_CHARGE)
		avail &= ~(1u << COL_CHARGE);
	for (int i = 0; i < COL__COUNT; i++)
		if ((avail & (1u << i)) && !coldefs[i].optional &&
		    (i == v->sort || !rowtree_col_is_zero(res->d, i)))
			dflt[n++] = i;
	return view_columns(v, avail, dflt, n, cols);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {0};
	struct diff_args a = {0};
	struct view v = {
	    .cmdname = "diff",
	    .cmd = KEY_IN_SIZE | KEY_IN_REPORT,
	    .sort = COL__COUNT, /* by kind, once known */
	    /* every stored byte column: a derived one (RES%) has no
	     * change to show, nor a count of processes that is not a
	     * sum (PROCS) */
	    .columns = ((1u << COL__COUNT) - 1) &
		       ~(1u << COL_RES_PCT | 1u << COL_PROCS),
	    .limit = 20,
	    .fmt = OUT_TABLE,
	    .kind = ROWS_DIFF,
	};
	struct diff_result res = {0};
	enum col_id cols[COL__COUNT];
	struct labels *lb = NULL;
	size_t ncols;
	char *msg = NULL;
	int ret;

	ret = diff_parse(argc, argv, &v, &o, &a);
	if (ret < 0)
		ret = diff_kinds(&v, &o, &a);
	if (ret < 0)
		ret = diff_defaults(&v, &o);
	if (ret >= 0)
		goto out;
	ret = 1;
	lb = labels_new();
	if (diff_build(&o, lb, &res, &msg) < 0) {
		view_error(v.fmt, msg);
		goto out;
	}
	if (v.sort == COL_PSS && !res.have_pss)
		v.sort = COL_RSS;
	/* --fields: a row whose columns shown (those and the --sort one)
	 * are the same on both sides is one of the rows the same */
	if (v.nfields) {
		unsigned same = 1u << v.sort;

		for (size_t i = 0; i < v.nfields; i++)
			same |= 1u << v.fields[i];
		rowtree_set_compared(res.d, same);
	}
	view_finish(&v, res.d, v.sort);
	/* said in every format, not only as json's "unchanged": the rows
	 * shown do not add up to the TOTAL's OLD and NEW */
	if (res.d->unchanged)
		strlist_add(&res.notes,
			    xasprintf("%llu %s the same in OLD and NEW %s "
				      "left out: the rows shown add up to "
				      "the TOTAL's change, not to its OLD "
				      "and NEW",
				      (unsigned long long)res.d->unchanged,
				      res.d->unchanged == 1 ? "row" : "rows",
				      res.d->unchanged == 1 ? "is" : "are"));
	ncols = diff_cols(&v, &o, &res, cols);
	if (!ncols) {
		view_error(v.fmt, "no column of --fields is in both recordings "
				  "(no PSS or LOCKED without page frame "
				  "numbers, no THP or LOCKED in recordings "
				  "that did not record them)");
		goto out;
	}
	ret = view_write(&v, res.d, cols, ncols, false, &res.notes);
out:
	free(msg);
	free(a.pids.v);
	diff_result_free(&res);
	labels_free(lb);
	view_free(&v);
	return ret;
}
