/* difftree.c — see difftree.h */
#include "config.h"

#include "rows/difftree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows/fields.h"
#include "rows/json_writer.h"
#include "util/util.h"

/* ---- merge ---- */

struct side {
	const struct row *r;
	uint32_t label;         /* after renames */
};

struct merge_ctx {
	const struct diff_rename *renames;
	size_t nrenames;
};

static uint32_t renamed(const struct merge_ctx *m, uint32_t label)
{
	for (size_t i = 0; i < m->nrenames; i++)
		if (m->renames[i].from == label)
			return m->renames[i].to;
	return label;
}

static int side_cmp(const void *a, const void *b)
{
	const struct side *x = a, *y = b;

	return x->label < y->label ? -1 : x->label > y->label;
}

/* The children of r (NULL: none) with renamed labels, sorted by label;
 * caller frees. */
static struct side *sides_of(const struct merge_ctx *m, const struct row *r,
			     size_t *n, bool rename)
{
	struct side *s;

	*n = r ? r->nchildren : 0;
	s = xcalloc(*n + 1, sizeof(*s));
	for (size_t i = 0; i < *n; i++) {
		s[i].r = &r->children[i];
		s[i].label = rename ? renamed(m, r->children[i].label) :
				      r->children[i].label;
	}
	qsort(s, *n, sizeof(*s), side_cmp);
	return s;
}

/* Fill d from o (OLD's row or NULL) and n (NEW's row or NULL). */
static void merge_rows(const struct merge_ctx *m, struct diffrow *d,
		       const struct row *o, const struct row *n)
{
	struct side *so, *sn;
	size_t no, nn, i = 0, j = 0;

	d->state = !o ? DIFF_NEW : !n ? DIFF_GONE : DIFF_BOTH;
	if (o)
		memcpy(d->old, o->vals, sizeof(d->old));
	if (n)
		memcpy(d->new, n->vals, sizeof(d->new));
	so = sides_of(m, o, &no, true);
	sn = sides_of(m, n, &nn, false);
	d->children = xcalloc(no + nn + 1, sizeof(*d->children));
	while (i < no || j < nn) {
		struct diffrow *c = &d->children[d->nchildren++];
		const struct row *ro = NULL, *rn = NULL;

		if (j >= nn || (i < no && so[i].label < sn[j].label)) {
			c->label = so[i].label;
			ro = so[i++].r;
		} else if (i >= no || sn[j].label < so[i].label) {
			c->label = sn[j].label;
			rn = sn[j++].r;
		} else {
			c->label = sn[j].label;
			ro = so[i++].r;
			rn = sn[j++].r;
		}
		merge_rows(m, c, ro, rn);
	}
	free(so);
	free(sn);
}

struct difftree *diff_merge(const struct rowtree *old,
			    const struct rowtree *new,
			    const struct diff_rename *renames,
			    size_t nrenames)
{
	struct merge_ctx m = { renames, nrenames };
	struct difftree *d;

	if (old->depth != new->depth || old->lb != new->lb)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->lb = new->lb;
	d->depth = new->depth;
	merge_rows(&m, &d->total, &old->total, &new->total);
	d->total.label = LABEL_NONE;
	d->total.state = DIFF_BOTH;
	return d;
}

static void diffrow_free_children(struct diffrow *r)
{
	for (size_t i = 0; i < r->nchildren; i++)
		diffrow_free_children(&r->children[i]);
	free(r->children);
	r->children = NULL;
	r->nchildren = 0;
}

void diff_free(struct difftree *d)
{
	if (!d)
		return;
	diffrow_free_children(&d->total);
	free(d);
}

/* ---- finish ---- */

static bool row_same(const struct diffrow *r)
{
	return r->state == DIFF_BOTH && !memcmp(r->old, r->new, sizeof(r->old));
}

/* Drop r's unchanged children; true if r itself can go too. */
static bool prune(struct difftree *d, struct diffrow *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nchildren; i++) {
		if (prune(d, &r->children[i])) {
			diffrow_free_children(&r->children[i]);
			d->unchanged++;
			continue;
		}
		r->children[k++] = r->children[i];
	}
	r->nchildren = k;
	return !k && row_same(r);
}

static uint64_t abs_delta(const struct diffrow *r, enum col_id c)
{
	return r->new[c] > r->old[c] ? r->new[c] - r->old[c] :
				       r->old[c] - r->new[c];
}

struct sort_ctx {
	const struct labels *lb;
	enum col_id col;
};

static int drow_cmp(const void *a, const void *b, void *arg)
{
	const struct diffrow *x = a, *y = b;
	const struct sort_ctx *ctx = arg;
	uint64_t dx = abs_delta(x, ctx->col), dy = abs_delta(y, ctx->col);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->label == y->label)
		return 0;
	return strcmp(labels_str(ctx->lb, x->label),
		      labels_str(ctx->lb, y->label));
}

static void finish_row(struct difftree *d, struct diffrow *r,
		       const struct sort_ctx *ctx, size_t limit)
{
	if (!r->nchildren)
		return;
	qsort_r(r->children, r->nchildren, sizeof(*r->children), drow_cmp,
		(void *)ctx);
	if (limit && r->nchildren > limit) {
		struct diffrow others = { .state = DIFF_BOTH };
		char name[48];

		others.folded = r->nchildren - limit;
		for (size_t i = limit; i < r->nchildren; i++) {
			for (int c = 0; c < COL__COUNT; c++) {
				others.old[c] += r->children[i].old[c];
				others.new[c] += r->children[i].new[c];
			}
			diffrow_free_children(&r->children[i]);
		}
		snprintf(name, sizeof(name), "[%" PRIu64 " others]",
			 others.folded);
		others.label = labels_intern(d->lb, name);
		r->children[limit] = others;
		r->nchildren = limit + 1;
	}
	for (size_t i = 0; i < r->nchildren; i++)
		if (!r->children[i].folded)
			finish_row(d, &r->children[i], ctx, limit);
}

void diff_finish(struct difftree *d, enum col_id sort, size_t limit)
{
	struct sort_ctx ctx = { d->lb, sort };

	prune(d, &d->total);
	finish_row(d, &d->total, &ctx, limit);
}

bool diff_col_is_zero(const struct difftree *d, enum col_id c)
{
	return !d->total.old[c] && !d->total.new[c];
}

/* ---- values ---- */

/* NEW - OLD of column c as csv/json print it: "-12.50", "4096", "0". */
static char *fmt_delta(char *buf, size_t len, const struct diffrow *r,
		       enum col_id c)
{
	char num[24];
	bool neg = r->new[c] < r->old[c];

	out_fmt_value(num, sizeof(num), abs_delta(r, c), coldefs[c].shift);
	snprintf(buf, len, "%s%s", neg && abs_delta(r, c) ? "-" : "", num);
	return buf;
}

/* A value for the table: human size, or the whole count. */
static char *table_value(char *buf, size_t len, enum col_id c, double v,
			 bool sign)
{
	char num[24];

	if (coldefs[c].count)
		snprintf(num, sizeof(num), "%.0f", v < 0 ? -v : v);
	else
		fmt_human(num, sizeof(num),
			  (v < 0 ? -v : v) /
				  (double)(UINT64_C(1) << coldefs[c].shift));
	snprintf(buf, len, "%s%s", !sign || v == 0 ? "" : v < 0 ? "-" : "+",
		 num);
	return buf;
}

static const char *change_name(const struct diffrow *r)
{
	if (r->state == DIFF_NEW)
		return "new";
	if (r->state == DIFF_GONE)
		return "gone";
	return row_same(r) ? "same" : "changed";
}

/* ---- table ---- */

#define DT_W 8                  /* OLD and NEW */
#define DT_DW 9                 /* the change, with its sign */
#define DT_GROUP (DT_W + 1 + DT_W + 1 + DT_DW + 2)

static void dtable_row(FILE *f, const struct difftree *d,
		       const struct out_opts *o, const struct diffrow *r,
		       size_t level, bool total)
{
	char a[32], b[32], c[32];

	for (size_t k = 0; k < o->ncols; k++) {
		enum col_id col = o->cols[k];

		fprintf(f, "%*s %*s %*s  ", DT_W,
			table_value(a, sizeof(a), col, (double)r->old[col],
				    false),
			DT_W,
			table_value(b, sizeof(b), col, (double)r->new[col],
				    false),
			DT_DW,
			table_value(c, sizeof(c), col,
				    (double)r->new[col] - (double)r->old[col],
				    true));
	}
	fputs("  ", f);
	for (size_t i = 0; i < level; i++)
		fputs("    ", f);
	if (total) {
		fputs("TOTAL\n", f);
		return;
	}
	out_put_label(f, labels_str(d->lb, r->label), 0);
	if (r->state == DIFF_NEW)
		fputs(" [new]", f);
	else if (r->state == DIFF_GONE)
		fputs(" [gone]", f);
	fputc('\n', f);
}

static void dtable_tree(FILE *f, const struct difftree *d,
			const struct out_opts *o, const struct diffrow *r,
			size_t level)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		dtable_row(f, d, o, &r->children[i], level, false);
		dtable_tree(f, d, o, &r->children[i], level + 1);
	}
}

/* Write the n bytes of line without their trailing spaces, and a
 * newline. */
static void put_rstrip(FILE *f, const char *line, size_t n)
{
	while (n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, f);
	fputc('\n', f);
}

static void dtable_write(FILE *f, const struct difftree *d,
			 const struct out_opts *o)
{
	size_t w = o->ncols * (DT_GROUP + 4) + 1, pos = 0;
	char *line = xmalloc(w);

	for (size_t k = 0; k < o->ncols; k++) {
		const char *h = coldefs[o->cols[k]].header;
		int hl = (int)strlen(h), left = (DT_GROUP - 2 - hl) / 2;

		pos += (size_t)snprintf(line + pos, w - pos, "%*s%s%*s", left,
					"", h, DT_GROUP - left - hl, "");
	}
	put_rstrip(f, line, pos);
	pos = 0;
	for (size_t k = 0; k < o->ncols; k++)
		/* "\xce\x94" (a capital delta) is two bytes of UTF-8 but
		 * one column wide */
		pos += (size_t)snprintf(line + pos, w - pos,
					"%*s %*s %*s\xce\x94  ", DT_W, "OLD",
					DT_W, "NEW", DT_DW - 1, "");
	put_rstrip(f, line, pos);
	pos = 0;
	for (size_t k = 0; k < o->ncols; k++) {
		memset(line + pos, '-', DT_GROUP - 2);
		memset(line + pos + DT_GROUP - 2, ' ', 2);
		pos += DT_GROUP;
	}
	put_rstrip(f, line, pos);
	free(line);
	dtable_tree(f, d, o, &d->total, 0);
	dtable_row(f, d, o, &d->total, 0, true);
	for (size_t i = 0; i < o->nnotes; i++)
		fprintf(f, "%s\n", o->notes[i]);
}

/* ---- csv / tsv ---- */

static void dcsv_leaf(FILE *f, const struct difftree *d,
		      const struct out_opts *o, const struct diffrow *r,
		      const char **path, size_t level, bool tsv)
{
	char sep = tsv ? '\t' : ',';
	char num[32];

	for (size_t c = 0; c < d->depth; c++) {
		if (c)
			fputc(sep, f);
		if (c <= level)
			out_csv_field(f, path[c], tsv);
	}
	for (size_t k = 0; k < o->ncols; k++) {
		enum col_id col = o->cols[k];
		unsigned sh = coldefs[col].shift;

		if (d->depth || k)
			fputc(sep, f);
		fprintf(f, "%s%c", out_fmt_value(num, sizeof(num),
						 r->old[col], sh), sep);
		fprintf(f, "%s%c", out_fmt_value(num, sizeof(num),
						 r->new[col], sh), sep);
		fputs(fmt_delta(num, sizeof(num), r, col), f);
	}
	fprintf(f, "%c%s\n", sep, change_name(r));
}

static void dcsv_tree(FILE *f, const struct difftree *d,
		      const struct out_opts *o, const struct diffrow *r,
		      const char **path, size_t level, bool tsv)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct diffrow *ch = &r->children[i];

		path[level] = labels_str(d->lb, ch->label);
		if (ch->nchildren)
			dcsv_tree(f, d, o, ch, path, level + 1, tsv);
		else
			dcsv_leaf(f, d, o, ch, path, level, tsv);
	}
}

static void dcsv_write(FILE *f, const struct difftree *d,
		       const struct out_opts *o, bool tsv)
{
	char sep = tsv ? '\t' : ',';
	const char **path;
	char buf[32];

	for (size_t i = 0; i < d->depth; i++) {
		if (i)
			fputc(sep, f);
		out_csv_field(f, out_level_key(o, i, buf, sizeof(buf)), tsv);
	}
	for (size_t k = 0; k < o->ncols; k++) {
		const char *key = coldefs[o->cols[k]].key;

		if (d->depth || k)
			fputc(sep, f);
		fprintf(f, "%s_old%c%s_new%c%s_delta", key, sep, key, sep,
			key);
	}
	fprintf(f, "%cchange\n", sep);
	path = xcalloc(d->depth + 1, sizeof(*path));
	dcsv_tree(f, d, o, &d->total, path, 0, tsv);
	free(path);
}

/* ---- json ---- */

static void djson_vals(struct jw *w, const struct out_opts *o,
		       const struct diffrow *r)
{
	char num[32];

	for (size_t k = 0; k < o->ncols; k++) {
		enum col_id col = o->cols[k];
		unsigned sh = coldefs[col].shift;

		jw_name(w, coldefs[col].key);
		jw_start_object(w);
		jw_name(w, "old");
		jw_number(w, out_fmt_value(num, sizeof(num), r->old[col], sh));
		jw_name(w, "new");
		jw_number(w, out_fmt_value(num, sizeof(num), r->new[col], sh));
		jw_name(w, "delta");
		jw_number(w, fmt_delta(num, sizeof(num), r, col));
		jw_end_object(w);
	}
}

static void djson_rows(struct jw *w, const struct difftree *d,
		       const struct out_opts *o, const struct diffrow *r)
{
	jw_name(w, "rows");
	jw_start_array(w);
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct diffrow *ch = &r->children[i];

		jw_start_object(w);
		jw_string_field(w, "name", labels_str(d->lb, ch->label));
		jw_string_field(w, "change", change_name(ch));
		if (ch->folded)
			jw_uint_field(w, "others", ch->folded);
		djson_vals(w, o, ch);
		if (ch->nchildren)
			djson_rows(w, d, o, ch);
		jw_end_object(w);
	}
	jw_end_array(w);
}

static int djson_write(FILE *f, const struct difftree *d,
		       const struct out_opts *o)
{
	struct jw *w = jw_new(f, true);

	jw_start_object(w);
	out_json_head(w, o, d->depth, o->cols, o->ncols);
	jw_name(w, "total");
	jw_start_object(w);
	djson_vals(w, o, &d->total);
	jw_end_object(w);
	djson_rows(w, d, o, &d->total);
	jw_uint_field(w, "unchanged", d->unchanged);
	jw_name(w, "notes");
	jw_start_array(w);
	for (size_t i = 0; i < o->nnotes; i++)
		jw_string(w, o->notes[i]);
	jw_end_array(w);
	jw_end_object(w);
	return jw_finish(w);
}

int diff_write(FILE *f, const struct difftree *d, const struct out_opts *o)
{
	int err = 0;

	errno = 0;
	switch (o->fmt) {
	case OUT_TABLE:
		dtable_write(f, d, o);
		break;
	case OUT_CSV:
	case OUT_TSV:
		dcsv_write(f, d, o, o->fmt == OUT_TSV);
		break;
	case OUT_JSON:
		err = djson_write(f, d, o);
		break;
	default:
		return -EINVAL;
	}
	return out_finish(f, err);
}
