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
	 * VM_SOFTDIRTY (procmaps_parse_unshared), bit 2 SHARE_THP_ALL */
	uint8_t *unshared;
	/* per mapping: the bytes the first scan found PMD-mapped there
	 * (snap_share_pmd) */
	uint64_t *pmd_bytes;
	uint64_t reads; /* checks asked so far (atomic) */
	uint64_t after; /* smaps is read when reads pass it */
	bool done;	/* unshared is read (atomic; under mu) */
	/* what snap_share_plan was given, for snap_share_tell: the huge
	 * pages found PMD-mapped, MEMSZ_SMAPS_SHARE (-1: not set) */
	uint64_t hps;
	int env;
};

/* Bit 2 of snap_share.unshared: a private anonymous mapping (no inode,
 * not MAP_SHARED) whose AnonHugePages in smaps are the bytes the first
 * scan found PMD-mapped in it. Before 6.16, PAGEMAP_SCAN does not call
 * the huge zero page PFNZERO, and smaps counts it nowhere (not shared,
 * not in AnonHugePages): in a mapping smaps counts no page shared of,
 * it would pass for a huge page of the process's own. A PMD-mapped
 * range it finds where the mapping has no such page (a huge zero page,
 * an fsdax or pfnmap PMD, no struct page) makes the two differ. */
#define SHARE_THP_ALL 4u

/* A share state for the mappings maps of pid, nothing read yet. */
struct snap_share *snap_share_new(int pid, const struct procmaps *maps);
void snap_share_free(struct snap_share *sh);

/* Count bytes more that the first scan found PMD-mapped in mapping vma;
 * called before snap_share_plan. */
void snap_share_pmd(struct snap_share *sh, uint32_t vma, uint64_t bytes);

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
 * mapping vma is mapped more than once, and that the huge pages the first
 * scan found there are all anonymous ones of the process (SHARE_THP_ALL);
 * *softdirty then says whether the mapping is VM_SOFTDIRTY (its VmFlags'
 * "sd"). Counts nothing. */
bool snap_share_known(struct snap_share *sh, uint32_t vma, bool *softdirty);

/* What the snapshot decided about reading smaps for the sharing of the
 * huge pages, and why (MEMSZ_SMAPS_SHARE, or the pages against the
 * cost), as one line into buf (of size n) for record -v. */
void snap_share_tell(const struct snap_share *sh, char *buf, size_t n);

#endif
