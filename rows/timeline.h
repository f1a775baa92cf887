/* timeline.h — the rows of a report over time: `memsz report --timeline`.
 *
 * Input: one unfolded row tree per point in time (report_build() with
 * PICK_ALL makes one per snapshot index), all over one label table. A
 * series is one leaf path of the keys (e.g. one file, or one file's one
 * section) with one value per point and column (0 where the path is
 * absent). The series are ranked by their highest value of the first
 * column at any point; the top limit are kept and the rest summed into
 * one "[N others]" series, so that the series of every point sum to its
 * TOTAL. Writers: table (one block of columns per value column), csv/tsv
 * (one line per series and point: the data a plot reads) and json.
 */
#ifndef MEMSZ_ROWS_TIMELINE_H
#define MEMSZ_ROWS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rows/output.h"
#include "rows/rows.h"

struct timeline_point {
	uint64_t time;            /* ns since the recording began */
	uint64_t time_last;       /* its latest snapshot, same clock */
	size_t nsnapshots;        /* snapshots summed into it */
};

struct timeline_series {
	uint32_t *path;           /* depth labels; NULL for "[N others]" */
	uint64_t folded;          /* N of "[N others]", else 0 */
	uint64_t *vals;           /* [point * ncols + col] */
	uint64_t peak;            /* highest value of the first column */
};

struct timeline {
	struct labels *lb;        /* borrowed */
	size_t depth;
	struct timeline_point *points;
	size_t npoints;
	enum col_id cols[COL__COUNT];
	size_t ncols;
	struct timeline_series *series; /* ranked, "[N others]" last */
	size_t nseries;
	uint64_t *total;          /* [point * ncols + col] */
};

/* Build a timeline of trees[0..npoints-1] (same depth and label table,
 * not folded; only read) at points[], with columns cols[0..ncols-1]
 * (ncols >= 1, the first one ranks the series), keeping the top limit
 * series (0: all). Returns the timeline (free with timeline_free()), or
 * NULL if npoints or ncols is 0. */
struct timeline *timeline_build(struct rowtree *const *trees,
				const struct timeline_point *points,
				size_t npoints, const enum col_id *cols,
				size_t ncols, size_t limit);
void timeline_free(struct timeline *tl);

/* Write tl to f in o->fmt (table, csv, tsv or json; o->keys names the
 * levels, o->notes the footer; o->cols is ignored: tl has its own).
 * table: per column a block, one line per series with its value at every
 * point (time in seconds as header), TOTAL, notes. csv/tsv: header
 * "KEY...,snapshot,time,COL..." and one line per series and point (the
 * "[N others]" series included, no TOTAL line). json: {"keys",
 * "columns", "snapshots": [{"index", "time", "time_last", "processes"}],
 * "total": {COL: [...]}, "rows": [{"path": [...], "others" (N, only for
 * "[N others]"), COL: [value per snapshot]}], "notes"}. Times are seconds
 * with 6 decimals. Returns 0, -EINVAL for another format, or -errno. */
int timeline_write(FILE *f, const struct timeline *tl,
		   const struct out_opts *o);

#endif
