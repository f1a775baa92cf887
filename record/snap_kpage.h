/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_kpage.h — a snapshot's page-frame look-ups and page classes: which
 * pages need /proc/kpagecount and /proc/kpageflags (those whose sharing
 * or dirtiness pagemap cannot tell), read sorted by PFN in blocks, and
 * the class of every page (smaps_account's rules: Rss, private, dirty,
 * Pss) as runs of a mapping. Internal to record/snap*.c.
 */
#ifndef MEMSZ_RECORD_SNAP_KPAGE_H
#define MEMSZ_RECORD_SNAP_KPAGE_H

#include "record/snap_int.h"

/* One pass over the n pagemap entries of a chunk (c->pm): the pages to
 * look up, when PFNs are readable, into c->look (*nlook of them, *maxkey
 * the largest key), and unless the chunk is weighted the entries present
 * or swapped into c->w (c->npresent of them). Returns how many pages are
 * present or swapped. */
size_t kpage_prepass(const struct snapper *s, struct snap_ctx *c, size_t n,
		     size_t *nlook, uint64_t *maxkey);

/* Classify the n entries of one chunk at va of mapping m (entries in c->pm,
 * scan bits in c->extra; c->weighted: entry i is c->w[i] pages of one class, a
 * huge page a PMD maps; the nlook pages to look up in c->look by
 * kpage_prepass, which ran on the same n entries: else only the entries
 * it listed present or swapped are looked at) into
 * the slot's runs, looking those pages up first (c->kpage_lookups
 * counts them; memsz's own pages among them are found first, see
 * observer_task). Pages that need no look-up are classified once per
 * distinct masked entry. The present pages whose memory cgroup is
 * wanted (file pages; anonymous ones with snapper_set_anon_charges) are
 * queued in sl->cg for kpage_charges_add, not looked up here. Returns 0
 * or -errno. */
int kpage_classify(const struct snapper *s, struct snap_ctx *c,
		   struct snap_slot *sl, const struct procmap *m, uint64_t va,
		   size_t n, size_t nlook, uint64_t maxkey);

/* Append the slot's pages whose memory cgroup is to be looked up (those
 * kpage_classify queued: file pages, and with snapper_set_anon_charges
 * anonymous ones) to the snapshot's queue, in the order its chunks are
 * written (address order); when the queue would pass CGQ_MAX pages,
 * kpage_charges_flush it first. Returns 0 or -errno. */
int kpage_charges_add(struct snapper *s, const struct snap_slot *sl);

/* Look the queued pages' memory cgroups up in /proc/kpagecgroup, all at
 * once: their PFNs sorted (one radix sort) and read in one pread per
 * block of nearby frames, a large queue cut into one part per thread of
 * the snapshot, read on threads of their own, the first through the
 * scratch of the caller's thread (s->ctx[0], free whenever the caller
 * is not running a task). Append the pages charged to another cgroup
 * than the process's (snapper_set_cgroup) to the snapshot's charge runs
 * in address order, joined where they continue each other, and empty the
 * queue. A sort per chunk would leave a large mapping's scattered frames
 * farther apart (see CGQ_MAX). Returns 0 or -errno. */
int kpage_charges_flush(struct snapper *s);

/* What kpage_file_clean found. */
enum kpage_clean {
	KPAGE_CLEAN_UNKNOWN, /* a dirty page, or it cannot tell */
	KPAGE_CLEAN_RANGE,   /* none where the task's pages are */
	KPAGE_CLEAN_FILE,    /* no dirty page in the whole file */
	KPAGE_CLEAN_UNASKED, /* not asked whole: too few look-ups */
};

/* Whether the file that task k of the job maps (its nlook pages to look
 * up in c->look, as kpage_prepass listed them) has no dirty page where
 * the task's file pages to look up are (cachestat(2) through the file the
 * image registry opened, else /proc/PID/map_files): then none of them is
 * PG_dirty, and they need no kpageflags look-up (smaps' dirty for them is
 * PG_dirty). cachestat walks every page cached in what it is asked
 * about, so it is asked only where that pays: with whole, a file of at
 * most CLEAN_WHOLE_MAX_BYTES whole when the task has a page to look up
 * per CLEAN_PAGES_PER_LOOKUP pages of it (KPAGE_CLEAN_FILE: the answer
 * holds for every mapping of it in the snapshot, see snap_pool.c
 * task_clean); else the spans of the task's file pages to look up, split
 * where more than CLEAN_SPAN_GAP pages lie between two, when their pages
 * (and a call's worth each) are at most CLEAN_PAGES_PER_LOOKUP a page to
 * look up (KPAGE_CLEAN_RANGE, this task only: the tasks of a mapping,
 * run on several threads, each walk their own part of the page cache,
 * once). KPAGE_CLEAN_UNASKED: whole, a small file neither asked whole nor
 * in part (a later task of it, with more look-ups, may). Asked only of
 * mappings of files on a block device: shmem and tmpfs pages are dirty
 * without the page cache's dirty mark. */
enum kpage_clean kpage_file_clean(const struct snap_job *j,
				  const struct snap_ctx *c, size_t k,
				  size_t nlook, bool whole);

#endif
