/* difftree.h — two row trees side by side: the rows of `memsz diff`.
 *
 * A diff tree has the shape of a row tree (rows.h), one level per key, but
 * every row holds two sets of values, OLD and NEW, and says whether it is
 * in both trees, only in NEW ("[new]") or only in OLD ("[gone]"). It is
 * made by merging two row trees built over one shared label table, so a
 * label means the same row on both sides; diff_finish() sorts each level
 * by the absolute change of one column and folds what is past -n into
 * "[N others]", like rowtree_finish(). Writers for table, csv, tsv and
 * json are here too: out_write() knows one set of values per row.
 */
#ifndef MEMSZ_ROWS_DIFFTREE_H
#define MEMSZ_ROWS_DIFFTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rows/output.h"
#include "rows/rows.h"

enum diff_state {
	DIFF_BOTH, /* in OLD and in NEW */
	DIFF_NEW,  /* only in NEW: every OLD value is 0 */
	DIFF_GONE, /* only in OLD: every NEW value is 0 */
};

struct diffrow {
	uint32_t label;           /* id in the tree's labels */
	enum diff_state state;
	uint64_t old[COL__COUNT], new[COL__COUNT];
	struct diffrow *children; /* array of nchildren */
	size_t nchildren;
	uint64_t folded;          /* for an "[N others]" row: N, else 0 */
};

struct difftree {
	struct labels *lb;        /* borrowed */
	size_t depth;
	struct diffrow total;     /* root: label LABEL_NONE */
	uint64_t unchanged;       /* rows dropped by diff_finish() */
};

/* A label of OLD that stands for a label of NEW: the row OLD calls from
 * is merged with the row NEW calls to (e.g. the paths of the two files
 * of an ELF diff, at the files level). */
struct diff_rename {
	uint32_t from, to;
};

/* Merge old and new, two trees of the same depth over the same label
 * table whose rows are not folded (finished with limit 0, or not
 * finished), into a new diff tree; at each level, rows with the same
 * label (after renames[0..nrenames-1] on OLD's side) become one row.
 * Returns the tree (free with diff_free()), or NULL if the depths or the
 * label tables differ. The inputs are only read. */
struct difftree *diff_merge(const struct rowtree *old,
			    const struct rowtree *new,
			    const struct diff_rename *renames,
			    size_t nrenames);
void diff_free(struct difftree *d);

/* Drop rows that are in both trees with equal values in every column
 * and whose children are all dropped too (counted in d->unchanged, the
 * total is kept), sort every level by |NEW - OLD| of column sort,
 * descending (ties by label string), and keep at most limit rows per
 * level (0: all), folding the rest into one "[N others]" row placed last.
 * Call once. */
void diff_finish(struct difftree *d, enum col_id sort, size_t limit);

/* True if column c is 0 in the total on both sides (so in every row). */
bool diff_col_is_zero(const struct difftree *d, enum col_id c);

/* Write the finished tree d to f in o->fmt (table, csv, tsv or json;
 * o->res_pct and o->aliases are ignored). Per column: OLD, NEW and the
 * signed change. table: a column group per column, a [new]/[gone] mark
 * after the label, TOTAL, notes. csv/tsv: one line per leaf, key path,
 * then COL_old, COL_new, COL_delta per column and a "change" field (new,
 * gone, changed, same). json: {"keys", "columns", "total", "rows",
 * "unchanged" (rows left out), "notes"}, each row with "name", "change",
 * per column an object {"old", "new", "delta"}, and "others" and "rows"
 * as out_write() has them.
 * Returns 0, -EINVAL for another format, or -errno on a write error. */
int diff_write(FILE *f, const struct difftree *d, const struct out_opts *o);

#endif
