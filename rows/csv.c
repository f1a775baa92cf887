// SPDX-License-Identifier: GPL-2.0-or-later
/* csv.c — the csv and tsv writer: one line per leaf with its key path
 * (a timeline: per leaf and point), for every kind of tree. See
 * output.h. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows/fields.h"
#include "rows/output.h"
#include "util/util.h"

struct csv {
	FILE *f;
	const struct rowtree *t;
	const struct out_opts *o;
	bool tsv;
	char sep;
	const char **path;	/* labels of the current leaf's path */
	uint32_t *ids;		/* their ids */
	const struct row *head; /* its row at level 0: a timeline's series */
};

/* The aliases of every label of a path, joined by ";", as one field. */
static void csv_aliases(const struct csv *c, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	for (size_t i = 0; m && i < n; i++) {
		size_t nal;
		const char *const *al =
		    labels_aliases(c->t->lb, c->ids[i], &nal);

		for (size_t j = 0; j < nal; j++)
			fprintf(m, "%s%s", ftell(m) ? ";" : "", al[j]);
	}
	if (m && fclose(m) == 0) {
		out_csv_field(c->f, buf, c->tsv);
		free(buf);
	}
}

/* The key fields of a leaf at level: its path, empty past it. */
static void key_fields(const struct csv *c, size_t level)
{
	for (size_t k = 0; k < c->t->depth; k++) {
		if (k)
			fputc(c->sep, c->f);
		if (k <= level)
			out_csv_field(c->f, c->path[k], c->tsv);
	}
}

/* ---- one value set ---- */

static void single_head(const struct csv *c)
{
	for (size_t i = 0; i < c->o->ncols; i++) {
		if (c->t->depth || i)
			fputc(c->sep, c->f);
		fputs(coldefs[c->o->cols[i]].key, c->f);
	}
	if (c->o->aliases)
		fprintf(c->f, "%caliases", c->sep);
	fputc('\n', c->f);
}

static void single_leaf(const struct csv *c, const struct row *r, size_t level)
{
	char num[32];

	key_fields(c, level);
	for (size_t k = 0; k < c->o->ncols; k++) {
		if (c->t->depth || k)
			fputc(c->sep, c->f);
		fputs(out_col_text(num, sizeof(num), r, c->o->cols[k]), c->f);
	}
	if (c->o->aliases) {
		fputc(c->sep, c->f);
		csv_aliases(c, level + 1);
	}
	fputc('\n', c->f);
}

/* ---- diff ---- */

static void diff_head(const struct csv *c)
{
	for (size_t k = 0; k < c->o->ncols; k++) {
		const char *key = coldefs[c->o->cols[k]].key;

		if (c->t->depth || k)
			fputc(c->sep, c->f);
		fprintf(c->f, "%s_old%c%s_new%c%s_delta", key, c->sep, key,
			c->sep, key);
	}
	fprintf(c->f, "%cchange\n", c->sep);
}

static void diff_leaf(const struct csv *c, const struct row *r, size_t level)
{
	char num[32];

	key_fields(c, level);
	for (size_t k = 0; k < c->o->ncols; k++) {
		enum col_id col = c->o->cols[k];
		unsigned sh = coldefs[col].shift;

		if (c->t->depth || k)
			fputc(c->sep, c->f);
		fprintf(c->f, "%s%c",
			out_fmt_value(num, sizeof(num), r->vals[col], sh),
			c->sep);
		fprintf(c->f, "%s%c",
			out_fmt_value(num, sizeof(num), row_set(r, 1)[col], sh),
			c->sep);
		fputs(out_fmt_delta(num, sizeof(num), r, col), c->f);
	}
	fprintf(c->f, "%c%s\n", c->sep, out_change_name(c->t, r));
}

/* ---- timeline ---- */

static void timeline_head(const struct csv *c)
{
	/* the key fields first, each followed by a separator */
	fputc(c->sep, c->f);
	fprintf(c->f, "snapshot%ctime", c->sep);
	for (size_t k = 0; k < c->o->ncols; k++)
		fprintf(c->f, "%c%s", c->sep, coldefs[c->o->cols[k]].key);
	fputc('\n', c->f);
}

/* The lines of series c->head (r ends its chain), one per point. */
static void timeline_leaf(const struct csv *c, const struct row *r,
			  size_t level)
{
	char buf[32];

	r = c->head;
	for (size_t p = 0; p < c->t->nsets; p++) {
		key_fields(c, level);
		fprintf(c->f, "%c%zu%c%s", c->sep, p, c->sep,
			out_fmt_secs(buf, sizeof(buf), c->t->points[p].time));
		for (size_t k = 0; k < c->o->ncols; k++) {
			enum col_id col = c->o->cols[k];

			fprintf(c->f, "%c%s", c->sep,
				out_fmt_value(buf, sizeof(buf),
					      row_set(r, p)[col],
					      coldefs[col].shift));
		}
		fputc('\n', c->f);
	}
}

/* The header after the key names, and the line(s) of a leaf. */
static const struct {
	void (*head)(const struct csv *c);
	void (*leaf)(const struct csv *c, const struct row *r, size_t level);
} csv_kinds[ROWS__KIND_COUNT] = {
    [ROWS_SINGLE] = {single_head, single_leaf},
    [ROWS_DIFF] = {diff_head, diff_leaf},
    [ROWS_TIMELINE] = {timeline_head, timeline_leaf},
};

static void csv_tree(struct csv *c, const struct row *r, size_t level)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct row *ch = &r->children[i];

		c->path[level] = labels_str(c->t->lb, ch->label);
		c->ids[level] = ch->label;
		if (!level)
			c->head = ch;
		if (ch->nchildren)
			csv_tree(c, ch, level + 1);
		else
			csv_kinds[c->t->kind].leaf(c, ch, level);
	}
}

static int csv_write(FILE *f, const struct rowtree *t, const struct out_opts *o,
		     bool tsv)
{
	struct csv c = {
	    .f = f, .t = t, .o = o, .tsv = tsv, .sep = tsv ? '\t' : ','};
	char buf[32];

	for (size_t i = 0; i < t->depth; i++) {
		if (i)
			fputc(c.sep, f);
		out_csv_field(f, out_level_key(o, i, buf, sizeof(buf)), tsv);
	}
	csv_kinds[t->kind].head(&c);
	c.path = xcalloc(t->depth + 1, sizeof(*c.path));
	c.ids = xcalloc(t->depth + 1, sizeof(*c.ids));
	csv_tree(&c, &t->total, 0);
	free(c.ids);
	free(c.path);
	return 0;
}

int out_csv_write(FILE *f, const struct rowtree *t, const struct out_opts *o)
{
	return csv_write(f, t, o, false);
}

int out_tsv_write(FILE *f, const struct rowtree *t, const struct out_opts *o)
{
	return csv_write(f, t, o, true);
}
