// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_kpage.c — page-frame look-ups and page classes (see
 * snap_kpage.h). Page classification follows fs/proc/task_mmu.c
 * (smaps_account) so that sums over runs equal the smaps fields:
 *   Rss           pages mapped to a normal page (not the zero page)
 *   private       mapcount < 2, which is exactly pagemap's exclusive bit
 *   dirty         pte dirty or PG_dirty. pagemap does not show the pte bit:
 *                 anonymous swap-backed pages are taken as dirty (the kernel
 *                 maps them dirty on the write fault that creates them and a
 *                 fork keeps the bit), so an anonymous page is not looked
 *                 up in kpageflags; a file page uses KPF_DIRTY, unless its
 *                 file has no dirty page cached where it lies
 *                 (kpage_file_clean, snap_clean.c).
 *   Pss           sum of (page_size << 12) / mapcount, >> 12 when printed.
 * Without PFNs (no CAP_SYS_ADMIN) sharing is still exact (exclusive bit),
 * dirtiness is approximated (anonymous = dirty, file = clean) and PSS is
 * unavailable.
 */
#include "config.h"

#include "record/snap_class.h"
#include "record/snap_share.h"

#include "record/snap_observer.h"
#include "record/snap_pagemap.h"
#include "util/util.h"

#include <errno.h>
#include <linux/kernel-page-flags.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* kpage_keys_read of the n sorted keys of a chunk's look-ups (LOOK_KEY) into
 * dst[page]. */
static int kpage_read(struct snap_ctx *c, const uint64_t *look, size_t n,
		      int fd, uint64_t *dst)
{
	size_t preads = 0;

	return kpage_keys_read(c->kbuf, c->nkbuf, look, n, LOOK_IDX_BITS, fd,
			       dst, &preads);
}

/* kpageflags' bit 34: KPF_OWNER_2 (KPF_MAPPEDTODISK before 6.11), the
 * page's PG_owner_2 (PG_mappedtodisk), which on an anonymous page is
 * PG_anon_exclusive (the kernel's page-flags.h aliases them): set on the
 * first page of a huge page a PMD maps while that mapping is its only
 * one; a fork clears it, and it stays clear until the process writes the
 * huge page again after the other sharers are gone. */
#define KPF_ANON_EXCLUSIVE 34

/* pagemap gives every page of a huge page a PMD maps the exclusive bit of
 * its first page (pagemap_pmd_range_thp: that page's mapcount), but smaps
 * counts each page by its own (smaps_account): after a fork, once the
 * other process has copied the first page away (or unmapped it) and
 * still maps others by PTEs, those are shared, the first private, and
 * pagemap says all private. Which pages are shared only the huge page's
 * kpagecount entries tell, a pread of 4 KiB that costs the kernel
 * hundreds of times a pagemap entry; an anonymous huge page that was
 * never shared (PG_anon_exclusive on its first page, one kpageflags
 * entry) needs none. A file huge page (shmem, a file system's large
 * folio) has no such bit and is taken as pagemap says.
 *
 * The bit is a kernel-internal one ("subject to change"): where a huge
 * page pagemap calls shared has it set, it cannot mean exclusive, and
 * every anonymous huge page is read from kpagecount for the rest of the
 * run (*s->anon_excl_off). Such a shared one costs one more 8-byte read
 * beside its 512 kpagecount entries. */
bool kpage_pmd_maybe_shared(const struct snapper *s, uint64_t e,
			    struct snap_share *sh, uint32_t vma)
{
	uint64_t pfn = e & PM_PFN_MASK, f;
	bool excl = e & PM_EXCLUSIVE;

	if ((e & (PM_PRESENT | PM_FILE)) != PM_PRESENT || !s->has_pfn || !pfn ||
	    s->kpageflags_fd < 0 || !s->pmd_pages)
		return false;
	if (__atomic_load_n(s->anon_excl_off, __ATOMIC_RELAXED))
		return excl;
	/* every page of its mapping mapped once (smaps): so is this one's */
	if (excl && snap_share_unshared(sh, vma))
		return false;
	pfn -= pfn % s->pmd_pages;
	if (snap_pread_full(s->kpageflags_fd, &f, 8, pfn * 8) != 8)
		return false;
	if (!excl) {
		if (f & (1ull << KPF_ANON_EXCLUSIVE))
			__atomic_store_n(s->anon_excl_off, true,
					 __ATOMIC_RELAXED);
		return false;
	}
	return !(f & (1ull << KPF_ANON_EXCLUSIVE));
}

bool kpage_pmd_unshare(const struct snapper *s, struct snap_ctx *c, size_t n,
		       struct snap_share *sh, uint32_t vma)
{
	bool any = false;
	size_t i = 0, g;

	while (i < n) {
		uint64_t e = c->pm[i], pfn = e & PM_PFN_MASK;

		if (!(c->extra[i] & SCAN_PMD) || !pfn || !s->pmd_pages) {
			i++;
			continue;
		}
		/* the pages of the same huge page that follow: one look at
		 * its first page's flags for all */
		for (g = i + 1; g < n && (c->extra[g] & SCAN_PMD) &&
				(c->pm[g] & PM_PFN_MASK) == pfn + (g - i) &&
				(pfn + (g - i)) % s->pmd_pages;
		     g++)
			;
		if (kpage_pmd_maybe_shared(s, e, sh, vma)) {
			for (size_t k = i; k < g; k++)
				c->pm[k] &= ~PM_EXCLUSIVE;
			any = true;
		}
		i = g;
	}
	return any;
}

bool kpage_anon_charged(const struct snapper *s)
{
	return anon_charged(s);
}

/* Read kcount/kflags for the n pages of c->look (maxkey the largest
 * key), whose keys are in page order: each file for the pages that want
 * it (kpage_wants), at their index; the others' entries are left as they
 * are (kpage_classify_filled gives them what the file would say, or
 * KF_UNREAD, by what they want). What the pages want is found in one pass
 * in page order (the entries read in order); only when some page wants a
 * file is that file read, for the keys that want it listed in c->look2,
 * sorted by PFN alone (unless they already rise, as the pages of a file
 * read in order often do), or c->look sorted when all do (as pages
 * shared after a fork do): exclusive file pages of a clean file want
 * neither, and cost no sort. Returns the files read (enum kpage_file) or
 * -errno. */
int kpage_fill(const struct snapper *s, struct snap_ctx *c, size_t n,
	       uint64_t maxkey)
{
	const struct {
		uint8_t file;
		int fd;
		uint64_t *dst;
	} files[] = {
	    {KF_COUNT, s->kpagecount_fd, c->kcount},
	    {KF_FLAGS, s->kpageflags_fd, c->kflags},
	};
	size_t want[ARRAY_SIZE(files)] = {0};
	uint8_t need = 0;
	size_t i, m;
	int ret;

	for (i = 0; i < n; i++) {
		uint8_t w = kpage_wants(s, c, c->pm[LOOK_IDX(c->look[i])]);

		need |= w;
		want[0] += w & KF_COUNT;
		want[1] += (w & KF_FLAGS) != 0;
	}
	if (!need)
		return 0;
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		const uint64_t *keys = c->look;

		if (!(need & files[f].file))
			continue;
		if (want[f] == n)
			kpage_keys_sort_rising(c->look, c->look2, n, maxkey,
					       LOOK_IDX_BITS);
		for (i = m = 0; want[f] < n && i < n; i++) {
			uint32_t idx = LOOK_IDX(c->look[i]);

			if (kpage_wants(s, c, c->pm[idx]) & files[f].file)
				c->look2[m++] = c->look[i];
		}
		/* those that want it sorted alone, through the array the
		 * other file is read into after (kflags), or c->look, not
		 * looked at after the last file's keys were listed */
		if (want[f] < n)
			kpage_keys_sort_rising(c->look2,
					       f ? c->look : c->kflags, m,
					       maxkey, LOOK_IDX_BITS);
		if (want[f] < n)
			keys = c->look2;
		ret = kpage_read(c, keys, want[f], files[f].fd, files[f].dst);
		if (ret < 0)
			return ret;
	}
	return need;
}

/* The /proc/kpageflags bits a run keeps, and the run flag each becomes. */
static const struct {
	uint8_t kpf;
	uint32_t md;
} kpf_kept[] = {
    {KPF_DIRTY, MD_PG_DIRTY},
    {KPF_ANON, MD_PG_ANON},
    {KPF_SWAPBACKED, MD_PG_SWAPBACKED},
    {KPF_KSM, MD_PG_KSM},
    {KPF_THP, MD_PG_THP},
    {KPF_HUGE, MD_PG_HUGE},
    {KPF_IDLE, MD_PG_IDLE},
};

/* Whether a present page counts as dirty, from its pagemap entry e and,
 * when they were read (flags), its kpageflags bits in *fl; an anonymous
 * page without them gets the flags it is taken to have. */
static bool page_dirty(const struct snapper *s, uint64_t e, bool flags,
		       uint32_t *fl)
{
	if (!(e & PM_FILE) && !flags) {
		/* anonymous, flags not looked up: swap-backed, dirty */
		if (s->has_kpageflags)
			*fl |= MD_PG_ANON | MD_PG_SWAPBACKED;
		return true;
	}
	if (s->has_kpageflags)
		return (*fl & MD_PG_DIRTY) ||
		       ((*fl & MD_PG_ANON) && (*fl & MD_PG_SWAPBACKED));
	return !(e & PM_FILE);
}

/* The run flags of a page whose pagemap entry e says it is swapped out. */
static inline uint32_t swapped_flags(uint64_t e)
{
	uint32_t fl = MD_PG_SWAPPED;

	if (e & PM_FILE)
		fl |= MD_PG_FILE;
	if (e & PM_SOFTDIRTY)
		fl |= MD_PG_SOFTDIRTY;
	return fl;
}

/* Classify one page from its pagemap entry e, its PAGEMAP_SCAN bits x and,
 * if looked (see needs_lookup), its kpageflags kf and kpagecount kc. */
enum page_kind page_class(const struct snapper *s, uint64_t e, uint8_t x,
			  bool looked, uint64_t kf, uint64_t kc, uint32_t *flp,
			  uint32_t *mcp)
{
	uint32_t fl = 0, mapcount = 0;
	bool looked_flags = looked, self;

	*mcp = 0;
	if (e & PM_SWAPPED) {
		*flp = swapped_flags(e);
		return PAGE_SWAPPED;
	}
	if (!(e & PM_PRESENT))
		return PAGE_NONE;
	if (e & PM_FILE)
		fl |= MD_PG_FILE;
	if (e & PM_EXCLUSIVE)
		fl |= MD_PG_EXCLUSIVE;
	if (e & PM_SOFTDIRTY)
		fl |= MD_PG_SOFTDIRTY;
	if (x & SCAN_IS_HUGE)
		fl |= MD_PG_THP;
	if (x & SCAN_PMD)
		fl |= MD_PG_PMD;
	if (looked && (kf & KF_UNREAD)) {
		/* an anonymous page whose flags were not read */
		kf = 0;
		looked_flags = false;
	}
	if (looked) {
		mapcount = (uint32_t)MIN(kc, UINT32_MAX);
		for (size_t i = 0; i < ARRAY_SIZE(kpf_kept); i++)
			if (s->has_kpageflags &&
			    (kf & (1ull << kpf_kept[i].kpf)))
				fl |= kpf_kept[i].md;
		/* not a normal page (the zero page, a pfn mapping): smaps
		 * does not count it */
		if ((kf & ((1ull << KPF_ZERO_PAGE) | (1ull << KPF_NOPAGE))) ||
		    mapcount == 0) {
			*flp = (fl & ~(uint32_t)(MD_PG_THP | MD_PG_PMD)) |
			       MD_PG_ZERO;
			return PAGE_ZERO;
		}
		/* a hugetlb page is not THP */
		if (s->has_kpageflags && (kf & (1ull << KPF_HUGE)))
			fl &= ~(uint32_t)MD_PG_PMD;
	} else if (x & SCAN_IS_PFNZERO) {
		*flp = (fl & ~(uint32_t)MD_PG_PMD) | MD_PG_ZERO;
		return PAGE_ZERO;
	}
	fl |= MD_PG_PRESENT;
	if (e & PM_EXCLUSIVE)
		mapcount = 1;
	/* memsz's own mapping of the page is not a sharer: without memsz
	 * the page would be mapped once less (and private if that leaves
	 * one) */
	self = looked && mapcount > 1 &&
	       ((x & SCAN_SELF) || observer_maps(s, e & PM_PFN_MASK));
	if (self)
		mapcount--;
	/* A page mapped once is private, as smaps_account counts it (its
	 * page's mapcount < 2), whatever pagemap says: pagemap gives every
	 * page of a PMD-mapped THP its head page's exclusive bit, so a page
	 * of it that a forked child has copied away lacks it. Not a hugetlb
	 * page: processes sharing its page table (a 1 GiB aligned shared
	 * mapping after a fork) map it with a mapcount of 1, and pagemap's
	 * cleared bit is smaps' Shared_Hugetlb (hugetlb_pmd_shared()). */
	if (looked && mapcount == 1 && (self || !(fl & MD_PG_HUGE))) {
		fl |= MD_PG_EXCLUSIVE;
		e |= PM_EXCLUSIVE;
	}
	if (page_dirty(s, e, looked_flags, &fl))
		fl |= (e & PM_EXCLUSIVE) ? MD_PG_PRIVATE_DIRTY
					 : MD_PG_SHARED_DIRTY;
	*flp = fl;
	*mcp = mapcount;
	return PAGE_PRESENT;
}

/* Whether entry e is present or swapped (bit 63 or 62). */
#define PM_HELD(e) (((e) >> 62) != 0)
_Static_assert(PM_PRESENT == 1ull << 63 && PM_SWAPPED == 1ull << 62,
	       "PM_HELD tests the top two bits");

void kpage_swap_layout(struct snapper *s, unsigned major, unsigned minor,
		       unsigned long nareas)
{
	unsigned v = major * 1000 + minor;

	s->swp_types_off = nareas >= PM_SWP_NOT_SWAP;
	s->swp_6_1 = v >= 5019 && v < 6002;
}

uint64_t kpage_swap_entry(const struct snapper *s, uint64_t e)
{
	unsigned type = PM_SWP_TYPE(e);

	if (e & PM_GUARD_REGION)
		return 0;
	if (!s->has_pfn || s->swp_types_off || type < PM_SWP_NOT_SWAP)
		return e;
	/* 5.19-6.1's swap-in error entry: smaps counts nothing */
	if (s->swp_6_1 && type == PM_SWP_SWAPIN_ERROR_6_1)
		return 0;
	if (type == (s->swp_6_1 ? PM_SWP_MARKER_6_1 : PM_SWP_MARKER) &&
	    PM_SWP_OFFSET(e) < PM_SWP_MARKER_END)
		return 0;
	/* smaps counts the page a PFN entry names as resident, with its
	 * whole PSS (no mapcount is read of a page being migrated), as
	 * pagemap's exclusive bit does here */
	return PM_PRESENT | PM_EXCLUSIVE | (e & (PM_FILE | PM_SOFTDIRTY));
}

/* kpage_swap_entry on the n entries of c that are swapped. Returns true
 * if one changed. */
static bool swap_entries_fix(const struct snapper *s, struct snap_ctx *c,
			     size_t n)
{
	bool changed = false;

	for (size_t i = 0; i < n; i++)
		if (c->pm[i] & PM_SWAPPED) {
			uint64_t e = kpage_swap_entry(s, c->pm[i]);

			changed |= e != c->pm[i];
			c->pm[i] = e;
		}
	return changed;
}

/* kpage_prepass's pass, which ORs every entry into *any. */
static size_t prepass(const struct snapper *s, struct snap_ctx *c, size_t n,
		      size_t *nlook, uint64_t *maxkey, uint64_t *any)
{
	const uint64_t *pm = c->pm;
	uint64_t *look = c->look, mx = 0, all = 0;
	/* a weighted chunk's w holds its entries' weights */
	uint32_t *list = c->weighted ? NULL : c->w;
	size_t i, amb = 0, nl = 0;

	/* branch-free loops, one per case: the entries are written always
	 * and kept when wanted; the largest key is found after, over the
	 * few kept (keys rise with the PFN) */
	if (!s->has_pfn && list) {
		for (i = 0; i < n; i++) {
			list[amb] = (uint32_t)i;
			amb += PM_HELD(pm[i]);
			all |= pm[i];
		}
	} else if (!s->has_pfn) {
		for (i = 0; i < n; i++) {
			amb += PM_HELD(pm[i]);
			all |= pm[i];
		}
	} else if (list) {
		/* the entries held first, then those of them to look up: a
		 * sparse chunk's absent entries cost only the first loop */
		for (i = 0; i < n; i++) {
			list[amb] = (uint32_t)i;
			amb += PM_HELD(pm[i]);
			all |= pm[i];
		}
		/* often none is to look up (exclusive anonymous memory):
		 * the first that is found before any key is made */
		for (i = 0; i < amb && !needs_lookup(pm[list[i]]); i++)
			;
		for (size_t k = i; k < amb; k++) {
			uint64_t e = pm[list[k]];

			look[nl] = LOOK_KEY(e & PM_PFN_MASK, (uint64_t)list[k]);
			nl += needs_lookup(e);
		}
	} else {
		for (i = 0; i < n; i++) {
			uint64_t e = pm[i];

			amb += PM_HELD(e);
			all |= e;
			look[nl] = LOOK_KEY(e & PM_PFN_MASK, (uint64_t)i);
			nl += needs_lookup(e);
		}
	}
	for (i = 0; i < nl; i++)
		mx = MAX(mx, look[i]);
	c->npresent = amb;
	*nlook = nl;
	*maxkey = mx;
	*any = all;
	return amb;
}

size_t kpage_prepass(const struct snapper *s, struct snap_ctx *c, size_t n,
		     size_t *nlook, uint64_t *maxkey)
{
	uint64_t any;
	size_t amb = prepass(s, c, n, nlook, maxkey, &any);

	/* a swapped entry may be no swap (kpage_swap_entry): those are
	 * rare, and the pass runs again when one was */
	if ((any & PM_SWAPPED) && swap_entries_fix(s, c, n))
		amb = prepass(s, c, n, nlook, maxkey, &any);
	/* bit 60 is memsz's PM_CLEAN, set only later (kpage_file_clean):
	 * were a kernel to set it, a dirty file page would go unread */
	if (any & PM_CLEAN)
		for (size_t i = 0; i < n; i++)
			c->pm[i] &= ~PM_CLEAN;
	return amb;
}

/* Queue the npages pages at va of the slot, of one folio at frame pfn,
 * for the look-up of their memory cgroup (kpage_charges_add). */
static void charge_queue(struct snap_slot *sl, uint64_t pfn, uint64_t va,
			 uint32_t npages)
{
	if (sl->ncg == sl->cgcap)
		xgrow(&sl->cg, &sl->cgcap, sl->ncg + 1, sizeof(*sl->cg));
	sl->cg[sl->ncg++] = (struct cg_ref){pfn, va | (npages - 1)};
}

/* The class of the last page looked at, by the key of its pagemap entry
 * (and, for pages looked up, its kpageflags and kpagecount): pages of a
 * mapping mostly repeat the previous one's. */
struct class_memo {
	uint64_t key, kf, kc;
	uint32_t fl, mc;
	enum page_kind kind;
};

/* The class of entry i of c (flags and mapcount into *fl, *mc), its
 * look-ups' values where count and flags say (looked_values), from the
 * memo of its kind of page when the page's key is the same. */
static enum page_kind
class_of(const struct snapper *s, const struct snap_ctx *c, size_t i,
	 const uint64_t *count, const uint64_t *flags, struct class_memo *look,
	 struct class_memo *plain, uint32_t *fl, uint32_t *mc)
{
	uint64_t e = c->pm[i], key;
	struct class_memo *m;

	if (s->has_pfn && needs_lookup(e)) {
		uint64_t kf, kc;

		looked_values(s, c, i, e, count, flags, &kf, &kc);
		/* the page's class depends on its entry's bits and kpage
		 * values only, but for a page mapped more than once while
		 * memsz's own frames are known by PFN (observer_maps) */
		key = (e & PM_KEY_MASK) | c->extra[i];
		m = look;
		if (key != m->key || kf != m->kf || kc != m->kc) {
			m->kind = page_class(s, e, c->extra[i], true, kf, kc,
					     &m->fl, &m->mc);
			m->key = kc > 1 && s->self_set ? UINT64_MAX : key;
			m->kf = kf;
			m->kc = kc;
		}
	} else {
		key = (e & PM_KEY_MASK) | c->extra[i] |
		      ((e & PM_PFN_MASK) ? KEY_HAS_PFN : 0);
		m = plain;
		if (key != m->key) {
			m->kind = page_class(s, e, c->extra[i], false, 0, 0,
					     &m->fl, &m->mc);
			m->key = key;
		}
	}
	*fl = m->fl;
	*mc = m->mc;
	return m->kind;
}

void kpage_classify_filled(const struct snapper *s, struct snap_ctx *c,
			   struct snap_slot *sl, uint64_t va, size_t n,
			   const uint64_t *count, const uint64_t *flags)
{
	struct class_memo look = {.key = UINT64_MAX};
	struct class_memo plain = {.key = UINT64_MAX};
	struct md_run *cur = NULL;
	uint64_t cnt[4] = {0}, o, next = 0;
	/* a chunk of single pages: only those kpage_prepass listed, but for
	 * a held one, which has no list (its absent entries are passed over
	 * below) */
	const uint32_t *list = c->weighted ? NULL : c->w;

	for (size_t k = 0, nk = list ? c->npresent : n; k < nk; k++) {
		size_t i = list ? list[k] : k;
		uint64_t e = c->pm[i];
		enum page_kind kind;
		uint32_t fl, mc, w = c->weighted ? c->w[i] : 1;

		/* a packed chunk's pages are not contiguous: a run does not
		 * go on over a gap */
		o = c->packed ? c->off[i] : i;
		if (o != next)
			cur = NULL;
		next = o + w;
		if (!(e & (PM_PRESENT | PM_SWAPPED))) {
			cur = NULL;
			continue;
		}
		kind = class_of(s, c, i, count, flags, &look, &plain, &fl, &mc);
		if (kind == PAGE_PRESENT && charge_wanted(s, e))
			charge_queue(sl, e & PM_PFN_MASK,
				     va + (o << s->page_shift), w);
		cnt[kind] += w;
		/* cur, when set, ends at this page */
		if (cur && cur->flags == fl && cur->mapcount == mc &&
		    (uint64_t)cur->npages + w <= UINT32_MAX) {
			cur->npages += w;
			continue;
		}
		if (sl->nruns == sl->cap)
			xgrow(&sl->runs, &sl->cap, sl->nruns + 1,
			      sizeof(*sl->runs));
		cur = &sl->runs[sl->nruns++];
		cur->vaddr = va + (o << s->page_shift);
		cur->npages = w;
		cur->flags = fl;
		cur->mapcount = mc;
		cur->reserved = 0;
	}
	sl->present += cnt[PAGE_PRESENT];
	sl->swapped += cnt[PAGE_SWAPPED];
}
