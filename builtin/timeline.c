/* timeline.c — `memsz report --timeline`: the rows of a report at every
 * snapshot, from report_build() with PICK_ALL and rows/timeline.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "report/report.h"
#include "rows/timeline.h"
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
static int parse_cols(const struct view *v, const char *spec,
		      enum col_id *cols)
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
			view_usage_error(v, "--timeline: unknown or repeated "
					 "column '%s' (columns: file, vm, "
					 "rss, pss, uss, dirty, swap, "
					 "relocs, shclean, shdirty, thp, "
					 "locked)", tok);
			n = -1;
			break;
		}
		cols[n++] = c;
	}
	free(s);
	if (!n) {
		view_usage_error(v, "--timeline wants columns, not '%s'",
				 spec);
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

int report_timeline(const struct view *v, struct report_opts *o,
		    const char *spec)
{
	struct report_result res = { 0 };
	struct timeline_point *pts = NULL;
	struct rowtree **trees = NULL;
	struct timeline *tl = NULL;
	enum col_id cols[COL__COUNT];
	const char *keynames[KEYS_MAX];
	struct labels *lb = NULL;
	char *msg = NULL;
	struct strlist shown = { 0 };
	int ncols, ret = 1;

	ncols = timeline_cols(v, spec, cols);
	if (ncols < 0)
		return EXIT_USAGE;
	/* the fault samples are cut at one time per process, which a
	 * timeline of many snapshots does not have */
	for (size_t i = 0; i < v->nkeys; i++)
		if (keydefs[v->keys[i]].space == KEYSP_FAULT)
			return view_usage_error(v, "--timeline does not take "
						"the key '%s'",
						keydefs[v->keys[i]].name);
	o->pick = PICK_ALL;
	lb = labels_new();
	if (report_build(o, lb, &res, &msg) < 0) {
		out_error(v->fmt, msg);
		goto out;
	}
	for (int i = 0; i < ncols; i++) {
		if (cols[i] == COL_PSS && !res.have_pss) {
			out_error(v->fmt, "--timeline: no PSS in this "
					  "recording (recorded without "
					  "CAP_SYS_ADMIN)");
			goto out;
		}
		if (res.unknown_cols & (1u << cols[i])) {
			char *m = xasprintf("--timeline: no %s in this "
					    "recording (%s)",
					    coldefs[cols[i]].header,
					    res.have_pss ?
						    "recorded by an older "
						    "memsz or kernel" :
						    "recorded without "
						    "CAP_SYS_ADMIN");

			out_error(v->fmt, m);
			free(m);
			goto out;
		}
	}
	trees = xcalloc(res.nsteps + 1, sizeof(*trees));
	pts = xcalloc(res.nsteps + 1, sizeof(*pts));
	for (size_t i = 0; i < res.nsteps; i++) {
		trees[i] = res.steps[i].t;
		pts[i] = (struct timeline_point){ res.steps[i].time,
						  res.steps[i].time_last,
						  res.steps[i].nsnapshots };
	}
	tl = timeline_build(trees, pts, res.nsteps, cols, (size_t)ncols,
			    v->limit);
	if (!tl) {
		out_error(v->fmt, "no snapshot to show");
		goto out;
	}
	for (size_t i = 0; i < v->nkeys; i++)
		keynames[i] = keydefs[v->keys[i]].name;
	strlist_summarize(&res.notes, NULL, v->verbose, &shown);
	ret = 0;
	if (timeline_write(stdout, tl,
			   &(struct out_opts){
				   .fmt = v->fmt,
				   .keys = keynames,
				   .notes = (const char *const *)shown.lines,
				   .nnotes = shown.n,
			   }) < 0 ||
	    fflush(stdout) == EOF) {
		memsz_error("cannot write the timeline: %s",
			    memsz_strerror(-errno));
		ret = 1;
	} else if (v->fmt == OUT_CSV || v->fmt == OUT_TSV) {
		for (size_t i = 0; i < shown.n; i++)
			fprintf(stderr, "memsz: note: %s\n", shown.lines[i]);
	}
out:
	strlist_free(&shown);
	timeline_free(tl);
	free(trees);
	free(pts);
	free(msg);
	report_result_free(&res);
	labels_free(lb);
	return ret;
}
