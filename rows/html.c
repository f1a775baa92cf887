/* html.c — see html.h */
#include "config.h"

#include "rows/html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rows/json_writer.h"
#include "util/util.h"

/* rows/html_assets.c, generated from rows/html/ at build time */
extern const char html_viewer_css[];
extern const char html_viewer_js[];

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

/* The second data block: what the tree's json does not say. */
static int meta_json(FILE *m, const struct out_opts *o)
{
	struct jw *w = jw_new(m, false);
	size_t i;

	jw_start_object(w);
	jw_string_field(w, "title", o->title ? o->title : "memsz");
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
	jw_end_object(w);
	return jw_finish(w);
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
	char *tree = NULL, *meta = NULL;
	size_t ntree = 0, nmeta = 0;
	int ret;

	ret = to_memory(t, o, false, &tree, &ntree);
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
	put_text(f, o->title ? o->title : "memsz");
	fputs("</title>\n<style>\n", f);
	fputs(html_viewer_css, f);
	fputs("</style>\n</head>\n<body>\n"
	      "<script type=\"application/json\" id=\"memsz-report\">", f);
	put_script_json(f, tree, ntree);
	fputs("</script>\n<script type=\"application/json\" "
	      "id=\"memsz-meta\">", f);
	put_script_json(f, meta, nmeta);
	fputs("</script>\n<script>\n", f);
	fputs(html_viewer_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
out:
	free(tree);
	free(meta);
	return ret;
}
