/* output.h — writers for a finished row tree: table, csv, tsv, json,
 * folded, pprof and html.
 *
 * One writer per format, all reading the same struct rowtree. The table is
 * Bloaty-like (percent and human size per column, nested rows indented, a
 * TOTAL row); csv/tsv print one line per leaf with its full key path and
 * exact bytes; json prints the nested tree with exact bytes.
 * Values with a fixed-point shift (PSS) print with two decimals in csv,
 * tsv and json. json: {"keys", "columns", "total", "rows", "notes"}; each
 * row has "name", "aliases" (only if any), "others" (N, only for an
 * "[N others]" row), one field per column, and "rows" (only if it has
 * children).
 */
#ifndef MEMSZ_ROWS_OUTPUT_H
#define MEMSZ_ROWS_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include "rows/rows.h"

enum out_format {
	OUT_TABLE,
	OUT_CSV,
	OUT_TSV,
	OUT_JSON,
	OUT_FOLDED,
	OUT_PPROF, /* gzipped pprof profile.proto (rows/pprof.h) */
	OUT_HTML,  /* one self-contained page (rows/html.h) */
};

/* Parse "table", "csv", "tsv", "json", "folded", "pprof", "html".
 * Returns 0 or -1.
 * folded: one line per leaf with a non-zero value, "a;b;c BYTES": the
 * labels of its path joined by ';' (as flame-graph tools read stacks), a
 * space, and the value of the first column of cols in whole bytes. */
int out_format_parse(const char *s, enum out_format *fmt);
/* The format names, comma-separated, for messages; static storage. */
const char *out_format_list(void);

/* An image whose path is a "files" label: pprof gives it a mapping with
 * its build-id. Both strings borrowed. */
struct out_image {
	const char *path;
	const char *build_id;    /* lowercase hex, "" if unknown */
};

/* One snapshot of a recording, for the html timeline. */
struct out_snap {
	uint64_t time_ns;        /* CLOCK_MONOTONIC of the recording */
	uint32_t pid;
	uint64_t rss;            /* bytes resident in the whole process */
	bool chosen;             /* the snapshot the report shows */
};

struct out_opts {
	enum out_format fmt;
	const char *const *keys; /* names of the levels, depth of them */
	const enum col_id *cols; /* columns to print, in order; COL_RES_PCT
				    is computed from RSS and VM SIZE */
	size_t ncols;
	const char *const *notes; /* footer lines (may be NULL/0) */
	size_t nnotes;
	bool aliases;            /* csv/tsv: a last "aliases" column, the
				    other names of the path's labels joined
				    by ";" (json always lists them) */
	bool res_pct;            /* add RES% = RSS / VM SIZE after the
				    columns if cols lack COL_RES_PCT
				    ("res_pct" in csv/json; "-" or empty
				    where VM SIZE is 0) */
	size_t width;            /* table: the widest a line may be; labels
				    are cut in the middle with an ellipsis to
				    fit (never below TABLE_LABEL_MIN columns);
				    0: no limit. Other formats ignore it. */
	enum col_id sort;        /* pprof: the default sample type */
	const struct out_image *images; /* pprof: images by path (may be
					   NULL/0) */
	size_t nimages;
	const struct out_snap *snaps; /* html: every snapshot (may be
					 NULL/0) */
	size_t nsnaps;
	const char *title;       /* html: what the page shows ("report of
				    memsz.data"); NULL: "memsz" */
};

/* The narrowest a table label is cut to, whatever the width. */
#define TABLE_LABEL_MIN 12

/* Columns a table line takes before its label (indent and label not
 * counted) for columns cols[0..ncols-1]. */
size_t out_table_cols_width(const enum col_id *cols, size_t ncols);

/* Write the finished tree t to f. Notes go after the TOTAL in a table,
 * into a "notes" array in json, and are left to the caller for csv/tsv
 * (which stay pure data). pprof and html leave out derived columns
 * (RES%): their values are sums. Returns 0 or -errno on a write error. */
int out_write(FILE *f, const struct rowtree *t, const struct out_opts *o);

/* Format v, stored with fixed-point shift, as csv and json print it: a
 * plain integer when shift is 0, else a decimal with two places rounded
 * half up ("12.50"). buf should hold 32 bytes. Returns buf. */
char *out_fmt_value(char *buf, size_t len, uint64_t v, unsigned shift);

/* Write an error in the current mode: a JSON object {"error": msg} on
 * stdout in json mode, else "memsz: msg" on stderr. */
void out_error(enum out_format fmt, const char *msg);

#endif
