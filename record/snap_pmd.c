// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_pmd.c — reading the pages a PMD maps (THP) of a packed task: one
 * step per huge page, from pagemap (a pread per two huge pages, and a
 * kpageflags check of an anonymous one: kpage_pmd_maybe_shared) or, in a
 * mapping smaps counts no page shared (snap_share.h), from PAGEMAP_SCAN
 * alone; and the one-entry-a-page reading of the other regions. */
#include "config.h"

#include "record/snap_pmd.h"

#include "record/snap_kpage.h"
#include "record/snap_observer.h"
#include "record/snap_share.h"
#include "util/util.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/* Append to c's entries (from entry *i) the n pages at va, o pages
 * after the task's first page, with their scan bits x, one entry each,
 * read by one pread. Returns 0, -ESRCH if the process's pages are gone,
 * or -errno. */
int snap_entries_read(const struct snap_job *j, struct snap_ctx *c, size_t *i,
		      uint64_t va, uint64_t o, uint64_t n, uint8_t x)
{
	ssize_t r = snap_pread_full(j->pm, c->pm + *i, n * 8,
				    (va >> j->s->page_shift) * 8);

	if (r < 0)
		return (int)r;
	if ((uint64_t)r < n * 8)
		return -ESRCH;
	memset(c->extra + *i, x, n);
	for (uint64_t k = 0; k < n; k++) {
		c->off[*i + k] = o + k;
		c->w[*i + k] = 1;
	}
	*i += n;
	return 0;
}

/* Append to c's entries (from entry *i) the n pages at va of one huge
 * page a PMD maps but not exclusively, o pages after the task's first
 * page, with scan bits x; e is the pagemap entry of its page at va. smaps
 * (smaps_account) counts such a huge page page by page, each by its own
 * mapcount (folio_precise_page_mapcount, what kpagecount shows), and
 * pagemap's entries of its pages differ in their PFN only (their
 * exclusive bit follows the first page's): so its pages' mapcounts are
 * read in one pread of kpagecount, and each stretch of pages with one
 * mapcount (and the observer in all or none of them) is one entry,
 * exclusive when that mapcount is 1. Without PFNs the pages are read one
 * entry each. Returns 0, -ESRCH if the process's pages are gone, or
 * -errno. */
static int pmd_read_shared(const struct snap_job *j, struct snap_ctx *c,
			   size_t *i, uint64_t va, uint64_t n, uint64_t o,
			   uint8_t x, uint64_t e)
{
	const struct snapper *s = j->s;
	uint64_t pfn = e & PM_PFN_MASK, k, g;
	ssize_t r;

	if (!s->has_pfn || !pfn || !(e & PM_PRESENT))
		return snap_entries_read(j, c, i, va, o, n, x);
	r = snap_pread_full(s->kpagecount_fd, c->kbuf, n * 8, pfn * 8);
	if (r < 0)
		return (int)r;
	if ((uint64_t)r < n * 8)
		return snap_entries_read(j, c, i, va, o, n, x);
	for (k = 0; k < n; k = g) {
		bool self = observer_maps(s, pfn + k);

		for (g = k + 1; g < n && c->kbuf[g] == c->kbuf[k] &&
				observer_maps(s, pfn + g) == self;
		     g++)
			;
		c->pm[*i] = (e & ~(PM_PFN_MASK | PM_EXCLUSIVE)) | (pfn + k) |
			    (c->kbuf[k] == 1 ? PM_EXCLUSIVE : 0);
		c->extra[*i] = x;
		c->off[*i] = o + k;
		c->w[*i] = (uint32_t)(g - k);
		(*i)++;
	}
	return 0;
}

/* The pagemap entry of the page at a, in a huge page a PMD maps, of
 * which the region [a, b) holds n pages from a: when the next huge page
 * starts in the region too, read with its first entry (*next, *have) in
 * one pread of this one's last page and that one's first, and given this
 * one's first PFN (a PMD maps one naturally aligned folio: its pages'
 * frames follow each other, and their entries differ in nothing else).
 * Returns 0 or -errno. */
static int pmd_entry(const struct snap_job *j, uint64_t a, uint64_t b,
		     uint64_t n, uint64_t *e, uint64_t *next, bool *have)
{
	unsigned shift = j->s->page_shift;
	uint64_t h = a + (n << shift), two[2], pfn;
	ssize_t r;

	if (*have) {
		*have = false;
		*e = *next;
		return 0;
	}
	if (h >= b) {
		r = snap_pread_full(j->pm, e, 8, (a >> shift) * 8);
		return r < 0 ? (int)r : r < 8 ? -ESRCH : 0;
	}
	r = snap_pread_full(j->pm, two, 16, ((h >> shift) - 1) * 8);
	if (r < 0)
		return (int)r;
	if (r < 16)
		return -ESRCH;
	pfn = two[0] & PM_PFN_MASK;
	*e = pfn >= n - 1 && pfn ? (two[0] & ~PM_PFN_MASK) | (pfn - (n - 1))
				 : two[0];
	*next = two[1];
	*have = true;
	return 0;
}

/* Read the pages of a PMD-mapped region of a packed task, o pages after
 * its first page, [a, b): one step per huge page (per part of one, where
 * the region is cut), one pread of pagemap per two huge pages
 * (pmd_entry). A PMD maps one folio, and the pagemap entries of its
 * pages differ in their PFN only: a huge page whose entry is exclusive
 * (its first page mapped once: by this PMD alone) is one entry of the
 * pages it has here (their class is the first's: mapcount 1, the folio's
 * flags); any other, or an anonymous one that was shared after a fork
 * (kpage_pmd_maybe_shared: the other process may still map pages of it
 * but its first, which pagemap's bit does not show), is read by
 * pmd_read_shared. Returns 0 or -errno. */
static int pmd_read_pm(const struct snap_job *j, struct snap_ctx *c, size_t *i,
		       uint32_t vma, uint64_t a, uint64_t b, uint64_t o,
		       uint8_t x)
{
	const struct snapper *s = j->s;
	uint64_t psz = (uint64_t)s->pmd_pages << s->page_shift, next = 0;
	bool have = false;

	while (a < b) {
		uint64_t h = MIN((a / psz + 1) * psz, b);
		uint64_t n = (h - a) >> s->page_shift, e;
		int ret = pmd_entry(j, a, b, n, &e, &next, &have);
		bool maybe;

		if (ret < 0)
			return ret;
		/* called for a shared one too: its check of the bit */
		maybe = kpage_pmd_maybe_shared(s, e, j->share, vma);
		if ((e & (PM_PRESENT | PM_EXCLUSIVE)) ==
			(PM_PRESENT | PM_EXCLUSIVE) &&
		    !maybe) {
			c->pm[*i] = e;
			c->extra[*i] = x;
			c->off[*i] = o;
			c->w[*i] = (uint32_t)n;
			(*i)++;
		} else {
			ret = pmd_read_shared(j, c, i, a, n, o, x, e);
			if (ret < 0)
				return ret;
		}
		o += n;
		a = h;
	}
	return 0;
}

/* Append to c's entries (from *i) the huge pages a PMD maps in [a, b),
 * o pages after the task's first page, scan bits x, as one entry each
 * (a part of one where the region is cut), of pagemap entry e (no PFN). */
static void pmd_put(const struct snap_job *j, struct snap_ctx *c, size_t *i,
		    uint64_t a, uint64_t b, uint64_t o, uint8_t x, uint64_t e)
{
	const struct snapper *s = j->s;
	uint64_t psz = (uint64_t)s->pmd_pages << s->page_shift;

	while (a < b) {
		uint64_t h = MIN((a / psz + 1) * psz, b);
		uint64_t n = (h - a) >> s->page_shift;

		c->pm[*i] = e;
		c->extra[*i] = x;
		c->off[*i] = o;
		c->w[*i] = (uint32_t)n;
		(*i)++;
		o += n;
		a = h;
	}
}

/* The pages of a PMD-mapped region [a, b) of mapping vma of a packed task,
 * o pages after its first page, scan bits x. In a private anonymous
 * mapping smaps counts no page of as shared and whose AnonHugePages are
 * what the first scan found PMD-mapped (snap_share_known: every page
 * mapped once, no huge zero page, SHARE_THP_ALL), an anonymous huge
 * page's pagemap entry says present, exclusive (its first
 * page's mapcount is 1), anonymous, soft-dirty as the PMD or the mapping
 * is, and its PFN, which nothing looks up for such a page (no kpagecount:
 * exclusive; no kpageflags: anonymous, dirty; no kpagecgroup but with
 * kpage_anon_charged): so one PAGEMAP_SCAN of the region, asked for
 * those bits, gives what its pagemap entries would, with no pread per
 * two huge pages nor a kpageflags read per huge page (~0.5 us of CPU a
 * huge page, 5x what smaps takes). What the scan does not find anonymous,
 * present and PMD-mapped (a file huge page, one gone or split since the
 * first scan), and all of it where the scan fails, is read from pagemap
 * (pmd_read_pm). Returns 0 or -errno. */
int snap_pmd_read(const struct snap_job *j, struct snap_ctx *c, size_t *i,
		  uint32_t vma, uint64_t a, uint64_t b, uint64_t o, uint8_t x)
{
	const unsigned shift = j->s->page_shift;
	const uint64_t want = SCAN_IS_PRESENT | SCAN_IS_HUGE;
	struct snap_page_region v[64];
	bool sd;
	int ret = 0;

	if (!snap_share_known(j->share, vma, &sd) || kpage_anon_charged(j->s))
		return pmd_read_pm(j, c, i, vma, a, b, o, x);
	while (a < b && !ret) {
		struct snap_scan_arg q = {
		    .size = sizeof(q),
		    .start = a,
		    .end = b,
		    .vec = (uintptr_t)v,
		    .vec_len = ARRAY_SIZE(v),
		    .category_anyof_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED,
		    /* no SCAN_IS_FILE: snap_share_known holds only for a
		     * private anonymous mapping, which holds no file page,
		     * so the kernel need not look each huge page up to tell
		     * (vm_normal_page_pmd) */
		    .return_mask = want | SCAN_IS_PFNZERO | SCAN_IS_SOFTDIRTY,
		};
		long r = ioctl(j->pm, SNAP_PAGEMAP_SCAN, &q);
		uint64_t end =
		    r < 0 || q.walk_end <= a ? b : MIN(q.walk_end, b);

		for (long k = 0; k < r && !ret; k++) {
			uint64_t ra = MAX(v[k].start, a),
				 rb = MIN(v[k].end, end);
			uint64_t e = PM_PRESENT | PM_EXCLUSIVE;

			if (ra >= rb)
				continue;
			/* what lies before it: no longer a huge page */
			if (ra > a)
				ret = pmd_read_pm(j, c, i, vma, a, ra, o, x);
			o += (ra - a) >> shift;
			a = ra;
			if (ret)
				break;
			if ((v[k].categories & (want | SCAN_IS_PFNZERO)) !=
			    want) {
				ret = pmd_read_pm(j, c, i, vma, ra, rb, o, x);
			} else {
				if (sd || (v[k].categories & SCAN_IS_SOFTDIRTY))
					e |= PM_SOFTDIRTY;
				pmd_put(j, c, i, ra, rb, o, x, e);
			}
			o += (rb - ra) >> shift;
			a = rb;
		}
		/* the rest the walk covered held nothing it reports, or the
		 * scan failed: pagemap says what is there */
		if (!ret && a < end) {
			ret = pmd_read_pm(j, c, i, vma, a, end, o, x);
			o += (end - a) >> shift;
			a = end;
		}
	}
	return ret;
}
