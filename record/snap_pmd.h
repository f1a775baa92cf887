/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_pmd.h — a packed task's regions read into weighted entries: the
 * pages a PMD maps one step per huge page (snap_pmd.c). Internal to
 * record/snap*.c. */
#ifndef MEMSZ_RECORD_SNAP_PMD_H
#define MEMSZ_RECORD_SNAP_PMD_H

#include "record/snap_int.h"

/* Append to c's entries (from entry *i) the n pages at va, o pages after
 * the task's first page, with their scan bits x, one entry each, read by
 * one pread. Returns 0, -ESRCH if the process's pages are gone, or
 * -errno. */
int snap_entries_read(const struct snap_job *j, struct snap_ctx *c, size_t *i,
		      uint64_t va, uint64_t o, uint64_t n, uint8_t x);

/* Append to c's entries (from entry *i) the pages of the PMD-mapped
 * region [a, b) of mapping vma of a packed task, o pages after its first
 * page, scan bits x: one entry per huge page (per part of one where the
 * region is cut) where it is mapped once, its pages' mapcounts where not.
 * Returns 0 or -errno. */
int snap_pmd_read(const struct snap_job *j, struct snap_ctx *c, size_t *i,
		  uint32_t vma, uint64_t a, uint64_t b, uint64_t o, uint8_t x);

#endif
