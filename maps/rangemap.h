/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rangemap.h — sparse maps of [start, end) -> label, and DualMaps.
 *
 * A RangeMap (after Bloaty's) assigns labels to disjoint half-open ranges of
 * one address space (file offsets or VM addresses). Each range may also carry
 * the start of the same bytes in the *other* space, so that an address can be
 * translated (VM -> file or file -> VM).
 *
 * Rules, which every mutation preserves:
 *  - first writer wins: a later add never changes a byte already labelled; it
 *    only fills the gaps it overlaps (one add may become several pieces);
 *  - a range of unknown size (rmap_add_open) extends to the start of the next
 *    range added - even one added later - but never past its limit (it is
 *    fixed when the map settles, see below);
 *  - after any mutation, entries are sorted, disjoint and non-empty; adjacent
 *    entries with the same label and contiguous translation may be merged.
 *
 * Adds are cheap (appended); the map is settled lazily on the first query
 * (any, an empty range's too) after a batch of adds, in O(n + p log p)
 * for n entries and p new adds.
 * Querying between single adds is correct but slow; build then query.
 * Settling fixes the extent of the open ranges of the batch: adds made after
 * that query no longer shorten them (they only fill gaps, as usual).
 *
 * A DualMap pairs a VM map and a file map describing one image.
 */
#ifndef MEMSZ_MAPS_RANGEMAP_H
#define MEMSZ_MAPS_RANGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RMAP_NO_TRANSLATION UINT64_MAX

struct rmap;

/* One settled range: [start, end) labelled label; other is the address of
 * start in the other space, or RMAP_NO_TRANSLATION. */
struct rmap_entry {
	uint64_t start, end;
	uint64_t other;
	uint32_t label;
};

/* New empty map. Free with rmap_free(); NULL is fine there. */
struct rmap *rmap_new(void);
void rmap_free(struct rmap *m);

/* Freeze m (settling it first): until rmap_thaw(), every query answers
 * from the entries m held then, whatever is added since; the adds are
 * settled by the first query after the thaw. For adding to a map while
 * looking up what it held before, without a copy of it. */
void rmap_freeze(struct rmap *m);
void rmap_thaw(struct rmap *m);

/* Labels shared by the tables of maps (rmap_add_table()): id[0, n),
 * counted references. */
struct rmap_labels {
	size_t refs, n;
	uint64_t *at; /* rmap_labels_new_at(): n + 1 bounds, else NULL */
	uint32_t id[];
};

/* New labels: n ids, all LABEL_NONE, and one reference, the caller's. */
struct rmap_labels *rmap_labels_new(size_t n);
/* The same with room for n + 1 bounds of elements of varying sizes in
 * at (see rmap_add_table(): stride 0), which the caller fills. */
struct rmap_labels *rmap_labels_new_at(size_t n);
/* Drop a reference to l; the last one frees it. NULL is fine. */
void rmap_labels_put(struct rmap_labels *l);

/* A table of n elements of stride bytes from start, element k labelled
 * l->id[first + k] (none where that is LABEL_NONE) and translated to
 * other + k * stride (none if other is RMAP_NO_TRANSLATION). With stride
 * 0, element k is [start + l->at[first + k], start + l->at[first + k + 1])
 * instead (bounds that must not decrease; an element may be empty), its
 * translation other + l->at[first + k] - l->at[first]. The same map
 * as the n rmap_add_translated() of its elements in order, held as one
 * range per run of labelled elements and a reference to l, which must not
 * change afterwards (4 bytes an element rather than entries of 32, for the
 * per-entry metadata of a big image). Every query and walk answers with
 * the elements' labels, except rmap_extents(). On a map that takes open
 * adds (not a DualMap's), whose ranges end at the start of each element,
 * the elements are added one by one. A no-op if n is 0, first + n > l->n,
 * stride is 0 without bounds or with decreasing ones, or the table passes
 * UINT64_MAX in either space. */
void rmap_add_table(struct rmap *m, uint64_t start, uint64_t stride, size_t n,
		    uint64_t other, struct rmap_labels *l, size_t first);

/* Label [start, start+size) where not yet labelled. size 0 is a no-op;
 * a range that would wrap past UINT64_MAX is clipped at UINT64_MAX.
 * label must not be LABEL_NONE (such an add is ignored). */
void rmap_add(struct rmap *m, uint64_t start, uint64_t size, uint32_t label);
/* As rmap_add, and byte start+i translates to other+i. The range is also
 * clipped so that other+size does not pass UINT64_MAX. other ==
 * RMAP_NO_TRANSLATION makes it a plain rmap_add. */
void rmap_add_translated(struct rmap *m, uint64_t start, uint64_t size,
			 uint64_t other, uint32_t label);
/* A range whose size is unknown: [start, min(next start, limit)), where
 * next start is the smallest start > start of any other non-empty add
 * (open or not) made before the map settles, whatever order it was added in.
 * No translation. limit <= start is a no-op. Like any add, it only fills
 * bytes still unlabelled; of two open adds at one start, the first wins.
 * Not on the maps of a DualMap (see dualmap_init()). */
void rmap_add_open(struct rmap *m, uint64_t start, uint64_t limit,
		   uint32_t label);

/* Label of addr, or LABEL_NONE (from labels.h: UINT32_MAX) if unlabelled.
 * If other is not NULL it receives addr translated, or RMAP_NO_TRANSLATION. */
uint32_t rmap_lookup(struct rmap *m, uint64_t addr, uint64_t *other);
/* rmap_lookup() without the translation, for addresses that mostly come
 * in increasing order: *hint (0 at first, then left as it is returned)
 * holds where the last one was found, and the next is looked for from
 * there on. Any order is answered right, out-of-order ones as fast as by
 * rmap_lookup(). */
uint32_t rmap_lookup_near(struct rmap *m, uint64_t addr, size_t *hint);
/* Translate addr into the other space. Returns false if addr is unlabelled
 * or its range has no translation. */
bool rmap_translate(struct rmap *m, uint64_t addr, uint64_t *out);
/* True if every byte of [start, end) is labelled (true for start >= end). */
bool rmap_covers(struct rmap *m, uint64_t start, uint64_t end);

/* The settled entries, sorted by start; *n receives the count. Borrowed,
 * valid until the next mutation or rmap_free(). A map with tables turns
 * them into entries here first (one per run of bytes with one label and
 * contiguous translation): use rmap_extents() where bounds will do. */
const struct rmap_entry *rmap_entries(struct rmap *m, size_t *n);
/* The settled entries as they are held: the bytes they cover are those
 * of rmap_entries(), but an entry may hold the elements of a table, of
 * several labels, and its label is then none of labels.c's (look a
 * byte's label up with rmap_lookup()). Costs nothing. Same validity. */
const struct rmap_entry *rmap_extents(struct rmap *m, size_t *n);
/* Index of the first settled entry with end > addr (== count if none),
 * in rmap_extents()'s entries (rmap_entries()' once it was called, or
 * when there are no tables: then they are the same). */
size_t rmap_find(struct rmap *m, uint64_t addr);
/* Does one settled entry of m that is not a table's hold [addr, addr +
 * size) whole (size 0: the byte at addr)? Then *e receives it (its bytes
 * have its one label and a contiguous translation, as rmap_entries()
 * would give them). Settles m; never turns its tables into entries. */
bool rmap_find_holding(struct rmap *m, uint64_t addr, uint64_t size,
		       struct rmap_entry *e);

/* Call fn for each labelled piece of [start, end) (a run of bytes of one
 * label and contiguous translation, as rmap_entries() has them), clipped
 * to it (other adjusted), in order. fn must not add to m. A non-zero return
 * from fn stops the walk and is returned. */
int rmap_foreach(struct rmap *m, uint64_t start, uint64_t end,
		 int (*fn)(void *arg, const struct rmap_entry *piece),
		 void *arg);

/* Walk [start, end) over several maps at once, cutting at every boundary of
 * every map (Bloaty's rollup): fn gets each elementary piece, in order and
 * covering [start, end) exactly, with labels[i] the label of maps[i] over it
 * (LABEL_NONE where maps[i] has none). n must be <= RMAP_ROLLUP_MAX (else
 * returns -1). A non-zero return from fn stops the walk and is returned. */
#define RMAP_ROLLUP_MAX 16
int rmap_rollup(struct rmap *const *maps, size_t n, uint64_t start,
		uint64_t end,
		int (*fn)(void *arg, const uint32_t *labels, uint64_t start,
			  uint64_t end),
		void *arg);

/* Add the bytes of each label of m in [start, end) to sums[label][col]
 * (col 0 or 1): what rmap_rollup() of m alone gives, a piece at a time,
 * without a piece or a call each (a table's elements are summed in a
 * loop). Returns 0, or -1 if a byte of [start, end) has no label or one
 * of nsums or more (the sums then hold part of the range). */
int rmap_sum_labels(struct rmap *m, uint64_t start, uint64_t end,
		    uint64_t (*sums)[2], size_t nsums, int col);

/* rmap_sum_labels() of each of the nr ranges r[i].start .. r[i].end
 * (sorted, apart; their labels are not looked at), without settling m:
 * the pending adds of a DualMap's map are swept straight into the sums,
 * no entries made (a map summed once, then freed: node's symbols, 4 MiB
 * of entries a map less). Returns 0, or -1 as rmap_sum_labels(). */
int rmap_sum_ranges(struct rmap *m, const struct rmap_entry *r, size_t nr,
		    uint64_t (*sums)[2], size_t nsums, int col);

/* Check the invariants (sorted, disjoint, non-empty, no label LABEL_NONE,
 * translations that do not wrap) of the settled entries and that the pending
 * adds are well formed. Returns 0 or -1. Does NOT settle the map (so calling
 * it cannot change where open ranges end) and costs amortised O(1) per add:
 * tests call it after every mutation. */
int rmap_check(struct rmap *m);

/* Number of settled entries, as rmap_entries() counts them (settles the
 * map and turns its tables into entries). */
size_t rmap_count(struct rmap *m);

/* --- DualMap --- */

struct dualmap {
	struct rmap *vm;
	struct rmap *file;
};

/* Allocate both maps. dualmap_free() frees them (not dm itself). They
 * take no open adds (rmap_add_open() on them aborts): they keep no record
 * of the starts of their adds, which only open adds need (8 bytes an add
 * less). */
void dualmap_init(struct dualmap *dm);
void dualmap_free(struct dualmap *dm);

/* Label VM range [vmaddr, vmaddr+size) in dm->vm and, through base->vm's
 * translations, the file bytes those VM bytes come from in dm->file.
 * With base NULL, only dm->vm is labelled (no translation). With a base,
 * dm->vm is labelled only where base->vm is, and the entries added to both
 * maps carry the translation (dm->vm: file offset, dm->file: VM address).
 * base must not be dm. */
void dualmap_add_vm(struct dualmap *dm, struct dualmap *base, uint64_t vmaddr,
		    uint64_t size, uint32_t label);
/* Mirror of dualmap_add_vm: label file range [off, off+size) in dm->file
 * (only where base->file is, if base is not NULL) and, through base->file's
 * translations, the VM bytes it is loaded at in dm->vm. */
void dualmap_add_file(struct dualmap *dm, struct dualmap *base, uint64_t off,
		      uint64_t size, uint32_t label);
/* Where the last range added through a cursor on one map of a base
 * DualMap fell: the base's entry that held it whole, so that the next one,
 * mostly in the same entry (symbols, the padding between them, metadata
 * entries: added in address order), goes in without a search of the base
 * and an rmap_foreach() walk of it. Only entries that are not a table's
 * are held (rmap_find_holding()): the base's tables are never turned into
 * entries, whatever it holds. */
struct dualmap_cursor {
	struct rmap *base;   /* base->vm or base->file; NULL: no base */
	struct rmap_entry e; /* e.start == e.end: none yet */
};

/* A cursor on base_map (base->vm or base->file; NULL: no base), holding
 * no entry yet. */
void dualmap_cursor_init(struct dualmap_cursor *c, struct rmap *base_map);

/* Does one entry of c->base (not NULL) that is not a table's hold [addr,
 * addr + size) whole (size 0: the byte at addr)? Then c->e is it, looked
 * up only when the one held before does not hold the range. */
static inline bool dualmap_cursor_holds(struct dualmap_cursor *c, uint64_t addr,
					uint64_t size)
{
	if (c->e.start <= addr && addr < c->e.end && size <= c->e.end - addr)
		return true;
	return rmap_find_holding(c->base, addr, size, &c->e);
}

/* dualmap_add_vm(dm, base, vmaddr, size, label), c a cursor on base->vm
 * (c->base NULL: base NULL): a range c's entry holds is added as
 * dualmap_add_vm() adds the one piece rmap_foreach() finds there. */
void dualmap_add_vm_cursor(struct dualmap *dm, struct dualmap_cursor *c,
			   uint64_t vmaddr, uint64_t size, uint32_t label);
/* dualmap_add_file(dm, base, off, size, label), c a cursor on base->file
 * (c->base NULL: base NULL), as dualmap_add_vm_cursor(). */
void dualmap_add_file_cursor(struct dualmap *dm, struct dualmap_cursor *c,
			     uint64_t off, uint64_t size, uint32_t label);

/* Label both spaces explicitly (no base needed): VM [vmaddr, vmaddr+vmsize)
 * and file [off, off+filesize), translated to each other over the common
 * prefix MIN(vmsize, filesize). */
void dualmap_add_both(struct dualmap *dm, uint64_t vmaddr, uint64_t vmsize,
		      uint64_t off, uint64_t filesize, uint32_t label);

#endif
