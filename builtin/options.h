/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options.h — one table of options per command, from which both
 * getopt_long's arguments and the command's --help are generated.
 *
 * A row is one option: its short name, long name, argument, help lines and
 * the id the parser returns for it (git's OPT_BOOL('H', "human-readable",
 * &h, N_("...")) rows, plain getopt_long underneath as in bpftool). The
 * options `memsz size`, `report` and `diff` share are rows too
 * (VIEW_ROW_* in view.h), put into each command's table. -h and --help
 * are every command's without a row: they print the help.
 */
#ifndef MEMSZ_BUILTIN_OPTIONS_H
#define MEMSZ_BUILTIN_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h> /* optind */

enum opt_arg {
	OPT_NOARG,
	OPT_ARG,    /* --name VALUE or --name=VALUE */
	OPT_OPTARG, /* --name or --name=VALUE */
};

/* The first id of options that have no short name; ids below are the
 * short name's character. */
#define OPT_ID_LONG 0x100

struct opt {
	char shrt;	 /* 'i', or 0: a long name only */
	const char *lng; /* "input", or NULL: a short name only */
	enum opt_arg arg;
	const char *argname; /* "FILE" as --help shows it (OPT_NOARG: NULL) */
	int id;		     /* what opts_parse() hands the command */
	const char *help;    /* its --help lines, '\n' between them; every
				row has help (no hidden options) */
	/* one more help line made at run time (a list read from another
	 * table), or NULL */
	const char *(*more)(void);
};

/* The end of a table of rows. */
#define OPT_END                                                                \
	{                                                                      \
		0, NULL, OPT_NOARG, NULL, 0, NULL, NULL                        \
	}

struct opts_cmd {
	const char *name;	/* "report": the command, in messages */
	const char *synopsis;	/* "usage: memsz report ...\n", every line */
	const char *about;	/* what the command does, lines ending '\n' */
	const struct opt *opts; /* ended by OPT_END */
	int col;		/* the column help text starts at */
	const char *footer;	/* after the options (a blank line first), or
				   NULL */
	bool in_order;		/* options stop at the first operand (the
				   command after them is not memsz's) */
};

/* Write cmd's --help: synopsis, about, one entry per row with help (the
 * option, its argument, and its help lines from column col; on a line of
 * their own when the option is that wide), and the footer. */
void opts_usage(const struct opts_cmd *cmd, FILE *out);

/* What the command does with an option: fn gets its id and argument
 * (NULL for none) and returns -1 to go on, or the exit status. */
typedef int opts_fn(int id, const char *arg, void *ctx);
/* How the command reports a usage error (one line, in its output mode);
 * returns the exit status. */
typedef int opts_err_fn(const char *msg, void *ctx);

/* Parse the options of argv by cmd's rows (argv[0] is the command name),
 * handing each to fn. -h and --help print the help on stdout (exit 0).
 * An unknown option or one without its value is one line through err
 * (memsz_error when NULL): "unknown option '--bogus'; see 'memsz help
 * CMD'", exit EXIT_USAGE. Returns -1 with optind at the first operand to
 * go on, or the exit status. */
int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, opts_fn *fn,
	       opts_err_fn *err, void *ctx);

#endif
