/* cmd_diff.c — `memsz diff`: what changed between two recordings, two
 * snapshots of one recording, or two builds of an ELF file. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "out/difftree.h"
#include "report/diff.h"
#include "util/util.h"

void usage_diff(FILE *out)
{
	fprintf(out,
		"usage: memsz diff [--by KEY[,KEY...]] [--sort COL] [-n N]"
		" [--pid PID]\n"
		"                  [--snapshot WHICH [--snapshot WHICH]]\n"
		"                  [--format table|csv|tsv|json] OLD NEW\n"
		"       memsz diff -i FILE [--snapshot WHICH --snapshot WHICH]"
		" [...]\n"
		"       memsz diff --list-keys\n"
		"\n"
		"Compare two recordings of 'memsz record', two snapshots of\n"
		"one recording (-i), or two ELF files (FILE SIZE and VM SIZE,\n"
		"as 'memsz size' counts them); the kind is told by each file's\n"
		"first bytes. Every column is shown as OLD, NEW and the change\n"
		"(NEW - OLD); rows only in NEW are marked [new], rows only in\n"
		"OLD [gone], and rows equal on both sides are left out. Notes\n"
		"say when an image has a new build-id, or changed without one.\n"
		"\n"
		"    --by KEY[,KEY...]  keys, outermost first (default files for\n"
		"                       recordings, sections for ELF files):\n"
		"                       %s\n"
		"    --list-keys        print every key with what it labels\n"
		"    --sort COL         order rows by the size of the change of\n"
		"                       COL: file, vm, rss, pss, uss, dirty,\n"
		"                       swap, relocs (default rss, or file for\n"
		"                       ELF files)\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20; 0: all)\n"
		"    -i, --input FILE   compare two snapshots of FILE (default\n"
		"                       the first and the last)\n"
		"    --pid PID          only this process (recordings)\n"
		"    --snapshot WHICH   first, last (default), peak or N, per\n"
		"                       process as in 'memsz report'; once for\n"
		"                       both sides, twice for OLD then NEW\n"
		"    --format FMT       table (default), csv, tsv or json\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n",
		keys_list(KEY_IN_SIZE | KEY_IN_REPORT));
}

static const struct option diff_options[] = {
	VIEW_LONG_OPTIONS,
	{ "input", required_argument, NULL, 'i' },
	{ "pid", required_argument, NULL, 'p' },
	{ "snapshot", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct diff_args {
	const char *input;        /* -i */
	int nsnap;                /* --snapshot given 0, 1 or 2 times */
	struct diff_side snap[2];
};

/* One option of diff's own into o and a. Returns -1 to go on, or the
 * exit status. */
static int diff_option(int c, const char *arg, struct diff_opts *o,
		       struct diff_args *a)
{
	uint64_t u;

	switch (c) {
	case 'i':
		a->input = arg;
		return -1;
	case 'p':
		if (parse_u64(arg, &u) < 0 || u > INT32_MAX) {
			memsz_error("--pid wants a process id, not '%s'", arg);
			return EXIT_USAGE;
		}
		o->pid = (long)u;
		return -1;
	case 'S':
		if (a->nsnap == 2) {
			memsz_error("--snapshot given more than twice");
			return EXIT_USAGE;
		}
		if (report_pick_parse(arg, &a->snap[a->nsnap].pick,
				      &a->snap[a->nsnap].index) < 0) {
			memsz_error("--snapshot wants first, last, peak or a "
				    "number, not '%s'", arg);
			return EXIT_USAGE;
		}
		a->nsnap++;
		return -1;
	case 'h':
		usage_diff(stdout);
		return 0;
	default:
		usage_diff(stderr);
		return EXIT_USAGE;
	}
}

/* The two sides from the operands and -i / --snapshot. Returns -1 to go
 * on, or the exit status. */
static int diff_sides(int argc, char **argv, struct diff_opts *o,
		      struct diff_args *a)
{
	int nargs = argc - optind;

	if (a->input ? nargs != 0 : nargs != 2) {
		usage_diff(stderr);
		return EXIT_USAGE;
	}
	if (a->input && a->nsnap == 1) {
		memsz_error("with -i, give --snapshot twice (OLD, then NEW) "
			    "or not at all (first and last)");
		return EXIT_USAGE;
	}
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

/* Parse argv into v, o. Returns -1 to go on, or the exit status. */
static int diff_parse(int argc, char **argv, struct view *v,
		      struct diff_opts *o, struct diff_args *a)
{
	int c, ret;

	optind = 1;
	while ((c = view_getopt(argc, argv, "i:n:", diff_options, v)) != -1) {
		if (c == VIEW_GETOPT_USAGE)
			return EXIT_USAGE;
		ret = diff_option(c, optarg, o, a);
		if (ret >= 0)
			return ret;
	}
	if (v->list_keys) {
		keys_print(stdout, v->cmd);
		return 0;
	}
	if (v->fmt == OUT_FOLDED) {
		memsz_error("diff cannot write format 'folded' (formats: "
			    "table, csv, tsv, json)");
		return EXIT_USAGE;
	}
	return diff_sides(argc, argv, o, a);
}

/* Which kind of files the two sides are; both must be the same. Returns
 * -1 to go on, or the exit status. */
static int diff_kinds(const struct view *v, struct diff_opts *o,
		      const struct diff_args *a)
{
	enum diff_kind k[2];
	const char *path[2] = { o->old.path, o->new.path };

	for (int i = 0; i < 2; i++) {
		int err = diff_detect(path[i], &k[i]);
		char *msg;

		if (err == 0)
			continue;
		msg = err == -MEMSZ_EBADMAGIC ?
			      xasprintf("'%s' is neither a memsz recording "
					"nor an ELF file", path[i]) :
			      xasprintf("cannot read '%s': %s", path[i],
					memsz_strerror(err));
		out_error(v->fmt, msg);
		free(msg);
		return 1;
	}
	if (k[0] != k[1]) {
		memsz_error("cannot compare a recording with an ELF file "
			    "('%s', '%s')", path[0], path[1]);
		return EXIT_USAGE;
	}
	o->kind = k[0];
	if (o->kind == DIFF_KIND_ELF && (a->nsnap || o->pid >= 0)) {
		memsz_error("--snapshot and --pid are for recordings, not ELF "
			    "files");
		return EXIT_USAGE;
	}
	return -1;
}

/* Defaults that depend on the kind, and the keys and --sort column that
 * kind offers. Returns -1 to go on, or the exit status. */
static int diff_defaults(struct view *v, struct diff_opts *o)
{
	unsigned cmd = o->kind == DIFF_KIND_ELF ? KEY_IN_SIZE : KEY_IN_REPORT;

	if (!v->nkeys) {
		v->keys[0] = o->kind == DIFF_KIND_ELF ? KEY_SECTIONS :
							KEY_FILES;
		v->nkeys = 1;
	}
	for (size_t i = 0; i < v->nkeys; i++)
		if (!(keydefs[v->keys[i]].cmds & cmd)) {
			memsz_error("key '%s' is not offered for %s (keys: "
				    "%s)",
				    keydefs[v->keys[i]].name,
				    o->kind == DIFF_KIND_ELF ? "ELF files" :
							       "recordings",
				    keys_list(cmd));
			return EXIT_USAGE;
		}
	if (v->sort == COL__COUNT)
		v->sort = o->kind == DIFF_KIND_ELF ? COL_FILE : COL_RSS;
	if (o->kind == DIFF_KIND_ELF && v->sort != COL_FILE &&
	    v->sort != COL_VM) {
		memsz_error("ELF files are sorted by file or vm, not '%s'",
			    coldefs[v->sort].sortname);
		return EXIT_USAGE;
	}
	memcpy(o->keys, v->keys, sizeof(o->keys));
	o->nkeys = v->nkeys;
	o->debug_root = v->debug_root;
	return -1;
}

/* The columns to print, into cols; returns how many. */
static size_t diff_cols(const struct view *v, const struct diff_opts *o,
			const struct diff_result *res, enum col_id *cols)
{
	bool relocs = false;
	size_t n = 0;

	if (o->kind == DIFF_KIND_ELF) {
		cols[n++] = COL_FILE;
		cols[n++] = COL_VM;
		return n;
	}
	for (size_t k = 0; k < v->nkeys; k++)
		relocs |= v->keys[k] == KEY_RELOCS;
	for (int i = 0; i < COL__COUNT; i++) {
		if ((i == COL_PSS && !res->have_pss) ||
		    (i == COL_RELOCS && !relocs) || i == COL_PROCS)
			continue;
		/* a table has no room for columns that are 0 on both
		 * sides; csv and json keep every column */
		if (v->fmt == OUT_TABLE && i != v->sort &&
		    diff_col_is_zero(res->d, i))
			continue;
		cols[n++] = i;
	}
	return n;
}

static int diff_print(const struct view *v, const struct diff_result *res,
		      const enum col_id *cols, size_t ncols)
{
	const char *keynames[KEYS_MAX];
	struct out_opts oo = {
		.fmt = v->fmt,
		.keys = keynames,
		.cols = cols,
		.ncols = ncols,
		.notes = (const char *const *)res->notes.lines,
		.nnotes = res->notes.n,
	};

	for (size_t i = 0; i < v->nkeys; i++)
		keynames[i] = keydefs[v->keys[i]].name;
	if (diff_write(stdout, res->d, &oo) < 0 || fflush(stdout) == EOF) {
		memsz_error("cannot write the diff: %s",
			    memsz_strerror(-errno));
		return 1;
	}
	if (v->fmt == OUT_CSV || v->fmt == OUT_TSV)
		for (size_t i = 0; i < res->notes.n; i++)
			fprintf(stderr, "memsz: note: %s\n",
				res->notes.lines[i]);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .pid = -1 };
	struct diff_args a = { 0 };
	struct view v = {
		.cmd = KEY_IN_SIZE | KEY_IN_REPORT,
		.sort = COL__COUNT, /* by kind, once known */
		.sortable = (1u << COL__COUNT) - 1,
		.limit = 20,
		.fmt = OUT_TABLE,
	};
	struct diff_result res = { 0 };
	enum col_id cols[COL__COUNT];
	struct labels *lb = NULL;
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
		out_error(v.fmt, msg);
		goto out;
	}
	if (v.sort == COL_PSS && !res.have_pss)
		v.sort = COL_RSS;
	diff_finish(res.d, v.sort, v.limit);
	ret = diff_print(&v, &res, cols, diff_cols(&v, &o, &res, cols));
out:
	free(msg);
	diff_result_free(&res);
	labels_free(lb);
	return ret;
}
