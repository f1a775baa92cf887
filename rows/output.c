// SPDX-License-Identifier: GPL-2.0-or-later
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
#include "util/escape.h"
#include "util/util.h"

static int folded_write(FILE *f, const struct rowtree *t,
			const struct out_opts *o);

/* The formats: behaviour a command asks of a format is a flag here. */
static const struct out_format_def out_formats[OUT__COUNT] = {
    {"table", OUT_TABLE, out_table_write, OUTF_WIDTH,
     ROWS_KIND_BIT(ROWS_SINGLE) | ROWS_KIND_BIT(ROWS_DIFF) |
	 ROWS_KIND_BIT(ROWS_TIMELINE)},
    {"csv", OUT_CSV, out_csv_write, OUTF_NOTES_STDERR | OUTF_ROWS_ASKED,
     ROWS_KIND_BIT(ROWS_SINGLE) | ROWS_KIND_BIT(ROWS_DIFF) |
	 ROWS_KIND_BIT(ROWS_TIMELINE)},
    {"tsv", OUT_TSV, out_tsv_write, OUTF_NOTES_STDERR | OUTF_ROWS_ASKED,
     ROWS_KIND_BIT(ROWS_SINGLE) | ROWS_KIND_BIT(ROWS_DIFF) |
	 ROWS_KIND_BIT(ROWS_TIMELINE)},
    {"json", OUT_JSON, out_json_write, OUTF_JSON_ERRORS | OUTF_ROWS_ASKED,
     ROWS_KIND_BIT(ROWS_SINGLE) | ROWS_KIND_BIT(ROWS_DIFF) |
	 ROWS_KIND_BIT(ROWS_TIMELINE)},
    {"folded", OUT_FOLDED, folded_write,
     OUTF_ALL_ROWS | OUTF_ONE_COLUMN | OUTF_NOTES_STDERR,
     ROWS_KIND_BIT(ROWS_SINGLE)},
    /* pprof sample values and the page's treemap areas are sums: a
     * derived ratio is none */
    {"pprof", OUT_PPROF, pprof_write,
     OUTF_BINARY | OUTF_ALL_ROWS | OUTF_SUMS | OUTF_BUILD_IDS,
     ROWS_KIND_BIT(ROWS_SINGLE)},
    {"html", OUT_HTML, html_write, OUTF_ALL_ROWS | OUTF_SUMS | OUTF_ALL_COLUMNS,
     ROWS_KIND_BIT(ROWS_SINGLE)},
};

const struct out_format_def *out_format_get(enum out_format fmt)
{
	return fmt < OUT__COUNT ? &out_formats[fmt] : NULL;
}

char *out_format_names(enum rows_kind kind, const char *last)
{
	char *s = xstrdup("");
	size_t n = 0, k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(out_formats); i++)
		n += !!(out_formats[i].kinds & ROWS_KIND_BIT(kind));
	for (size_t i = 0; i < ARRAY_SIZE(out_formats); i++) {
		char *t;

		if (!(out_formats[i].kinds & ROWS_KIND_BIT(kind)))
			continue;
		k++;
		t = xasprintf("%s%s%s", s,
			      k == 1   ? ""
			      : k == n ? " "
				       : ", ",
			      out_formats[i].name);
		free(s);
		s = t;
		if (k + 1 == n) {
			t = xasprintf("%s %s", s, last);
			free(s);
			s = t;
		}
	}
	return s;
}

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

/* The fraction of v (shift > 0 fraction bits) in hundredths, rounded:
 * 0 to 100. */
static uint64_t frac_cents(uint64_t v, unsigned shift)
{
	uint64_t frac = v & ((UINT64_C(1) << shift) - 1);

	return (frac * 100 + (UINT64_C(1) << (shift - 1))) >> shift;
}

uint64_t out_cents(uint64_t v, unsigned shift)
{
	return (v >> shift) * 100 + frac_cents(v, shift);
}

char *out_fmt_value(char *buf, size_t len, uint64_t v, unsigned shift)
{
	uint64_t ip, cents;

	if (!shift) {
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
	ip = v >> shift;
	cents = frac_cents(v, shift);
	if (cents >= 100) {
		ip++;
		cents -= 100;
	}
	if (snprintf(buf, len, "%" PRIu64 ".%02" PRIu64, ip, cents) < 0)
		buf[0] = 0;
	return buf;
}

uint64_t out_whole_next(uint64_t *acc, uint64_t v, unsigned shift)
{
	uint64_t half, before, after;

	if (!shift)
		return v;
	half = UINT64_C(1) << (shift - 1);
	before = (*acc + half) >> shift;
	*acc += v;
	after = (*acc + half) >> shift;
	return after - before;
}

/* A label of level `level` as one folded frame: ';' joins the frames, so
 * one in a name (a file "a;b", a symbol) is shown as ':', as the callers
 * key and perf's stackcollapse show it; a callers label is a stack whose
 * ';' are its frames' joints (a ';' in a frame is ':' already). */
static void folded_label(FILE *f, const struct out_opts *o, size_t level,
			 const char *s)
{
	char *copy;

	if (!strchr(s, ';') ||
	    (o->keys && o->keys[level] && !strcmp(o->keys[level], "callers"))) {
		fputs_escaped(s, f);
		return;
	}
	copy = xstrdup(s);
	for (char *c = copy; (c = strchr(c, ';'));)
		*c = ':';
	fputs_escaped(copy, f);
	free(copy);
}

/* Folded stacks: "a;b;c bytes" per leaf; the labels of each level are
 * printed with their control characters escaped (util/escape.h), so one
 * leaf is one line and no byte reaches a terminal raw. */
static void folded_tree(FILE *f, const struct rowtree *t,
			const struct out_opts *o, const struct row *r,
			const char **path, size_t level, uint64_t *acc)
{
	enum col_id col =
	    o->ncols && !coldefs[o->cols[0]].derived ? o->cols[0] : COL_RSS;

	for (size_t i = 0; i < r->nchildren; i++) {
		const struct row *ch = &r->children[i];
		uint64_t v;

		path[level] = labels_str(t->lb, ch->label);
		if (ch->nchildren) {
			folded_tree(f, t, o, ch, path, level + 1, acc);
			continue;
		}
		/* the leaves' PSS adds up to the TOTAL's, rounded; a file
		 * several processes map counts once (row_once()) */
		v = out_whole_next(acc, row_once(ch, col), coldefs[col].shift);
		if (!v)
			continue;
		for (size_t c = 0; c <= level; c++) {
			if (c)
				fputc(';', f);
			folded_label(f, o, c, path[c]);
		}
		fprintf(f, " %llu\n", (unsigned long long)v);
	}
}

static int folded_write(FILE *f, const struct rowtree *t,
			const struct out_opts *o)
{
	const char **path = xcalloc(t->depth + 1, sizeof(*path));
	uint64_t acc = 0;

	folded_tree(f, t, o, &t->total, path, 0, &acc);
	free(path);
	return 0;
}

int out_write(FILE *f, const struct rowtree *t, const struct out_opts *oo)
{
	const struct out_format_def *def = out_format_get(oo->fmt);
	enum col_id cols[COL__COUNT + 1];
	struct out_opts ob = *oo;
	bool sums, has_res = false;
	size_t n = 0;
	int err;

	if (!def || !(def->kinds & ROWS_KIND_BIT(t->kind)))
		return -EINVAL;
	sums = def->flags & OUTF_SUMS;
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
	err = def->write(f, t, &ob);
	return out_finish(f, err);
}

int out_write_error(FILE *f, const char *msg)
{
	struct jw *w = jw_new(f, false);

	errno = 0;
	jw_start_object(w);
	jw_string_field(w, "error", msg);
	jw_end_object(w);
	return out_finish(f, jw_finish(w));
}
