/* view.h — the options and the output that `memsz size` and `memsz report`
 * share: --by, -n, --sort, --format, --debug-root, --list-keys, and
 * writing a finished row tree with its notes.
 *
 * A command puts VIEW_LONG_OPTIONS in its struct option[] and "n:" in its
 * short options, reads its options with view_getopt() (which keeps the
 * shared ones to itself), and calls view_write() once its tree is built.
 */
#ifndef MEMSZ_BUILTIN_VIEW_H
#define MEMSZ_BUILTIN_VIEW_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "out/output.h"
#include "out/rows.h"
#include "report/keys.h"
#include "util/strlist.h"

/* getopt_long values of the shared options. */
enum {
	VIEW_OPT_BY = 0x100,
	VIEW_OPT_SORT,
	VIEW_OPT_FORMAT,
	VIEW_OPT_DEBUG_ROOT,
	VIEW_OPT_LIST_KEYS,
};

#define VIEW_LONG_OPTIONS                                                   \
	{ "by", required_argument, NULL, VIEW_OPT_BY },                     \
	{ "sort", required_argument, NULL, VIEW_OPT_SORT },                 \
	{ "format", required_argument, NULL, VIEW_OPT_FORMAT },             \
	{ "debug-root", required_argument, NULL, VIEW_OPT_DEBUG_ROOT },     \
	{ "list-keys", no_argument, NULL, VIEW_OPT_LIST_KEYS }

struct view {
	unsigned cmd;                 /* KEY_IN_SIZE or KEY_IN_REPORT */
	enum key_id keys[KEYS_MAX];
	size_t nkeys;
	enum col_id sort;
	unsigned sortable;            /* bit per col_id --sort accepts */
	uint64_t limit;               /* -n */
	enum out_format fmt;
	const char *debug_root;       /* NULL: /usr/lib/debug */
	bool list_keys;               /* --list-keys was given */
	/* for pprof and html (out_opts), set by the command: */
	const struct out_image *images;
	size_t nimages;
	const struct out_snap *snaps;
	size_t nsnaps;
	const char *title;
};

#define VIEW_GETOPT_USAGE (-2)

/* getopt_long over argv that handles the shared options into v itself:
 * returns the next option that is not one of them (optarg set), -1 at the
 * end of the options, or VIEW_GETOPT_USAGE after printing why a shared
 * option's value is bad. Set optind = 1 before the first call. */
int view_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, struct view *v);

/* Write the finished tree t with columns cols[0..ncols-1] and notes to
 * stdout in v's format; csv, tsv and folded stay pure data and their notes
 * go to stderr. pprof, being binary, is not written to a terminal.
 * res_pct: add RES%. Returns 0, or 1 after printing why the report could
 * not be written. */
int view_write(const struct view *v, const struct rowtree *t,
	       const enum col_id *cols, size_t ncols, bool res_pct,
	       const struct strlist *notes);

#endif
