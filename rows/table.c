// SPDX-License-Identifier: GPL-2.0-or-later
/* table.c — the table writer: one value set (Bloaty-like), a diff (OLD,
 * NEW, change per column) and a timeline (a block per column, a value per
 * point), every line fitted to o->width. See output.h. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows/fields.h"
#include "rows/numfmt.h"
#include "rows/output.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/util.h"

/* Width of one column's "percent size" pair in the table. */
#define TABLE_PCT_W 6
#define TABLE_SIZE_W 7
#define TABLE_COL_W (TABLE_PCT_W + 1 + TABLE_SIZE_W)
/* Width of the RES% column: " 100.0% ". */
#define TABLE_RES_W 8
/* Spaces between the last column and the label. */
#define TABLE_GAP 3
/* Room after the columns in a header line: the header's headroom over a
 * row and the NUL sprintf() writes. */
#define TABLE_LINE_ROOM 16

/* A diff: OLD and NEW, then the change with its sign, per column. */
#define DT_W 8
#define DT_DW 9
#define DT_GROUP (DT_W + 1 + DT_W + 1 + DT_DW + 2)
/* Spaces before a diff's label */
#define DT_GAP 2

/* A timeline: one value per point shown. */
#define TL_W 9
#define TL_GAP 3

static size_t cols_single(const enum col_id *cols, size_t ncols)
{
	size_t w = 1; /* a row starts with a space */

	for (size_t c = 0; c < ncols; c++)
		w += cols[c] == COL_RES_PCT ? TABLE_RES_W : TABLE_COL_W + 1;
	return w + TABLE_GAP;
}

static size_t cols_diff(const enum col_id *cols, size_t ncols)
{
	(void)cols;
	return ncols * DT_GROUP + DT_GAP;
}

/* The points' width is the table's own choice (points_shown()). */
static size_t cols_timeline(const enum col_id *cols, size_t ncols)
{
	(void)cols;
	(void)ncols;
	return TL_GAP;
}

/* What a line of each kind takes before its label. */
static size_t (*const cols_width[ROWS__KIND_COUNT])(const enum col_id *cols,
						    size_t ncols) = {
    [ROWS_SINGLE] = cols_single,
    [ROWS_DIFF] = cols_diff,
    [ROWS_TIMELINE] = cols_timeline,
};

size_t out_table_cols_width(enum rows_kind kind, const enum col_id *cols,
			    size_t ncols)
{
	return cols_width[kind](cols, ncols);
}

/* Most code points a label may take after used columns, or 0 for no
 * limit (width 0). */
static size_t label_room(const struct out_opts *o, size_t used)
{
	if (!o->width)
		return 0;
	return o->width > used + TABLE_LABEL_MIN ? o->width - used
						 : TABLE_LABEL_MIN;
}

/* ---- one value set ---- */

/* strbuf_add() without the call while sb has room: a table row is a
 * dozen small pieces. */
static inline void put(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->cap - sb->len <= n) {
		strbuf_add(sb, s, n);
		return;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* Add the n bytes of s to sb right-aligned in w columns (printf's "%*s"). */
static void add_right(struct strbuf *sb, const char *s, size_t n, size_t w)
{
	static const char spaces[] = "                ";

	if (n < w)
		put(sb, spaces, MIN(w - n, sizeof(spaces) - 1));
	put(sb, s, n);
}

/* One column of r as " %5.1f%% %7s " would print it (a percentage of the
 * parent's, 100 without one; a count whole, else a human size), built
 * without printf: rows/numfmt.h. */
static void table_cell(struct strbuf *sb, const struct row *r,
		       const struct row *parent, enum col_id col)
{
	char num[NUMFMT_MAX];
	uint64_t v = r->vals[col];
	double pct = 100.0;
	size_t n;

	if (parent)
		pct = parent->vals[col] ? 100.0 * v / parent->vals[col] : 0.0;
	n = numfmt_fixed1(num, pct);
	add_right(sb, num, n, TABLE_PCT_W - 1);
	put(sb, "% ", 2);
	n = coldefs[col].count ? numfmt_u64(num, v)
			       : numfmt_human(num, v, coldefs[col].shift);
	add_right(sb, num, n, TABLE_SIZE_W);
	put(sb, " ", 1);
}

/* Add the line of r (parent NULL: the TOTAL) to sb. */
static void table_row(struct strbuf *sb, const struct rowtree *t,
		      const struct out_opts *o, const struct row *r,
		      const struct row *parent, size_t level)
{
	static const char indent[] = "                                ";
	char size[32];
	size_t c, i;

	put(sb, " ", 1);
	for (c = 0; c < o->ncols; c++) {
		if (o->cols[c] != COL_RES_PCT) {
			table_cell(sb, r, parent, o->cols[c]);
			continue;
		}
		out_res_pct(size, sizeof(size), r);
		put(sb, " ", 1);
		add_right(sb, *size ? size : "-", *size ? strlen(size) : 1, 5);
		put(sb, *size ? "% " : "  ", 2);
	}
	put(sb, "   ", 3); /* TABLE_GAP */
	for (i = 4 * level; i; i -= MIN(i, sizeof(indent) - 1))
		put(sb, indent, MIN(i, sizeof(indent) - 1));
	if (parent)
		out_label_add(sb, labels_str(t->lb, r->label),
			      label_room(o, out_table_cols_width(
						t->kind, o->cols, o->ncols) +
						4 * level),
			      o->cut_end & (1u << level));
	else
		put(sb, "TOTAL", 5);
	put(sb, "\n", 1);
}

/* Lines are built in sb and written in blocks of about this many bytes. */
#define TABLE_BLOCK 65536
/* How many rows ahead a row's label is fetched. */
#define TABLE_PREFETCH 4

static void table_tree(FILE *f, struct strbuf *sb, const struct rowtree *t,
		       const struct out_opts *o, const struct row *r,
		       size_t level)
{
	size_t i;

	for (i = 0; i < r->nchildren; i++) {
		/* the labels of rows are strings all over the heap: ask for
		 * the one a few rows on while this one is built, and where
		 * it is further on (that look-up missed too) */
		if (i + 4 * TABLE_PREFETCH < r->nchildren)
			labels_prefetch_id(
			    t->lb, r->children[i + 4 * TABLE_PREFETCH].label);
		if (i + TABLE_PREFETCH < r->nchildren)
			__builtin_prefetch(labels_str(
			    t->lb, r->children[i + TABLE_PREFETCH].label));
		table_row(sb, t, o, &r->children[i], r, level);
		if (sb->len >= TABLE_BLOCK) {
			fwrite(sb->buf, 1, sb->len, f);
			strbuf_reset(sb);
		}
		table_tree(f, sb, t, o, &r->children[i], level + 1);
	}
}

static void table_single(FILE *f, const struct rowtree *t,
			 const struct out_opts *o)
{
	size_t w = out_table_cols_width(t->kind, o->cols, o->ncols) +
		   TABLE_LINE_ROOM,
	       c, i;
	char *line = xmalloc(w);
	struct strbuf sb = STRBUF_INIT;
	size_t pos;

	/* header: each column's name centred over its pair, spare space
	 * on the left, as Bloaty does */
	pos = 0;
	for (c = 0; c < o->ncols; c++) {
		const char *h = coldefs[o->cols[c]].header;
		size_t hl = strlen(h), left, cw;

		cw = o->cols[c] == COL_RES_PCT ? TABLE_RES_W - 2 : TABLE_COL_W;
		if (hl > cw)
			hl = cw;
		left = (cw - hl + 1) / 2;
		memset(line + pos, ' ', cw + 2);
		memcpy(line + pos + 1 + left, h, hl);
		pos += cw + 2;
	}
	out_put_rstrip(f, line, pos);

	pos = 0;
	for (c = 0; c < o->ncols; c++) {
		size_t cw =
		    o->cols[c] == COL_RES_PCT ? TABLE_RES_W - 2 : TABLE_COL_W;

		line[pos++] = ' ';
		for (i = 0; i < cw; i++)
			line[pos++] = '-';
		line[pos++] = ' ';
	}
	out_put_rstrip(f, line, pos);
	free(line);

	table_tree(f, &sb, t, o, &t->total, 0);
	table_row(&sb, t, o, &t->total, NULL, 0);
	fwrite(sb.buf, 1, sb.len, f);
	strbuf_free(&sb);
}

/* ---- diff ---- */

/* A value for the table: human size, or the whole count. */
static char *human_value(char *buf, size_t len, enum col_id c, double v,
			 bool sign)
{
	char num[24];

	if (coldefs[c].count)
		snprintf(num, sizeof(num), "%.0f", v < 0 ? -v : v);
	else
		fmt_human(num, sizeof(num),
			  (v < 0 ? -v : v) /
			      (double)(UINT64_C(1) << coldefs[c].shift));
	snprintf(buf, len, "%s%s",
		 !sign || v == 0 ? ""
		 : v < 0	 ? "-"
				 : "+",
		 num);
	return buf;
}

static void diff_row(FILE *f, const struct rowtree *t, const struct out_opts *o,
		     const struct row *r, size_t level, bool total)
{
	static const char *const marks[] = {
	    [ROW_BOTH] = "",
	    [ROW_NEW] = " [new]",
	    [ROW_GONE] = " [gone]",
	};
	const char *mark = marks[r->state];
	size_t room;
	char a[32], b[32], c[32];

	for (size_t k = 0; k < o->ncols; k++) {
		enum col_id col = o->cols[k];
		double vo = (double)r->vals[col], vn = (double)r->sets[col];

		fprintf(f, "%*s %*s %*s  ", DT_W,
			human_value(a, sizeof(a), col, vo, false), DT_W,
			human_value(b, sizeof(b), col, vn, false), DT_DW,
			human_value(c, sizeof(c), col, vn - vo, true));
	}
	fputs("  ", f); /* DT_GAP */
	for (size_t i = 0; i < level; i++)
		fputs("    ", f);
	if (total) {
		fputs("TOTAL\n", f);
		return;
	}
	room = label_room(o, out_table_cols_width(t->kind, o->cols, o->ncols) +
				 4 * level + strlen(mark));
	out_put_label(f, labels_str(t->lb, r->label), room,
		      o->cut_end & (1u << level));
	fprintf(f, "%s\n", mark);
}

static void diff_tree(FILE *f, const struct rowtree *t,
		      const struct out_opts *o, const struct row *r,
		      size_t level)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		diff_row(f, t, o, &r->children[i], level, false);
		diff_tree(f, t, o, &r->children[i], level + 1);
	}
}

static void table_diff(FILE *f, const struct rowtree *t,
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
	out_put_rstrip(f, line, pos);
	pos = 0;
	for (size_t k = 0; k < o->ncols; k++)
		/* "\xce\x94" (a capital delta) is two bytes of UTF-8 but
		 * one column wide */
		pos += (size_t)snprintf(line + pos, w - pos,
					"%*s %*s %*s\xce\x94  ", DT_W, "OLD",
					DT_W, "NEW", DT_DW - 1, "");
	out_put_rstrip(f, line, pos);
	pos = 0;
	for (size_t k = 0; k < o->ncols; k++) {
		memset(line + pos, '-', DT_GROUP - 2);
		memset(line + pos + DT_GROUP - 2, ' ', 2);
		pos += DT_GROUP;
	}
	out_put_rstrip(f, line, pos);
	free(line);
	diff_tree(f, t, o, &t->total, 0);
	diff_row(f, t, o, &t->total, 0, true);
}

/* ---- timeline ---- */

/* How many points of t fit o->width beside TABLE_LABEL_WANT characters of
 * label: all without a width, at least 3 (first, last, peak). */
static size_t points_shown(const struct rowtree *t, const struct out_opts *o)
{
	size_t fit;

	if (!o->width)
		return t->nsets;
	fit = o->width > TL_GAP + TABLE_LABEL_WANT
		  ? (o->width - TL_GAP - TABLE_LABEL_WANT) / TL_W
		  : 0;
	return MIN(t->nsets, MAX(fit, (size_t)3));
}

/* The k points of t to show, in order, into pick: the first, the last,
 * the one where the TOTAL of column col peaks, the rest evenly between. */
static void pick_points(const struct rowtree *t, enum col_id col, size_t k,
			size_t *pick)
{
	size_t n = t->nsets, peak = 0, near = 1;

	for (size_t p = 1; p < n; p++)
		if (row_set(&t->total, p)[col] > row_set(&t->total, peak)[col])
			peak = p;
	if (k >= n) {
		for (size_t i = 0; i < n; i++)
			pick[i] = i;
		return;
	}
	/* k >= 3 here: spaced at least one apart, so all distinct */
	for (size_t i = 0; i < k; i++)
		pick[i] = (i * (n - 1) + (k - 1) / 2) / (k - 1);
	for (size_t i = 1; i + 1 < k; i++) {
		if (pick[i] == peak)
			return;
		if ((pick[i] > peak ? pick[i] - peak : peak - pick[i]) <
		    (pick[near] > peak ? pick[near] - peak : peak - pick[near]))
			near = i;
	}
	if (peak != 0 && peak != n - 1)
		pick[near] = peak; /* the nearest interior point: in order */
}

/* The name of series r (a chain from the total): its labels joined by
 * " / ", or "[N others]". Caller frees. */
static char *series_name(const struct rowtree *t, const struct row *r)
{
	char *out = xstrdup(labels_str(t->lb, r->label)), *s;

	while (r->nchildren == 1 && !r->folded) {
		r = &r->children[0];
		s = xasprintf("%s / %s", out, labels_str(t->lb, r->label));
		free(out);
		out = s;
	}
	return out;
}

static void tl_vals(FILE *f, enum col_id col, const struct row *r,
		    const size_t *pick, size_t k)
{
	char buf[32];

	for (size_t i = 0; i < k; i++) {
		uint64_t v = row_set(r, pick[i])[col];

		if (coldefs[col].count)
			snprintf(buf, sizeof(buf), "%" PRIu64, v);
		else
			fmt_human(buf, sizeof(buf),
				  (double)v / (double)(UINT64_C(1)
						       << coldefs[col].shift));
		fprintf(f, "%*s", TL_W, buf);
	}
}

static void tl_block(FILE *f, const struct rowtree *t, const struct out_opts *o,
		     enum col_id col, const size_t *pick, size_t k)
{
	size_t room = label_room(o, TL_W * k + TL_GAP);
	char buf[32];

	fprintf(f,
		"%s at each snapshot (seconds since the recording "
		"began)\n",
		coldefs[col].header);
	for (size_t i = 0; i < k; i++) {
		uint64_t ms = t->points[pick[i]].time / 1000000;

		snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64 "s",
			 ms / 1000, ms % 1000);
		fprintf(f, "%*s", TL_W, buf);
	}
	fputc('\n', f);
	for (size_t i = 0; i < k; i++)
		fprintf(f, " %.*s", TL_W - 1, "----------------");
	fputc('\n', f);
	for (size_t i = 0; i < t->total.nchildren; i++) {
		const struct row *r = &t->total.children[i];
		char *name = series_name(t, r);

		tl_vals(f, col, r, pick, k);
		fputs("   ", f); /* TL_GAP */
		/* the name ends with the innermost key's label */
		out_put_label(f, name, room,
			      t->depth &&
				  (o->cut_end & (1u << (t->depth - 1))));
		fputc('\n', f);
		free(name);
	}
	tl_vals(f, col, &t->total, pick, k);
	fputs("   TOTAL\n", f);
}

static void table_timeline(FILE *f, const struct rowtree *t,
			   const struct out_opts *o)
{
	size_t k = points_shown(t, o);
	size_t *pick = xcalloc(t->nsets + 1, sizeof(*pick));

	pick_points(t, o->cols[0], k, pick);
	for (size_t c = 0; c < o->ncols; c++) {
		if (c)
			fputc('\n', f);
		tl_block(f, t, o, o->cols[c], pick, k);
	}
	if (k < t->nsets)
		fprintf(f,
			"%zu of %zu snapshots shown (first, last, peak of "
			"TOTAL %s, evenly between); csv and json have all\n",
			k, t->nsets, coldefs[o->cols[0]].header);
	free(pick);
}

/* What the table writes for each kind of tree, before the notes. */
static void (*const table_kinds[ROWS__KIND_COUNT])(FILE *f,
						   const struct rowtree *t,
						   const struct out_opts *o) = {
    [ROWS_SINGLE] = table_single,
    [ROWS_DIFF] = table_diff,
    [ROWS_TIMELINE] = table_timeline,
};

int out_table_write(FILE *f, const struct rowtree *t, const struct out_opts *o)
{
	table_kinds[t->kind](f, t, o);
	/* notes quote names others chose (an image's path in a recording,
	 * a process's name): escaped so none of their bytes can drive a
	 * terminal or forge a line */
	for (size_t i = 0; i < o->nnotes; i++) {
		fputs_escaped(o->notes[i], f);
		fputc('\n', f);
	}
	return 0;
}
