/* output.c — see output.h */
#include "config.h"

#include "rows/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rows/fields.h"
#include "rows/html.h"
#include "rows/json_writer.h"
#include "rows/pprof.h"
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

static const struct {
	const char *name;
	enum out_format fmt;
} out_formats[] = {
	{ "table", OUT_TABLE },
	{ "csv", OUT_CSV },
	{ "tsv", OUT_TSV },
	{ "json", OUT_JSON },
	{ "folded", OUT_FOLDED },
	{ "pprof", OUT_PPROF },
	{ "html", OUT_HTML },
};

const char *out_format_list(void)
{
	static char buf[64];

	if (!buf[0])
		for (size_t i = 0; i < ARRAY_SIZE(out_formats); i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s%s", i ? ", " : "", out_formats[i].name);
	return buf;
}

int out_format_parse(const char *s, enum out_format *fmt)
{
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(out_formats); i++) {
		if (!strcmp(s, out_formats[i].name)) {
			*fmt = out_formats[i].fmt;
			return 0;
		}
	}
	return -1;
}

char *out_fmt_value(char *buf, size_t len, uint64_t v, unsigned shift)
{
	uint64_t ip, frac, cents;

	if (!shift) {
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
	ip = v >> shift;
	frac = v & ((UINT64_C(1) << shift) - 1);
	cents = (frac * 100 + (UINT64_C(1) << (shift - 1))) >> shift;
	if (cents >= 100) {
		ip++;
		cents -= 100;
	}
	if (snprintf(buf, len, "%" PRIu64 ".%02" PRIu64, ip, cents) < 0)
		buf[0] = 0;
	return buf;
}

/* RES% of r as printed by every writer: RSS over the VM SIZE of every
 * mapping summed (a file several processes map counts once in VM SIZE,
 * but its RSS is theirs added), one decimal, "" if that is 0. */
static const char *res_pct(char *buf, size_t len, const struct row *r)
{
	uint64_t vm = MAX(r->vm_sum, r->vals[COL_VM]);

	if (!vm)
		buf[0] = 0;
	else
		snprintf(buf, len, "%.1f",
			 100.0 * (double)r->vals[COL_RSS] / (double)vm);
	return buf;
}

/* The text of column col of row r in csv and json: exact bytes, PSS with
 * two decimals, RES% with one ("" where VM SIZE is 0). */
static const char *col_text(char *buf, size_t len, const struct row *r,
			    enum col_id col)
{
	if (col == COL_RES_PCT)
		return res_pct(buf, len, r);
	return out_fmt_value(buf, len, r->vals[col], coldefs[col].shift);
}

/* ---- table ---- */

size_t out_table_cols_width(const enum col_id *cols, size_t ncols)
{
	size_t w = 1; /* a row starts with a space */

	for (size_t c = 0; c < ncols; c++)
		w += cols[c] == COL_RES_PCT ? TABLE_RES_W : TABLE_COL_W + 1;
	return w + TABLE_GAP;
}

/* Most code points a label at level may take, or 0 for no limit. */
static size_t label_room(const struct out_opts *o, size_t level)
{
	size_t used = out_table_cols_width(o->cols, o->ncols) + 4 * level;

	if (!o->width)
		return 0;
	return o->width > used + TABLE_LABEL_MIN ? o->width - used :
						   TABLE_LABEL_MIN;
}

static void table_row(FILE *f, const struct rowtree *t,
		      const struct out_opts *o, const struct row *r,
		      const struct row *parent, size_t level)
{
	char size[32];
	size_t c, i;

	fputc(' ', f);
	for (c = 0; c < o->ncols; c++) {
		enum col_id col = o->cols[c];
		unsigned shift = coldefs[col].shift;
		uint64_t v = r->vals[col];
		double pct = 100.0;

		if (col == COL_RES_PCT) {
			res_pct(size, sizeof(size), r);
			fprintf(f, " %5s%s ", *size ? size : "-",
				*size ? "%" : " ");
			continue;
		}
		if (parent)
			pct = parent->vals[col] ?
				      100.0 * v / parent->vals[col] : 0.0;
		if (coldefs[col].count)
			snprintf(size, sizeof(size), "%" PRIu64, v);
		else
			fmt_human(size, sizeof(size),
				  (double)v / (double)(UINT64_C(1) << shift));
		fprintf(f, "%*.1f%% %*s ", TABLE_PCT_W - 1, pct, TABLE_SIZE_W,
			size);
	}
	fputs("   ", f); /* TABLE_GAP */
	for (i = 0; i < level; i++)
		fputs("    ", f);
	if (parent)
		out_put_label(f, labels_str(t->lb, r->label),
			  label_room(o, level));
	else
		fputs("TOTAL", f);
	fputc('\n', f);
}

static void table_tree(FILE *f, const struct rowtree *t,
		       const struct out_opts *o, const struct row *r,
		       size_t level)
{
	size_t i;

	for (i = 0; i < r->nchildren; i++) {
		table_row(f, t, o, &r->children[i], r, level);
		table_tree(f, t, o, &r->children[i], level + 1);
	}
}

/* Write line (without its trailing spaces) and a newline. */
static void put_rstrip(FILE *f, char *line, size_t n)
{
	while (n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, f);
	fputc('\n', f);
}

static void table_write(FILE *f, const struct rowtree *t,
			const struct out_opts *o)
{
	size_t w = out_table_cols_width(o->cols, o->ncols) + TABLE_LINE_ROOM,
	       c, i;
	char *line = xmalloc(w);
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
	put_rstrip(f, line, pos);

	pos = 0;
	for (c = 0; c < o->ncols; c++) {
		size_t cw = o->cols[c] == COL_RES_PCT ? TABLE_RES_W - 2 :
							TABLE_COL_W;

		line[pos++] = ' ';
		for (i = 0; i < cw; i++)
			line[pos++] = '-';
		line[pos++] = ' ';
	}
	put_rstrip(f, line, pos);
	free(line);

	table_tree(f, t, o, &t->total, 0);
	table_row(f, t, o, &t->total, NULL, 0);
	for (i = 0; i < o->nnotes; i++)
		fprintf(f, "%s\n", o->notes[i]);
}

/* ---- csv / tsv ---- */

/* The aliases of every label of a path, joined by ";", as one field. */
static void csv_aliases(FILE *f, const struct rowtree *t, const uint32_t *ids,
			size_t n, bool tsv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	for (size_t i = 0; m && i < n; i++) {
		size_t nal;
		const char *const *al = labels_aliases(t->lb, ids[i], &nal);

		for (size_t j = 0; j < nal; j++)
			fprintf(m, "%s%s", ftell(m) ? ";" : "", al[j]);
	}
	if (m && fclose(m) == 0) {
		out_csv_field(f, buf, tsv);
		free(buf);
	}
}

static void csv_tree(FILE *f, const struct rowtree *t,
		     const struct out_opts *o, const struct row *r,
		     const char **path, uint32_t *ids, size_t level, bool tsv)
{
	char sep = tsv ? '\t' : ',';
	char num[32];
	size_t i, c;

	for (i = 0; i < r->nchildren; i++) {
		const struct row *ch = &r->children[i];

		path[level] = labels_str(t->lb, ch->label);
		ids[level] = ch->label;
		if (ch->nchildren) {
			csv_tree(f, t, o, ch, path, ids, level + 1, tsv);
			continue;
		}
		for (c = 0; c < t->depth; c++) {
			if (c)
				fputc(sep, f);
			if (c <= level)
				out_csv_field(f, path[c], tsv);
		}
		for (c = 0; c < o->ncols; c++) {
			enum col_id col = o->cols[c];

			if (t->depth || c)
				fputc(sep, f);
			fputs(col_text(num, sizeof(num), ch, col), f);
		}
		if (o->aliases) {
			fputc(sep, f);
			csv_aliases(f, t, ids, level + 1, tsv);
		}
		fputc('\n', f);
	}
}

static void csv_write(FILE *f, const struct rowtree *t,
		      const struct out_opts *o, bool tsv)
{
	char sep = tsv ? '\t' : ',';
	const char **path;
	uint32_t *ids;
	char buf[32];
	size_t i;

	for (i = 0; i < t->depth; i++) {
		if (i)
			fputc(sep, f);
		out_csv_field(f, out_level_key(o, i, buf, sizeof(buf)), tsv);
	}
	for (i = 0; i < o->ncols; i++) {
		if (t->depth || i)
			fputc(sep, f);
		fputs(coldefs[o->cols[i]].key, f);
	}
	if (o->aliases) {
		fputc(sep, f);
		fputs("aliases", f);
	}
	fputc('\n', f);

	path = xcalloc(t->depth + 1, sizeof(*path));
	ids = xcalloc(t->depth + 1, sizeof(*ids));
	csv_tree(f, t, o, &t->total, path, ids, 0, tsv);
	free(ids);
	free(path);
}

/* ---- json ---- */

static void json_vals(struct jw *w, const struct out_opts *o,
		      const struct row *r)
{
	char num[32];
	size_t c;

	for (c = 0; c < o->ncols; c++) {
		enum col_id col = o->cols[c];

		jw_name(w, coldefs[col].key);
		if (col == COL_RES_PCT && !*col_text(num, sizeof(num), r, col))
			jw_null(w);
		else
			jw_number(w, col_text(num, sizeof(num), r, col));
	}
}

static void json_rows(struct jw *w, const struct rowtree *t,
		      const struct out_opts *o, const struct row *r)
{
	size_t i, j, nal;

	jw_name(w, "rows");
	jw_start_array(w);
	for (i = 0; i < r->nchildren; i++) {
		const struct row *ch = &r->children[i];
		const char *const *al;

		jw_start_object(w);
		jw_string_field(w, "name", labels_str(t->lb, ch->label));
		al = labels_aliases(t->lb, ch->label, &nal);
		if (nal) {
			jw_name(w, "aliases");
			jw_start_array(w);
			for (j = 0; j < nal; j++)
				jw_string(w, al[j]);
			jw_end_array(w);
		}
		if (ch->folded)
			jw_uint_field(w, "others", ch->folded);
		json_vals(w, o, ch);
		if (ch->nchildren)
			json_rows(w, t, o, ch);
		jw_end_object(w);
	}
	jw_end_array(w);
}

static int json_write(FILE *f, const struct rowtree *t,
		      const struct out_opts *o)
{
	struct jw *w = jw_new(f, true);
	size_t i;

	jw_start_object(w);
	out_json_head(w, o, t->depth, o->cols, o->ncols);
	jw_name(w, "total");
	jw_start_object(w);
	json_vals(w, o, &t->total);
	jw_end_object(w);
	json_rows(w, t, o, &t->total);
	jw_name(w, "notes");
	jw_start_array(w);
	for (i = 0; i < o->nnotes; i++)
		jw_string(w, o->notes[i]);
	jw_end_array(w);
	jw_end_object(w);
	return jw_finish(w);
}

/* Folded stacks: "a;b;c bytes" per leaf; the labels of each level are
 * printed with any line break replaced, so one leaf is one line. */
static void folded_tree(FILE *f, const struct rowtree *t,
			const struct out_opts *o, const struct row *r,
			const char **path, size_t level)
{
	enum col_id col = o->ncols && !coldefs[o->cols[0]].derived ?
				  o->cols[0] : COL_RSS;

	for (size_t i = 0; i < r->nchildren; i++) {
		const struct row *ch = &r->children[i];
		uint64_t v = ch->vals[col] >> coldefs[col].shift;

		path[level] = labels_str(t->lb, ch->label);
		if (ch->nchildren) {
			folded_tree(f, t, o, ch, path, level + 1);
			continue;
		}
		if (!v)
			continue;
		for (size_t c = 0; c <= level; c++) {
			if (c)
				fputc(';', f);
			for (const char *p = path[c]; *p; p++)
				fputc(*p == '\n' || *p == '\r' ? '?' : *p, f);
		}
		fprintf(f, " %llu\n", (unsigned long long)v);
	}
}

int out_write(FILE *f, const struct rowtree *t, const struct out_opts *oo)
{
	enum col_id cols[COL__COUNT + 1];
	struct out_opts ob = *oo, *o = &ob;
	/* pprof sample values and the page's treemap areas are sums: a
	 * derived ratio is none */
	bool sums = oo->fmt == OUT_PPROF || oo->fmt == OUT_HTML;
	bool has_res = false;
	size_t n = 0;
	int err = 0;

	for (size_t c = 0; c < oo->ncols && c < COL__COUNT; c++) {
		if (sums && coldefs[oo->cols[c]].derived)
			continue;
		cols[n++] = oo->cols[c];
		has_res |= oo->cols[c] == COL_RES_PCT;
	}
	/* res_pct: RES% as a last column, unless cols has it already */
	if (oo->res_pct && !sums && !has_res && n < COL__COUNT)
		cols[n++] = COL_RES_PCT;
	ob.cols = cols;
	ob.ncols = n;
	errno = 0;
	switch (o->fmt) {
	case OUT_TABLE:
		table_write(f, t, o);
		break;
	case OUT_CSV:
	case OUT_TSV:
		csv_write(f, t, o, o->fmt == OUT_TSV);
		break;
	case OUT_JSON:
		err = json_write(f, t, o);
		break;
	case OUT_FOLDED: {
		const char **path = xcalloc(t->depth + 1, sizeof(*path));

		folded_tree(f, t, o, &t->total, path, 0);
		free(path);
		break;
	}
	case OUT_PPROF:
		err = pprof_write(f, t, o);
		break;
	case OUT_HTML:
		err = html_write(f, t, o);
		break;
	default:
		return -EINVAL;
	}
	return out_finish(f, err);
}

void out_error(enum out_format fmt, const char *msg)
{
	struct jw *w;

	if (fmt != OUT_JSON) {
		memsz_error("%s", msg);
		return;
	}
	w = jw_new(stdout, false);
	jw_start_object(w);
	jw_string_field(w, "error", msg);
	jw_end_object(w);
	jw_finish(w);
}
