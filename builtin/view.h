/* SPDX-License-Identifier: GPL-2.0-or-later */
/* view.h — the options and the output that `memsz size`, `memsz report`
 * and `memsz diff` share: --by, --fields, -n, --sort, --format, --width,
 * --filter, --exclude, -v, --debug-root, --no-disasm, --list-keys, usage
 * errors in the output mode, and writing a finished row tree with its
 * notes.
 *
 * A command puts the VIEW_ROW_* rows in its table of options
 * (builtin/options.h), reads its options with view_parse() (which keeps
 * the shared ones to itself), and calls view_write() once its tree is
 * built.
 */
#ifndef MEMSZ_BUILTIN_VIEW_H
#define MEMSZ_BUILTIN_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "builtin/options.h"
#include "elf/elfimg.h"
#include "rows/output.h"
#include "rows/rows.h"
#include "report/filter.h"
#include "report/keys.h"
#include "util/strlist.h"

/* Ids of the shared options without a short name. */
enum {
	VIEW_OPT_BY = OPT_ID_LONG,
	VIEW_OPT_SORT,
	VIEW_OPT_FORMAT,
	VIEW_OPT_DEBUG_ROOT,
	VIEW_OPT_LIST_KEYS,
	VIEW_OPT_WIDTH,
	VIEW_OPT_FILTER,
	VIEW_OPT_EXCLUDE,
	VIEW_OPT_DISASM,
	VIEW_OPT_NO_DISASM,
	VIEW_OPT_DEMANGLE,
	VIEW_OPT__END, /* a command's own long-only ids start here */
};

/* The table's width when neither --width, COLUMNS nor a terminal says. */
#define VIEW_DEFAULT_WIDTH 120
/* The characters a label should keep before the default table leaves out
 * columns to make room. */
#define VIEW_LABEL_WANT TABLE_LABEL_WANT

/* Rows of the shared options whose help each command words for itself:
 * --by (more: the command's key list), -F, --sort, -n, --format. */
#define VIEW_ROW_BY(help, more)                                                \
	{                                                                      \
		0, "by", OPT_ARG, "KEY[,KEY...]", VIEW_OPT_BY, help, more      \
	}
#define VIEW_ROW_FIELDS(help)                                                  \
	{                                                                      \
		'F', "fields", OPT_ARG, "COLS", 'F', help, NULL                \
	}
#define VIEW_ROW_SORT(help)                                                    \
	{                                                                      \
		0, "sort", OPT_ARG, "COL", VIEW_OPT_SORT, help, NULL           \
	}
#define VIEW_ROW_LIMIT(help)                                                   \
	{                                                                      \
		'n', NULL, OPT_ARG, "N", 'n', help, NULL                       \
	}
#define VIEW_ROW_FORMAT(help)                                                  \
	{                                                                      \
		0, "format", OPT_ARG, "FMT", VIEW_OPT_FORMAT, help, NULL       \
	}

/* Rows of the shared options with one help for every command. */
#define VIEW_ROW_LIST_KEYS                                                     \
	{                                                                      \
		0, "list-keys", OPT_NOARG, NULL, VIEW_OPT_LIST_KEYS,           \
		    "print every key with what it labels", NULL                \
	}
#define VIEW_ROW_FILTER                                                        \
	{0,                                                                    \
	 "filter",                                                             \
	 OPT_ARG,                                                              \
	 "[KEY=]REGEX",                                                        \
	 VIEW_OPT_FILTER,                                                      \
	 "keep rows whose KEY label matches\n"                                 \
	 "REGEX (POSIX extended); no KEY=:\n"                                  \
	 "a label at any level; repeated:\n"                                   \
	 "all must match",                                                     \
	 NULL},                                                                \
	{                                                                      \
		0, "exclude", OPT_ARG, "[KEY=]REGEX", VIEW_OPT_EXCLUDE,        \
		    "drop the rows that match", NULL                           \
	}
#define VIEW_ROW_WIDTH                                                         \
	{                                                                      \
		0, "width", OPT_ARG, "N", VIEW_OPT_WIDTH,                      \
		    "table width in terminal columns (a\n"                     \
		    "CJK character takes two where the\n"                      \
		    "C.UTF-8 locale is installed); labels\n"                   \
		    "are cut in the middle to fit, default\n"                  \
		    "columns left out (default $COLUMNS,\n"                    \
		    "the terminal, or 120; 0: no limit)",                      \
		    NULL                                                       \
	}
#define VIEW_ROW_VERBOSE                                                       \
	{                                                                      \
		'v', "verbose", OPT_NOARG, NULL, 'v',                          \
		    "every footer note in full, not one\n"                     \
		    "line per kind",                                           \
		    NULL                                                       \
	}
#define VIEW_ROW_DEBUG_ROOT                                                    \
	{                                                                      \
		0, "debug-root", OPT_ARG, "DIR", VIEW_OPT_DEBUG_ROOT,          \
		    "look for debug files under DIR instead\n"                 \
		    "of /usr/lib/debug",                                       \
		    NULL                                                       \
	}
#define VIEW_ROW_DISASM                                                        \
	{0,                                                                    \
	 "no-disasm",                                                          \
	 OPT_NOARG,                                                            \
	 NULL,                                                                 \
	 VIEW_OPT_NO_DISASM,                                                   \
	 "do not decode x86-64 code (by default\n"                             \
	 "data it refers to and no symbol or\n"                                \
	 "unit covers goes to that code under\n"                               \
	 "symbols, compileunits and inlines;\n"                                \
	 "a data symbol in code is not decoded,\n"                             \
	 "a mov immediate inside text is no\n"                                 \
	 "address)",                                                           \
	 NULL},                                                                \
	{                                                                      \
		0, "disasm", OPT_NOARG, NULL, VIEW_OPT_DISASM,                 \
		    "decode it (the default)", NULL                            \
	}

/* --demangle for report and diff (size has its own row, the same) */
#define VIEW_ROW_DEMANGLE                                                      \
	{                                                                      \
		0, "demangle", OPT_ARG, "HOW", VIEW_OPT_DEMANGLE,              \
		    "symbol names: full (default, as\n"                        \
		    "c++filt), short (without parameter\n"                     \
		    "lists, as c++filt -p) or none (as\n"                      \
		    "stored)",                                                 \
		    NULL                                                       \
	}

/* The column the help of size, report and diff starts at. */
#define VIEW_HELP_COL 23

/* The lines after the options of size and report. */
#define VIEW_HELP_DEBUGINFOD                                                   \
	"With DEBUGINFOD_URLS set, debug files missing locally are\n"          \
	"fetched from those debuginfod servers (libdebuginfod's cache).\n"

struct view {
	const char *cmdname; /* "size", "report", "diff": messages */
	unsigned cmd;	     /* KEY_IN_SIZE or KEY_IN_REPORT */
	enum key_id keys[KEYS_MAX];
	size_t nkeys;
	enum col_id sort;
	bool sort_given;       /* --sort was given a column */
	enum rows_order order; /* --sort by value (a column) or an
				  order of labels (addr, name) */
	unsigned columns;      /* bit per col_id the command has */
	uint64_t limit;	       /* -n */
	bool limit_given;      /* -n was given */
	enum out_format fmt;
	const char *debug_root; /* NULL: /usr/lib/debug */
	unsigned disasm;	/* elf_map_opts.disasm: ELF_DISASM_ON
				   unless --no-disasm (OFF); --disasm:
				   COUNTED */
	bool list_keys;		/* --list-keys was given */
	unsigned demangle;	/* --demangle: enum elf_demangle_style */
	enum col_id fields[COL__COUNT]; /* --fields, in order */
	size_t nfields;			/* 0: the command's defaults */
	size_t width;			/* --width (0: no limit) */
	bool width_given;		/* else COLUMNS, the terminal, 120 */
	struct filter filter;		/* --filter, --exclude */
	bool verbose;			/* -v: every note in full */
	enum rows_kind kind;		/* what the tree holds: one value set
					   (0), a diff, a timeline */
	/* for pprof and html (out_opts), set by the command: */
	const struct out_image *images;
	size_t nimages;
	const struct out_snap *snaps;
	size_t nsnaps;
	uint64_t start_ns; /* the recording's start (out_opts.start_ns) */
	const char *title;
};

/* True if argv asks for --format json (for commands without a view). */
bool view_argv_json(int argc, char **argv);

/* A command's own options: fn gets each option that is not a shared one,
 * with its argument and ctx, and returns -1 to go on or an exit status. */
typedef int view_option_fn(int id, const char *arg, struct view *v, void *ctx);

/* The option loop of a command with a view: argv is first looked through
 * for --format json (so that even a usage error found before it is
 * written as JSON), then every option of cmd's table is read, the shared
 * ones into v and the others through fn; then --list-keys prints the
 * command's keys. Returns -1 to go on with the operands from optind, or
 * the exit status (a usage error, --help, or fn's). */
int view_parse(int argc, char **argv, struct view *v,
	       const struct opts_cmd *cmd, view_option_fn *fn, void *ctx);

/* Write a usage error in v's output mode: {"error": "..."} on stdout in
 * json mode, else "memsz: ..." on stderr. Returns EXIT_USAGE (129). */
int view_usage_error(const struct view *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The processes report's and diff's --pid name, each once. */
struct pid_list {
	uint32_t *v; /* caller frees */
	size_t n, cap;
};

/* --pid PID[,PID...]: the pids of arg added to l: --pid A --pid B is
 * --pid A,B, as record's -p. Returns -1 to go on, or the exit status of
 * a usage error (a pid that is not a number from 1 to 2^31-1; nothing
 * added). */
int view_pid_option(const struct view *v, const char *arg, struct pid_list *l);

/* Write msg in fmt's output mode: {"error": "..."} on stdout where the
 * format's row says OUTF_JSON_ERRORS (json), else "memsz: ..." on
 * stderr. */
void view_error(enum out_format fmt, const char *msg);

/* -n as v's format takes it: 0 (every row) where its row says
 * OUTF_ALL_ROWS (folded, pprof), or OUTF_ROWS_ASKED (csv, tsv, json)
 * and -n was not given, or, without -n, when --sort names an order of
 * labels (addr, name: a listing, like pmap's); else v->limit. */
uint64_t view_limit(const struct view *v);

/* Sort and fold the built tree t for v (rowtree_finish): by column sort
 * or in the order --sort names, with view_limit()'s -n. */
void view_finish(const struct view *v, struct rowtree *t, enum col_id sort);

/* Check what only the --by list tells: a --fields or --sort column only
 * a key gives (relocs) has it in --by, and the rules of --filter/--exclude
 * name keys of --by. Returns -1 to go on, or EXIT_USAGE after the
 * message. */
int view_check(struct view *v);

/* The columns to print into cols (room for COL__COUNT): the --fields
 * list less the columns not in avail (bit per col_id: what this report
 * has), or, without --fields, table_dflt[0..ntable-1] for a format that
 * fits the width (the table: less SHR CLEAN, SHR DIRTY, VM SIZE, then
 * FILE SIZE, then DIRTY ... while the labels of the innermost key would
 * get fewer than VIEW_LABEL_WANT characters of the width, as lines of
 * v->kind are laid out) and every column in avail for the other formats;
 * a one-column format (folded) gets the first field or the --sort column;
 * an all-columns format (html) gets the --fields list then the rest of
 * avail (its page switches between columns). Returns the count. */
size_t view_columns(const struct view *v, unsigned avail,
		    const enum col_id *table_dflt, size_t ntable,
		    enum col_id *cols);

/* Write the finished tree t (of any kind v's format writes) with columns
 * cols[0..ncols-1] and notes to stdout in v's format; csv, tsv and folded
 * stay pure data and their notes go to stderr (OUTF_NOTES_STDERR). pprof,
 * being binary, is not written to a terminal.
 * res_pct: add RES% last if cols lack it. Notes of one kind about
 * several images are one line unless -v. Returns 0, or 1 after printing
 * why the report could not be written. */
int view_write(const struct view *v, const struct rowtree *t,
	       const enum col_id *cols, size_t ncols, bool res_pct,
	       const struct strlist *notes);

/* The i-th (from 0) --sort name that is an order of labels ("addr",
 * "name") among those the commands cmds (KEY_IN_* bits) offer; NULL past
 * the last. Static storage. */
const char *view_sort_order(size_t i, unsigned cmds);

/* Free what the options put in v. */
void view_free(struct view *v);

#endif
