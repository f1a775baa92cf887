// SPDX-License-Identifier: GPL-2.0-or-later
/* view.c — see view.h */
#include "config.h"

#include "builtin/view.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "util/escape.h"
#include "util/strbuf.h"
#include "util/util.h"

/* What view_option() did with an option. */
enum view_status {
	VIEW_NOT_MINE, /* not a shared option: the command handles it */
	VIEW_OK,
	VIEW_USAGE, /* a bad value; the message is written */
};

int view_usage_error(const struct view *v, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	view_error(v->fmt, msg ? msg : "usage error");
	free(msg);
	return EXIT_USAGE;
}

int view_pid_option(const struct view *v, const char *arg, struct pid_list *l)
{
	size_t had = l->n;
	const char *p = arg;

	do {
		const char *end = strchrnul(p, ',');
		char *tok = xstrndup(p, (size_t)(end - p));
		uint64_t u;
		size_t i;

		if (parse_u64(tok, &u) < 0 || !u || u > INT32_MAX) {
			l->n = had;
			free(tok);
			return view_usage_error(v,
						"--pid wants process ids "
						"(PID[,PID...]), not '%s'",
						arg);
		}
		free(tok);
		for (i = 0; i < l->n && l->v[i] != u; i++)
			;
		if (i == l->n) {
			xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
			l->v[l->n++] = (uint32_t)u;
		}
		p = *end ? end + 1 : end;
	} while (*p || p[-1] == ',');
	return -1;
}

void view_error(enum out_format fmt, const char *msg)
{
	/* the JSON object on stdout; on stderr too if it cannot be written
	 * there (a full disk), so that the error is never lost */
	if (!(out_format_get(fmt)->flags & OUTF_JSON_ERRORS) ||
	    out_write_error(stdout, msg) < 0)
		memsz_error("%s", msg);
}

uint64_t view_limit(const struct view *v)
{
	unsigned flags = out_format_get(v->fmt)->flags;

	if ((flags & OUTF_ALL_ROWS) ||
	    ((flags & OUTF_ROWS_ASKED) && !v->limit_given))
		return 0;
	return !rows_order_by_value(v->order) && !v->limit_given ? 0 : v->limit;
}

void view_finish(const struct view *v, struct rowtree *t, enum col_id sort)
{
	rowtree_set_order(t, v->order);
	rowtree_finish(t, sort, view_limit(v));
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

/* The --sort names that are orders of labels, not columns: one row
 * each. */
static const struct {
	const char *name;
	enum rows_order order;
	unsigned cmds; /* KEY_IN_* of the commands that offer it */
} sort_orders[] = {
    /* where each label's thing is: mappings by address, processes by
     * pid (the keys that give positions: report's) */
    {"addr", ROWS_ORDER_POS, KEY_IN_REPORT},
    {"name", ROWS_ORDER_NAME, KEY_IN_SIZE | KEY_IN_REPORT},
    /* the larger of FILE SIZE and VM SIZE (Bloaty's -s both) */
    {"both", ROWS_ORDER_BOTH, KEY_IN_SIZE},
};

const char *view_sort_order(size_t i, unsigned cmds)
{
	for (size_t k = 0; k < ARRAY_SIZE(sort_orders); k++)
		if ((sort_orders[k].cmds & cmds) && !i--)
			return sort_orders[k].name;
	return NULL;
}

/* The orders --sort offers v's command, comma-separated; caller frees. */
static char *order_list(const struct view *v)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < ARRAY_SIZE(sort_orders); i++) {
		char *t;

		if (!(sort_orders[i].cmds & v->cmd))
			continue;
		t = xasprintf("%s%s%s", s, s[0] ? ", " : "",
			      sort_orders[i].name);
		free(s);
		s = t;
	}
	return s;
}

static enum view_status parse_sort(struct view *v, const char *arg)
{
	int col = col_from_name(arg);
	char *list, *ords;

	if (col >= 0 && (sortable(v) & (1u << col))) {
		v->sort = col;
		v->sort_given = true;
		v->order = ROWS_ORDER_VALUE;
		return VIEW_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sort_orders); i++) {
		if (strcmp(arg, sort_orders[i].name) ||
		    !(sort_orders[i].cmds & v->cmd))
			continue;
		v->order = sort_orders[i].order;
		return VIEW_OK;
	}
	list = column_list(sortable(v));
	ords = order_list(v);
	view_usage_error(v, "cannot sort by '%s' (columns: %s; orders: %s)",
			 arg, list, ords);
	free(list);
	free(ords);
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
		view_usage_error(v,
				 "unknown or repeated field '%s' in "
				 "--fields (fields: %s)",
				 name, list);
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

/* --demangle's values, as Bloaty (and size) names them. */
static const char *const demangle_names[] = {
    [ELF_DEMANGLE_FULL] = "full",
    [ELF_DEMANGLE_SHORT] = "short",
    [ELF_DEMANGLE_NONE] = "none",
};

/* --demangle HOW into v->demangle. */
static enum view_status parse_demangle(struct view *v, const char *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(demangle_names); i++)
		if (!strcmp(arg, demangle_names[i])) {
			v->demangle = (unsigned)i;
			return VIEW_OK;
		}
	view_usage_error(v, "--demangle: '%s' is not full, short or none", arg);
	return VIEW_USAGE;
}

/* Handle the shared option c with argument arg into v. */
static enum view_status view_option(struct view *v, int c, const char *arg)
{
	uint64_t u;
	char *bad;
	int n;

	switch (c) {
	case VIEW_OPT_BY:
		n = keys_parse(arg, v->cmd, v->keys, &bad);
		if (n == -E2BIG) {
			view_usage_error(v,
					 "--by takes at most %d keys; '%s' is "
					 "one too many",
					 KEYS_MAX, bad);
			free(bad);
			return VIEW_USAGE;
		}
		if (n < 0) {
			view_usage_error(v,
					 "unknown or repeated key '%s' "
					 "(keys: %s)",
					 bad, keys_list(v->cmd));
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
		v->limit_given = true;
		return VIEW_OK;
	case 'F':
		return parse_fields(v, arg);
	case 'v':
		v->verbose = true;
		return VIEW_OK;
	case VIEW_OPT_WIDTH:
		if (parse_u64(arg, &u) < 0 || u > 100000) {
			view_usage_error(v,
					 "--width wants a number of "
					 "columns, not '%s'",
					 arg);
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
		v->disasm = ELF_DISASM_COUNTED;
		return VIEW_OK;
	case VIEW_OPT_NO_DISASM:
		v->disasm = ELF_DISASM_OFF;
		return VIEW_OK;
	case VIEW_OPT_DEMANGLE:
		return parse_demangle(v, arg);
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

/* The command's fn and its ctx, for view_option_cb. */
struct view_parse_ctx {
	struct view *v;
	view_option_fn *fn;
	void *ctx;
};

/* An option of the table: a shared one into v, the others to the
 * command's fn. */
static int view_option_cb(int id, const char *arg, void *ctx)
{
	struct view_parse_ctx *p = ctx;

	switch (view_option(p->v, id, arg)) {
	case VIEW_OK:
		return -1;
	case VIEW_USAGE:
		return EXIT_USAGE;
	case VIEW_NOT_MINE:
	default:
		return p->fn(id, arg, p->v, p->ctx);
	}
}

/* A bad option or missing value, in v's output mode. */
static int view_error_cb(const char *msg, void *ctx)
{
	struct view_parse_ctx *p = ctx;

	return view_usage_error(p->v, "%s", msg);
}

int view_parse(int argc, char **argv, struct view *v,
	       const struct opts_cmd *cmd, view_option_fn *fn, void *ctx)
{
	struct view_parse_ctx p = {v, fn, ctx};
	int ret;

	if (view_argv_json(argc, argv))
		v->fmt = OUT_JSON;
	/* code-to-data references unless --no-disasm */
	v->disasm = ELF_DISASM_ON;
	ret = opts_parse(cmd, argc, argv, view_option_cb, view_error_cb, &p);
	if (ret >= 0)
		return ret;
	if (v->list_keys) {
		keys_print(stdout, v->cmd);
		return 0;
	}
	return -1;
}

/* A --fields or --sort column only a key not in --by gives (relocs): a
 * usage error naming the key, or 0. */
static int key_cols_check(struct view *v)
{
	unsigned missing = keys_cols_missing(v->keys, v->nkeys);
	int col = -1;

	for (size_t i = 0; i < v->nfields && col < 0; i++)
		if (missing & (1u << v->fields[i]))
			col = v->fields[i];
	if (col >= 0)
		return view_usage_error(
		    v, "field '%s' needs the %s key in --by",
		    coldefs[col].sortname, keydefs[keys_of_col(col)].name);
	if (v->sort_given && v->order == ROWS_ORDER_VALUE &&
	    v->sort < COL__COUNT && (missing & (1u << v->sort)))
		return view_usage_error(v, "--sort %s needs the %s key in --by",
					coldefs[v->sort].sortname,
					keydefs[keys_of_col(v->sort)].name);
	return 0;
}

int view_check(struct view *v)
{
	char *err = NULL;
	int ret = key_cols_check(v);

	if (ret)
		return ret;

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
 * the innermost key would get fewer than VIEW_LABEL_WANT characters
 * (the shared columns first: only a diff has them by default). */
static const enum col_id drop_order[] = {
    COL_SH_CLEAN, COL_SH_DIRTY, COL_VM,	   COL_FILE, COL_SWAP,
    COL_USS,	  COL_RES_PCT,	COL_DIRTY, COL_PSS,  COL_RELOCS,
};

/* The columns the rows are in the order of (bit per col_id): the --sort
 * column, FILE SIZE and VM SIZE for "both", none for an order of labels.
 * A table shows them, or its rows would seem in no order. */
static unsigned sort_cols(const struct view *v)
{
	if (v->order == ROWS_ORDER_BOTH)
		return 1u << COL_FILE | 1u << COL_VM;
	if (rows_order_by_value(v->order) && v->sort < COL__COUNT)
		return 1u << v->sort;
	return 0;
}

/* Leave out of cols[0..n-1] the columns of drop_order, in that order, but
 * those of keep (bits), until the labels of the innermost key fit
 * VIEW_LABEL_WANT characters in width (0: no limit) or one column is
 * left. Returns the new count. */
static size_t fit_width(const struct view *v, enum col_id *cols, size_t n,
			unsigned keep)
{
	size_t width = table_width(v),
	       indent = 4 * (v->nkeys ? v->nkeys - 1 : 0);

	for (size_t d = 0; width && d < ARRAY_SIZE(drop_order) && n > 1; d++) {
		if (out_table_cols_width(v->kind, cols, n) + indent +
			VIEW_LABEL_WANT <=
		    width)
			break;
		if (keep & (1u << drop_order[d]))
			continue;
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
	unsigned flags = out_format_get(v->fmt)->flags;
	size_t n = 0;

	if (flags & OUTF_ONE_COLUMN) {
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
		/* a table's rows in the order of a column --fields left
		 * out get it after them, as perf adds its sort keys to -F */
		if (n && (flags & OUTF_WIDTH) && !(flags & OUTF_ALL_COLUMNS)) {
			unsigned more = sort_cols(v) & avail & ~taken;

			for (int i = 0; i < COL__COUNT; i++)
				if (more & (1u << i))
					cols[n++] = i;
		}
		if (!(flags & OUTF_ALL_COLUMNS) || !n)
			return n;
		/* the page's column switch offers every column, the
		 * chosen ones first */
		avail &= ~taken;
	}
	if (flags & OUTF_WIDTH) {
		/* the defaults, and what the rows are sorted by after
		 * them if it is not one of them (--sort swap) */
		unsigned keep = sort_cols(v) & avail, more = keep;

		for (size_t i = 0; i < ntable; i++)
			if (avail & (1u << table_dflt[i])) {
				cols[n++] = table_dflt[i];
				more &= ~(1u << table_dflt[i]);
			}
		for (int i = 0; i < COL__COUNT; i++)
			if (more & (1u << i))
				cols[n++] = i;
		return fit_width(v, cols, n, keep);
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
	/* what a failed write says it could not write */
	static const char *const what[ROWS__KIND_COUNT] = {
	    [ROWS_SINGLE] = "report",
	    [ROWS_DIFF] = "diff",
	    [ROWS_TIMELINE] = "timeline",
	};
	const struct out_format_def *def = out_format_get(v->fmt);
	const char *keynames[KEYS_MAX];
	struct strlist shown = {0};
	struct out_opts oo = {
	    .fmt = v->fmt,
	    .keys = keynames,
	    .cols = cols,
	    .ncols = ncols,
	    .res_pct = res_pct,
	    .width = def->flags & OUTF_WIDTH ? table_width(v) : 0,
	    .sort = v->sort,
	    .images = v->images,
	    .nimages = v->nimages,
	    .snaps = v->snaps,
	    .nsnaps = v->nsnaps,
	    .start_ns = v->start_ns,
	    .title = v->title,
	};
	unsigned shown_cols = 0;
	bool *keep;
	int ret = 0;

	/* notes about columns (strlist.about) only where one is shown */
	for (size_t c = 0; c < ncols; c++)
		shown_cols |= 1u << cols[c];
	keep = strlist_keep_about(notes, shown_cols);
	strlist_summarize(notes, keep, v->verbose, &shown);
	free(keep);
	oo.notes = (const char *const *)shown.lines;
	oo.nnotes = shown.n;
	for (size_t i = 0; i < v->nkeys; i++) {
		keynames[i] = keydefs[v->keys[i]].name;
		oo.aliases |= (keydefs[v->keys[i]].flags & KEYF_ALIASES) != 0;
		if (keydefs[v->keys[i]].flags & KEYF_CUT_END)
			oo.cut_end |= 1u << i;
	}
	if ((def->flags & OUTF_BINARY) && isatty(STDOUT_FILENO)) {
		memsz_error("%s output is binary: redirect it to a file "
			    "(> memsz.pb.gz)",
			    def->name);
		ret = 1;
		goto out;
	}
	if (out_write(stdout, t, &oo) < 0 || fflush(stdout) == EOF) {
		memsz_error("cannot write the %s: %s", what[t->kind],
			    memsz_strerror(-errno));
		ret = 1;
		goto out;
	}
	/* Notes quote names others chose (an image's path in a recording, a
	 * process's name): escaped (util/escape.h) where they are plain text,
	 * here and in the table's footer, so that none of their bytes can
	 * drive a terminal or forge a line; JSON and pprof encode them. */
	if (def->flags & OUTF_NOTES_STDERR)
		for (size_t i = 0; i < shown.n; i++) {
			fputs("memsz: note: ", stderr);
			fputs_escaped(shown.lines[i], stderr);
			fputc('\n', stderr);
		}
out:
	strlist_free(&shown);
	return ret;
}

void view_free(struct view *v)
{
	filter_free(&v->filter);
}
