/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_pagemap.h — a snapshot's reading of the page tables: the entries
 * of /proc/PID/pagemap (large preads) and the categories PAGEMAP_SCAN
 * reports (where a mapping is sparse, while a process is held, for the
 * zero page and for the pages a PMD maps). What a page's frame is, is
 * left to snap_kpage.h. Internal to record/snap*.c.
 */
#ifndef MEMSZ_RECORD_SNAP_PAGEMAP_H
#define MEMSZ_RECORD_SNAP_PAGEMAP_H

#include <sys/types.h>

#include "record/snap_int.h"

/* PFNs are shown to openers with CAP_SYS_ADMIN: look at one of our own
 * resident pages. */
bool pagemap_probe_pfn(int pm, size_t page_size);

/* True if the kernel has PAGEMAP_SCAN (6.7+) and knows the categories
 * cats (PAGE_IS_*, 0 for any): ask it about one of our own pages through
 * pm, an open /proc/self/pagemap. */
bool pagemap_probe_scan(int pm, size_t page_size, uint64_t cats);

/* Pages a PMD maps, from the kernel's THP size; 0 if it has no THP. */
uint32_t pagemap_pmd_pages(size_t page_size);

/* Make the n pagemap entries (c->nent; of c->w[i] pages each when
 * c->weighted) of a chunk of mapping m, read (when read is
 * set) after the process ran again, agree with what PAGEMAP_SCAN found
 * while it was held (the bits in c->extra). A page the scan did not mark
 * was not there: its entry is zeroed (pagemap_read_marked() reads some such
 * entries and leaves the others as they were). A marked page whose entry
 * shows it in another state now (freed, or swapped in or out, meanwhile;
 * or not read at all) gets an entry of the state it was in, without a
 * PFN: a file page if m maps a file (asking the scan whether each page is
 * a file page would cost it a look at every page), else an anonymous page
 * mapped once. Such pages are counted in c->changed. */
void pagemap_reconcile(struct snap_ctx *c, const struct procmap *m, size_t n,
		       bool read);

/* Read pagemap for the pages of the chunk marked in c->extra, in spans
 * that skip long holes; the other entries are zeroed when zero is set,
 * else left for pagemap_reconcile(). */
int pagemap_read_marked(const struct snapper *s, struct snap_ctx *c, int pm,
			uint64_t base, size_t n, bool zero);

/* Scan mapping vma of the job (more than PRESCAN_MIN_PAGES) with
 * PAGEMAP_SCAN and append to the job's tasks the packed tasks of what it
 * found (at most CHUNK_PAGES pages each, the first TASK_BEGIN, the last
 * TASK_END; one empty task if nothing is there) and to its regions their
 * regions, through c's scratch. Its first PRESCAN_SAMPLE_PAGES are a
 * sample: a mapping dense there, with no huge page there and not much
 * larger than the process's resident memory is declined (-EAGAIN): it
 * costs less read in contiguous tasks. Returns 0, or -EAGAIN or -errno
 * with the job as it was (the mapping is then to be read whole). */
int pagemap_prescan(struct snap_job *j, struct snap_ctx *c, uint32_t vma);

/* Read the pagemap entries of task k of a split job, which
 * pagemap_read_task only scanned (c->deferred), into c->pm, c->nent of
 * them (a packed task also gets its c->off and c->extra again; one with
 * PMD-mapped pages is read one step per huge page, as pagemap_read_task
 * reads it: c->weighted). Returns 0 or -errno (then c->nent entries
 * of one page each, for pagemap_reconcile() without the entries). */
int pagemap_read_deferred(const struct snap_job *j, struct snap_ctx *c,
			  size_t k);

/* Read what the page tables say of task k's pages into c->pm and
 * c->extra (and the pages to look up into c->look: *nlook of them, the
 * largest key *maxkey). A task of a sparse mapping is scanned with
 * PAGEMAP_SCAN, and only what it finds is read from pagemap; a task of a
 * split job is only scanned (c->deferred; far cheaper per page than
 * pagemap while the process is held): its pagemap entries are read after
 * the release, and then reconciled with the scan. What cannot be scanned
 * ([vsyscall]) is read whole. PMD-mapped pages (THP) are marked SCAN_PMD;
 * in a packed task (not of a split job) a huge page mapped exclusively is
 * one entry of c->w[i] pages (c->weighted). c->nent is the number of
 * entries read.
 * Returns 1 if the pages are to be classified, 0 if the slot is complete
 * already (nothing there, or unreadable), or -errno. */
int pagemap_read_task(struct snap_job *j, struct snap_ctx *c, size_t k,
		      size_t *nlook, uint64_t *maxkey);

#endif
