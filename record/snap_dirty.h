/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_dirty.h — the anonymous pages of a snapshot that are clean, which
 * no page interface shows, counted from smaps' totals of their mappings.
 * Internal to record/snap*.c.
 *
 * smaps counts a page dirty when its page-table entry is dirty or the
 * page is PG_dirty (smaps_account). An anonymous page is made with a
 * dirty entry (the write fault, a copy-on-write copy), but one read back
 * from swap by a read fault is mapped clean (do_swap_page), and
 * MADV_FREE cleans the entries of the pages it frees lazily; such a page
 * becomes dirty again when the process writes it, through the CPU's
 * dirty bit, with no fault. Neither pagemap, PAGEMAP_SCAN nor
 * /proc/kpageflags shows that bit: a page read back clean and one
 * written after are alike in all three (both PG_swapcache, not
 * PG_dirty; a page MADV_FREE cleaned still PG_swapbacked until its CPU's
 * LRU batch drains), so no page can be told dirty or clean.
 *
 * Only where such pages can be (a page was swapped out or in, or
 * MADV_FREE used, since boot: /proc/vmstat) is smaps read, once a
 * snapshot, for the fields of each private mapping. In one where it
 * counts some anonymous page and some clean one, the anonymous pages are
 * counted dirty, in address order, as long as the mapping's smaps dirty
 * pages last (its dirty file pages taking theirs where they come first),
 * the rest clean. The mapping's DIRTY and SHR DIRTY are smaps'; which of
 * its anonymous pages are the clean ones is not known, and a NOTE says
 * how many were counted clean so, by how many pages a mapping still
 * differs (dirty file pages after its smaps dirty pages were taken), and
 * how many mappings changed between the two reads (resident pages not
 * smaps' Rss: a target that ran). A target not held through both (start,
 * interval, final and one-shot snapshots without --freeze) that writes a page
 * already resident and clean at the smaps read has it counted clean, and
 * its mapping not counted as changed: its Rss is the same.
 * MEMSZ_SMAPS_DIRTY: "1" reads smaps for every snapshot, "0" never (a
 * testing aid).
 */
#ifndef MEMSZ_RECORD_SNAP_DIRTY_H
#define MEMSZ_RECORD_SNAP_DIRTY_H

#include "record/snap_int.h"

/* Read the dirty totals of j's private mappings from /proc/PID/smaps
 * when anonymous pages may be clean (see above); else, or when smaps
 * cannot be read, nothing is changed later. */
void snap_dirty_load(struct snap_job *j);

/* Begin mapping vma of j, before its first runs go to snap_dirty_apply. */
void snap_dirty_begin(struct snap_job *j, uint32_t vma);

/* Count the present anonymous pages of the slot's runs (its next chunk of
 * the mapping begun, in address order; not a bitmap) dirty while the
 * mapping's smaps dirty pages last, the others clean, splitting a run
 * where that changes within it. Only in a private mapping where smaps
 * counts some anonymous page and some clean one: in any other, every
 * anonymous page is dirty. */
void snap_dirty_apply(struct snap_job *j, struct snap_slot *sl);

/* Whether the slot's pages must be runs for snap_dirty_apply. */
static inline bool snap_dirty_on(const struct snap_job *j)
{
	return j->dirty.on;
}

/* End mapping vma, begun (after its last chunk): count what differs. */
void snap_dirty_end(struct snap_job *j, uint32_t vma);

/* With note, NOTE what snapshot seq counted clean by smaps' totals and
 * what differs from them, if anything; free what the job held. Returns
 * 0 or the note's write error. */
int snap_dirty_finish(struct snap_job *j, uint32_t seq, bool note);

#endif
