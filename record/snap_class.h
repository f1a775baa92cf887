/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_class.h — what snap_kpage.c, which reads the page-frame look-ups
 * and classes pages, and snap_classify.c, which classes the pages of a
 * chunk of single pages into runs or a bitmap, share: the page's kind,
 * which pages are looked up and charged, and the values a look-up gives.
 * Internal to record/snap_kpage.c and record/snap_classify.c.
 */
#ifndef MEMSZ_RECORD_SNAP_CLASS_H
#define MEMSZ_RECORD_SNAP_CLASS_H

#include "record/snap_kpage.h"

#include <stdbool.h>
#include <stdint.h>

/* True when the cgroups of anonymous pages are looked up too: asked for
 * (snapper_set_anon_charges, -G) and charges are recorded (kpagecgroup
 * readable) for a known cgroup of the process (snapper_set_cgroup). It
 * costs a kpagecgroup entry per anonymous page (kpage_charges_add). The kernel
 * charges an anonymous page to the cgroup that faulted it in and cgroup v1 does
 * not move the charge when the process moves (memory.move_charge_at_immigrate
 * 0), so anonymous memory touched before the process joined, or shared
 * copy-on-write with a parent in another cgroup, is paid for elsewhere. */
static inline bool anon_charged(const struct snapper *s)
{
	return s->anon_cg && s->has_kpagecgroup && s->own_cg;
}

/* In c->kflags: the page's kpageflags were not read (no KPF_* bit is
 * this high); page_class takes it as an anonymous page, swap-backed. */
#define KF_UNREAD (1ull << 63)

/* What one page is: its run flags and mapcount, and how it counts. */
enum page_kind { PAGE_NONE, PAGE_PRESENT, PAGE_SWAPPED, PAGE_ZERO };

/* True if a page's sharing and dirtiness need kpagecount/kpageflags:
 * present with a PFN (one a look-up key holds: pfn - 1 < LOOK_PFN_MAX
 * is 0 < pfn <= LOOK_PFN_MAX), unless exclusive anonymous (mapcount 1,
 * dirty). Branch-free: the pre-pass runs it on every page. */
static inline bool needs_lookup(uint64_t e)
{
	uint64_t pfn = e & PM_PFN_MASK;

	return (bool)(((e & PM_PRESENT) != 0) & (pfn - 1 < LOOK_PFN_MAX) &
		      ((e & (PM_EXCLUSIVE | PM_FILE)) != PM_EXCLUSIVE));
}

/* The bits of a pagemap entry that page_class reads when it does not look
 * the page up (the PFN only as "non-zero"). */
#define PM_KEY_MASK                                                            \
	(PM_PRESENT | PM_SWAPPED | PM_FILE | PM_EXCLUSIVE | PM_SOFTDIRTY)
/* In such a key: the PFN is non-zero (above the 8 bits of c->extra, below
 * PM_KEY_MASK's). */
#define KEY_HAS_PFN 0x100u

/* Whether the memory cgroup of present page e is looked up: with a PFN a
 * look-up key holds (needs_lookup), a file page, which another cgroup
 * may have paid for, or with anon_charged() any page. */
static inline bool charge_wanted(const struct snapper *s, uint64_t e)
{
	uint64_t pfn = e & PM_PFN_MASK;

	return s->has_pfn && s->has_kpagecgroup && pfn - 1 < LOOK_PFN_MAX &&
	       ((e & PM_FILE) || anon_charged(s));
}

/* The kpageflags (*kf) and kpagecount (*kc) of page i of c, entry e,
 * looked up: those read into count and flags (NULL: none) where the page
 * wants them read, else what the file would say (a mapcount of 1) or
 * KF_UNREAD. */
static inline void looked_values(const struct snapper *s,
				 const struct snap_ctx *c, size_t i, uint64_t e,
				 const uint64_t *count, const uint64_t *flags,
				 uint64_t *kf, uint64_t *kc)
{
	uint8_t w;

	w = kpage_wants(s, c, e);
	*kc = (w & KF_COUNT) ? count[i] : 1;
	*kf = (w & KF_FLAGS) && flags ? flags[i] : KF_UNREAD;
}

/* Read kcount/kflags for the n pages of c->look (maxkey the largest key)
 * where the pages want them (snap_kpage.c). Returns the files read (enum
 * kpage_file) or -errno. */
int kpage_fill(const struct snapper *s, struct snap_ctx *c, size_t n,
	       uint64_t maxkey);

/* Classify one page from its pagemap entry e, its PAGEMAP_SCAN bits x and,
 * if looked (needs_lookup), its kpageflags kf and kpagecount kc: its run
 * flags into *flp and mapcount into *mcp (snap_kpage.c). */
enum page_kind page_class(const struct snapper *s, uint64_t e, uint8_t x,
			  bool looked, uint64_t kf, uint64_t kc, uint32_t *flp,
			  uint32_t *mcp);

#endif
