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
 * or swapped into c->w (c->npresent of them). Swapped entries that are no
 * swap are first rewritten by kpage_swap_entry, and bit 60 (memsz's
 * PM_CLEAN, which pagemap leaves 0) is cleared should the kernel set it.
 * Returns how many pages are present or swapped. */
size_t kpage_prepass(const struct snapper *s, struct snap_ctx *c, size_t n,
		     size_t *nlook, uint64_t *maxkey);

/* Swapped pagemap entry e (PM_SWAPPED) as smaps counts its page: a
 * guard region's (PM_GUARD_REGION, 6.15+) or, with PFNs (s->has_pfn),
 * any PTE marker's (uffd-wp, poisoned, guard: the marker type with marker
 * bits) and 5.19-6.1's swap-in error entry as absent (0); with PFNs a PFN
 * entry's (a page being migrated, device-private or hwpoisoned) as a
 * resident page of its own, exclusive, without its PFN; any other as it
 * is. Without PFNs nor bit 58 (before 6.15) a marker is not told from
 * swap, nor is a PFN entry; nor are they when s->swp_types_off. */
uint64_t kpage_swap_entry(const struct snapper *s, uint64_t e);

/* Set how kpage_swap_entry reads swap types on kernel major.minor (0.0:
 * unknown, read as 6.2+) with nareas swap areas on (/proc/swaps): with
 * PM_SWP_NOT_SWAP or more, a real swap type may be as high as the lowest
 * type that is no swap, and no type is read as no swap (swp_types_off);
 * 5.19-6.1 put the PTE marker's type below the swap-in error's. */
void kpage_swap_layout(struct snapper *s, unsigned major, unsigned minor,
		       unsigned long nareas);

/* True if e, the pagemap entry of a page of an anonymous huge page a PMD
 * maps, says the page is mapped exclusively but another process may map
 * pages of that huge page (see snap_kpage.c): read its pages' kpagecount
 * then. For an entry pagemap calls shared, false, after checking that
 * kpageflags' bit 34 is clear there (else it does not mean
 * PG_anon_exclusive: every exclusive one is maybe shared from then on). */
bool kpage_pmd_maybe_shared(const struct snapper *s, uint64_t e,
			    struct snap_share *sh, uint32_t vma);

/* True when anonymous pages are looked up in kpagecgroup too (-G with
 * charges recorded): their PFNs are needed. */
bool kpage_anon_charged(const struct snapper *s);

/* For the n entries of a chunk read page by page (c->pm, scan bits in
 * c->extra): clear the exclusive bit of the pages of each huge page a PMD
 * maps (SCAN_PMD) that kpage_pmd_maybe_shared finds maybe shared, so that
 * they are looked up. Returns true if it cleared any. */
bool kpage_pmd_unshare(const struct snapper *s, struct snap_ctx *c, size_t n,
		       struct snap_share *sh, uint32_t vma);

/* Classify the n entries of one chunk at va (entries in c->pm,
 * scan bits in c->extra; c->weighted: entry i is c->w[i] pages of one class, a
 * huge page a PMD maps; the nlook pages to look up in c->look by
 * kpage_prepass, which ran on the same n entries: else only the entries
 * it listed present or swapped are looked at) into
 * the slot's runs, looking those pages up first (c->kpage_lookups
 * counts them; memsz's own pages among them marked by the caller, with
 * observer_task before it sorts c->look). Pages that need no look-up are
 * classified once per distinct masked entry. The present pages whose memory
 * cgroup is wanted (file pages; anonymous ones with snapper_set_anon_charges)
 * are queued in sl->cg for kpage_charges_add, not looked up here. Returns 0 or
 * -errno. */
int kpage_classify(const struct snapper *s, struct snap_ctx *c,
		   struct snap_slot *sl, uint64_t va, size_t n, size_t nlook,
		   uint64_t maxkey);

/* The loop of kpage_classify after its look-ups: classify the n entries
 * of c into the slot's runs, only those kpage_prepass listed (c->w, for
 * a chunk of single pages; a held chunk's view has no list, w NULL, and
 * every entry is looked at). A page looked up takes its kpagecount from
 * count and its kpageflags from flags (NULL: none read) at its index in
 * the chunk where it wants them read (kpage_wants), else what the file
 * would say (a mapcount of 1) or no flags: c->kcount and c->kflags as
 * kpage_fill read them, or for a held chunk the arrays its look-ups were
 * read into with other chunks' (snap_hold.c). */
void kpage_classify_filled(const struct snapper *s, struct snap_ctx *c,
			   struct snap_slot *sl, uint64_t va, size_t n,
			   const uint64_t *count, const uint64_t *flags);

/* The kpage files a page looked up is read in. */
enum kpage_file {
	KF_COUNT = 1u << 0, /* kpagecount: its mapcount */
	KF_FLAGS = 1u << 1, /* kpageflags: dirty, and the flags kept */
};

/* Which kpage files a page looked up is read in, by its pagemap entry:
 * [file page][mapped exclusively]. An anonymous page is swap-backed, so
 * dirty (see snap_kpage.c): shared after a fork, only its mapcount is
 * unknown. A file page's dirtiness is its PG_dirty; mapped exclusively,
 * its mapcount is 1. (Exclusive anonymous pages are not looked up.)
 * Memory cgroups are looked up later, for the whole snapshot at once
 * (kpage_charges_add). */
static const uint8_t kpage_wants_table[2][2] = {
    [0] = {[0] = KF_COUNT, [1] = 0},
    [1] = {[0] = KF_COUNT | KF_FLAGS, [1] = KF_FLAGS},
};

/* Which kpage files page e of c, looked up (kpage_prepass listed it),
 * wants read: kpagecount if it is not mapped exclusively; kpageflags, when
 * they can be read, if it is a file page of a mapping not known clean
 * (c->file_clean) nor in a piece of its file known clean (PM_CLEAN). Inline: it
 * runs on every page looked up. */
static inline uint8_t kpage_wants(const struct snapper *s,
				  const struct snap_ctx *c, uint64_t e)
{
	uint8_t w =
	    kpage_wants_table[(e & PM_FILE) != 0][(e & PM_EXCLUSIVE) != 0];

	if (!s->has_kpageflags ||
	    ((e & PM_FILE) && (c->file_clean || (e & PM_CLEAN))))
		w &= (uint8_t)~KF_FLAGS;
	return w;
}

/* Sort the n keys of a by the bits above their low idx_bits (a PFN above
 * an index) through tmp (room for n). */
void kpage_keys_sort(uint64_t *a, uint64_t *tmp, size_t n, uint64_t maxkey,
		     unsigned idx_bits);

/* kpage_keys_sort, unless the n keys of a rise already (as the pages of a
 * file read in order often do; maxkey at least the largest). */
void kpage_keys_sort_rising(uint64_t *a, uint64_t *tmp, size_t n,
			    uint64_t maxkey, unsigned idx_bits);

/* Read kpage file fd for the n keys of look, sorted by the PFN above
 * their low idx_bits (an index): the entry of each key's PFN into
 * dst[index], one pread per block of nearby PFNs (through gaps up to
 * KPAGE_GAP) of at most the nbuf entries of buf; a PFN beyond the file's
 * end reads as 0. *preads counts the preads. Returns 0 or -errno
 * (snap_keys.c, as the other kpage_keys_ functions). */
int kpage_keys_read(uint64_t *buf, size_t nbuf, const uint64_t *look, size_t n,
		    unsigned idx_bits, int fd, uint64_t *dst, size_t *preads);

/* How many preads kpage_keys_read_all would read the n keys of look
 * (sorted by kpage_keys_sort) in through a buffer of nbuf entries: one
 * per block of nearby frames. */
size_t kpage_keys_blocks(const uint64_t *look, size_t n, unsigned idx_bits,
			 size_t nbuf);

/* The parts a read of n keys of a snapshot's is cut into: one below
 * KEYS_PARALLEL_MIN keys, else one per thread of the snapshot
 * (s->nthreads), at most SNAP_THREADS_MAX. */
unsigned kpage_keys_nparts(const struct snapper *s, size_t n);

/* Call fn on each of the np parts at parts (size bytes each): the first
 * on the caller's thread, the others each on a thread of its own (on the
 * caller's, one after the other, where none can be started); returns
 * once every call has. */
void kpage_parts_run(void *parts, size_t size, unsigned np,
		     void *(*fn)(void *));

/* Read kpage file fd for the n keys of key, sorted by kpage_keys_sort:
 * the entry of the PFN of each key into dst at the key's index (its low
 * idx_bits), one pread per block of nearby frames (KPAGE_GAP); from
 * KEYS_PARALLEL_MIN keys on, cut into one part per thread of the
 * snapshot (s->nthreads), the first read on the caller's thread through
 * the scratch of s->ctx[0] (free whenever the caller is not running a
 * task), the others each on a thread of its own. A PFN beyond the file's
 * end reads as 0. *preads (unless NULL): the preads it took. Returns 0 or
 * the first error (-errno). */
int kpage_keys_read_all(struct snapper *s, const uint64_t *key, size_t n,
			unsigned idx_bits, int fd, uint64_t *dst,
			size_t *preads);

/* kpage_keys_read_all, the entry of key k into dst[k] (in the keys'
 * order), not at its index: the kernel reads each block's frames while
 * the entries read go to memory in order, not scattered over dst, which
 * cost the kernel's look-ups ~25% more time (an 8 GiB file half cached,
 * 1 Mi keys: the cache lines they reuse evicted by the scattered
 * writes). */
int kpage_keys_read_sorted(struct snapper *s, const uint64_t *key, size_t n,
			   unsigned idx_bits, int fd, uint64_t *dst);

/* Append the slot's pages whose memory cgroup is to be looked up (those
 * kpage_classify queued: file pages, and with snapper_set_anon_charges
 * anonymous ones) to the snapshot's queue, in the order its chunks are
 * written (address order); when the queue would pass CGQ_MAX pages,
 * kpage_charges_flush it first. Returns 0 or -errno. */
int kpage_charges_add(struct snapper *s, const struct snap_slot *sl);

/* Look the queued pages' memory cgroups up in /proc/kpagecgroup, all at
 * once: their frames in order (a bitmap of them where they lie within 64
 * frames a page queued, else their PFNs sorted by one radix sort) read in
 * one pread per block of nearby frames, a large queue cut into one part
 * per thread of the snapshot, read on threads of their own, the first
 * through the scratch of the caller's thread (s->ctx[0], free whenever
 * the caller is not running a task). Append the pages charged to another cgroup
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
 * without the page cache's dirty mark. It writes c: where spans are
 * asked and some are dirty, it returns KPAGE_CLEAN_UNKNOWN but has marked
 * the file pages of the clean spans, and of the clean pieces of the
 * dirty ones (see CLEAN_SPLIT_PER_DIRTY in snap_clean.c), PM_CLEAN in
 * c->pm: kpage_wants reads no kpageflags for those. */
enum kpage_clean kpage_file_clean(const struct snap_job *j, struct snap_ctx *c,
				  size_t k, size_t nlook, bool whole);

#endif
