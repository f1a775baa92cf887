/* rows.h — the row tree a report or size is rendered from (diff and
 * timeline still build their own, difftree.h and timeline.h).
 *
 * A row tree has one level per key of --by (files, sections, symbols, ...).
 * Callers add leaf paths with their values (rowtree_add() keeps every
 * ancestor and the TOTAL summed as it goes); rowtree_finish() sorts each
 * level and folds what is past -n into one "[N others]" row per level.
 * Writers (output.h) render the finished tree; nothing else does.
 * Rows whose values are all zero are kept: a symbol with no RSS is news.
 */
#ifndef MEMSZ_ROWS_ROWS_H
#define MEMSZ_ROWS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"

/* Columns. PSS and LOCKED are stored in fixed point (bytes <<
 * COL_PSS_SHIFT) so that sums of page/mapcount stay exact; every other
 * column is plain bytes, except RELOCS and PROCS, counts, and RES%,
 * derived. */
enum col_id {
	COL_FILE,  /* FILE SIZE: bytes on disk */
	COL_VM,    /* VM SIZE: bytes mapped */
	COL_RSS,
	COL_PSS,
	COL_USS,
	COL_DIRTY,
	COL_SWAP,
	COL_RELOCS, /* count: relocation targets on private dirty pages */
	COL_SH_CLEAN, /* resident, mapped by others too, clean (smaps
			 Shared_Clean) */
	COL_SH_DIRTY, /* ... dirty (smaps Shared_Dirty) */
	COL_THP,    /* resident in PMD-mapped huge pages (smaps AnonHugePages
		       + ShmemPmdMapped + FilePmdMapped) */
	COL_LOCKED, /* PSS of locked mappings (smaps Locked), fixed point
		       like PSS */
	COL_PROCS,  /* count: processes with a piece in the row (see
		       rowtree_set_tag) */
	COL_RES_PCT, /* derived: RSS / VM SIZE in percent, never stored */
	COL__COUNT
};
#define COL_PSS_SHIFT 12

struct coldef {
	const char *header; /* table header: "FILE SIZE" */
	const char *key;    /* --sort name and csv/json field: "file_size" */
	const char *sortname; /* short --sort name: "file" */
	unsigned shift;     /* fixed-point shift of stored values */
	bool count;         /* a count, not bytes: the table prints it whole */
	bool derived;       /* computed from other columns when printed:
			       not stored in rows, not sortable */
	bool optional;      /* shown only where --fields names it */
};
extern const struct coldef coldefs[COL__COUNT];

/* Column by short name ("file", "vm", "rss", ..., "res") or key
 * ("file_size", ..., "res_pct"); -1 if none. */
int col_from_name(const char *name);

struct row {
	uint32_t label;           /* id in the tree's labels */
	uint64_t vals[COL__COUNT];
	struct row *children;     /* array of nchildren, sorted after finish */
	size_t nchildren, cap;
	uint64_t folded;          /* for an "[N others]" row: N, else 0 */
	uint64_t tag;             /* last tag counted in COL_PROCS */
	uint64_t vm_sum;          /* VM SIZE of every piece added, also those
				     rowtree_add_from() kept out of
				     vals[COL_VM]: RES%'s denominator */
	void *index;              /* private: label -> child lookup */
};

struct rowtree {
	struct labels *lb;        /* borrowed */
	size_t depth;             /* number of keys */
	struct row total;         /* root: label LABEL_NONE, sums everything */
	uint64_t tag;             /* rowtree_set_tag(); 0: none */
};

/* New tree of depth levels over label table lb (borrowed; "[N others]"
 * labels are interned into it). Free with rowtree_free(). */
struct rowtree *rowtree_new(struct labels *lb, size_t depth);
void rowtree_free(struct rowtree *t);

/* Add vals (indexed by enum col_id) to the row at path[0..depth-1] and to
 * every ancestor including the total. path labels must be valid ids. */
void rowtree_add(struct rowtree *t, const uint32_t *path,
		 const uint64_t *vals);

/* From now on every row an add reaches, the total included, counts tag
 * (one non-zero tag per process) once in COL_PROCS: the pieces of one
 * process must be added one after another. 0 stops counting. An "[N
 * others]" row gets the sum of its rows' counts, capped at its parent's
 * (an upper bound: one process may be in several of its rows). */
void rowtree_set_tag(struct rowtree *t, uint64_t tag);

/* rowtree_add() for a piece of something several paths share (a file
 * mapped by several processes): the columns in shared (bit per col_id)
 * are added only to the rows at depth >= from (0: the total too, 1: the
 * first key's rows and below, ...), every other column everywhere; the
 * process tag is counted as rowtree_add() counts it. */
void rowtree_add_from(struct rowtree *t, const uint32_t *path,
		      const uint64_t *vals, unsigned shared, size_t from);

/* Sort every level by column sort, descending (ties by label string),
 * then keep at most limit rows per level (0: all), folding the rest into
 * one "[N others]" row placed last (row.folded = N; the folded rows'
 * children are dropped, their sums kept). Call once, after all adds. */
void rowtree_finish(struct rowtree *t, enum col_id sort, size_t limit);

#endif
