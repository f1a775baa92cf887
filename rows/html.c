// SPDX-License-Identifier: GPL-2.0-or-later
/* html.c — see html.h */
#include "config.h"

#include "rows/html.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rows/json_writer.h"
#include "util/escape.h"
#include "util/util.h"

/* rows/html_assets.c, generated from rows/html/ at build time */
extern const char html_viewer_css[];
extern const char html_viewer_js[];
extern const char html_timeline_js[];

/* Write JSON text s inside a <script> element: every '<' (only ever in a
 * string) as \u003c, so no "</script>" or "<!--" can end the block. */
static void put_script_json(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<')
			fputs("\\u003c", f);
		else
			fputc(s[i], f);
	}
}

/* Text for an html element: &, <, > escaped. */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else
			fputc(*s, f);
	}
}

/* "processes": each process of the snapshots once, in order of its first
 * snapshot, with its name, command line and exit time (0: not seen to
 * exit): the page's timeline counts a process from its first snapshot
 * until it exits. */
static void procs_json(struct jw *w, const struct out_opts *o)
{
	jw_name(w, "processes");
	jw_start_array(w);
	for (size_t i = 0; i < o->nsnaps; i++) {
		const struct out_snap *s = &o->snaps[i];
		size_t j = 0;

		while (j < i && o->snaps[j].pid != s->pid)
			j++;
		if (j < i)
			continue; /* listed at its first snapshot */
		jw_start_object(w);
		jw_uint_field(w, "pid", s->pid);
		jw_string_field(w, "comm", s->comm ? s->comm : "");
		jw_string_field(w, "cmdline", s->cmdline ? s->cmdline : "");
		jw_uint_field(w, "exit_ns", s->exit_ns);
		jw_end_object(w);
	}
	jw_end_array(w);
}

/* The page's title, escaped as the table escapes labels (it names a
 * file: "memsz report of FILE"): no control byte nor invalid UTF-8 in
 * the page's <title>, nor a title other than the table's. Caller frees. */
static char *page_title(const struct out_opts *o)
{
	return str_escape(o->title ? o->title : "memsz", NULL);
}

/* The second data block: what the tree's json does not say. */
static int meta_json(FILE *m, const struct out_opts *o)
{
	struct jw *w = jw_new(m, false);
	char *title = page_title(o);
	size_t i;

	jw_start_object(w);
	jw_string_field(w, "title", title);
	free(title);
	jw_string_field(w, "sort", coldefs[o->sort].key);
	jw_name(w, "columns");
	jw_start_array(w);
	for (i = 0; i < o->ncols; i++) {
		const struct coldef *cd = &coldefs[o->cols[i]];

		jw_start_object(w);
		jw_string_field(w, "key", cd->key);
		jw_string_field(w, "header", cd->header);
		jw_name(w, "count");
		jw_bool(w, cd->count);
		jw_end_object(w);
	}
	jw_end_array(w);
	/* the timeline tells times from the recording's start, as
	 * --timeline and the footer do */
	if (o->start_ns)
		jw_uint_field(w, "start_ns", o->start_ns);
	jw_name(w, "snapshots");
	jw_start_array(w);
	for (i = 0; i < o->nsnaps; i++) {
		jw_start_object(w);
		jw_uint_field(w, "time_ns", o->snaps[i].time_ns);
		jw_uint_field(w, "pid", o->snaps[i].pid);
		jw_uint_field(w, "rss", o->snaps[i].rss);
		jw_name(w, "chosen");
		jw_bool(w, o->snaps[i].chosen);
		jw_end_object(w);
	}
	jw_end_array(w);
	procs_json(w, o);
	jw_end_object(w);
	return jw_finish(w);
}

/* The page gets every row (its format's row says OUTF_ALL_ROWS) but
 * those no view of it can draw: below 1/HTML_MIN_SHARE of the total in
 * every column, rows of a level are one "[N others]" row, as
 * rowtree_finish() folds them (at 1 400 pixels, a ten-thousandth is a
 * seventh of a pixel, and the script merges what is still too small to
 * draw). A "callers" level keeps every row: the flame graph splits the
 * stacks into frames, and a frame sums many small stacks. */
#define HTML_MIN_SHARE 10000

struct prune {
	const struct rowtree *t;
	const struct out_opts *o;
	const bool *whole;	  /* per level: keep every row */
	uint64_t min[COL__COUNT]; /* least value kept, per column */
};

/* Whether row r is big enough to keep in some column of the page. */
static bool prune_keep(const struct prune *p, const struct row *r)
{
	for (size_t c = 0; c < p->o->ncols; c++)
		if (r->vals[p->o->cols[c]] >= p->min[p->o->cols[c]])
			return true;
	return false;
}

/* dst: a copy of src at level whose rows below have the rows p keeps and
 * an "[N others]" row for the rest; the copies share src's labels. */
static void prune_row(const struct prune *p, struct row *dst,
		      const struct row *src, size_t level)
{
	struct row *others = NULL;
	char name[48];

	*dst = *src;
	dst->children = NULL;
	dst->nchildren = dst->cap = 0;
	dst->index = NULL;
	if (!src->nchildren)
		return;
	dst->children = xcalloc(src->nchildren, sizeof(*dst->children));
	for (size_t i = 0; i < src->nchildren; i++) {
		const struct row *ch = &src->children[i];

		if (p->whole[level] || ch->folded || prune_keep(p, ch)) {
			prune_row(p, &dst->children[dst->nchildren++], ch,
				  level + 1);
			continue;
		}
		if (!others) {
			others = &dst->children[dst->nchildren++];
			memset(others, 0, sizeof(*others));
		}
		for (size_t c = 0; c < COL__COUNT; c++)
			others->vals[c] += ch->vals[c];
		others->folded++;
	}
	if (others) {
		rows_cap_others(others->vals, src->vals);
		snprintf(name, sizeof(name), "[%" PRIu64 " others]",
			 others->folded);
		others->label = labels_intern(p->t->lb, name);
	}
}

static void prune_free(struct row *r)
{
	for (size_t i = 0; i < r->nchildren; i++)
		prune_free(&r->children[i]);
	free(r->children);
}

/* Run writer into memory: the tree's json (fmt OUT_JSON) or the meta. */
static int to_memory(const struct rowtree *t, const struct out_opts *o,
		     bool meta, char **buf, size_t *len)
{
	struct out_opts jo = *o;
	FILE *m = open_memstream(buf, len);
	int ret;

	if (!m)
		return -ENOMEM;
	jo.fmt = OUT_JSON;
	jo.res_pct = false; /* o's columns are the page's: no ratio */
	ret = meta ? meta_json(m, o) : out_write(m, t, &jo);
	if (fclose(m) != 0 && !ret)
		ret = -ENOMEM;
	return ret;
}

int html_write(FILE *f, const struct rowtree *t, const struct out_opts *o)
{
	char *tree = NULL, *meta = NULL, *title;
	size_t ntree = 0, nmeta = 0;
	struct rowtree pruned = *t;
	bool *whole = xcalloc(t->depth + 1, sizeof(*whole));
	struct prune p = {.t = t, .o = o, .whole = whole};
	int ret;

	for (size_t i = 0; i < t->depth; i++)
		whole[i] =
		    o->keys && o->keys[i] && !strcmp(o->keys[i], "callers");
	for (size_t c = 0; c < COL__COUNT; c++)
		p.min[c] = MAX(t->total.vals[c] / HTML_MIN_SHARE, 1);
	prune_row(&p, &pruned.total, &t->total, 0);
	ret = to_memory(&pruned, o, false, &tree, &ntree);
	prune_free(&pruned.total);
	free(whole);
	if (!ret)
		ret = to_memory(t, o, true, &meta, &nmeta);
	if (ret)
		goto out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      /* nothing may be fetched: the page is the whole report */
	      "<meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"generator\" content=\"memsz " PACKAGE_VERSION
	      "\">\n<title>",
	      f);
	title = page_title(o);
	put_text(f, title);
	free(title);
	fputs("</title>\n<style>\n", f);
	fputs(html_viewer_css, f);
	fputs("</style>\n</head>\n<body>\n"
	      "<script type=\"application/json\" id=\"memsz-report\">",
	      f);
	put_script_json(f, tree, ntree);
	fputs("</script>\n<script type=\"application/json\" "
	      "id=\"memsz-meta\">",
	      f);
	put_script_json(f, meta, nmeta);
	fputs("</script>\n<script>\n", f);
	fputs(html_timeline_js, f); /* defines what viewer.js calls */
	fputs(html_viewer_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
out:
	free(tree);
	free(meta);
	return ret;
}
