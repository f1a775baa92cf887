/* timeline.c — see timeline.h */
#include "config.h"

#include "rows/timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows/fields.h"
#include "rows/json_writer.h"
#include "util/util.h"

struct tl_build {
	struct timeline *tl;
	struct labels *index;     /* path key -> series id */
	size_t cap;
	uint32_t path[64];
	size_t point;
};

/* Add the leaves under r (at level lvl) of the current point. */
static void add_leaves(struct tl_build *b, const struct row *r, size_t lvl)
{
	struct timeline *tl = b->tl;

	if (lvl == tl->depth) {
		char key[64 * 9 + 1];
		size_t n = 0;
		uint32_t id;
		struct timeline_series *s;

		for (size_t i = 0; i < tl->depth; i++)
			n += (size_t)snprintf(key + n, sizeof(key) - n, "%x,",
					      b->path[i]);
		id = labels_intern(b->index, key);
		if (id == tl->nseries) {
			xgrow(&tl->series, &b->cap, tl->nseries + 1,
			      sizeof(*tl->series));
			s = &tl->series[tl->nseries++];
			memset(s, 0, sizeof(*s));
			s->path = xcalloc(tl->depth + 1, sizeof(*s->path));
			memcpy(s->path, b->path, tl->depth * sizeof(*s->path));
			s->vals = xcalloc(tl->npoints * tl->ncols,
					  sizeof(*s->vals));
		}
		s = &tl->series[id];
		for (size_t c = 0; c < tl->ncols; c++)
			s->vals[b->point * tl->ncols + c] +=
				r->vals[tl->cols[c]];
		return;
	}
	for (size_t i = 0; i < r->nchildren; i++) {
		b->path[lvl] = r->children[i].label;
		add_leaves(b, &r->children[i], lvl + 1);
	}
}

static int series_cmp(const void *a, const void *b, void *arg)
{
	const struct timeline_series *x = a, *y = b;
	const struct timeline *tl = arg;

	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	for (size_t i = 0; i < tl->depth; i++) {
		int d = strcmp(labels_str(tl->lb, x->path[i]),
			       labels_str(tl->lb, y->path[i]));

		if (d)
			return d;
	}
	return 0;
}

/* Keep the top limit series, summing the rest into "[N others]". */
static void fold(struct timeline *tl, size_t limit)
{
	struct timeline_series others = { 0 };
	size_t nv = tl->npoints * tl->ncols;

	if (!limit || tl->nseries <= limit)
		return;
	others.folded = tl->nseries - limit;
	others.vals = xcalloc(nv, sizeof(*others.vals));
	for (size_t i = limit; i < tl->nseries; i++) {
		for (size_t v = 0; v < nv; v++)
			others.vals[v] += tl->series[i].vals[v];
		free(tl->series[i].path);
		free(tl->series[i].vals);
	}
	tl->series[limit] = others;
	tl->nseries = limit + 1;
}

struct timeline *timeline_build(struct rowtree *const *trees,
				const struct timeline_point *points,
				size_t npoints, const enum col_id *cols,
				size_t ncols, size_t limit)
{
	struct tl_build b = { 0 };
	struct timeline *tl;

	if (!npoints || !ncols || trees[0]->depth > ARRAY_SIZE(b.path))
		return NULL;
	tl = xcalloc(1, sizeof(*tl));
	tl->lb = trees[0]->lb;
	tl->depth = trees[0]->depth;
	tl->npoints = npoints;
	tl->points = xcalloc(npoints, sizeof(*tl->points));
	memcpy(tl->points, points, npoints * sizeof(*points));
	tl->ncols = MIN(ncols, (size_t)COL__COUNT);
	memcpy(tl->cols, cols, tl->ncols * sizeof(*cols));
	tl->total = xcalloc(npoints * tl->ncols, sizeof(*tl->total));
	b.tl = tl;
	b.index = labels_new();
	for (b.point = 0; b.point < npoints; b.point++) {
		add_leaves(&b, &trees[b.point]->total, 0);
		for (size_t c = 0; c < tl->ncols; c++)
			tl->total[b.point * tl->ncols + c] =
				trees[b.point]->total.vals[tl->cols[c]];
	}
	labels_free(b.index);
	for (size_t i = 0; i < tl->nseries; i++)
		for (size_t p = 0; p < npoints; p++)
			tl->series[i].peak = MAX(tl->series[i].peak,
						 tl->series[i].vals[p * tl->ncols]);
	qsort_r(tl->series, tl->nseries, sizeof(*tl->series), series_cmp, tl);
	fold(tl, limit);
	return tl;
}

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->nseries; i++) {
		free(tl->series[i].path);
		free(tl->series[i].vals);
	}
	free(tl->series);
	free(tl->points);
	free(tl->total);
	free(tl);
}

/* ---- writers ---- */

/* The name of series s: its labels joined by " / ", or "[N others]".
 * Caller frees. */
static char *series_name(const struct timeline *tl,
			 const struct timeline_series *s)
{
	char *out = NULL, *t;

	if (!s->path)
		return xasprintf("[%" PRIu64 " others]", s->folded);
	for (size_t i = 0; i < tl->depth; i++) {
		t = xasprintf("%s%s%s", out ? out : "", out ? " / " : "",
			      labels_str(tl->lb, s->path[i]));
		free(out);
		out = t;
	}
	return out ? out : xstrdup("");
}

static char *fmt_secs(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000,
		 ns % 1000000000 / 1000);
	return buf;
}

#define TL_W 9

static void table_vals(FILE *f, const struct timeline *tl, size_t c,
		       const uint64_t *vals)
{
	enum col_id col = tl->cols[c];
	char buf[32];

	for (size_t p = 0; p < tl->npoints; p++) {
		uint64_t v = vals[p * tl->ncols + c];

		if (coldefs[col].count)
			snprintf(buf, sizeof(buf), "%" PRIu64, v);
		else
			fmt_human(buf, sizeof(buf),
				  (double)v /
					  (double)(UINT64_C(1)
						   << coldefs[col].shift));
		fprintf(f, "%*s", TL_W, buf);
	}
}

static void table_write(FILE *f, const struct timeline *tl,
			const struct out_opts *o)
{
	char buf[32];

	for (size_t c = 0; c < tl->ncols; c++) {
		if (c)
			fputc('\n', f);
		fprintf(f, "%s at each snapshot (seconds since the recording "
			   "began)\n", coldefs[tl->cols[c]].header);
		for (size_t p = 0; p < tl->npoints; p++) {
			uint64_t ms = tl->points[p].time / 1000000;

			snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64 "s",
				 ms / 1000, ms % 1000);
			fprintf(f, "%*s", TL_W, buf);
		}
		fputc('\n', f);
		for (size_t p = 0; p < tl->npoints; p++)
			fprintf(f, " %.*s", TL_W - 1, "----------------");
		fputc('\n', f);
		for (size_t i = 0; i < tl->nseries; i++) {
			char *name = series_name(tl, &tl->series[i]);

			table_vals(f, tl, c, tl->series[i].vals);
			fputs("   ", f);
			out_put_label(f, name, 0);
			fputc('\n', f);
			free(name);
		}
		table_vals(f, tl, c, tl->total);
		fputs("   TOTAL\n", f);
	}
	for (size_t i = 0; i < o->nnotes; i++)
		fprintf(f, "%s\n", o->notes[i]);
}

/* One csv/tsv line: series s at point p. */
static void csv_line(FILE *f, const struct timeline *tl,
		     const struct timeline_series *s, size_t p, bool tsv)
{
	char sep = tsv ? '\t' : ',';
	char buf[32];

	for (size_t k = 0; k < tl->depth; k++) {
		if (s->path)
			out_csv_field(f, labels_str(tl->lb, s->path[k]), tsv);
		else if (!k)
			fprintf(f, "[%" PRIu64 " others]", s->folded);
		fputc(sep, f);
	}
	fprintf(f, "%zu%c%s", p, sep,
		fmt_secs(buf, sizeof(buf), tl->points[p].time));
	for (size_t c = 0; c < tl->ncols; c++)
		fprintf(f, "%c%s", sep,
			out_fmt_value(buf, sizeof(buf),
				      s->vals[p * tl->ncols + c],
				      coldefs[tl->cols[c]].shift));
	fputc('\n', f);
}

static void csv_write(FILE *f, const struct timeline *tl,
		      const struct out_opts *o, bool tsv)
{
	char sep = tsv ? '\t' : ',';
	char buf[32];

	for (size_t i = 0; i < tl->depth; i++) {
		out_csv_field(f, out_level_key(o, i, buf, sizeof(buf)), tsv);
		fputc(sep, f);
	}
	fprintf(f, "snapshot%ctime", sep);
	for (size_t c = 0; c < tl->ncols; c++)
		fprintf(f, "%c%s", sep, coldefs[tl->cols[c]].key);
	fputc('\n', f);
	for (size_t i = 0; i < tl->nseries; i++)
		for (size_t p = 0; p < tl->npoints; p++)
			csv_line(f, tl, &tl->series[i], p, tsv);
}

static void json_vals(struct jw *w, const struct timeline *tl,
		      const uint64_t *vals)
{
	char buf[32];

	for (size_t c = 0; c < tl->ncols; c++) {
		jw_name(w, coldefs[tl->cols[c]].key);
		jw_start_array(w);
		for (size_t p = 0; p < tl->npoints; p++)
			jw_number(w, out_fmt_value(buf, sizeof(buf),
						   vals[p * tl->ncols + c],
						   coldefs[tl->cols[c]].shift));
		jw_end_array(w);
	}
}

static int json_write(FILE *f, const struct timeline *tl,
		      const struct out_opts *o)
{
	struct jw *w = jw_new(f, true);
	char buf[32];

	jw_start_object(w);
	out_json_head(w, o, tl->depth, tl->cols, tl->ncols);
	jw_name(w, "snapshots");
	jw_start_array(w);
	for (size_t p = 0; p < tl->npoints; p++) {
		jw_start_object(w);
		jw_uint_field(w, "index", p);
		jw_name(w, "time");
		jw_number(w, fmt_secs(buf, sizeof(buf), tl->points[p].time));
		jw_name(w, "time_last");
		jw_number(w, fmt_secs(buf, sizeof(buf),
				      tl->points[p].time_last));
		jw_uint_field(w, "processes", tl->points[p].nsnapshots);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_name(w, "total");
	jw_start_object(w);
	json_vals(w, tl, tl->total);
	jw_end_object(w);
	jw_name(w, "rows");
	jw_start_array(w);
	for (size_t i = 0; i < tl->nseries; i++) {
		const struct timeline_series *s = &tl->series[i];
		char *name = series_name(tl, s);

		jw_start_object(w);
		jw_name(w, "path");
		jw_start_array(w);
		for (size_t k = 0; k < tl->depth; k++)
			if (s->path)
				jw_string(w, labels_str(tl->lb, s->path[k]));
			else if (!k)
				jw_string(w, name);
		jw_end_array(w);
		if (s->folded)
			jw_uint_field(w, "others", s->folded);
		json_vals(w, tl, s->vals);
		jw_end_object(w);
		free(name);
	}
	jw_end_array(w);
	jw_name(w, "notes");
	jw_start_array(w);
	for (size_t i = 0; i < o->nnotes; i++)
		jw_string(w, o->notes[i]);
	jw_end_array(w);
	jw_end_object(w);
	return jw_finish(w);
}

int timeline_write(FILE *f, const struct timeline *tl,
		   const struct out_opts *o)
{
	int err = 0;

	errno = 0;
	switch (o->fmt) {
	case OUT_TABLE:
		table_write(f, tl, o);
		break;
	case OUT_CSV:
	case OUT_TSV:
		csv_write(f, tl, o, o->fmt == OUT_TSV);
		break;
	case OUT_JSON:
		err = json_write(f, tl, o);
		break;
	default:
		return -EINVAL;
	}
	return out_finish(f, err);
}
