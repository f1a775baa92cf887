// SPDX-License-Identifier: GPL-2.0-or-later
/* timeline.c — `memsz report --timeline`: the rows of a report at every
 * point in time, from report_build() with PICK_ALL as one timeline row
 * tree (a value set per point), written by view_write() as every other
 * tree is. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "report/report.h"
#include "rows/rows.h"
#include "util/util.h"

/* True if column c is a sum over rows, as a timeline's series are:
 * neither derived (RES%) nor a count of processes (PROCS). */
static bool col_sums(int c)
{
	return !coldefs[c].derived && c != COL_PROCS;
}

/* "rss,pss,dirty" into cols; returns how many, or -1 after the usage
 * error in v's output mode. Columns that are not sums (RES%, PROCS)
 * cannot rank the rows. */
static int parse_cols(const struct view *v, const char *spec, enum col_id *cols)
{
	char *s = xstrdup(spec), *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int c = col_from_name(tok);
		bool dup = false;

		for (int i = 0; i < n; i++)
			dup |= (int)cols[i] == c;
		if (c < 0 || dup || n == COL__COUNT || !col_sums(c)) {
			view_usage_error(v,
					 "--timeline: unknown or repeated "
					 "column '%s' (columns: file, vm, "
					 "rss, pss, uss, dirty, swap, "
					 "relocs, shclean, shdirty, thp, "
					 "locked, charge)",
					 tok);
			n = -1;
			break;
		}
		cols[n++] = c;
	}
	free(s);
	if (!n) {
		view_usage_error(v, "--timeline wants columns, not '%s'", spec);
		n = -1;
	}
	return n;
}

/* The columns of the timeline into cols: --timeline=COLS, else those of
 * --fields that are sums, else the --sort column. Returns how many, or
 * -1 after the usage error. */
static int timeline_cols(const struct view *v, const char *spec,
			 enum col_id *cols)
{
	int n = 0;

	if (spec)
		return parse_cols(v, spec, cols);
	for (size_t i = 0; i < v->nfields; i++)
		if (col_sums(v->fields[i]))
			cols[n++] = v->fields[i];
	if (!n)
		cols[n++] = col_sums(v->sort) ? v->sort : COL_RSS;
	return n;
}

/* The message when cols[0..ncols-1] name a column res lacks, or NULL;
 * caller frees. */
static char *missing_col(const struct report_result *res,
			 const enum col_id *cols, int ncols)
{
	for (int i = 0; i < ncols; i++) {
		if (cols[i] == COL_PSS && !res->have_pss)
			return xstrdup("--timeline: no PSS in this recording "
				       "(recorded without CAP_SYS_ADMIN)");
		if (res->unknown_cols & (1u << cols[i]))
			return xasprintf("--timeline: no %s in this recording "
					 "(%s)",
					 coldefs[cols[i]].header,
					 res->have_pss
					     ? "recorded by an older memsz "
					       "or kernel"
					     : "recorded without "
					       "CAP_SYS_ADMIN");
	}
	return NULL;
}

int report_timeline(const struct view *vv, struct report_opts *o,
		    const char *spec)
{
	struct report_result res = {0};
	struct view v = *vv;
	enum col_id cols[COL__COUNT];
	struct labels *lb = NULL;
	char *msg = NULL;
	int ncols, ret = 1;

	v.kind = ROWS_TIMELINE;
	ncols = timeline_cols(&v, spec, cols);
	if (ncols < 0)
		return EXIT_USAGE;
	/* the fault samples are cut at one time per process, which a
	 * timeline of many snapshots does not have */
	for (size_t i = 0; i < v.nkeys; i++)
		if (keydefs[v.keys[i]].needs & KEY_NEEDS_FAULTS)
			return view_usage_error(&v,
						"--timeline does not take "
						"the key '%s'",
						keydefs[v.keys[i]].name);
	o->pick = PICK_ALL;
	lb = labels_new();
	if (report_build(o, lb, &res, &msg) < 0)
		goto out_msg;
	free(msg);
	msg = missing_col(&res, cols, ncols);
	if (msg)
		goto out_msg;
	/* series are ranked by the peak of the first column, or put in
	 * the order --sort names */
	view_finish(&v, res.t, cols[0]);
	ret = view_write(&v, res.t, cols, (size_t)ncols, false, &res.notes);
	goto out;
out_msg:
	view_error(v.fmt, msg);
out:
	free(msg);
	report_result_free(&res);
	labels_free(lb);
	return ret;
}
