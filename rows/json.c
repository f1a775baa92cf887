// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c — the json writer for every kind of tree: the nested rows of one
 * value set or of a diff, a timeline's series with a value per point.
 * See output.h. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows/fields.h"
#include "rows/json_writer.h"
#include "rows/output.h"
#include "util/util.h"

/* ---- the values of a row, per kind ---- */

static void single_vals(struct jw *w, const struct rowtree *t,
			const struct out_opts *o, const struct row *r)
{
	char num[32];

	(void)t;
	for (size_t c = 0; c < o->ncols; c++) {
		enum col_id col = o->cols[c];

		jw_name(w, coldefs[col].key);
		if (!*out_col_text(num, sizeof(num), r, col))
			jw_null(w); /* RES% where VM SIZE is 0 */
		else
			jw_number(w, num);
	}
}

static void diff_vals(struct jw *w, const struct rowtree *t,
		      const struct out_opts *o, const struct row *r)
{
	char num[32];

	(void)t;
	for (size_t k = 0; k < o->ncols; k++) {
		enum col_id col = o->cols[k];
		unsigned sh = coldefs[col].shift;

		jw_name(w, coldefs[col].key);
		jw_start_object(w);
		jw_name(w, "old");
		jw_number(w, out_fmt_value(num, sizeof(num), r->vals[col], sh));
		jw_name(w, "new");
		jw_number(
		    w, out_fmt_value(num, sizeof(num), row_set(r, 1)[col], sh));
		jw_name(w, "delta");
		jw_number(w, out_fmt_delta(num, sizeof(num), r, col));
		jw_end_object(w);
	}
}

static void timeline_vals(struct jw *w, const struct rowtree *t,
			  const struct out_opts *o, const struct row *r)
{
	char buf[32];

	for (size_t c = 0; c < o->ncols; c++) {
		enum col_id col = o->cols[c];

		jw_name(w, coldefs[col].key);
		jw_start_array(w);
		for (size_t p = 0; p < t->nsets; p++)
			jw_number(w, out_fmt_value(buf, sizeof(buf),
						   row_set(r, p)[col],
						   coldefs[col].shift));
		jw_end_array(w);
	}
}

/* ---- the rows ---- */

/* The other names of r's label, if any. */
static void json_aliases(struct jw *w, const struct rowtree *t,
			 const struct row *r)
{
	size_t nal;
	const char *const *al = labels_aliases(t->lb, r->label, &nal);

	if (!nal)
		return;
	jw_name(w, "aliases");
	jw_start_array(w);
	for (size_t j = 0; j < nal; j++)
		jw_string(w, al[j]);
	jw_end_array(w);
}

struct json_kind;

static void nested_rows(struct jw *w, const struct rowtree *t,
			const struct out_opts *o, const struct row *r);
static void series_rows(struct jw *w, const struct rowtree *t,
			const struct out_opts *o, const struct row *r);
static void timeline_points(struct jw *w, const struct rowtree *t);

/* What differs between the kinds: a row's values, whether rows list
 * their aliases or their change, how rows are listed, and what comes
 * before the total and after the rows. */
static const struct json_kind {
	void (*vals)(struct jw *w, const struct rowtree *t,
		     const struct out_opts *o, const struct row *r);
	bool aliases, change, unchanged;
	void (*rows)(struct jw *w, const struct rowtree *t,
		     const struct out_opts *o, const struct row *r);
	void (*before_total)(struct jw *w, const struct rowtree *t);
} json_kinds[ROWS__KIND_COUNT] = {
    [ROWS_SINGLE] = {single_vals, true, false, false, nested_rows, NULL},
    [ROWS_DIFF] = {diff_vals, false, true, true, nested_rows, NULL},
    [ROWS_TIMELINE] = {timeline_vals, false, false, false, series_rows,
		       timeline_points},
};

/* The rows under r, nested (one value set, a diff). */
static void nested_rows(struct jw *w, const struct rowtree *t,
			const struct out_opts *o, const struct row *r)
{
	const struct json_kind *k = &json_kinds[t->kind];

	jw_name(w, "rows");
	jw_start_array(w);
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct row *ch = &r->children[i];

		jw_start_object(w);
		jw_string_field(w, "name", labels_str(t->lb, ch->label));
		if (k->aliases)
			json_aliases(w, t, ch);
		if (k->change)
			jw_string_field(w, "change", out_change_name(t, ch));
		if (ch->folded)
			jw_uint_field(w, "others", ch->folded);
		k->vals(w, t, o, ch);
		if (ch->nchildren)
			nested_rows(w, t, o, ch);
		jw_end_object(w);
	}
	jw_end_array(w);
}

/* A timeline's series: one object per chain under r with its path. */
static void series_rows(struct jw *w, const struct rowtree *t,
			const struct out_opts *o, const struct row *r)
{
	jw_name(w, "rows");
	jw_start_array(w);
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct row *s = &r->children[i], *leaf = s;

		jw_start_object(w);
		jw_name(w, "path");
		jw_start_array(w);
		jw_string(w, labels_str(t->lb, s->label));
		while (leaf->nchildren == 1 && !leaf->folded) {
			leaf = &leaf->children[0];
			jw_string(w, labels_str(t->lb, leaf->label));
		}
		jw_end_array(w);
		if (s->folded)
			jw_uint_field(w, "others", s->folded);
		timeline_vals(w, t, o, s); /* the head holds the values */
		jw_end_object(w);
	}
	jw_end_array(w);
}

static void timeline_points(struct jw *w, const struct rowtree *t)
{
	char buf[32];

	jw_name(w, "snapshots");
	jw_start_array(w);
	for (size_t p = 0; p < t->nsets; p++) {
		jw_start_object(w);
		jw_uint_field(w, "index", p);
		jw_name(w, "time");
		jw_number(w, out_fmt_secs(buf, sizeof(buf), t->points[p].time));
		jw_name(w, "time_last");
		jw_number(
		    w, out_fmt_secs(buf, sizeof(buf), t->points[p].time_last));
		jw_uint_field(w, "processes", t->points[p].nsnapshots);
		jw_end_object(w);
	}
	jw_end_array(w);
}

int out_json_write(FILE *f, const struct rowtree *t, const struct out_opts *o)
{
	const struct json_kind *k = &json_kinds[t->kind];
	struct jw *w = jw_new(f, true);

	jw_start_object(w);
	out_json_head(w, o, t->depth, o->cols, o->ncols);
	if (k->before_total)
		k->before_total(w, t);
	jw_name(w, "total");
	jw_start_object(w);
	k->vals(w, t, o, &t->total);
	jw_end_object(w);
	k->rows(w, t, o, &t->total);
	if (k->unchanged)
		jw_uint_field(w, "unchanged", t->unchanged);
	out_json_notes(w, o);
	jw_end_object(w);
	return jw_finish(w);
}
