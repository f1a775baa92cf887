/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.h — the whole machine's memory at a moment, for `record -a`:
 * every line of /proc/meminfo, the slab caches of /proc/slabinfo (the
 * report's machine rows are these), and, with `--frame-walk`, a walk of
 * every page frame (/proc/kpageflags, read in large blocks) that sorts
 * the frames by what holds them (the first kind whose flag a frame has):
 * walk_hole (no memory), walk_offline, walk_reserved, walk_free (the buddy
 * allocator's free blocks: every frame of them is flagged on current kernels),
 * walk_hugetlb, walk_slab, walk_pgtable, walk_anon, walk_shmem
 * (swap-backed, not anonymous), walk_file (page cache on the LRU or
 * mapped), walk_other (flags of none of those: kernel memory), and
 * walk_free_unlisted and walk_unflagged (no flag at all). Frames outside
 * the System RAM ranges of /proc/iomem (a PCI hole) are walk_hole too.
 * A frame with no flag is either free outside the buddy lists (memory
 * not yet handed to the allocator, whose frames the kernel has not even
 * initialised, as with deferred struct page init) or kernel memory that
 * sets no flag (vmalloc, per-cpu lists, the memmap itself): one frame
 * cannot tell. MemFree read at the same moment can: what it holds beyond
 * the buddy frames (walk_free) is among them, and is walk_free_unlisted;
 * the rest stays walk_unflagged, kernel memory.
 */
#ifndef MEMSZ_RECORD_MACHINE_H
#define MEMSZ_RECORD_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"

/* Counters, in the order added (keys owned). */
struct machine {
	struct md_cgroup_stat *stats;
	size_t n, cap;
};

/* Parse a /proc/meminfo text buf[0..len) ("Key:   value kB" a line; a
 * value without unit is a count) into m, values in bytes. Returns 0, or
 * -EINVAL at a malformed line (what came before is kept). */
int machine_meminfo_parse(const char *buf, size_t len, struct machine *m);
/* Sort the n kpageflags words flags[] into m's walk counters (bytes of
 * frames of page_size bytes), adding to what they hold. */
void machine_walk_count(const uint64_t *flags, size_t n, uint64_t page_size,
			struct machine *m);
/* Add each cache of a /proc/slabinfo text buf[0..len) (version 2.1) that
 * has slabs to m as MD_MACHINE_SLAB_PREFIX NAME: its num_slabs *
 * pagesperslab pages of page_size bytes (what its slabs hold, used or
 * not: on this machine they sum to 98.4 % of meminfo's Slab, the rest
 * being kmalloc allocations too large for any cache, which Slab counts
 * too; active_objs * objsize sums to 95.7 %). Returns 0, or -EINVAL at
 * a malformed line (what came before is kept). */
int machine_slabinfo_parse(const char *buf, size_t len, uint64_t page_size,
			   struct machine *m);
/* Frames [lo, hi). */
struct pfn_range {
	uint64_t lo, hi;
};

/* The top-level "System RAM" ranges of a /proc/iomem text buf[0..len),
 * as frames of page_size bytes, into *out (caller frees, NULL when none)
 * and *n, in the text's order. Returns 0. */
int machine_iomem_parse(const char *buf, size_t len, uint64_t page_size,
			struct pfn_range **out, size_t *n);
/* After a walk: split m's walk_unflagged into walk_free_unlisted, the
 * free memory (MemFree) the buddy frames (walk_free) do not hold, at most
 * all of walk_unflagged, and what is left (kernel memory). */
void machine_walk_split(struct machine *m);
/* Read /proc/meminfo, /proc/slabinfo (when readable) and, with walk,
 * walk /proc/kpageflags into m (released first).
 * Returns 0, or -errno when meminfo cannot be read (the walk is left
 * out, with no counter, when kpageflags cannot be or walk is false). */
int machine_read(struct machine *m, bool walk);
/* The value of key in m, or 0 (*found, if not NULL, says whether). */
uint64_t machine_get(const struct machine *m, const char *key, bool *found);
void machine_release(struct machine *m);

#endif
