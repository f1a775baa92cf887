/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_share.h — which mappings of a snapshot's process smaps counts no
 * page of as shared, read once the huge pages' checks cost more. */
#ifndef MEMSZ_SNAP_SHARE_H
#define MEMSZ_SNAP_SHARE_H

#include "record/procmaps.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* An anonymous huge page a PMD maps and pagemap calls exclusive costs a
 * kpageflags read of its first page (kpage_pmd_maybe_shared) and half a
 * pagemap pread, ~0.5 us of CPU; smaps' Shared_Clean and Shared_Dirty of
 * its mapping, both 0, tell the same for all of its huge pages at once
 * (every page mapped once), and PAGEMAP_SCAN gives the rest of their
 * entries (snap_pagemap.c's pmd_read). /proc/PID/smaps costs ~0.1 us a
 * huge page, ~1-2 us a mapping and ~10 ns a page mapped by PTEs, so it is
 * read when the huge pages are worth SHARE_AFTER plus SHARE_PER_MAP a
 * mapping plus one per SHARE_PTE_PAGES other resident pages: at once
 * when the first scan found that many (snap_share_plan), else once the
 * snapshot has checked that many one by one. */
#define SHARE_AFTER 64
#define SHARE_PER_MAP 4
#define SHARE_PTE_PAGES 32

struct snap_share {
	pthread_mutex_t mu;
	int pid;
	const struct procmaps *maps;
	/* per mapping of maps, once read: bit 0 no page shared, bit 1
	 * VM_SOFTDIRTY (procmaps_parse_unshared) */
	uint8_t *unshared;
	uint64_t reads; /* checks asked so far (atomic) */
	uint64_t after; /* smaps is read when reads pass it */
	bool done;	/* unshared is read (atomic; under mu) */
};

/* A share state for the mappings maps of pid, nothing read yet. */
struct snap_share *snap_share_new(int pid, const struct procmaps *maps);
void snap_share_free(struct snap_share *sh);

/* Plan sh's smaps read: hps huge pages PMD-mapped (pages pages) found by
 * the first scan, rss resident pages in the process (0 if unknown). Reads
 * smaps now if they pay for it, else sets the count after which
 * snap_share_unshared reads it. */
void snap_share_plan(struct snap_share *sh, uint64_t hps, uint64_t pages,
		     uint64_t rss);

/* True if smaps says no page of mapping vma (an index into maps) is
 * mapped more than once: each anonymous huge page in it that pagemap
 * calls exclusive is, with no kpageflags read. Called once for each
 * such huge page about to be checked; reads /proc/PID/smaps (once, on
 * the thread that passes the count) after the count, and false before
 * it, when sh is NULL, or when smaps cannot be read. */
bool snap_share_unshared(struct snap_share *sh, uint32_t vma);

/* True if smaps was read (snap_share_unshared) and says no page of
 * mapping vma is mapped more than once; *softdirty then says whether the
 * mapping is VM_SOFTDIRTY (its VmFlags' "sd"). Counts nothing. */
bool snap_share_known(struct snap_share *sh, uint32_t vma, bool *softdirty);

#endif
