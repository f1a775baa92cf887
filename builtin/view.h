/* view.h — the options and the output that `memsz size`, `memsz report`
 * and `memsz diff` share: --by, --fields, -n, --sort, --format, --width,
 * --filter, --exclude, -v, --debug-root, --disasm, --list-keys, usage
 * errors in the output mode, and writing a finished row tree with its
 * notes.
 *
 * A command puts VIEW_LONG_OPTIONS in its struct option[] and VIEW_SHORT
 * in its short options, calls view_prescan() on argv, reads its options
 * with view_getopt() (which keeps the shared ones to itself), and calls
 * view_write() once its tree is built.
 */
#ifndef MEMSZ_BUILTIN_VIEW_H
#define MEMSZ_BUILTIN_VIEW_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "out/output.h"
#include "out/rows.h"
#include "report/filter.h"
#include "report/keys.h"
#include "util/strlist.h"

/* getopt_long values of the shared options. */
enum {
	VIEW_OPT_BY = 0x100,
	VIEW_OPT_SORT,
	VIEW_OPT_FORMAT,
	VIEW_OPT_DEBUG_ROOT,
	VIEW_OPT_LIST_KEYS,
	VIEW_OPT_WIDTH,
	VIEW_OPT_FILTER,
	VIEW_OPT_EXCLUDE,
	VIEW_OPT_DISASM,
};

#define VIEW_LONG_OPTIONS                                                   \
	{ "by", required_argument, NULL, VIEW_OPT_BY },                     \
	{ "sort", required_argument, NULL, VIEW_OPT_SORT },                 \
	{ "format", required_argument, NULL, VIEW_OPT_FORMAT },             \
	{ "debug-root", required_argument, NULL, VIEW_OPT_DEBUG_ROOT },     \
	{ "list-keys", no_argument, NULL, VIEW_OPT_LIST_KEYS },             \
	{ "fields", required_argument, NULL, 'F' },                         \
	{ "width", required_argument, NULL, VIEW_OPT_WIDTH },               \
	{ "filter", required_argument, NULL, VIEW_OPT_FILTER },             \
	{ "exclude", required_argument, NULL, VIEW_OPT_EXCLUDE },           \
	{ "verbose", no_argument, NULL, 'v' },                              \
	{ "disasm", no_argument, NULL, VIEW_OPT_DISASM }

/* The short options view_getopt() handles: -n N, -F COLS, -v. */
#define VIEW_SHORT "n:F:v"

/* The table's width when neither --width, COLUMNS nor a terminal says. */
#define VIEW_DEFAULT_WIDTH 120
/* The characters a label should keep before the default table leaves out
 * columns to make room. */
#define VIEW_LABEL_WANT 24

/* --help lines of the shared --filter and --exclude options. */
#define VIEW_HELP_FILTER                                                    \
	"    --filter [KEY=]REGEX\n"                                         \
	"                       keep rows whose KEY label matches\n"         \
	"                       REGEX (POSIX extended); no KEY=:\n"          \
	"                       a label at any level; repeated:\n"           \
	"                       all must match\n"                            \
	"    --exclude [KEY=]REGEX\n"                                        \
	"                       drop the rows that match\n"
/* --help lines of the shared --width and -v options. */
#define VIEW_HELP_WIDTH_VERBOSE                                             \
	"    --width N          table width; labels are cut in the\n"        \
	"                       middle to fit, default columns left\n"       \
	"                       out (default $COLUMNS, the terminal,\n"      \
	"                       or 120; 0: no limit)\n"                      \
	"    -v, --verbose      every footer note in full, not one\n"        \
	"                       line per kind\n"

/* --help lines of the shared --disasm option. */
#define VIEW_HELP_DISASM                                                    \
	"    --disasm           disassemble x86-64 code: data it\n"        \
	"                       refers to and no symbol or unit\n"         \
	"                       covers goes to that code under\n"          \
	"                       symbols, compileunits and inlines\n"       \
	"                       (costs several times the rest)\n"

struct view {
	const char *cmdname;          /* "size", "report", "diff": messages */
	unsigned cmd;                 /* KEY_IN_SIZE or KEY_IN_REPORT */
	enum key_id keys[KEYS_MAX];
	size_t nkeys;
	enum col_id sort;
	bool sort_given;              /* --sort was given */
	unsigned columns;             /* bit per col_id the command has */
	uint64_t limit;               /* -n */
	enum out_format fmt;
	const char *debug_root;       /* NULL: /usr/lib/debug */
	bool disasm;                  /* --disasm (elf_map_opts.disasm) */
	bool list_keys;               /* --list-keys was given */
	enum col_id fields[COL__COUNT]; /* --fields, in order */
	size_t nfields;               /* 0: the command's defaults */
	size_t width;                 /* --width (0: no limit) */
	bool width_given;             /* else COLUMNS, the terminal, 120 */
	struct filter filter;         /* --filter, --exclude */
	bool verbose;                 /* -v: every note in full */
	/* for pprof and html (out_opts), set by the command: */
	const struct out_image *images;
	size_t nimages;
	const struct out_snap *snaps;
	size_t nsnaps;
	const char *title;
};

#define VIEW_GETOPT_USAGE (-2)

/* Look through argv for "--format json" (or --format=json) before the
 * options are parsed, so that even a usage error found before it is
 * written as JSON. Sets v->fmt. */
void view_prescan(int argc, char **argv, struct view *v);

/* True if argv asks for --format json (for commands without a view). */
bool view_argv_json(int argc, char **argv);

/* getopt_long over argv that handles the shared options into v itself:
 * returns the next option that is not one of them (optarg set), -1 at the
 * end of the options, or VIEW_GETOPT_USAGE after writing why an option or
 * its value is bad (view_usage_error). Set optind = 1 before the first
 * call. shortopts must include VIEW_SHORT. */
int view_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, struct view *v);

/* A command's own options: fn gets each option view_getopt leaves, with
 * its argument and ctx, and returns -1 to go on or an exit status. */
typedef int view_option_fn(int c, const char *arg, struct view *v,
			   void *ctx);

/* The option loop of a command with a view: view_prescan, then every
 * option through view_getopt and fn; then --list-keys prints the
 * command's keys. Returns -1 to go on with the operands from optind, or
 * the exit status (a usage error, or fn's). */
int view_parse(int argc, char **argv, struct view *v, const char *shortopts,
	       const struct option *longopts, view_option_fn *fn, void *ctx);

/* Write a usage error in v's output mode: {"error": "..."} on stdout in
 * json mode, else "memsz: ..." on stderr. Returns EXIT_USAGE (129). */
int view_usage_error(const struct view *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Check what only the --by list tells: the rules of --filter/--exclude
 * name keys of --by. Returns -1 to go on, or EXIT_USAGE after the
 * message. */
int view_check(struct view *v);

/* The columns to print into cols (room for COL__COUNT): the --fields
 * list less the columns not in avail (bit per col_id: what this report
 * has), or, without --fields, table_dflt[0..ntable-1] for the table (less
 * VM SIZE, then FILE SIZE, then DIRTY ... while the labels of the
 * innermost key would get fewer than VIEW_LABEL_WANT characters of the
 * width) and every column in avail for the other formats; folded gets one
 * column, the first field or the --sort column; html gets the --fields
 * list then the rest of avail (its page switches between columns).
 * Returns the count. */
size_t view_columns(const struct view *v, unsigned avail,
		    const enum col_id *table_dflt, size_t ntable,
		    enum col_id *cols);

/* Write the finished tree t with columns cols[0..ncols-1] and notes to
 * stdout in v's format; csv, tsv and folded stay pure data and their notes
 * go to stderr. pprof, being binary, is not written to a terminal.
 * res_pct: add RES% last if cols lack it. Notes of one kind about
 * several images are one line unless -v. Returns 0, or 1 after printing
 * why the report could not be written. */
int view_write(const struct view *v, const struct rowtree *t,
	       const enum col_id *cols, size_t ncols, bool res_pct,
	       const struct strlist *notes);

/* Free what the options put in v. */
void view_free(struct view *v);

#endif
