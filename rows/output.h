/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.h — the output formats: one row per format (its name, its
 * writer, its flags) and the writers for a finished row tree: table, csv,
 * tsv, json, folded, pprof and html.
 *
 * One writer per format, all reading the same struct rowtree; table, csv,
 * tsv and json render every kind of tree (one value set, a diff, a
 * timeline: rows.h), folded, pprof and html one value set.
 * Single set: the table is Bloaty-like (percent and human size per
 * column, nested rows indented, a TOTAL row); csv/tsv print one line per
 * leaf with its full key path and exact bytes; json prints the nested tree
 * with exact bytes. Values with a fixed-point shift (PSS) print with two
 * decimals in csv, tsv and json. json: {"keys", "columns", "total",
 * "rows", "notes"}; each row has "name", "aliases" (only if any), "others"
 * (N, only for an "[N others]" row), one field per column, and "rows"
 * (only if it has children).
 * Diff: per column OLD, NEW and the signed change. table: a column group
 * per column, a [new]/[gone] mark after the label, TOTAL, notes. csv/tsv:
 * one line per leaf, key path, then COL_old, COL_new, COL_delta per
 * column and a "change" field (new, gone, changed, same). json: {"keys",
 * "columns", "total", "rows", "unchanged" (rows left out), "notes"}, each
 * row with "name", "change", per column an object {"old", "new",
 * "delta"}, and "others" and "rows" as above.
 * Timeline: table: per column a block, one line per series with its value
 * at each point shown (time in seconds as header), TOTAL, notes; points
 * are left out to fit the width (first, last and the peak of the first
 * column's TOTAL kept, the rest evenly chosen; a footer line says so).
 * csv/tsv: header "KEY...,snapshot,time,COL..." and one line per series
 * and point (the "[N others]" series included, no TOTAL line). json:
 * {"keys", "columns", "snapshots": [{"index", "time", "time_last",
 * "processes"}], "total": {COL: [...]}, "rows": [{"path": [...], "others"
 * (N, only for "[N others]"), COL: [value per snapshot]}], "notes"}. Times
 * are seconds with 6 decimals.
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
	OUT__COUNT
};

/* What a format is, beside its writer: what the commands and view read
 * instead of testing which format it is. */
enum out_flag {
	OUTF_BINARY = 1u << 0,	     /* not for a terminal (pprof) */
	OUTF_ALL_ROWS = 1u << 1,     /* every row: no -n folding */
	OUTF_ONE_COLUMN = 1u << 2,   /* one column: the first field or --sort */
	OUTF_NOTES_STDERR = 1u << 3, /* pure data: notes go to stderr */
	OUTF_SUMS = 1u << 4,	     /* values are summed by the reader: no
					derived column, no process count */
	OUTF_WIDTH = 1u << 5,	     /* lines fit --width: labels cut, default
					columns (and timeline points) left out */
	OUTF_ALL_COLUMNS = 1u << 6,  /* every column (--fields first): the
					reader switches between them */
	OUTF_JSON_ERRORS = 1u << 7,  /* errors as {"error": ...} on stdout */
	OUTF_ROWS_ASKED = 1u << 8,   /* every row unless -n is given: the
					default -n is the table's (data for
					programs reads whole) */
	OUTF_BUILD_IDS = 1u << 9,    /* names mappings by build-id: the
					files' build-ids are read for it */
};

struct rowtree;
struct out_opts;

/* One output format: a row of the format table. */
struct out_format_def {
	const char *name;
	enum out_format fmt;
	/* write finished tree t (of a kind in kinds) with o to f */
	int (*write)(FILE *f, const struct rowtree *t,
		     const struct out_opts *o);
	unsigned flags; /* enum out_flag */
	unsigned kinds; /* ROWS_KIND_BIT() of the kinds it writes */
};

/* The row of format fmt (never NULL for a valid fmt). */
const struct out_format_def *out_format_get(enum out_format fmt);

/* Parse "table", "csv", "tsv", "json", "folded", "pprof", "html".
 * Returns 0 or -1.
 * folded: one line per leaf with a non-zero value, "a;b;c BYTES": the
 * labels of its path joined by ';' (as flame-graph tools read stacks), a
 * space, and the value of the first column of cols in whole bytes. */
int out_format_parse(const char *s, enum out_format *fmt);
/* The format names, comma-separated, for messages; static storage. */
const char *out_format_list(void);
/* The names of the formats that write trees of kind, for a message:
 * "table, csv, tsv and json" with last the word before the last one
 * ("and", "or"). Caller frees. */
char *out_format_names(enum rows_kind kind, const char *last);

/* An image whose path is a "files" label: pprof gives it a mapping with
 * its build-id. Both strings borrowed. */
struct out_image {
	const char *path;
	const char *build_id; /* lowercase hex, "" if unknown */
};

/* One snapshot of a recording, for the html timeline, and its process,
 * for pprof's labels. Strings borrowed (valid while the report's label
 * table lives). */
struct out_snap {
	uint64_t time_ns; /* CLOCK_MONOTONIC of the recording */
	uint32_t pid;
	uint64_t rss;	     /* bytes resident in the whole process */
	bool chosen;	     /* the snapshot the report shows */
	uint64_t exit_ns;    /* when its process exited (its EXIT
				record), 0: not seen to exit */
	const char *comm;    /* its process's command name, "" unknown */
	const char *cmdline; /* and command line, "" unknown */
};

struct out_opts {
	enum out_format fmt;
	const char *const *keys; /* names of the levels, depth of them */
	const enum col_id *cols; /* columns to print, in order; COL_RES_PCT
				    is computed from RSS and VM SIZE */
	size_t ncols;
	const char *const *notes; /* footer lines (may be NULL/0) */
	size_t nnotes;
	bool aliases;	  /* csv/tsv: a last "aliases" column, the
			     other names of the path's labels joined
			     by ";" (json always lists them) */
	bool res_pct;	  /* add RES% = RSS / VM SIZE after the
			     columns if cols lack COL_RES_PCT
			     ("res_pct" in csv/json; "-" or empty
			     where VM SIZE is 0) */
	size_t width;	  /* table: the widest a line may be; labels
			     are cut in the middle (or at the end:
			     cut_end) with an ellipsis to fit (never
			     below TABLE_LABEL_MIN columns),
			     a timeline shows the points that fit;
			     0: no limit. Other formats ignore it. */
	unsigned cut_end; /* table: bit per level whose labels are
			     cut at their end, not in the middle
			     (a process's "PID command") */
	enum col_id sort; /* pprof: the default sample type */
	const struct out_image *images; /* pprof: images by path (may be
					   NULL/0) */
	size_t nimages;
	const struct out_snap *snaps; /* html: every snapshot (may be
					 NULL/0) */
	size_t nsnaps;
	uint64_t start_ns; /* html: when the recording began, on the
			      clock of out_snap.time_ns (its times are
			      told from it, as the text timeline's);
			      0: from the first snapshot */
	const char *title; /* html: what the page shows ("report of
			      memsz.data"); NULL: "memsz" */
};

/* The narrowest a table label is cut to, whatever the width. */
#define TABLE_LABEL_MIN 12
/* The characters a label should keep before a table leaves out default
 * columns (or timeline points) to make room. */
#define TABLE_LABEL_WANT 24

/* Columns a table line of a tree of kind takes before its label (indent
 * and label not counted) for columns cols[0..ncols-1]; a timeline's
 * columns are blocks one under the other: its lines take the points'
 * width, not the columns'. */
size_t out_table_cols_width(enum rows_kind kind, const enum col_id *cols,
			    size_t ncols);

/* Write the finished tree t to f in o->fmt. Notes go after the TOTAL in a
 * table, into a "notes" array in json, and are left to the caller where
 * the format's row says OUTF_NOTES_STDERR (csv/tsv/folded stay pure
 * data). Formats with OUTF_SUMS leave out derived columns (RES%).
 * Returns 0, -EINVAL if the format does not write trees of t's kind, or
 * -errno on a write error. */
int out_write(FILE *f, const struct rowtree *t, const struct out_opts *o);

/* Write msg as the json error object {"error": msg} and a newline to f.
 * Returns 0 or -errno on a write error. */
int out_write_error(FILE *f, const char *msg);

/* Format v, stored with fixed-point shift, as csv and json print it: a
 * plain integer when shift is 0, else a decimal with two places rounded
 * half up ("12.50"). buf should hold 32 bytes. Returns buf. */
char *out_fmt_value(char *buf, size_t len, uint64_t v, unsigned shift);

/* Fixed-point v (shift > 0 fraction bits) in hundredths, rounded as
 * out_fmt_value() prints it. */
uint64_t out_cents(uint64_t v, unsigned shift);

/* Whole bytes for fixed-point value v (shift fractional bits) as the next
 * of a series of rows whose whole numbers must add up to their sum, not
 * lose a fraction per row (folded and pprof print PSS per leaf): the sum
 * so far is *acc (start it at 0), and the result is the rounded sum with
 * v less the rounded sum without. shift 0: v itself. */
uint64_t out_whole_next(uint64_t *acc, uint64_t v, unsigned shift);

#endif
