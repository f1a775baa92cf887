/* view.c — see view.h */
#include "config.h"

#include "builtin/view.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "util/strbuf.h"
#include "util/util.h"

/* What view_option() did with an option. */
enum view_status {
	VIEW_NOT_MINE,  /* not a shared option: the command handles it */
	VIEW_OK,
	VIEW_USAGE,     /* a bad value; the message is written */
};

int view_usage_error(const struct view *v, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	out_error(v->fmt, msg ? msg : "usage error");
	free(msg);
	return EXIT_USAGE;
}

/* The names of the columns in mask, comma-separated; caller frees. */
static char *column_list(unsigned mask)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < COL__COUNT; i++)
		if (mask & (1u << i))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
				    coldefs[i].sortname);
	return strbuf_detach(&sb);
}

/* Columns --sort accepts: the command's, less the derived ones. */
static unsigned sortable(const struct view *v)
{
	unsigned m = v->columns;

	for (int i = 0; i < COL__COUNT; i++)
		if (coldefs[i].derived)
			m &= ~(1u << i);
	return m;
}

static enum view_status parse_sort(struct view *v, const char *arg)
{
	int col = col_from_name(arg);
	char *list;

	if (col >= 0 && (sortable(v) & (1u << col))) {
		v->sort = col;
		v->sort_given = true;
		return VIEW_OK;
	}
	list = column_list(sortable(v));
	view_usage_error(v, "cannot sort by '%s' (columns: %s)", arg, list);
	free(list);
	return VIEW_USAGE;
}

/* --fields a,b,c: columns of the command, each once. */
static enum view_status parse_fields(struct view *v, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL, *name, *list;
	unsigned seen = 0;

	v->nfields = 0;
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		int col = col_from_name(name);

		if (col >= 0 && (v->columns & (1u << col)) &&
		    !(seen & (1u << col))) {
			seen |= 1u << col;
			v->fields[v->nfields++] = col;
			continue;
		}
		list = column_list(v->columns);
		view_usage_error(v, "unknown or repeated field '%s' in "
				 "--fields (fields: %s)", name, list);
		free(list);
		free(copy);
		return VIEW_USAGE;
	}
	free(copy);
	if (!v->nfields) {
		view_usage_error(v, "--fields wants a list of columns");
		return VIEW_USAGE;
	}
	return VIEW_OK;
}

static enum view_status parse_filter(struct view *v, const char *arg,
				     bool exclude)
{
	char *err = NULL;

	if (filter_add(&v->filter, arg, exclude, v->cmd, &err) == 0)
		return VIEW_OK;
	view_usage_error(v, "%s", err);
	free(err);
	return VIEW_USAGE;
}

/* Handle option c with argument arg (getopt's optarg) into v. */
static enum view_status view_option(struct view *v, int c, const char *arg)
{
	uint64_t u;
	char *bad;
	int n;

	switch (c) {
	case VIEW_OPT_BY:
		n = keys_parse(arg, v->cmd, v->keys, &bad);
		if (n < 0) {
			view_usage_error(v, "unknown or repeated key '%s' "
					 "(keys: %s)", bad, keys_list(v->cmd));
			free(bad);
			return VIEW_USAGE;
		}
		v->nkeys = n;
		return VIEW_OK;
	case 'n':
		if (parse_u64(arg, &v->limit) < 0) {
			view_usage_error(v, "-n wants a number, not '%s'", arg);
			return VIEW_USAGE;
		}
		return VIEW_OK;
	case 'F':
		return parse_fields(v, arg);
	case 'v':
		v->verbose = true;
		return VIEW_OK;
	case VIEW_OPT_WIDTH:
		if (parse_u64(arg, &u) < 0 || u > 100000) {
			view_usage_error(v, "--width wants a number of "
					 "columns, not '%s'", arg);
			return VIEW_USAGE;
		}
		v->width = (size_t)u;
		v->width_given = true;
		return VIEW_OK;
	case VIEW_OPT_FILTER:
	case VIEW_OPT_EXCLUDE:
		return parse_filter(v, arg, c == VIEW_OPT_EXCLUDE);
	case VIEW_OPT_SORT:
		return parse_sort(v, arg);
	case VIEW_OPT_FORMAT:
		if (out_format_parse(arg, &v->fmt) < 0) {
			view_usage_error(v, "unknown format '%s' (formats: %s)",
					 arg, out_format_list());
			return VIEW_USAGE;
		}
		return VIEW_OK;
	case VIEW_OPT_DEBUG_ROOT:
		v->debug_root = arg;
		return VIEW_OK;
	case VIEW_OPT_LIST_KEYS:
		v->list_keys = true;
		return VIEW_OK;
	case VIEW_OPT_DISASM:
		v->disasm = true;
		return VIEW_OK;
	default:
		return VIEW_NOT_MINE;
	}
}

bool view_argv_json(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--format=json"))
			return true;
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			return !strcmp(argv[i + 1], "json");
	}
	return false;
}

void view_prescan(int argc, char **argv, struct view *v)
{
	if (view_argv_json(argc, argv))
		v->fmt = OUT_JSON;
}

/* The usage error for getopt's answer c ('?' or ':') on argv. */
static void bad_option(struct view *v, int c, char **argv)
{
	const char *arg = argv[optind - 1];
	char opt[3] = { '-', (char)optopt, 0 };

	if (optopt && (!arg || strncmp(arg, "--", 2)))
		arg = opt;
	if (c == ':')
		view_usage_error(v, "option '%s' needs a value; see 'memsz "
				 "help %s'", arg, v->cmdname ? v->cmdname : "");
	else
		view_usage_error(v, "unknown option '%s'; see 'memsz help "
				 "%s'", arg, v->cmdname ? v->cmdname : "");
}

int view_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, struct view *v)
{
	char *opts = xasprintf(":%s", shortopts);
	int c, ret = -1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, opts, longopts, NULL)) != -1) {
		enum view_status st;

		if (c == '?' || c == ':') {
			bad_option(v, c, argv);
			ret = VIEW_GETOPT_USAGE;
			break;
		}
		st = view_option(v, c, optarg);
		if (st == VIEW_USAGE) {
			ret = VIEW_GETOPT_USAGE;
			break;
		}
		if (st == VIEW_NOT_MINE) {
			ret = c;
			break;
		}
	}
	free(opts);
	return ret;
}

int view_parse(int argc, char **argv, struct view *v, const char *shortopts,
	       const struct option *longopts, view_option_fn *fn, void *ctx)
{
	int c, ret;

	view_prescan(argc, argv, v);
	optind = 1;
	while ((c = view_getopt(argc, argv, shortopts, longopts, v)) != -1) {
		if (c == VIEW_GETOPT_USAGE)
			return EXIT_USAGE;
		ret = fn(c, optarg, v, ctx);
		if (ret >= 0)
			return ret;
	}
	if (v->list_keys) {
		keys_print(stdout, v->cmd);
		return 0;
	}
	return -1;
}

int view_check(struct view *v)
{
	char *err = NULL;

	if (filter_bind(&v->filter, v->keys, v->nkeys, &err) == 0)
		return -1;
	view_usage_error(v, "%s", err);
	free(err);
	return EXIT_USAGE;
}

/* The table's width: --width, else $COLUMNS, else the terminal's, else
 * VIEW_DEFAULT_WIDTH. 0: no limit. */
static size_t table_width(const struct view *v)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	uint64_t u;

	if (v->width_given)
		return v->width;
	if (env && parse_u64(env, &u) == 0 && u > 0 && u <= 100000)
		return (size_t)u;
	if (isatty(STDOUT_FILENO) &&
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return VIEW_DEFAULT_WIDTH;
}

/* Default table columns are left out in this order while the labels of
 * the innermost key would get fewer than VIEW_LABEL_WANT characters. */
static const enum col_id drop_order[] = {
	COL_VM, COL_FILE, COL_SWAP, COL_USS, COL_RES_PCT, COL_DIRTY,
	COL_PSS, COL_RELOCS,
};

/* Leave out of cols[0..n-1] the columns of drop_order, in that order,
 * until the labels of the innermost key fit VIEW_LABEL_WANT characters in
 * width (0: no limit) or one column is left. Returns the new count. */
static size_t fit_width(const struct view *v, enum col_id *cols, size_t n)
{
	size_t width = table_width(v), indent = 4 * (v->nkeys ? v->nkeys - 1 :
							     0);

	for (size_t d = 0; width && d < ARRAY_SIZE(drop_order) && n > 1; d++) {
		if (out_table_cols_width(cols, n) + indent + VIEW_LABEL_WANT <=
		    width)
			break;
		for (size_t i = 0; i < n; i++) {
			if (cols[i] != drop_order[d])
				continue;
			memmove(cols + i, cols + i + 1,
				(n - i - 1) * sizeof(*cols));
			n--;
			break;
		}
	}
	return n;
}

size_t view_columns(const struct view *v, unsigned avail,
		    const enum col_id *table_dflt, size_t ntable,
		    enum col_id *cols)
{
	size_t n = 0;

	if (v->fmt == OUT_FOLDED) {
		for (size_t i = 0; i < v->nfields && !n; i++)
			if ((avail & (1u << v->fields[i])) &&
			    !coldefs[v->fields[i]].derived)
				cols[n++] = v->fields[i];
		if (!n)
			cols[n++] = v->sort;
		return n;
	}
	if (v->nfields) {
		unsigned taken = 0;

		for (size_t i = 0; i < v->nfields; i++)
			if (avail & (1u << v->fields[i])) {
				cols[n++] = v->fields[i];
				taken |= 1u << v->fields[i];
			}
		if (v->fmt != OUT_HTML || !n)
			return n;
		/* the page's column switch offers every column, the
		 * chosen ones first */
		avail &= ~taken;
	}
	if (v->fmt == OUT_TABLE) {
		for (size_t i = 0; i < ntable; i++)
			if (avail & (1u << table_dflt[i]))
				cols[n++] = table_dflt[i];
		return fit_width(v, cols, n);
	}
	for (int i = 0; i < COL__COUNT; i++)
		if ((avail & (1u << i)) && !coldefs[i].optional)
			cols[n++] = i;
	return n;
}

int view_write(const struct view *v, const struct rowtree *t,
	       const enum col_id *cols, size_t ncols, bool res_pct,
	       const struct strlist *notes)
{
	const char *keynames[KEYS_MAX];
	struct strlist shown = { 0 };
	struct out_opts oo = {
		.fmt = v->fmt,
		.keys = keynames,
		.cols = cols,
		.ncols = ncols,
		.res_pct = res_pct,
		.width = v->fmt == OUT_TABLE ? table_width(v) : 0,
		.sort = v->sort,
		.images = v->images,
		.nimages = v->nimages,
		.snaps = v->snaps,
		.nsnaps = v->nsnaps,
		.title = v->title,
	};
	int ret = 0;

	strlist_summarize(notes, NULL, v->verbose, &shown);
	oo.notes = (const char *const *)shown.lines;
	oo.nnotes = shown.n;
	for (size_t i = 0; i < v->nkeys; i++) {
		keynames[i] = keydefs[v->keys[i]].name;
		oo.aliases |= v->keys[i] == KEY_SYMBOLS;
	}
	if (v->fmt == OUT_PPROF && isatty(STDOUT_FILENO)) {
		memsz_error("pprof output is binary: redirect it to a file "
			    "(> memsz.pb.gz)");
		ret = 1;
		goto out;
	}
	if (out_write(stdout, t, &oo) < 0 || fflush(stdout) == EOF) {
		memsz_error("cannot write the report: %s",
			    memsz_strerror(-errno));
		ret = 1;
		goto out;
	}
	if (v->fmt == OUT_CSV || v->fmt == OUT_TSV || v->fmt == OUT_FOLDED)
		for (size_t i = 0; i < shown.n; i++)
			fprintf(stderr, "memsz: note: %s\n", shown.lines[i]);
out:
	strlist_free(&shown);
	return ret;
}

void view_free(struct view *v)
{
	filter_free(&v->filter);
}
