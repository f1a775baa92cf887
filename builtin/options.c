// SPDX-License-Identifier: GPL-2.0-or-later
/* options.c — see options.h */
#include "config.h"

#include "builtin/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "util/util.h"

/* -h and --help, every command's (the last row the parser sees). */
static const struct opt help_row = {
    'h', "help", OPT_NOARG, NULL, 0, NULL, NULL,
};

static size_t rows_count(const struct opt *o)
{
	size_t n = 0;

	while (o[n].shrt || o[n].lng)
		n++;
	return n;
}

/* The option as --help names it: "-i, --input FILE", "-n N",
 * "--timeline[=COLS]"; caller frees. */
static char *opt_name(const struct opt *o)
{
	char *s = o->shrt ? xasprintf("-%c", o->shrt) : xstrdup("");
	char *t;

	if (o->lng) {
		t = xasprintf("%s%s--%s", s, o->shrt ? ", " : "", o->lng);
		free(s);
		s = t;
	}
	if (o->arg == OPT_NOARG)
		return s;
	t = xasprintf(o->arg == OPT_OPTARG ? "%s[=%s]" : "%s %s", s,
		      o->argname ? o->argname : "VALUE");
	free(s);
	return t;
}

/* Write s's lines, each from column col; the first goes on the current
 * line, at whose column at the option's name ends, unless that is past
 * col - 1 (then on a line of its own). */
static void help_lines(FILE *out, const char *s, int col, int at)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		int len = nl ? (int)(nl - s) : (int)strlen(s);

		if (at >= col) {
			fputc('\n', out);
			at = 0;
		}
		fprintf(out, "%*s%.*s\n", col - at, "", len, s);
		at = 0;
		s += len + (nl != NULL);
	}
}

void opts_usage(const struct opts_cmd *cmd, FILE *out)
{
	fputs(cmd->synopsis, out);
	fprintf(out, "\n%s\n", cmd->about);
	for (const struct opt *o = cmd->opts; o->shrt || o->lng; o++) {
		char *name = opt_name(o);
		int at;

		at = fprintf(out, "    %s", name);
		free(name);
		help_lines(out, o->help, cmd->col, at);
		if (o->more)
			fprintf(out, "%*s%s\n", cmd->col, "", o->more());
	}
	if (cmd->footer)
		fprintf(out, "\n%s", cmd->footer);
}

/* getopt_long's short option string of rows o[0..n-1] (with help_row):
 * ':' first so that a missing value is told apart, '+' first to stop at
 * the first operand. Caller frees. */
static char *short_string(const struct opts_cmd *cmd, const struct opt *o,
			  size_t n)
{
	char *s = xcalloc(1, 3 * n + 3), *p = s;

	if (cmd->in_order)
		*p++ = '+';
	*p++ = ':';
	for (size_t i = 0; i < n; i++) {
		if (!o[i].shrt)
			continue;
		*p++ = o[i].shrt;
		if (o[i].arg != OPT_NOARG)
			*p++ = ':';
		if (o[i].arg == OPT_OPTARG)
			*p++ = ':';
	}
	return s;
}

/* getopt_long's long options of rows o[0..n-1], each returning
 * OPT_ID_LONG + its index (never a short name); caller frees. */
static struct option *long_options(const struct opt *o, size_t n)
{
	static const int has_arg[] = {
	    [OPT_NOARG] = no_argument,
	    [OPT_ARG] = required_argument,
	    [OPT_OPTARG] = optional_argument,
	};
	struct option *l = xcalloc(n + 1, sizeof(*l));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (o[i].lng)
			l[k++] = (struct option){o[i].lng, has_arg[o[i].arg],
						 NULL, OPT_ID_LONG + (int)i};
	return l;
}

/* The one line for getopt's answer c ('?' or ':') on argv; caller frees. */
static char *bad_option(const struct opts_cmd *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];
	char opt[3] = {'-', (char)optopt, 0};

	/* a short option: optopt; a long one: the word getopt stopped at */
	if (optopt && (!arg || strncmp(arg, "--", 2)))
		arg = opt;
	if (c == ':')
		return xasprintf("option '%s' needs a value; see 'memsz help "
				 "%s'",
				 arg, cmd->name);
	return xasprintf("unknown option '%s'; see 'memsz help %s'", arg,
			 cmd->name);
}

/* The row of getopt's answer c in rows[0..n-1]: OPT_ID_LONG + its index
 * for a long option, the short name for a short one. */
static const struct opt *row_of(const struct opt *rows, size_t n, int c)
{
	if (c >= OPT_ID_LONG)
		return (size_t)(c - OPT_ID_LONG) < n ? &rows[c - OPT_ID_LONG]
						     : NULL;
	for (size_t i = 0; i < n; i++)
		if (rows[i].shrt == c)
			return &rows[i];
	return NULL;
}

int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, opts_fn *fn,
	       opts_err_fn *err, void *ctx)
{
	size_t n = rows_count(cmd->opts);
	struct opt *rows = xcalloc(n + 2, sizeof(*rows));
	struct option *longopts;
	char *shortopts;
	int c, ret = -1;

	memcpy(rows, cmd->opts, n * sizeof(*rows));
	rows[n] = help_row;
	longopts = long_options(rows, n + 1);
	shortopts = short_string(cmd, rows, n + 1);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct opt *o;
		char *msg;

		if (c == '?' || c == ':') {
			msg = bad_option(cmd, c, argv);
			if (err) {
				ret = err(msg, ctx);
			} else {
				memsz_error("%s", msg);
				ret = EXIT_USAGE;
			}
			free(msg);
			break;
		}
		o = row_of(rows, n + 1, c);
		if (o == &rows[n]) { /* -h, --help */
			opts_usage(cmd, stdout);
			ret = 0;
			break;
		}
		ret = fn(o->id, optarg, ctx);
		if (ret >= 0)
			break;
	}
	free(shortopts);
	free(longopts);
	free(rows);
	return ret;
}
