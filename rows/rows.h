/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rows.h — the one row tree every output is rendered from: size, report,
 * report --timeline and diff.
 *
 * A row tree has one level per key of --by (files, sections, symbols, ...).
 * A path may be shorter than the keys once finished: a row whose keys
 * below have nothing to add (they only repeat its label, as sections and
 * symbols do for [heap]) is a leaf at its own level; writers render a leaf
 * at any level (csv: empty key fields after it).
 * A row holds a number of value sets, each one value per column: one
 * (report, size), two (diff: OLD and NEW; the change is derived) or N (a
 * timeline: one per point in time). Single-set callers add leaf paths
 * with their values (rowtree_add() keeps every ancestor and the TOTAL
 * summed as it goes); a diff tree is merged from two such trees, a
 * timeline tree from one per point. rowtree_finish() sorts each level and
 * folds what is past -n into one "[N others]" row per level, for every
 * kind. Writers (output.h) render the finished tree; nothing else does.
 * Rows whose values are all zero are kept: a symbol with no RSS is news.
 */
#ifndef MEMSZ_ROWS_ROWS_H
#define MEMSZ_ROWS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"

/* Columns. PSS, LOCKED and CHARGE are stored in fixed point (bytes <<
 * COL_PSS_SHIFT) so that sums of page/mapcount stay exact; every other
 * column is plain bytes, except RELOCS and PROCS, counts, and RES%,
 * derived. */
enum col_id {
	COL_FILE, /* FILE SIZE: bytes on disk */
	COL_VM,	  /* VM SIZE: bytes mapped */
	COL_RSS,
	COL_PSS,
	COL_USS,
	COL_DIRTY,
	COL_SWAP,
	COL_RELOCS,   /* count: relocation targets on private dirty pages */
	COL_SH_CLEAN, /* resident, mapped by others too, clean (smaps
			 Shared_Clean) */
	COL_SH_DIRTY, /* ... dirty (smaps Shared_Dirty) */
	COL_THP,      /* resident in PMD-mapped huge pages (smaps AnonHugePages
			 + ShmemPmdMapped + FilePmdMapped) */
	COL_LOCKED,   /* PSS of locked mappings (smaps Locked), fixed point
			 like PSS */
	COL_PROCS,    /* count: processes with a piece in the row (see
			 rowtree_set_tag) */
	COL_CHARGE,   /* bytes the recorded memory cgroup is charged for (each
			 page once, whoever maps it; /proc/kpagecgroup), fixed
			 point like PSS */
	COL_RES_PCT,  /* derived: RSS / VM SIZE in percent, never stored */
	COL__COUNT
};
#define COL_PSS_SHIFT 12

struct coldef {
	const char *header;   /* table header: "FILE SIZE" */
	const char *key;      /* --sort name and csv/json field: "file_size" */
	const char *sortname; /* short --sort name: "file" */
	unsigned shift;	      /* fixed-point shift of stored values */
	bool count;    /* a count, not bytes: the table prints it whole */
	bool derived;  /* computed from other columns when printed:
			  not stored in rows, not sortable */
	bool optional; /* shown only where --fields names it */
};
extern const struct coldef coldefs[COL__COUNT];

/* Column by short name ("file", "vm", "rss", ..., "res") or key
 * ("file_size", ..., "res_pct"); -1 if none. */
int col_from_name(const char *name);

/* The kinds of value sets a row tree holds (one row per kind's writer
 * variant in rows/table.c, csv.c, json.c). */
enum rows_kind {
	ROWS_SINGLE,   /* one value set: report, size */
	ROWS_DIFF,     /* two: OLD (set 0) and NEW (set 1); change derived */
	ROWS_TIMELINE, /* N: one per point in time (t->points) */
	ROWS__KIND_COUNT
};
#define ROWS_KIND_BIT(k) (1u << (k))

/* The orders rowtree_finish() can put the rows of a level in. */
enum rows_order {
	ROWS_ORDER_VALUE, /* by the sort column, descending: the key the
			     tree's kind gives a row (see rowtree_finish) */
	ROWS_ORDER_POS,	  /* by where what each row's label names is
			     (labels_pos: a mapping's address, a pid),
			     ascending; rows without a position after, by
			     label string */
	ROWS_ORDER_NAME,  /* by label string, ascending (strcmp) */
	ROWS_ORDER_BOTH,  /* by the larger of FILE SIZE and VM SIZE (of
			     their changes in a diff), descending: Bloaty's
			     -s both */
	ROWS__ORDER_COUNT
};

/* True if order sorts rows by their values (as ROWS_ORDER_VALUE does),
 * not by their labels. */
bool rows_order_by_value(enum rows_order order);

/* Where a row of a diff tree is: in both trees, or only in one. */
enum row_state {
	ROW_BOTH,
	ROW_NEW,  /* only in NEW: every OLD value is 0 */
	ROW_GONE, /* only in OLD: every NEW value is 0 */
};

/* A point of a timeline tree: when it is, and how many snapshots (one
 * per process) it sums. */
struct rows_point {
	uint64_t time;	    /* ns since the recording began */
	uint64_t time_last; /* its latest snapshot, same clock (a
			       report's point is at its latest
			       snapshot: the same) */
	size_t nsnapshots;
};

struct row {
	uint32_t label;		   /* id in the tree's labels */
	uint8_t state;		   /* enum row_state; ROW_BOTH but in a diff */
	uint64_t vals[COL__COUNT]; /* value set 0 */
	uint64_t *sets;		   /* sets 1..nsets-1, COL__COUNT each; NULL
				      in a single-set tree (row_set()) */
	struct row *children;	   /* array of nchildren, sorted after finish */
	/* 32 bits (8 bytes less a row): two keys over a big binary make
	 * hundreds of thousands of rows */
	uint32_t nchildren, cap;
	uint64_t folded; /* for an "[N others]" row: N, else 0 */
	uint64_t tag;	 /* last tag counted in COL_PROCS */
	uint64_t vm_sum; /* VM SIZE of every piece added, also those
			    rowtree_add_from() kept out of
			    vals[COL_VM]: RES%'s denominator */
	void *index;	 /* private: label -> child lookup */
	/* of vals[COL_FILE] and vals[COL_VM]: what the TOTAL counted already
	 * (rowtree_set_again()); vals less again, summed over the leaves, is
	 * the TOTAL */
	uint64_t again[COL_VM + 1];
};

struct rowtree {
	struct labels *lb; /* borrowed */
	size_t depth;	   /* number of keys */
	struct row total;  /* root: label LABEL_NONE, sums everything */
	uint64_t tag;	   /* rowtree_set_tag(); 0: none */
	bool again;	   /* rowtree_set_again() */
	enum rows_kind kind;
	size_t nsets;		   /* value sets per row: 1, 2 or npoints */
	struct rows_point *points; /* timeline: nsets of them, else NULL */
	uint64_t unchanged;	   /* diff: rows rowtree_finish() left out */
	enum rows_order order;	   /* rowtree_set_order(); ROWS_ORDER_VALUE */
	unsigned compared; /* diff: rowtree_set_compared(); 0: every column */
	uint64_t serial;   /* never the same for two trees of one process,
			      even once one is freed (rowtree_path_index) */
	struct rows_leaves *leaves; /* private: rowtree_defer_leaves() */
};

/* Value set s (< t->nsets) of row r: COL__COUNT values. */
static inline const uint64_t *row_set(const struct row *r, size_t s)
{
	return s ? r->sets + (s - 1) * COL__COUNT : r->vals;
}

/* Column col of leaf r less what the TOTAL counted already (again[]): a
 * file several processes map counted in the leaves of the first one
 * only, so that the leaves sum to the TOTAL (pprof, folded stacks). */
static inline uint64_t row_once(const struct row *r, enum col_id col)
{
	return r->vals[col] - (col <= COL_VM ? r->again[col] : 0);
}

/* New tree of depth levels over label table lb (borrowed; "[N others]"
 * labels are interned into it). Free with rowtree_free(). */
struct rowtree *rowtree_new(struct labels *lb, size_t depth);
void rowtree_free(struct rowtree *t);

/* Keep the rows of t, a new single-set tree of depth 1, as bare leaves
 * (label, FILE SIZE, VM SIZE: 24 bytes, not a row's 200) until
 * rowtree_finish(), which makes rows only of the leaves it keeps: with a
 * limit under their number in a value order, the limit that go first and
 * the "[N others]" row (a file's symbols are some ten thousand rows of
 * which -n are shown). The finished tree is the one rowtree_finish()
 * would have made of rows. rowtree_add() of pieces with no other column
 * and no tag keeps them as leaves; any other add makes the rows first.
 * No effect on another tree. Its rows must not be read before
 * rowtree_finish(); rowtree_diff() refuses it (NULL) and
 * rowtree_timeline_add() makes its rows first. */
void rowtree_defer_leaves(struct rowtree *t);

/* Add vals (indexed by enum col_id) to the row at path[0..depth-1] and to
 * every ancestor including the total. path labels must be valid ids. */
void rowtree_add(struct rowtree *t, const uint32_t *path, const uint64_t *vals);

/* From now on every row an add reaches, the total included, counts tag
 * (one non-zero tag per process) once in COL_PROCS: the pieces of one
 * process must be added one after another. 0 stops counting. An "[N
 * others]" row gets the sum of its rows' counts, capped at its parent's
 * (rows_cap_others()). */
void rowtree_set_tag(struct rowtree *t, uint64_t tag);

/* From now on (again true) the FILE SIZE and VM SIZE of the pieces added
 * are what the TOTAL has counted already (a file, a range of it, that an
 * earlier process maps too: rowtree_add_from() keeps them out of the rows
 * above from): every row that gets them adds them to its again[] too, so
 * that a reader that sums the leaves (pprof) can count each once, in the
 * leaves of the first process. false stops. */
void rowtree_set_again(struct rowtree *t, bool again);

/* Cap the columns of an "[N others]" row (vals, the sums of its rows) that
 * are not additive at those of its parent: PROCS (a process may be in
 * several of its rows), FILE SIZE and VM SIZE (a file several rows map
 * counts once in the parent). An upper bound, as the rows it folds may
 * overlap. */
void rows_cap_others(uint64_t *vals, const uint64_t *parent);

/* rowtree_add() for a piece of something several paths share (a file
 * mapped by several processes): the columns in shared (bit per col_id)
 * are added only to the rows at depth >= from (0: the total too, 1: the
 * first key's rows and below, ...), every other column everywhere; the
 * process tag is counted as rowtree_add() counts it. */
void rowtree_add_from(struct rowtree *t, const uint32_t *path,
		      const uint64_t *vals, unsigned shared, size_t from);

/* Add vals to the rows at depth from..to-1 of path only (0: the total, d:
 * the row of key d-1), counting the process tag there: the rows deeper
 * are neither added to nor made. For what the rows above a key count in
 * another way than it and the rows below (a whole file above the mapping
 * key, the range of it each mapping maps at and below it). */
void rowtree_add_upto(struct rowtree *t, const uint32_t *path,
		      const uint64_t *vals, size_t from, size_t to);

/* The row at path[0..depth-1] and its ancestors, found or added as
 * rowtree_add() would, named by position: ix[d] is the index of the row of
 * key d among its parent's children. Positions stay valid for t (known by
 * t->serial) until rowtree_finish(): rows are only appended before it.
 * rowtree_add_index() is rowtree_add_from() of the path so named, without
 * looking up a label: for callers that add to the same rows again and
 * again (every process mapping one image). */
void rowtree_path_index(struct rowtree *t, const uint32_t *path, uint32_t *ix);
void rowtree_add_index(struct rowtree *t, const uint32_t *ix,
		       const uint64_t *vals, unsigned shared, size_t from);

/* A step of a walk down rows named by position: the row at index ix
 * among the children of the row that the latest step at level - 1 reached
 * (level 0: a child of the total), and the value it gets. */
struct rows_step {
	uint32_t level, ix;
	uint64_t val;
};

/* Add column col's values of steps[0..n-1] (in the order they were made)
 * and total to the total, as rowtree_add_from() adds pieces that have only
 * col: VM also to each row's RES% denominator; col kept out of the rows
 * above level from if shared; the process tag counted in every row. For
 * callers that sum the pieces of a walk per row once and add the sums
 * for each process that walks the same rows. depth must be <= 64. */
void rowtree_add_steps(struct rowtree *t, const struct rows_step *steps,
		       size_t n, uint64_t total, enum col_id col, bool shared,
		       size_t from);

/* A label of OLD that stands for a label of NEW in rowtree_diff(): the
 * row OLD calls from is merged with the row NEW calls to (e.g. the paths
 * of the two files of an ELF diff, at the files level), at the levels of
 * the keys in levels only: the label table is shared by every key, and a
 * symbol may be spelled as the path of its file. */
struct diff_rename {
	uint32_t from, to;
	uint64_t levels; /* bit L: level L (0: the outermost key) */
	bool beside;	 /* only under a row whose NEW children hold to
			    and whose OLD children do not: elsewhere the
			    label stays OLD's own (a file's stale label
			    under a process gone from NEW) */
};

/* A diff tree (kind ROWS_DIFF) of old and new, two single-set trees of
 * the same depth over the same label table whose rows are not folded
 * (rows/merge.c): at each level, rows with the same label (after
 * renames[0..nrenames-1] on OLD's side) become one row, with OLD's values
 * as set 0 and NEW's as set 1 and its state. Returns the tree (free with
 * rowtree_free()), or NULL if the depths or the label tables differ. The
 * inputs are only read. */
struct rowtree *rowtree_diff(const struct rowtree *old,
			     const struct rowtree *new,
			     const struct diff_rename *renames,
			     size_t nrenames);

/* A timeline tree (as rowtree_timeline() below makes) built point by
 * point, as the trees of the points are made: rowtree_timeline_begin()
 * starts one of n points (copied) over lb with depth levels (NULL if n or
 * depth is 0, or depth is over 64); rowtree_timeline_add() takes tree t
 * (single-set, not folded, of that depth and label table; freed) as point
 * p, in any order, each point at most once, a point never added being 0
 * everywhere (returns 0, or -1, t untouched, if it does not fit);
 * rowtree_timeline_end() frees the builder and returns the tree (NULL
 * for a NULL builder). */
struct rows_timeline;
struct rows_timeline *rowtree_timeline_begin(struct labels *lb, size_t depth,
					     const struct rows_point *points,
					     size_t n);
int rowtree_timeline_add(struct rows_timeline *b, size_t p, struct rowtree *t);
struct rowtree *rowtree_timeline_end(struct rows_timeline *b);

/* A timeline tree (kind ROWS_TIMELINE) of trees[0..n-1], single-set
 * trees of one depth and label table, not folded, one per point in time
 * (points[0..n-1], copied). Its rows are series: each leaf path of the
 * keys hangs from the total as its own chain of rows (one per level),
 * whose head holds the series' values, set p its value in trees[p] (0
 * where absent), so that rowtree_finish() ranks and folds whole paths;
 * the rows below a head only name the path. The total is each tree's
 * total. Takes the trees: each is freed once read (trees[p] = NULL).
 * Returns the tree (free with rowtree_free()), or NULL, the trees
 * untouched, if n is 0 or they differ in depth or label table. */
struct rowtree *rowtree_timeline(struct rowtree **trees,
				 const struct rows_point *points, size_t n);

/* The order rowtree_finish() sorts every level in (a new tree:
 * ROWS_ORDER_VALUE). */
void rowtree_set_order(struct rowtree *t, enum rows_order order);

/* The columns of a diff tree whose change keeps a row in both trees
 * (bit 1 << col_id each; 0, as a new tree has it: every column): a row
 * equal in those alone is left out by rowtree_finish() (diff --fields). */
void rowtree_set_compared(struct rowtree *t, unsigned cols);

/* Make a leaf of every row whose rows below are only a chain of rows with
 * its own label ([heap] under [heap] under --by files,sections: keys
 * with nothing to add for it add no level; its path is shorter than
 * depth). Then sort every level in the tree's order (rowtree_set_order):
 * by value, descending, by the key of column sort that the tree's kind
 * gives a row (its value; a diff: |NEW - OLD|; a timeline: its highest
 * value at any point), ties by label string; or ascending by label
 * position or string (sort unused). Rows with equal labels (a timeline's
 * chains) are compared down their paths. Then keep at most limit rows per
 * level (0: all),
 * folding the rest into one "[N others]" row placed last (row.folded =
 * N; the folded rows' children are dropped, their sums kept in every
 * set). A diff first drops the rows that are in both trees with equal
 * values and whose children are all dropped too (counted in
 * t->unchanged; the total stays). Call once, after all adds. */
void rowtree_finish(struct rowtree *t, enum col_id sort, size_t limit);

/* True if column c is 0 in every value set of the total (so in every
 * row). */
bool rowtree_col_is_zero(const struct rowtree *t, enum col_id c);

/* Private to rows/: a zeroed child of r labelled label (found or added),
 * and the storage for sets 1..nsets-1 of r. */
struct row *rowtree_child(struct row *r, uint32_t label);
void row_alloc_sets(struct row *r, size_t nsets);
/* Private to rows/: room in r->children for need rows (aborts past 2G). */
void row_grow(struct row *r, size_t need);

#endif
