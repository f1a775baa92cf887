/* view.c — see view.h */
#include "config.h"

#include "builtin/view.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* What view_option() did with an option. */
enum view_status {
	VIEW_NOT_MINE,  /* not a shared option: the command handles it */
	VIEW_OK,
	VIEW_USAGE,     /* a bad value; the message is printed */
};

/* The --sort names v accepts, comma-separated; caller frees. */
static char *sortable_list(const struct view *v)
{
	char *s = xstrdup("");

	for (int i = 0; i < COL__COUNT; i++) {
		char *t;

		if (!(v->sortable & (1u << i)))
			continue;
		t = xasprintf("%s%s%s", s, s[0] ? ", " : "",
			      coldefs[i].sortname);
		free(s);
		s = t;
	}
	return s;
}

static enum view_status parse_sort(struct view *v, const char *arg)
{
	int col = col_from_name(arg);
	char *list;

	if (col >= 0 && (v->sortable & (1u << col))) {
		v->sort = col;
		return VIEW_OK;
	}
	list = sortable_list(v);
	memsz_error("cannot sort by '%s' (columns: %s)", arg, list);
	free(list);
	return VIEW_USAGE;
}

/* Handle option c with argument arg (getopt's optarg) into v. */
static enum view_status view_option(struct view *v, int c, const char *arg)
{
	char *bad;
	int n;

	switch (c) {
	case VIEW_OPT_BY:
		n = keys_parse(arg, v->cmd, v->keys, &bad);
		if (n < 0) {
			memsz_error("unknown or repeated key '%s' (keys: %s)",
				    bad, keys_list(v->cmd));
			free(bad);
			return VIEW_USAGE;
		}
		v->nkeys = n;
		return VIEW_OK;
	case 'n':
		if (parse_u64(arg, &v->limit) < 0) {
			memsz_error("-n wants a number, not '%s'", arg);
			return VIEW_USAGE;
		}
		return VIEW_OK;
	case VIEW_OPT_SORT:
		return parse_sort(v, arg);
	case VIEW_OPT_FORMAT:
		if (out_format_parse(arg, &v->fmt) < 0) {
			memsz_error("unknown format '%s' (formats: %s)", arg,
				    out_format_list());
			return VIEW_USAGE;
		}
		return VIEW_OK;
	case VIEW_OPT_DEBUG_ROOT:
		v->debug_root = arg;
		return VIEW_OK;
	case VIEW_OPT_LIST_KEYS:
		v->list_keys = true;
		return VIEW_OK;
	default:
		return VIEW_NOT_MINE;
	}
}

int view_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, struct view *v)
{
	int c;

	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		enum view_status st = view_option(v, c, optarg);

		if (st == VIEW_USAGE)
			return VIEW_GETOPT_USAGE;
		if (st == VIEW_NOT_MINE)
			return c;
	}
	return -1;
}

int view_write(const struct view *v, const struct rowtree *t,
	       const enum col_id *cols, size_t ncols, bool res_pct,
	       const struct strlist *notes)
{
	const char *keynames[KEYS_MAX];
	struct out_opts oo = {
		.fmt = v->fmt,
		.keys = keynames,
		.cols = cols,
		.ncols = ncols,
		.notes = (const char *const *)notes->lines,
		.nnotes = notes->n,
		.res_pct = res_pct,
		.sort = v->sort,
		.images = v->images,
		.nimages = v->nimages,
		.snaps = v->snaps,
		.nsnaps = v->nsnaps,
		.title = v->title,
	};

	for (size_t i = 0; i < v->nkeys; i++) {
		keynames[i] = keydefs[v->keys[i]].name;
		oo.aliases |= v->keys[i] == KEY_SYMBOLS;
	}
	if (v->fmt == OUT_PPROF && isatty(STDOUT_FILENO)) {
		memsz_error("pprof output is binary: redirect it to a file "
			    "(> memsz.pb.gz)");
		return 1;
	}
	if (out_write(stdout, t, &oo) < 0 || fflush(stdout) == EOF) {
		memsz_error("cannot write the report: %s",
			    memsz_strerror(-errno));
		return 1;
	}
	if (v->fmt == OUT_CSV || v->fmt == OUT_TSV || v->fmt == OUT_FOLDED)
		for (size_t i = 0; i < notes->n; i++)
			fprintf(stderr, "memsz: note: %s\n", notes->lines[i]);
	return 0;
}
