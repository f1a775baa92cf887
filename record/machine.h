/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.h — the whole machine's memory at a moment, for `record -a`:
 * every line of /proc/meminfo, and a walk of every page frame
 * (/proc/kpageflags, read in large blocks) that sorts the frames by what
 * holds them (the first kind whose flag a frame has): walk_hole (no
 * memory), walk_offline, walk_reserved, walk_free (the buddy allocator's
 * free blocks: every frame of them is flagged on current kernels),
 * walk_hugetlb, walk_slab, walk_pgtable, walk_anon, walk_shmem
 * (swap-backed, not anonymous), walk_file (page cache on the LRU or
 * mapped), walk_other (flags of none of those: kernel memory), and
 * walk_unflagged (no flag at all: free pages outside the buddy lists,
 * such as per-cpu lists or memory not yet handed to the allocator, or
 * kernel allocations that set no flag; the walk cannot tell which).
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
/* Read /proc/meminfo and walk /proc/kpageflags into m (released first).
 * Returns 0, or -errno when meminfo cannot be read (the walk is left
 * out, with no counter, when kpageflags cannot be). */
int machine_read(struct machine *m);
/* The value of key in m, or 0 (*found, if not NULL, says whether). */
uint64_t machine_get(const struct machine *m, const char *key, bool *found);
void machine_release(struct machine *m);

#endif
