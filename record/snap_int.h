/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_int.h — what the parts of a snapshot share (not for use outside
 * record/snap*.c): the pagemap and PAGEMAP_SCAN bits, the sizes of a
 * chunk and of the window of chunks in flight, and the snapper itself.
 *
 * A snapshot (snapshot.c) reads the VMA list, then hands the job to the
 * worker pool (snap_pool.c), whose threads read each chunk's page tables
 * (snap_pagemap.c), look the page frames up and classify the pages into
 * runs (snap_kpage.c) and write them in order. The observer
 * (snap_observer.c) knows memsz's own pages, so that memsz does not count
 * itself as a sharer; the image registry (snap_images.c) writes each
 * mapped file once.
 */
#ifndef MEMSZ_RECORD_SNAP_INT_H
#define MEMSZ_RECORD_SNAP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>

#include "data/datafile.h"
#include "record/procmaps.h"
#include "record/snapshot.h"
#include "util/hashmap.h"

struct snap_share;

/* pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)
#define PM_EXCLUSIVE (1ull << 56)
#define PM_SOFTDIRTY (1ull << 55)
#define PM_PFN_MASK ((1ull << 55) - 1)
/* 6.15+: the entry is a guard region's PTE marker (madvise
 * MADV_GUARD_INSTALL), which also has PM_SWAPPED */
#define PM_GUARD_REGION (1ull << 58)
/* Set by memsz, not pagemap (its bits 59-60 are 0; kpage_prepass clears
 * bit 60 should a kernel set it), in c->pm: a file page in a piece of its
 * file cachestat(2) found no dirty page in, where the rest of its task's
 * part of the file has some (kpage_file_clean): it needs no kpageflags
 * look-up (kpage_wants), as a page of a task known clean. */
#define PM_CLEAN (1ull << 60)
/* A swapped entry's frame, with PFNs (CAP_SYS_ADMIN; else zero): the swap
 * type in its low 5 bits (MAX_SWAPFILES_SHIFT), the offset above. The
 * types from MAX_SWAPFILES up are no swap (include/linux/swap.h): the
 * hwpoison, migration and device-private ones (whose offset is a PFN),
 * then at the top the PTE marker's (PM_SWP_MARKER: 31 since 6.2; on
 * 5.19-6.1 30, below the swap-in error type 31, PM_SWP_MARKER_6_1),
 * whose offset is a few marker bits. MAX_SWAPFILES depends on the
 * kernel's version and configuration: 22 the least (5.19-6.1, every
 * option on; 23 on 6.2-6.14, 24 since 6.15, 27 on 5.10). A real swap
 * type is below 22 while fewer than 22 swap areas are on
 * (kpage_swap_layout); with more, the type rule is off. */
#define PM_SWP_TYPE_BITS 5
#define PM_SWP_TYPE(e) ((e) & ((1u << PM_SWP_TYPE_BITS) - 1))
#define PM_SWP_OFFSET(e) (((e)&PM_PFN_MASK) >> PM_SWP_TYPE_BITS)
#define PM_SWP_NOT_SWAP 22
#define PM_SWP_MARKER 31
#define PM_SWP_MARKER_6_1 30
#define PM_SWP_SWAPIN_ERROR_6_1 31
/* A marker-type entry's offset below this is a PTE marker's bits
 * (uffd-wp 1, poisoned 2, guard 4), not a PFN. Only the marker type is
 * read so: a migration entry, whose type is below, is never taken for a
 * marker even where RAM starts at physical 0 (arm64). */
#define PM_SWP_MARKER_END 256

/* PAGEMAP_SCAN (linux/fs.h, 6.7+), declared here for older headers. */
struct snap_page_region {
	uint64_t start, end, categories;
};

struct snap_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define SNAP_PAGEMAP_SCAN _IOWR('f', 16, struct snap_scan_arg)
#define SCAN_IS_FILE (1u << 2)
#define SCAN_IS_PRESENT (1u << 3)
#define SCAN_IS_SWAPPED (1u << 4)
#define SCAN_IS_PFNZERO (1u << 5)
#define SCAN_IS_HUGE (1u << 6)
#define SCAN_IS_SOFTDIRTY (1u << 7) /* 6.9+: else the ioctl says EINVAL */
/* 6.15+: a guard region (also PAGE_IS_SWAPPED); past c->extra's 8 bits:
 * scans that look for pages held leave it out (snapper.scan_guard). */
#define SCAN_IS_GUARD (1u << 8)
/* Set in c->extra for every page PAGEMAP_SCAN returned, whatever its
 * categories, so that pagemap_read_marked() reads it. */
#define SCAN_MARKED 0x80u
/* Set in c->extra by pmd_mark() (not a kernel category): the page is
 * present and mapped by a PMD, a huge page of THP. */
#define SCAN_PMD 0x01u
/* Set in c->extra by observer_task() (PAGE_IS_WRITTEN, a category never
 * asked for): memsz itself maps the page's frame. */
#define SCAN_SELF 0x02u

#define CHUNK_PAGES (1u << 14) /* pagemap entries per pread = per task */
#define SCAN_VEC 4096	       /* regions per PAGEMAP_SCAN call */
#define KPAGE_BLOCK (1u << 17) /* max entries per kpage pread (1 MiB) */
/* kpage files: read through gaps of this many frames (the kernel spends
 * 65-90 ns an entry and ~250 ns a pread on them: a gap longer than ~3
 * entries costs more than a new pread) */
#define KPAGE_GAP 3
/* pagemap: read through holes shorter than this many pages (an entry
 * read costs the kernel ~2 ns, a pread ~0.6 us: with pages 128 apart,
 * one pread per 8 pages costs 0.32 us a page against 0.62 for one pread
 * a page: a hole read through costs less than a pread up to ~260 pages) */
#define PAGEMAP_GAP 256
/* A chunk whose resident fraction is below 1/SPARSE is "sparse": the next
 * one is found with PAGEMAP_SCAN instead of a plain pread. */
#define SPARSE 8
/* A mapping of more pages than this is scanned once with PAGEMAP_SCAN
 * before it is cut into tasks: its tasks hold only the pages the scan
 * found ("packed"), so that holes cost nothing past the kernel's walk.
 * 4 MiB: a thread's 8 MiB stack, a few pages of it resident, was read
 * whole (2 048 entries), as were an idle node's 8 MiB heap regions: a
 * scan (~5 us) and the few entries it finds cost less; below, most
 * mappings of a small process are libraries' segments and heaps, dense,
 * whose scan would only add to their read (an idle python3 has six of
 * 1-4 MiB). */
#define PRESCAN_MIN_PAGES (1u << 10)
/* Threads that read and kpage_classify chunks (the caller's included), and how
 * many chunks may be claimed ahead of the oldest one not yet written. */
#define SNAP_THREADS_MAX 4
#define WINDOW 64
/* Below this many pages of VM, or of resident memory when known
 * (VmRSS), a snapshot runs in the caller's thread: its work is in the
 * resident pages, and threads (their start, wake-ups and scratch) cost
 * a process as small as an idle node, 40 MiB resident in 11 GiB of VM,
 * ~8% more CPU for no less. */
#define THREAD_MIN_PAGES (1u << 15)

/* A page to look up in kpagecount/kpageflags: its PFN above its index in
 * the chunk, so that sorting the keys sorts by PFN. A PFN that does not
 * fit (none does: physical addresses have at most 52 bits) is not looked
 * up and reads as zeros, as a PFN beyond the end of the files does. */
#define LOOK_IDX_BITS 14
#define LOOK_PFN_MAX (UINT64_MAX >> LOOK_IDX_BITS)
#define LOOK_KEY(pfn, i) ((pfn) << LOOK_IDX_BITS | (i))
#define LOOK_PFN(k) ((k) >> LOOK_IDX_BITS)
#define LOOK_IDX(k) ((uint32_t)((k) & ((1u << LOOK_IDX_BITS) - 1)))
_Static_assert(CHUNK_PAGES <= 1u << LOOK_IDX_BITS, "chunk index fits a key");

/* An image the registry (snap_images.c) wrote an IMAGE record for. */
struct snap_image {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t id;
	uint32_t round; /* the last round of snapshots that mapped it */
	/* what its IMAGE record says of the file besides (dev, ino): st_size,
	 * st_mtim, a hash of the build-id (0: none) and one of the path,
	 * which an image mapped again after a round without it must still
	 * have to keep its id (snap_images.c: image_same_file) */
	uint64_t size, build_id_hash, path_hash;
	int64_t mtime_ns;
	/* a file with a name (not "(deleted)", found where the process sees
	 * it): kept when no round maps it, up to SNAP_IMAGES_DORMANT_MAX */
	bool named;
};
/* The images no snapshot of the last two rounds mapped that the registry
 * keeps at most (those registered first go first): a file mapped again
 * keeps its one IMAGE record, while shmem inodes made all day (always
 * "(deleted)") are not kept at all. */
#define SNAP_IMAGES_DORMANT_MAX 4096

/* A file the image registry opened in this snapshot to read its
 * build-id (snap_images.c), kept open until the snapshot ends: then
 * kpage_file_clean asks cachestat(2) through it, without opening the
 * mapping's map_files link again (snap_images_fd). */
struct snap_image_fd {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint64_t size; /* st_size when opened */
	/* the mapping's path (borrowed from the snapshot's maps), compared
	 * as clean_file's name is: (dev, ino) alone can name two files */
	const char *name;
	int fd;
};
/* At most this many such files are kept open at once; the others are
 * closed as before (a process mapping thousands of files needs no
 * thousands of descriptors). */
#define SNAP_IMAGE_FDS_MAX 64

/* A file kpage_file_clean was asked whole about, and its answer. */
struct clean_file {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	/* the mapping's path (borrowed from the job's maps): maps' device
	 * is the superblock's, which btrfs subvolumes share while their
	 * inode numbers repeat, so (dev, ino) alone can name two files */
	const char *name;
	bool clean;
};

/* Per-thread scratch for one chunk. */
struct snap_ctx {
	uint64_t *pm;	/* pagemap entries */
	uint8_t *extra; /* SCAN_IS_* bits per page (when scanned) */
	/* packed: entry i is the page off[i] pages after the task's first
	 * page (its pages are not contiguous); else entry i is page i */
	uint64_t *off;
	bool packed;
	/* weighted (a packed task whose pages a PMD maps, read by
	 * task_read_weighted): entry i stands for w[i] pages from off[i],
	 * all of one class; else each entry is one page, and kpage_prepass
	 * lists in w[0, npresent) the entries present or swapped, so that
	 * kpage_classify skips the others without looking at them */
	uint32_t *w;
	bool weighted;
	size_t npresent;
	size_t nent; /* entries of the chunk read (pagemap_read_task) */
	/* the chunk's mapping has no dirty page in the page cache
	 * (kpage_file_clean): its file pages need no kpageflags */
	bool file_clean;
	uint64_t *kcount, *kflags;
	uint64_t *look, *look2; /* LOOK_KEY(pfn, page): pages to look up */
	uint64_t *kbuf;
	size_t nkbuf; /* entries of kbuf (ctx_kbuf_entries of cap) */
	size_t cap;   /* pages of the other arrays (snap_pool.c ctx_get) */
	struct snap_page_region *vec; /* SCAN_VEC regions */
	uint64_t kpage_lookups;
	/* chunks classify_mostly (snap_kpage.c) is not tried on any more */
	unsigned mostly_skip;
	bool scanned;
	/* pagemap_read_task of a split job only scanned the task: its pagemap
	 * entries are read after the release */
	bool deferred;
	uint64_t changed; /* pages pagemap_reconcile() changed */
	/* the files this thread asked whole in this job (task_clean) */
	struct clean_file *cf;
	size_t ncf, cfcap;
	/* pagemap entries task_pread read ahead for the next small tasks of
	 * this job: ra_n of them from page ra_first (0: none) */
	uint64_t *ra;
	uint64_t ra_first;
	size_t ra_n;
};
/* task_pread reads ahead the entries of the tasks that follow a small one
 * (mappings of at most RA_TASK_PAGES pages, the segments of a library,
 * its bss, a stack guard) when each begins at most PAGEMAP_GAP pages
 * after the last, up to RA_PAGES entries in all: one pread instead of
 * one each (a small process's snapshot read 24 where 9 do). */
#define RA_TASK_PAGES 1024u
#define RA_PAGES 4096u

/* The entries of the kpage read buffer of a scratch of cap pages, in
 * proportion to KPAGE_BLOCK for CHUNK_PAGES: a kpage_read of its m <= cap
 * keys spans at most KPAGE_GAP + 1 frames a key, a pmd_read_shared at
 * most the task's pages, and task_read_regions reads through it at most
 * that many entries. */
static inline size_t ctx_kbuf_entries(size_t cap)
{
	return cap * (KPAGE_BLOCK / CHUNK_PAGES);
}
_Static_assert(KPAGE_BLOCK / CHUNK_PAGES >= KPAGE_GAP + 1,
	       "a kpage read of a chunk's keys fits the buffer");

/* A present page (or the pages of a huge page a PMD maps: one folio)
 * whose memory cgroup is to be looked up in kpagecgroup: its PFN; its
 * address, with the pages it stands for less one in the bits below the
 * page size (fewer than a page table holds entries: 8 bytes each). */
struct cg_ref {
	uint64_t pfn;
	uint64_t va_n;
};

/* A chunk held in its slot (snap_hold.c) until its pages' look-ups are
 * read with those of the other chunks held in the window: a copy of its n
 * pagemap entries and their scan bits, and (packed) their page offsets,
 * in its slot's regions of snapper.holdpm and holdoff; where it starts
 * (va), and how kpage_classify would have read it. */
struct snap_held {
	uint64_t *pm, *off;
	uint8_t *extra;
	size_t n;
	size_t nlook; /* its pages looked up (kpage_prepass) */
	/* its keys in its slot's regions of snapper.holdkey (kpagecount) and
	 * snapper.holdflags (kpageflags) */
	size_t nkeys, nfkeys;
	size_t blocks; /* the preads its look-ups take sorted alone */
	uint64_t va;
	bool on, packed, file_clean;
};

/* The result of one chunk, kept until it is written (slot = chunk index
 * modulo WINDOW). */
struct snap_slot {
	struct md_run *runs;
	size_t nruns, cap;
	/* nbits > 0: its pages instead as a bitmap (classify_bits: a chunk
	 * on the plain path, no page looked up, whose listed pages all
	 * have one pagemap key, so one class: exclusive anonymous pages,
	 * pages without a PFN (recorded without root, file pages too),
	 * swap entries or zero pages), page i of the chunk at bits_va
	 * listed, of flags bits_fl (MD_PG_HUGE added in a hugetlb
	 * mapping) and mapcount bits_mc, if bit i % 64 of bits[i / 64] is
	 * set (i < nbits); the encoder takes it as it is
	 * (md_mapping_add_bits), a shmem mapping's as runs (slot_add).
	 * Runs besides (classify_mostly): the chunk's pages of other
	 * classes, whose bits are clear, in address order */
	size_t nbits;
	uint64_t bits_va;
	uint32_t bits_fl, bits_mc;
	uint64_t bits[CHUNK_PAGES / 64];
	uint64_t present, swapped, unreadable;
	/* its present pages whose cgroup is to be looked up, in address
	 * order: not looked up chunk by chunk, but appended when the chunk
	 * is written to the snapshot's (snapper.cgkey), whose PFNs are
	 * sorted and read together (kpage_charges_add) */
	struct cg_ref *cg;
	size_t ncg, cgcap;
	struct snap_held held;
	int ret;
	bool done;
};

/* The snapshot's pages to look up in kpagecgroup are read when this many
 * are queued (and at its end), 24 bytes a page (a key, an address, the
 * sort's scratch; 12 where the frames fit 32 bits and lie close enough
 * for snap_charge.c's bitmap: no scratch, half a key): 24 MiB at most,
 * besides the 16 bytes a page of the
 * slots that queued them (struct cg_ref, up to 256 KiB a slot). The more are
 * sorted together, the closer their frames: an 8 GiB file half cached (1 Mi
 * pages) took 249 k preads sorted chunk by chunk, 66 k in two halves of 512 Ki,
 * 54 k sorted at once (~10% less CPU than in halves). */
#define CGQ_MAX (1u << 20)
#define CGQ_IDX_BITS 20
_Static_assert(CGQ_MAX <= 1u << CGQ_IDX_BITS, "queue index fits a key");

/* A mapped file as /proc/PID/maps names it: its device and inode. */
struct self_file {
	uint64_t dev, ino;
};

/* One of memsz's own mappings of a file the target maps, for the
 * observer's look at it task by task (observer_task): [start, end) maps
 * the file (dev, ino) from page pgoff; populate: its absent pages may be
 * made resident (a private mapping of a named file). */
struct self_map {
	uint64_t start, end, pgoff;
	struct self_file file;
	bool populate;
};

/* One of memsz's own file mappings made resident (self_populate). */
struct self_range {
	uint64_t start, end, ino;
};

/* A file system's device as /proc/PID/maps shows it, and whether it is
 * a hugetlbfs (snapshot.c's hugetlb_mark). */
struct snapper {
	struct md_writer *w;
	int kpagecount_fd, kpageflags_fd, kpagecgroup_fd;
	int self_pm_fd; /* /proc/self/pagemap, or -1 (no PFNs) */
	bool has_pfn, has_kpageflags, has_scan;
	/* SCAN_IS_GUARD if PAGEMAP_SCAN knows it (6.15+), else 0: the
	 * category (inverted) that keeps guard regions out of a scan for
	 * pages present or swapped, which they are not */
	uint32_t scan_guard;
	/* how pagemap's swap types read (kpage_swap_layout; both false:
	 * 6.2+, fewer than PM_SWP_NOT_SWAP swap areas on). swp_types_off:
	 * so many swap areas are on that a real swap type may reach
	 * PM_SWP_NOT_SWAP, and every type is swap (bit 58 still read);
	 * swp_6_1: 5.19-6.1, marker type 30, swap-in error 31 */
	bool swp_types_off, swp_6_1;
	bool has_kpagecgroup; /* kpagecgroup readable: charges recorded */
	bool anon_cg;	      /* look the anonymous pages' cgroups up too
				 (snapper_set_anon_charges) */
	uint64_t own_cg;      /* the snapshot process's memory cgroup
				 inode (snapper_set_cgroup; 0: unknown,
				 then every charged page looked up is
				 listed) */
	/* the charge runs of the snapshot being written (snap_charge.c) */
	struct md_charge_run *cgacc;
	size_t ncgacc, cgacc_cap;
	/* its pages whose cgroups are still to be read, in address order
	 * (kpage_charges_add): ncgq of them, each a sort key (its PFN above
	 * its index; while !cgq_wide, its PFN alone in 32 bits, the keys
	 * an array of uint32_t in cgkey's first half), its address and
	 * pages (as cg_ref's va_n), and the sort's scratch, which then holds
	 * each page's cgroup (only where the frames lie too far apart for
	 * snap_charge.c's bitmap) */
	uint64_t *cgkey, *cgva, *cgtmp;
	size_t ncgq, cgkey_cap, cgva_cap, cgtmp_cap;
	/* the lowest and highest PFN of its keys (while ncgq > 0) */
	uint64_t cgq_lo, cgq_hi;
	/* cgkey holds 64-bit keys: a PFN above cgq_narrow_max was queued
	 * (UINT32_MAX, or less under MEMSZ_CGQ_NARROW_MAX) or the queue is
	 * read sorted */
	bool cgq_wide;
	uint64_t cgq_narrow_max;
	/* the keys of the look-ups of the chunks held (snap_hold.c) for
	 * kpagecount and for kpageflags, a region a slot, which then hold what
	 * was read; where they are gathered and sorted (each NULL until
	 * needed) */
	uint64_t *holdkey, *holdflags, *holdtmp;
	/* the held chunks' copies (snap_hold.c), a region a slot: entries
	 * and scan bits (holdpm), offsets of a packed one (holdoff) */
	uint8_t *holdpm;
	uint64_t *holdoff;
	/* the other memory cgroups the last snapshot's pages are charged
	 * to, each once (snapper_payers) */
	uint64_t *payers;
	size_t npayers, payers_cap;
	bool pss_note_written, swp_note_written;
	/* snap_shmswap.c: its NOTE written; cachestat(2) missing; swap
	 * used on the machine (sysinfo(2)), asked once a snapshot: 0 not
	 * asked yet, 1 none (no shmem page can be swapped out), 2 some */
	bool shm_noted, shm_no_cachestat;
	uint8_t shm_swap;
	/* snap_dirty.c: set once /proc/vmstat said anonymous pages may be
	 * clean (its counters only grow: never asked again) */
	bool clean_anon;
	size_t page_size;
	unsigned page_shift;
	uint32_t pmd_pages; /* pages a PMD maps (THP); 0: no THP */
	/* kpageflags' bit 34 was seen set on a PMD huge page pagemap calls
	 * shared: it does not mean PG_anon_exclusive on this kernel, and no
	 * anonymous huge page is taken as exclusive by it from then on
	 * (kpage_pmd_maybe_shared; set and read atomically: jobs of
	 * several threads). Held outside the snapper, which the jobs see
	 * const: one bool of snapper_new's. */
	bool *anon_excl_off;
	unsigned nthreads; /* 0 until a job needs threads (snap_pool.c) */
	/* the image registry: the images mapped in this round of snapshots
	 * or the last, indexed by (dev, ino); a round ends when a process is
	 * snapshot again (its pids so far in round_pids, indexed). An image
	 * no process of a whole round mapped is forgotten: if it comes back
	 * it gets a new IMAGE record, under a new id (next_image_id). */
	struct snap_image *images;
	size_t nimages, images_cap;
	struct hashmap images_index;
	uint32_t next_image_id, images_round;
	int *round_pids;
	size_t nround_pids, round_pids_cap;
	struct hashmap round_index;
	/* /proc/PID/root of root_pid, the last process an image was looked
	 * up for (snap_images.c), or -1 */
	int root_fd, root_pid;
	/* /proc/self/fd, through which snap_images.c opens again the files
	 * it found (an openat of a number in it costs ~1 us less than a walk
	 * of the whole path), opened at the first; -1 before, or if that
	 * failed */
	int self_fd_dir;
	bool self_fd_tried;
	/* the files snap_images_map opened in the snapshot being taken, still
	 * open (keep_image_fds: it is running) */
	struct snap_image_fd image_fds[SNAP_IMAGE_FDS_MAX];
	size_t nimage_fds;
	bool keep_image_fds;
	char **noted; /* unreadable mapping names already noted */
	size_t nnoted, noted_cap;

	struct snap_ctx *ctx[SNAP_THREADS_MAX];
	struct snap_slot slots[WINDOW];
	/* the run and charge arrays of slots written (snap_pool.c
	 * slot_bufs_put), for the next tasks claimed to take (the smallest
	 * that holds the task's pages, slot_bufs_take): those of the tasks
	 * in flight serve every slot, where each slot's own grew to its
	 * chunk's pages (up to 20 MiB over the window, faulted in once and
	 * written once, at every one-shot); at most WINDOW sets, as a set
	 * is made only when none is spare */
	struct slot_bufs {
		struct md_run *runs;
		size_t cap;
		struct cg_ref *cg;
		size_t cgcap;
	} spare[WINDOW];
	size_t nspare;
	/* PFNs memsz's own file mappings hold (observer-free mapcounts): an
	 * open-addressed hash set of self_mask + 1 slots, 0 an empty one. */
	uint64_t *self_set;
	uint64_t self_mask;
	/* or, when the snapshot's tasks look memsz's own pages up where
	 * they need them (observer_task), memsz's mappings of the files the
	 * target maps, sorted by file and offset */
	struct self_map *self_maps;
	size_t nself_maps;
	bool self_lazy;
	/* the files they were loaded for by snapper_prepare (sorted), and
	 * whether that worked; NULL when nothing is prepared */
	struct self_file *prep_files;
	size_t nprep;
	bool prep_ok;
	/* pid's mappings as its caller read them just now
	 * (snapper_give_maps), for the next snapper_take of given_pid */
	struct procmaps given;
	int given_pid;
	/* the own mappings populated so far (once per recording) */
	struct self_range *self_pop;
	size_t nself_pop, self_pop_cap;
	/* snapper_set_release: called once the page tables are read */
	void (*release)(void *arg);
	void *release_arg;
	/* snapper_set_tick: called between chunks while the process runs */
	void (*tick)(void *arg);
	void *tick_arg;
	/* snapper_set_tell: told what the snapshots decide (NULL: none) */
	void (*tell)(void *arg, const char *msg);
	void *tell_arg;
	/* where a split job keeps each task's scan bits and pagemap
	 * entries: kept for the next one (up to STASH_KEEP_BYTES), so that a
	 * snapshot that holds the process does not spend the hold faulting
	 * in fresh memory */
	uint8_t *stash;
	size_t stash_size;
};

/* A file system without a block device a snapshot's mappings map, and
 * whether it is a tmpfs (shmem): asked once a snapshot (snap_shmswap.c). */
struct shmswap_dev {
	uint32_t major, minor;
	bool tmpfs;
};

/* A snapshot's anonymous pages counted dirty by smaps' totals of their
 * mappings (snap_dirty.h). */
struct snap_dirty {
	/* per mapping, when smaps was read (else NULL): its smaps fields,
	 * in pages; Rss UINT64_MAX where smaps had no entry */
	struct smaps_kb *kb;
	/* the mapping being written: on when its totals are used; the
	 * pages of its Private_Dirty and Shared_Dirty its runs have not
	 * yet taken (left_*), those its dirty file pages took past them
	 * (over), and its present pages (rss) */
	bool on, map_cleaned;
	uint64_t left_p, left_s, over, rss;
	/* the snapshot so far: anonymous pages counted clean, in how many
	 * mappings; pages by which DIRTY and SHR DIRTY still differ from
	 * smaps, in how many mappings; mappings whose resident pages
	 * differ from smaps' Rss (the process ran between the reads) */
	uint64_t cleaned, off;
	uint32_t ncleaned, noff, nchanged;
	struct md_run *runs; /* snap_dirty_apply's scratch */
	size_t runs_cap;
};

/* A snapshot's look-ups of shmem pages swapped out (snap_shmswap.h). */
struct snap_shmswap {
	bool off; /* cannot be asked in this snapshot (map_files refused) */
	/* /proc/PID/map_files (or -errno), once mf_tried */
	bool mf_tried;
	int mf;
	struct shmswap_dev *devs;
	size_t ndevs, devs_cap;
	/* the mapping being written: its object open as fd (on; own: not
	 * the image registry's), its [start, end) and file offset; pos, the
	 * end of its runs so far */
	bool on, own;
	int fd;
	uint64_t start, end, pgoff, pos;
	/* a private read-only mapping: its copy-on-write copies are asked
	 * about too (snap_shmswap.h); cow, the copy being split, and cow_pos
	 * the end of its part put out so far */
	bool ro_private;
	const struct md_run *cow;
	uint64_t cow_pos;
	struct md_run *runs; /* shmswap_fill's scratch */
	size_t nruns, runs_cap;
	/* shmswap_fill's output: nout runs at out, added pages added */
	const struct md_run *out;
	size_t nout;
	uint64_t added;
};

/* A task begins its mapping's record, or ends it. */
#define TASK_BEGIN 0x1u
#define TASK_END 0x2u

/* One chunk of at most CHUNK_PAGES pages of one mapping: n contiguous
 * pages from first, or (nreg > 0, a mapping scanned before it was cut)
 * the n pages of the regions j->regions[reg, reg + nreg), which start at
 * page first and are sorted. */
struct snap_task {
	uint32_t vma;
	uint32_t n;	/* pages */
	uint64_t first; /* first page, counted from the VMA start */
	size_t reg;
	uint32_t nreg;
	uint8_t flags; /* TASK_BEGIN, TASK_END */
};

/* One snapshot's work, shared by its threads. The tasks are claimed in
 * order (next) and written in order (flushed) by the caller's thread; a
 * task k may be claimed only while k < flushed + WINDOW, so its slot
 * (k % WINDOW) is free. */
struct snap_job {
	struct snapper *s;
	int pid, pm;
	const struct procmaps *maps;
	struct snap_task *tasks;
	size_t ntasks, tasks_cap;
	/* what PAGEMAP_SCAN found in the mappings scanned before they were
	 * cut (PRESCAN_MIN_PAGES), cut at task boundaries: categories
	 * with SCAN_MARKED, and SCAN_PMD on pages a PMD maps */
	struct snap_page_region *regions;
	size_t nregions, regions_cap;
	uint8_t *sparse; /* per VMA: read the next chunk by scanning */
	/* which mappings smaps counts no page of as shared, read once
	 * the huge pages' checks would cost more (snap_share.h) */
	struct snap_share *share;
	bool pmd; /* mark PMD-mapped pages (pmd_mark) */
	/* the process's resident pages (VmRSS, read with the rest of
	 * /proc/PID/status by snapper_take; else statm, read by
	 * pagemap_prescan when it first needs them): rss_known */
	uint64_t rss_pages;
	bool rss_known;
	/* snap_job_run_split: pagemap_read_task only scans, and the pagemap
	 * entries are read after the release */
	bool split;
	/* snap_hold.c: holding chunks did not pay; none is held any more
	 * (written by the flushing thread, read by all) */
	bool hold_off;
	/* the shmem pages swapped out (the flushing thread's) */
	struct snap_shmswap shm;
	/* anonymous pages dirty by smaps' totals (the flushing thread's) */
	struct snap_dirty dirty;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next, flushed; /* under mu */
	bool stop;	      /* under mu */
};

/* A chunk with at least this many pages to look up asks whether its file,
 * when small (asked whole: the answer then serves every mapping of the
 * file, a library's three or four), or the part of it where its pages
 * are, is clean (kpage_file_clean): a kpageflags pread costs
 * ~0.4 us, the question ~6 system calls... */
#define CLEAN_FILE_MIN_LOOKUPS 8
#define CLEAN_WHOLE_MAX_BYTES (16ll << 20)
/* ...with one page to look up per this many pages of the spans or file
 * asked: cachestat(2) costs the kernel 30-100 ns a page cached in it
 * (libc.so.6 asked whole, 471 pages cached, cost more than the
 * kpageflags of the 84 of them a small process maps shared). */
#define CLEAN_PAGES_PER_LOOKUP 8

/* True if a PMD could map some of m: it holds a whole aligned range of
 * pmd_pages pages (a huge page is mapped by a PMD only inside one VMA, at
 * its own alignment). */
static inline bool snap_pmd_possible(const struct snapper *s,
				     const struct procmap *m)
{
	uint64_t size = (uint64_t)s->pmd_pages << s->page_shift;
	uint64_t a = (m->start + size - 1) & ~(size - 1);

	return size && a >= m->start && a < m->end && m->end - a >= size;
}

/* Call the release callback, if any, once (snapper_set_release). */
static inline void snap_release(struct snapper *s)
{
	void (*fn)(void *) = s->release;

	s->release = NULL;
	if (fn)
		fn(s->release_arg);
}

/* pread n bytes at off into buf, again after EINTR and short reads
 * (snap_keys.c: every snapshot file is read through it). Returns the bytes
 * read (fewer at the end of the file) or -errno. */
ssize_t snap_pread_full(int fd, void *buf, size_t n, uint64_t off);

/* Tell msg to snapper_set_tell's fn, if there is one. */
void snap_tell(const struct snapper *s, const char *msg);
/* A NOTE of kind about subject (NULL or a name) into the recording, told
 * (snap_tell) too. Returns 0 or the write error. */
int snap_note(const struct snapper *s, enum md_note_kind kind,
	      const char *subject, const char *text);
/* snap_note() with the n numbers vals (md_write_note_vals()). */
int snap_note_vals(const struct snapper *s, enum md_note_kind kind,
		   const char *subject, const char *text, const uint64_t *vals,
		   uint32_t n);

#endif
