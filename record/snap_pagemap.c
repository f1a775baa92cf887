// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_pagemap.c — a snapshot's reading of the page tables (see
 * snap_pagemap.h): pagemap entries by pread, PAGEMAP_SCAN categories, and
 * the pages a PMD maps (THP).
 */
#include "config.h"

#include "record/snap_pagemap.h"

#include "record/snap_kpage.h"
#include "record/snap_observer.h"
#include "record/snap_pmd.h"
#include "record/target.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

bool pagemap_probe_pfn(int pm, size_t page_size)
{
	static volatile char probe = 1;
	uint64_t e = 0;
	uintptr_t va = (uintptr_t)&probe;

	probe = 2;
	if (pread(pm, &e, 8, (off_t)(va / page_size * 8)) != 8)
		return false;
	return (e & PM_PRESENT) && (e & PM_PFN_MASK);
}

bool pagemap_probe_scan(int pm, size_t page_size, uint64_t cats)
{
	static volatile char probe = 1;
	struct snap_page_region r;
	uintptr_t va = (uintptr_t)&probe & ~(uintptr_t)(page_size - 1);
	struct snap_scan_arg a = {
	    .size = sizeof(a),
	    .start = va,
	    .end = va + page_size,
	    .vec = (uintptr_t)&r,
	    .vec_len = 1,
	    .category_anyof_mask = SCAN_IS_PRESENT,
	    .return_mask = SCAN_IS_PRESENT | cats,
	};

	probe = 2;
	return ioctl(pm, SNAP_PAGEMAP_SCAN, &a) >= 0;
}

uint32_t pagemap_pmd_pages(size_t page_size)
{
	char buf[32];
	ssize_t len;
	uint64_t size;
	int fd = open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
		      O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	size = strtoull(buf, NULL, 10);
	if (size <= page_size || size % page_size ||
	    size / page_size > CHUNK_PAGES)
		return 0;
	return (uint32_t)(size / page_size);
}
/* PAGEMAP_SCAN over [start, end) of the chunk at base, with the category
 * masks of q (range, vector and size are set here): OR into c->extra of
 * each page of every region found the bits set, or when set is 0 the
 * region's categories with SCAN_MARKED. Returns the number of pages of
 * the regions, or -errno. */
static long scan_mark(const struct snapper *s, struct snap_ctx *c, int pm,
		      uint64_t base, uint64_t start, uint64_t end,
		      struct snap_scan_arg q, uint8_t set)
{
	long pages = 0;

	while (start < end) {
		struct snap_scan_arg a = q;
		long r;

		a.size = sizeof(a);
		a.start = start;
		a.end = end;
		a.vec = (uintptr_t)c->vec;
		a.vec_len = SCAN_VEC;
		r = ioctl(pm, SNAP_PAGEMAP_SCAN, &a);
		if (r < 0)
			return -errno;
		for (long k = 0; k < r; k++) {
			uint64_t a0 = (c->vec[k].start - base) >> s->page_shift;
			uint64_t a1 = (c->vec[k].end - base) >> s->page_shift;
			uint8_t bits =
			    set ? set
				: (uint8_t)(c->vec[k].categories | SCAN_MARKED);

			for (uint64_t i = a0; i < a1; i++)
				c->extra[i] |= bits;
			pages += (long)(a1 - a0);
		}
		if (a.walk_end <= start)
			break;
		start = a.walk_end;
	}
	return pages;
}

/* PAGEMAP_SCAN over the chunk at base (n pages): fill c->extra with each
 * region's categories. Returns the number of pages reported present or
 * swapped, or a negative code. */
static long scan_range(const struct snapper *s, struct snap_ctx *c, int pm,
		       uint64_t base, size_t n, uint64_t mask)
{
	struct snap_scan_arg q = {
	    .category_inverted = s->scan_guard,
	    .category_mask = s->scan_guard,
	    .category_anyof_mask = mask,
	    .return_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED | SCAN_IS_PFNZERO |
			   SCAN_IS_HUGE,
	};

	memset(c->extra, 0, n);
	return scan_mark(s, c, pm, base, base,
			 base + ((uint64_t)n << s->page_shift), q, 0);
}

void pagemap_reconcile(struct snap_ctx *c, const struct procmap *m, size_t n,
		       bool read)
{
	uint64_t file = m->ino ? PM_FILE : 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t x = c->extra[i];
		uint64_t e = read ? c->pm[i] : 0;

		if (!x) {
			c->pm[i] = 0;
			continue;
		}
		if ((x & SCAN_IS_PRESENT) && !(e & PM_PRESENT))
			e = PM_PRESENT | file | (file ? 0 : PM_EXCLUSIVE);
		else if ((x & SCAN_IS_SWAPPED) && !(e & PM_SWAPPED))
			e = PM_SWAPPED | file;
		else
			continue;
		c->pm[i] = e;
		c->changed += c->weighted ? c->w[i] : 1;
	}
}

int pagemap_read_marked(const struct snapper *s, struct snap_ctx *c, int pm,
			uint64_t base, size_t n, bool zero)
{
	size_t i = 0, j;
	uint64_t first = base >> s->page_shift;

	while (i < n) {
		if (!c->extra[i]) {
			if (zero)
				c->pm[i] = 0;
			i++;
			continue;
		}
		/* extend the span through holes shorter than PAGEMAP_GAP */
		j = i + 1;
		for (;;) {
			size_t k = j;

			while (k < n && !c->extra[k] && k - j < PAGEMAP_GAP)
				k++;
			if (k < n && c->extra[k])
				j = k + 1;
			else
				break;
			while (j < n && c->extra[j])
				j++;
		}
		ssize_t r = snap_pread_full(pm, c->pm + i, (j - i) * 8,
					    (first + i) * 8);
		if (r < 0)
			return (int)r;
		if ((size_t)r < (j - i) * 8)
			return -ESRCH;
		for (size_t k = i; zero && k < j; k++)
			if (!c->extra[k])
				c->pm[k] = 0;
		i = j;
	}
	return 0;
}

/* True if pid has exited (gone or a zombie: its memory is released). */
static bool process_gone(int pid)
{
	char st = target_state(pid, pid);

	return !st || st == 'Z' || st == 'X';
}
/* True if the pages [x0, x1) of the chunk at va (entries in pm), all in
 * the PMD-sized range at p, could be mapped by that PMD: every page
 * present and, with PFNs, where one naturally aligned run of frames puts
 * them (a PMD maps a naturally aligned folio). The part of a PMD a chunk
 * holds may be any part of it: chunks need not start on PMD boundaries. */
static bool pmd_candidate(const struct snapper *s, const uint64_t *pm,
			  uint64_t va, uint64_t p, uint64_t x0, uint64_t x1)
{
	const uint64_t *e = pm + ((x0 - va) >> s->page_shift);
	uint64_t n = (x1 - x0) >> s->page_shift;
	uint64_t off = (x0 - p) >> s->page_shift;
	uint64_t pfn0 = e[0] & PM_PFN_MASK;

	if (!(e[0] & PM_PRESENT) || (pfn0 && pfn0 % s->pmd_pages != off))
		return false;
	for (uint64_t k = 1; k < n; k++)
		if (!(e[k] & PM_PRESENT) ||
		    (pfn0 && (e[k] & PM_PFN_MASK) != pfn0 + k))
			return false;
	return true;
}

/* PAGEMAP_SCAN [start, end) of the chunk at base for present pages mapped
 * by a PMD (PAGE_IS_HUGE, not the huge zero page) and set SCAN_PMD on them
 * in c->extra. Returns 1 if it found some, 0 if none, or -errno. */
static int pmd_scan(const struct snapper *s, struct snap_ctx *c, int pm,
		    uint64_t base, uint64_t start, uint64_t end)
{
	struct snap_scan_arg q = {
	    .category_inverted = SCAN_IS_PFNZERO,
	    .category_mask = SCAN_IS_HUGE | SCAN_IS_PRESENT | SCAN_IS_PFNZERO,
	    .return_mask = SCAN_IS_HUGE,
	};
	long r = scan_mark(s, c, pm, base, start, end, q, SCAN_PMD);

	return r < 0 ? (int)r : r > 0;
}

/* Mark (SCAN_PMD in c->extra) the present pages of the chunk at va, n
 * pages of mapping m, that a PMD maps: smaps' AnonHugePages,
 * ShmemPmdMapped and FilePmdMapped. Only PMD-sized aligned ranges that m
 * covers whole can be; a chunk starts where the previous one ended, not
 * on a PMD boundary when m does not, so its first and last such range may
 * be cut. A chunk read by PAGEMAP_SCAN (scanned) has the PAGE_IS_HUGE bits
 * of its pages already, one read by pread asks PAGEMAP_SCAN about the
 * parts of ranges pmd_candidate() keeps, one call per stretch of them. A
 * process without THP costs a look at its pagemap entries and no system
 * call. *marked: whether a page was marked (none: kpage_pmd_unshare has
 * nothing to look at). Returns 0 or -errno. */
static int pmd_mark(const struct snap_job *j, struct snap_ctx *c,
		    const struct procmap *m, uint64_t va, size_t n,
		    bool scanned, bool *marked)
{
	const struct snapper *s = j->s;
	uint64_t psz = (uint64_t)s->pmd_pages << s->page_shift;
	uint64_t lo, hi, a, b, p;
	uint8_t any = 0;
	int ret;

	*marked = false;
	if (!j->pmd || (m->vmflags & PROCMAP_VM_HUGETLB))
		return 0;
	lo = MAX(va, (m->start + psz - 1) / psz * psz);
	hi = MIN(va + ((uint64_t)n << s->page_shift), m->end / psz * psz);
	if (scanned) {
		for (a = lo; a < hi; a += s->page_size) {
			uint8_t *x = &c->extra[(a - va) >> s->page_shift];

			if ((*x & (SCAN_IS_HUGE | SCAN_IS_PRESENT |
				   SCAN_IS_PFNZERO)) ==
			    (SCAN_IS_HUGE | SCAN_IS_PRESENT))
				*x |= SCAN_PMD;
			any |= *x;
		}
		*marked = any & SCAN_PMD;
		return 0;
	}
	for (a = lo; a < hi; a = b) {
		p = a / psz * psz;
		b = MIN(p + psz, hi);
		if (!pmd_candidate(s, c->pm, va, p, a, b))
			continue;
		while (b < hi &&
		       pmd_candidate(s, c->pm, va, b, b, MIN(b + psz, hi)))
			b = MIN(b + psz, hi);
		ret = pmd_scan(s, c, j->pm, va, a, b);
		if (ret < 0)
			return ret;
		*marked |= ret > 0;
	}
	return 0;
}

/* pagemap_read_task's tail for a task PAGEMAP_SCAN read: got pages of
 * task t (n pages at va) present or swapped. A split job defers the
 * pagemap entries (c->deferred); else the marked ones are read now, and
 * a mapping found dense enough is read by pread from its next task on.
 * Returns 1 to go on, 0 if there is nothing to classify, or -errno. */
static int task_scanned(struct snap_job *j, struct snap_ctx *c,
			const struct snap_task *t, uint64_t va, long got,
			size_t *nlook, uint64_t *maxkey)
{
	struct snapper *s = j->s;
	size_t n = t->n;
	int ret;

	c->scanned = true;
	if (!got)
		return 0; /* nothing present or swapped: no runs */
	if (j->split) {
		c->deferred = true;
		return 1;
	}
	ret = pagemap_read_marked(s, c, j->pm, va, n, true);
	if (ret < 0)
		return ret;
	kpage_prepass(s, c, n, nlook, maxkey);
	if ((size_t)got * SPARSE >= n)
		__atomic_store_n(&j->sparse[t->vma], 0, __ATOMIC_RELAXED);
	return 1;
}

/* Without PFNs, a present page neither file nor exclusive may be the zero
 * page: ask PAGEMAP_SCAN about the stretch of the n pages at va (entries
 * in c->pm) that holds such pages. Returns 0 or -errno. */
static int zero_scan(const struct snapper *s, struct snap_ctx *c, int pm,
		     uint64_t va, size_t n)
{
	size_t i, lo = n, hi = 0;
	long got;

	if (s->has_pfn || !s->has_scan)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t e = c->pm[i];

		if ((e & (PM_PRESENT | PM_FILE | PM_EXCLUSIVE)) == PM_PRESENT) {
			lo = MIN(lo, i);
			hi = i + 1;
		}
	}
	if (hi <= lo)
		return 0;
	got = scan_range(s, c, pm, va + (lo << s->page_shift), hi - lo,
			 SCAN_IS_PFNZERO);
	if (got < 0)
		return (int)got;
	c->scanned = true;
	memmove(c->extra + lo, c->extra, hi - lo);
	memset(c->extra, 0, lo);
	return 0;
}

/* Whether task k of j is read by task_pread whole, at most RA_TASK_PAGES
 * pages (see RA_PAGES). */
static bool ra_plain(const struct snap_job *j, size_t k)
{
	const struct snap_task *t = &j->tasks[k];
	const struct procmap *m = &j->maps->maps[t->vma];

	return !t->nreg && t->n <= RA_TASK_PAGES &&
	       !__atomic_load_n(&j->sparse[t->vma], __ATOMIC_RELAXED) &&
	       !(m->name && !strcmp(m->name, "[vsyscall]"));
}

/* Read the n pagemap entries from page p of task k into c->pm: from those
 * read ahead when they hold them, else with those of the small tasks
 * after k (RA_PAGES) into c->ra. Returns the bytes of c->pm filled, or
 * -errno (as snap_pread_full). */
static ssize_t ra_read(const struct snap_job *j, struct snap_ctx *c, size_t k,
		       uint64_t p, size_t n)
{
	uint64_t end = p + n;
	size_t q;
	ssize_t r;

	if (c->ra_n && p >= c->ra_first && end <= c->ra_first + c->ra_n) {
		memcpy(c->pm, c->ra + (p - c->ra_first), n * 8);
		return (ssize_t)(n * 8);
	}
	c->ra_n = 0;
	for (q = k + 1; n <= RA_TASK_PAGES && q < j->ntasks && ra_plain(j, q);
	     q++) {
		const struct snap_task *t = &j->tasks[q];
		uint64_t a = (j->maps->maps[t->vma].start >> j->s->page_shift) +
			     t->first;

		if (a < end || a - end > PAGEMAP_GAP || a + t->n - p > RA_PAGES)
			break;
		end = a + t->n;
	}
	if (end == p + n)
		return snap_pread_full(j->pm, c->pm, n * 8, p * 8);
	if (!c->ra)
		c->ra = xmalloc(RA_PAGES * sizeof(*c->ra));
	r = snap_pread_full(j->pm, c->ra, (end - p) * 8, p * 8);
	if (r < 0)
		return r;
	memcpy(c->pm, c->ra, MIN((size_t)r, n * 8));
	if ((size_t)r == (end - p) * 8) {
		c->ra_first = p;
		c->ra_n = (size_t)(end - p);
	}
	return MIN(r, (ssize_t)(n * 8));
}

/* pagemap_read_task's tail for a task read whole by pread (n pages at
 * va into the slot sl): a large mapping found sparse is scanned from its
 * next task on. Returns 1 to go on, 0 if the pages are unreadable
 * (sl->unreadable), or -errno. */
static int task_pread(struct snap_job *j, struct snap_ctx *c,
		      const struct snap_task *t, struct snap_slot *sl,
		      uint64_t va, size_t *nlook, uint64_t *maxkey)
{
	struct snapper *s = j->s;
	const struct procmap *m = &j->maps->maps[t->vma];
	size_t n = t->n, amb;
	ssize_t r;

	/* [vsyscall] lies above the task size: pagemap has no entries
	 * there, and a short read would cost a look at the process's state
	 * to tell it from an exit (flush_tasks counts it as read) */
	if (m->name && !strcmp(m->name, "[vsyscall]")) {
		sl->unreadable = n;
		return 0;
	}
	r = ra_read(j, c, (size_t)(t - j->tasks), va >> s->page_shift, n);
	if (r < 0 && r != -EIO && r != -EINVAL)
		return (int)r;
	if (r < (ssize_t)(n * 8)) {
		if (process_gone(j->pid))
			return -ESRCH;
		/* e.g. [vsyscall], above the task size */
		sl->unreadable = n;
		return 0;
	}
	memset(c->extra, 0, n);
	amb = kpage_prepass(s, c, n, nlook, maxkey);
	if (s->has_scan && amb * SPARSE < n &&
	    (uint64_t)(m->end - m->start) >> s->page_shift > CHUNK_PAGES)
		__atomic_store_n(&j->sparse[t->vma], 1, __ATOMIC_RELAXED);
	r = zero_scan(s, c, j->pm, va, n);
	return r < 0 ? (int)r : 1;
}

/* A new task of mapping vma at page first (from the VMA start), at the
 * end of the job's tasks; returns its index. */
static size_t task_new(struct snap_job *j, uint32_t vma, uint64_t first)
{
	struct snap_task *t;

	xgrow(&j->tasks, &j->tasks_cap, j->ntasks + 1, sizeof(*j->tasks));
	t = &j->tasks[j->ntasks];
	memset(t, 0, sizeof(*t));
	t->vma = vma;
	t->first = first;
	t->reg = j->nregions;
	return j->ntasks++;
}

/* Append the region [a, b) of mapping vma with its bits to the job's
 * regions and to the task *ti (SIZE_MAX: none yet), cut where a task
 * has CHUNK_PAGES pages and a new one begins. */
static void region_add(struct snap_job *j, size_t *ti, uint32_t vma, uint64_t a,
		       uint64_t b, uint8_t bits)
{
	unsigned shift = j->s->page_shift;
	uint64_t base = j->maps->maps[vma].start;

	while (a < b) {
		struct snap_task *t;
		uint64_t n;

		if (*ti == SIZE_MAX || j->tasks[*ti].n == CHUNK_PAGES)
			*ti = task_new(j, vma, (a - base) >> shift);
		t = &j->tasks[*ti];
		n = MIN((uint64_t)(CHUNK_PAGES - t->n), (b - a) >> shift);
		xgrow(&j->regions, &j->regions_cap, j->nregions + 1,
		      sizeof(*j->regions));
		j->regions[j->nregions++] = (struct snap_page_region){
		    .start = a,
		    .end = a + (n << shift),
		    .categories = bits,
		};
		t->nreg++;
		t->n += (uint32_t)n;
		a += n << shift;
	}
}

/* Append one region PAGEMAP_SCAN found in mapping vma: the part a PMD
 * may map (a present huge page, not the huge zero page, in a PMD-sized
 * range the mapping covers whole; smaps' AnonHugePages, ShmemPmdMapped
 * and FilePmdMapped) gets SCAN_PMD. */
static void region_found(struct snap_job *j, size_t *ti, uint32_t vma,
			 const struct snap_page_region *in)
{
	struct snap_page_region cut = *in, *g = &cut;
	const struct snapper *s = j->s;
	const struct procmap *m = &j->maps->maps[vma];
	uint64_t psz = (uint64_t)s->pmd_pages << s->page_shift;
	uint8_t bits = (uint8_t)(g->categories | SCAN_MARKED);
	uint64_t lo, hi;

	/* the kernel may report again (part of) a region it reported when
	 * its buffer filled: keep what lies past the last region kept */
	if (*ti != SIZE_MAX && j->tasks[*ti].nreg)
		g->start = MAX(g->start, j->regions[j->nregions - 1].end);
	if (g->start >= g->end)
		return;
	if (!j->pmd || (m->vmflags & PROCMAP_VM_HUGETLB) ||
	    (bits & (SCAN_IS_HUGE | SCAN_IS_PRESENT | SCAN_IS_PFNZERO)) !=
		(SCAN_IS_HUGE | SCAN_IS_PRESENT)) {
		region_add(j, ti, vma, g->start, g->end, bits);
		return;
	}
	lo = MIN(MAX(g->start, (m->start + psz - 1) / psz * psz), g->end);
	hi = MAX(MIN(g->end, m->end / psz * psz), lo);
	region_add(j, ti, vma, g->start, lo, bits);
	region_add(j, ti, vma, lo, hi, bits | SCAN_PMD);
	region_add(j, ti, vma, hi, g->end, bits);
}

/* The first PAGEMAP_SCAN of a mapping covers at most this many pages, a
 * sample that prescan_declines() judges the mapping by. */
#define PRESCAN_SAMPLE_PAGES CHUNK_PAGES
/* A mapping of at most this many times the process's resident pages may
 * be read in contiguous tasks: the empty tasks such a mapping can have
 * (scanned, ~5 us each) then cost far less than reading its pages. */
#define DENSE_RSS_FACTOR 16
/* A sample with at least 1/PRESCAN_DENSE of its pages present or swapped
 * is dense whatever their runs; one with at least 1/SPARSE only where its
 * runs are on average shorter than SCATTERED_RUN pages (every 2nd or 4th
 * page, pages at random: each page a region of a packed task). The
 * cached pages of a mapped file come in read-ahead runs: an idle node's
 * 48 MiB of read-only data, 18% cached, was read whole (12 345 entries)
 * for its 2 271 pages. */
#define PRESCAN_DENSE 2
#define SCATTERED_RUN 4

/* True if mapping m of the job, whose regions from region nreg on are
 * what the scan found in its first sample pages, is better read in
 * contiguous tasks (pread, no prescan): dense (PRESCAN_DENSE, or SPARSE
 * and SCATTERED_RUN), no huge page in the sample (a PMD-mapped
 * page costs one pread in a packed task, its 512 entries in a contiguous
 * one), at most DENSE_RSS_FACTOR times the process's resident pages
 * (a huge reservation with a dense start is scanned), and not of a held
 * process (snapper_set_release). A dense mapping's
 * scan costs ~11 ns a page on top of its pagemap read (~45 ns), and
 * every page of a packed task is a region to lay out. */
static bool prescan_declines(struct snap_job *j, const struct procmap *m,
			     size_t nreg, uint64_t sample)
{
	unsigned shift = j->s->page_shift;
	uint64_t found = 0;
	int64_t rss;

	for (size_t r = nreg; r < j->nregions; r++) {
		const struct snap_page_region *g = &j->regions[r];

		if (g->categories & SCAN_IS_HUGE)
			return false;
		found += (g->end - g->start) >> shift;
	}
	/* a held process's job keeps 9 bytes per page of its tasks while
	 * it runs again (a split job, up to a bound): a packed task's pages
	 * are only those found */
	if (j->s->release || found * SPARSE < sample ||
	    (found * PRESCAN_DENSE < sample &&
	     (j->nregions - nreg) * SCATTERED_RUN <= found))
		return false;
	if (!j->rss_known) {
		rss = target_rss(j->pid);
		j->rss_pages = rss > 0 ? (uint64_t)rss >> shift : 0;
		j->rss_known = true;
	}
	return (m->end - m->start) >> shift <= DENSE_RSS_FACTOR * j->rss_pages;
}

int pagemap_prescan(struct snap_job *j, struct snap_ctx *c, uint32_t vma)
{
	const struct procmap *m = &j->maps->maps[vma];
	size_t ntasks = j->ntasks, nregions = j->nregions, ti = SIZE_MAX;
	uint64_t start = m->start;
	uint64_t sample = MIN((uint64_t)PRESCAN_SAMPLE_PAGES,
			      (m->end - m->start) >> j->s->page_shift);
	uint64_t sample_end = m->start + (sample << j->s->page_shift);
	bool sampled = false;

	while (start < m->end) {
		struct snap_scan_arg a = {
		    .size = sizeof(a),
		    .start = start,
		    .end = sampled ? m->end : sample_end,
		    .vec = (uintptr_t)c->vec,
		    .vec_len = SCAN_VEC,
		    .category_inverted = j->s->scan_guard,
		    .category_mask = j->s->scan_guard,
		    .category_anyof_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED,
		    .return_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED |
				   SCAN_IS_PFNZERO | SCAN_IS_HUGE,
		};
		long r = ioctl(j->pm, SNAP_PAGEMAP_SCAN, &a);
		int ret = r < 0 ? -errno : 0;

		if (r >= 0)
			for (long k = 0; k < r; k++)
				region_found(j, &ti, vma, &c->vec[k]);
		if (r >= 0 && !sampled && a.walk_end >= sample_end) {
			sampled = true;
			ret = prescan_declines(j, m, nregions, sample) ? -EAGAIN
								       : 0;
		}
		if (r < 0 || ret == -EAGAIN) {
			j->ntasks = ntasks;
			j->nregions = nregions;
			return ret;
		}
		if (a.walk_end <= start)
			break;
		start = a.walk_end;
	}
	if (ti == SIZE_MAX)
		ti = task_new(j, vma, 0); /* nothing there: no runs */
	j->tasks[ntasks].flags |= TASK_BEGIN;
	j->tasks[ti].flags |= TASK_END;
	return 0;
}

/* Fill c->extra and c->off of the packed task t from its regions. */
static void task_layout(const struct snap_job *j, struct snap_ctx *c,
			const struct snap_task *t)
{
	unsigned shift = j->s->page_shift;
	uint64_t base = j->maps->maps[t->vma].start + (t->first << shift);
	size_t i = 0;

	for (uint32_t r = 0; r < t->nreg; r++) {
		const struct snap_page_region *g = &j->regions[t->reg + r];
		uint64_t o = (g->start - base) >> shift;
		uint64_t n = (g->end - g->start) >> shift;

		memset(c->extra + i, (uint8_t)g->categories, n);
		for (uint64_t k = 0; k < n; k++)
			c->off[i + k] = o + k;
		i += n;
	}
	c->packed = true;
	c->weighted = false;
}

/* Read the pagemap entries of the packed task t into c->pm: regions
 * whose gaps are shorter than PAGEMAP_GAP in one pread (through the
 * scratch c->kbuf when there are gaps, as many as it holds). Returns 0, -ESRCH
 * if the process's pages are gone, or -errno. */
static int task_read_regions(const struct snap_job *j, struct snap_ctx *c,
			     const struct snap_task *t)
{
	unsigned shift = j->s->page_shift;
	const struct snap_page_region *g = &j->regions[t->reg];
	const struct snap_page_region *end = g + t->nreg, *h;
	size_t i = 0;

	while (g < end) {
		bool gaps = false;
		uint64_t n;
		ssize_t r;

		for (h = g + 1; h < end; h++) {
			uint64_t gap = (h->start - h[-1].end) >> shift;

			if (gap >= PAGEMAP_GAP ||
			    (h->end - g->start) >> shift > c->nkbuf)
				break;
			gaps |= gap != 0;
		}
		n = (h[-1].end - g->start) >> shift;
		r = snap_pread_full(j->pm, gaps ? c->kbuf : c->pm + i, n * 8,
				    (g->start >> shift) * 8);
		if (r < 0)
			return (int)r;
		if ((uint64_t)r < n * 8)
			return -ESRCH;
		if (!gaps) {
			i += n;
			g = h;
			continue;
		}
		for (uint64_t s0 = g->start; g < h; g++) {
			uint64_t cnt = (g->end - g->start) >> shift;

			memcpy(c->pm + i, c->kbuf + ((g->start - s0) >> shift),
			       cnt * 8);
			i += cnt;
		}
	}
	return 0;
}

/* Read the entries of the packed task t that has PMD-mapped regions
 * (SCAN_PMD): those one step per huge page (pmd_read), the others one
 * entry per page; c->nent is the number of entries. Returns 0 or
 * -errno. */
static int task_read_weighted(const struct snap_job *j, struct snap_ctx *c,
			      const struct snap_task *t)
{
	unsigned shift = j->s->page_shift;
	uint64_t base = j->maps->maps[t->vma].start + (t->first << shift);
	size_t i = 0;
	int ret = 0;

	for (uint32_t r = 0; r < t->nreg && !ret; r++) {
		const struct snap_page_region *g = &j->regions[t->reg + r];
		uint64_t o = (g->start - base) >> shift;
		uint8_t x = (uint8_t)g->categories;

		if (x & SCAN_PMD)
			ret = snap_pmd_read(j, c, &i, t->vma, g->start, g->end,
					    o, x);
		else
			ret =
			    snap_entries_read(j, c, &i, g->start, o,
					      (g->end - g->start) >> shift, x);
	}
	c->packed = true;
	c->weighted = true;
	c->nent = i;
	return ret;
}

/* True if a region of packed task t is PMD-mapped (SCAN_PMD). */
static bool task_has_pmd(const struct snap_job *j, const struct snap_task *t)
{
	for (uint32_t r = 0; r < t->nreg; r++)
		if (j->regions[t->reg + r].categories & SCAN_PMD)
			return true;
	return false;
}

int pagemap_read_deferred(const struct snap_job *j, struct snap_ctx *c,
			  size_t k)
{
	const struct snap_task *t = &j->tasks[k];
	const struct snapper *s = j->s;
	uint64_t va = j->maps->maps[t->vma].start + (t->first << s->page_shift);
	int ret;

	c->nent = t->n;
	if (!t->nreg) {
		c->packed = false;
		ret = pagemap_read_marked(s, c, j->pm, va, t->n, false);
		if (ret == 0)
			kpage_pmd_unshare(s, c, t->n, j->share, t->vma);
		return ret;
	}
	if (task_has_pmd(j, t)) {
		ret = task_read_weighted(j, c, t);
		if (ret == 0)
			return 0;
		/* the scan's pages, one entry each, for pagemap_reconcile
		 * without their entries */
		task_layout(j, c, t);
		c->nent = t->n;
		return ret;
	}
	task_layout(j, c, t);
	return task_read_regions(j, c, t);
}

/* pagemap_read_task for a packed task t: its pages' bits from the
 * regions, and (but in a split job: c->deferred) their pagemap entries,
 * a huge page's in one step where a PMD maps it (task_read_weighted).
 * Returns 1 or -errno. */
static int task_packed(struct snap_job *j, struct snap_ctx *c,
		       const struct snap_task *t, size_t *nlook,
		       uint64_t *maxkey)
{
	int ret;

	c->scanned = true;
	if (!j->split && task_has_pmd(j, t)) {
		ret = task_read_weighted(j, c, t);
		if (ret < 0)
			return ret;
		kpage_prepass(j->s, c, c->nent, nlook, maxkey);
		return 1;
	}
	task_layout(j, c, t);
	if (j->split) {
		c->deferred = true;
		return 1;
	}
	ret = task_read_regions(j, c, t);
	if (ret < 0)
		return ret;
	kpage_prepass(j->s, c, t->n, nlook, maxkey);
	return 1;
}

int pagemap_read_task(struct snap_job *j, struct snap_ctx *c, size_t k,
		      size_t *nlook, uint64_t *maxkey)
{
	struct snapper *s = j->s;
	const struct snap_task *t = &j->tasks[k];
	const struct procmap *m = &j->maps->maps[t->vma];
	struct snap_slot *sl = &s->slots[k % WINDOW];
	uint64_t va = m->start + (t->first << s->page_shift);
	size_t n = t->n;
	bool sparse = __atomic_load_n(&j->sparse[t->vma], __ATOMIC_RELAXED);
	bool marked;
	long got = -1;
	int ret;

	*nlook = 0;
	*maxkey = 0;
	c->deferred = false;
	c->weighted = false;
	c->nent = n;
	sl->nruns = 0;
	sl->nbits = 0;
	sl->ncg = 0;
	sl->present = sl->swapped = sl->unreadable = 0;
	if (!n)
		return 0;
	if (t->nreg)
		return task_packed(j, c, t, nlook, maxkey);
	c->packed = false;
	if (sparse || (j->split && s->has_scan)) {
		got = scan_range(s, c, j->pm, va, n,
				 SCAN_IS_PRESENT | SCAN_IS_SWAPPED);
		if (got < 0 && sparse)
			return (int)got;
	}
	if (got >= 0) {
		sparse = true;
		ret = task_scanned(j, c, t, va, got, nlook, maxkey);
	} else {
		ret = task_pread(j, c, t, sl, va, nlook, maxkey);
	}
	if (ret <= 0)
		return ret;
	ret = pmd_mark(j, c, m, va, n, sparse, &marked);
	if (ret < 0)
		return ret;
	/* a huge page maybe shared though pagemap says exclusive is looked
	 * up: list the look-ups again (no page marked: no huge page, and
	 * no pass over the chunk's entries to find one) */
	if (!c->deferred && marked &&
	    kpage_pmd_unshare(s, c, n, j->share, t->vma))
		kpage_prepass(s, c, n, nlook, maxkey);
	return 1;
}
