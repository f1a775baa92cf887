// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_observer.c — memsz's own pages of the files a target maps (see
 * snap_observer.h): /proc/self/maps and /proc/self/pagemap into a hash
 * set of PFNs, or, task by task, memsz's pagemap entries at the file
 * pages the task looks up.
 */
#include "config.h"

#include "record/snap_observer.h"

#include "record/snap_pagemap.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* MADV_POPULATE_READ (linux/mman.h, 5.14+), for older headers. */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Present pages between two absent runs of a mapping up to which the
 * runs are populated with one madvise (walking a few present pages costs
 * less than a system call more). */
#define POPULATE_JOIN 32
/* Absent pages not needed (self_wanted) that a run may take in to join
 * the next needed one: a fault maps up to 16 neighbouring pages of the
 * page cache anyway. */
#define POPULATE_WASTE 8

/* The target whose pages memsz's own are populated for (self_populate):
 * its mappings and its pagemap, or NULL (populate every page). */
struct self_target {
	const struct procmaps *maps;
	int pm;
};

/* Mark in want[0, np) the pages of memsz's file mapping m whose file page
 * the target t has resident in a mapping of the same file (one pread of
 * its pagemap per such mapping). A page the target has not mapped is in
 * none of its mappings' PSS: memsz mapping it meanwhile changes no
 * mapcount the snapshot reads (while the target runs, its page tables
 * change under the snapshot anyway). */
static void self_wanted(const struct snapper *s, const struct procmap *m,
			size_t np, const struct self_target *t, uint8_t *want)
{
	uint64_t mo = m->pgoff >> s->page_shift, *e = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < t->maps->n; i++) {
		const struct procmap *tm = &t->maps->maps[i];
		uint64_t to = tm->pgoff >> s->page_shift,
			 tn = (tm->end - tm->start) >> s->page_shift;
		uint64_t a = MAX(mo, to), b = MIN(mo + np, to + tn);
		ssize_t got;

		if (tm->ino != m->ino || tm->dev_major != m->dev_major ||
		    tm->dev_minor != m->dev_minor || a >= b)
			continue;
		xgrow(&e, &cap, b - a, sizeof(*e));
		got = snap_pread_full(
		    t->pm, e, (b - a) * 8,
		    ((tm->start >> s->page_shift) + (a - to)) * 8);
		for (ssize_t k = 0; k < got / 8; k++)
			if (e[k] & PM_PRESENT)
				want[a - mo + (uint64_t)k] = 1;
		if (got != (ssize_t)((b - a) * 8)) /* unknown: all wanted */
			memset(want + (a - mo), 1, b - a);
	}
	free(e);
}

/* True if page i of a mapping (pagemap entries pm, want as self_wanted
 * gave it, or NULL) is to be made resident. */
static bool self_need(const uint64_t *pm, const uint8_t *want, size_t i)
{
	return !(pm[i] & PM_PRESENT) && (!want || want[i]);
}

/* Map pages of memsz's own file mapping m (its np pagemap entries in pm,
 * read from pagemap fd) into its page tables: then the set of pages
 * memsz shares with a target does not grow while a snapshot runs (the
 * code it first runs there would otherwise be mapped after the set was
 * read, and still counted as a sharer). Only the runs of pages not
 * present are populated, and their entries read again into pm: most of
 * libc is mapped already, and walking it page by page in
 * MADV_POPULATE_READ cost more than the rest of the observer. With a
 * target t, only the pages it has resident (self_wanted: a one-shot of a
 * small process shares a few dozen libc pages memsz lacks, not the
 * hundreds memsz never ran); without (snapper_prepare, for any process
 * after it), every page, once per recording (s->self_pop; -a asks for
 * the same libc mappings once per process). */
static void self_populate(struct snapper *s, const struct procmap *m, int fd,
			  uint64_t *pm, size_t np, const struct self_target *t)
{
	struct self_range r = {m->start, m->end, m->ino};
	uint8_t *want = NULL;
	size_t i = 0, a, b, waste;

	/* a file mapping: named by a path, or unnamed as PROCMAP_QUERY
	 * gives them (procmaps_read_files() returns file mappings only) */
	if ((m->name && m->name[0] != '/') || (m->flags & MAP_SHARED))
		return;
	for (size_t k = 0; k < s->nself_pop; k++)
		if (!memcmp(&s->self_pop[k], &r, sizeof(r)))
			return;
	while (i < np && (pm[i] & PM_PRESENT))
		i++;
	if (i == np)
		return; /* all resident: nothing to ask the target */
	if (t) {
		want = xcalloc(np, 1);
		self_wanted(s, m, np, t, want);
	}
	while (i < np) {
		while (i < np && !self_need(pm, want, i))
			i++;
		if (i == np)
			break;
		/* [a, b): pages needed and the short gaps between, with few
		 * absent pages not needed */
		a = b = i;
		waste = 0;
		while (i < np && i - b <= POPULATE_JOIN) {
			if (self_need(pm, want, i)) {
				b = i + 1;
				waste = 0;
			} else if (!(pm[i] & PM_PRESENT) &&
				   ++waste > POPULATE_WASTE) {
				break;
			}
			i++;
		}
		i = b;
		(void)madvise(
		    (void *)(uintptr_t)(m->start + (a << s->page_shift)),
		    (b - a) << s->page_shift, MADV_POPULATE_READ);
		if (snap_pread_full(fd, pm + a, (b - a) * 8,
				    ((m->start >> s->page_shift) + a) * 8) !=
		    (ssize_t)((b - a) * 8))
			memset(pm + a, 0, (b - a) * 8);
	}
	free(want);
	if (t)
		return; /* another target may have other pages resident */
	xgrow(&s->self_pop, &s->self_pop_cap, s->nself_pop + 1,
	      sizeof(*s->self_pop));
	s->self_pop[s->nself_pop++] = r;
}

static int self_file_cmp(const void *a, const void *b)
{
	const struct self_file *x = a, *y = b;

	return x->dev != y->dev ? u64_cmp(x->dev, y->dev)
				: u64_cmp(x->ino, y->ino);
}

static struct self_file self_file_of(const struct procmap *m)
{
	return (struct self_file){((uint64_t)m->dev_major << 32) | m->dev_minor,
				  m->ino};
}

/* The files target maps (maps), sorted, without repeats; *n their count.
 * Caller frees. */
static struct self_file *self_target_files(const struct procmaps *maps,
					   size_t *n)
{
	struct self_file *f = xmalloc((maps->n + 1) * sizeof(*f));
	size_t k = 0;

	for (size_t i = 0; i < maps->n; i++)
		if (maps->maps[i].ino)
			f[k++] = self_file_of(&maps->maps[i]);
	qsort(f, k, sizeof(*f), self_file_cmp);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || self_file_cmp(&f[*n - 1], &f[i]))
			f[(*n)++] = f[i];
	return f;
}

/* Put the n PFNs pfns (none 0, maybe repeated) into s->self_set: a table
 * at least twice their number, so that a probe finds an empty slot soon
 * (a bitmap over the PFNs' range would touch a page of memory per few
 * PFNs, as they lie scattered over all of RAM). */
static void self_set_build(struct snapper *s, const uint64_t *pfns, size_t n)
{
	size_t size = 64;

	while (size < 2 * n)
		size *= 2;
	s->self_mask = size - 1;
	s->self_set = xcalloc(size, sizeof(*s->self_set));
	for (size_t k = 0; k < n; k++) {
		uint64_t h = observer_slot(s, pfns[k]);

		while (s->self_set[h] && s->self_set[h] != pfns[k])
			h = (h + 1) & s->self_mask;
		s->self_set[h] = pfns[k];
	}
}

/* True if memsz's own mapping m is of one of the files (nfiles) the
 * target maps. */
static bool self_shared(const struct procmap *m, const struct self_file *files,
			size_t nfiles)
{
	struct self_file key = self_file_of(m);

	return m->ino && m->end > m->start &&
	       bsearch(&key, files, nfiles, sizeof(*files), self_file_cmp);
}

static int self_map_cmp(const void *a, const void *b)
{
	const struct self_map *x = a, *y = b;
	int c = self_file_cmp(&x->file, &y->file);

	return c ? c : u64_cmp(x->pgoff, y->pgoff);
}

/* Keep memsz's own mappings pm of the files (nfiles) the target maps
 * (maps) in s->self_maps, so that each task of the snapshot looks at the
 * pages of memsz it needs itself (observer_task): for a small target,
 * the few dozen pages of libc it has resident, not every page of the
 * libraries memsz maps, read twice (before and after they are made
 * resident) with the target's entries of them read once more. False
 * (nothing kept) when a mapping of the target of one of those files
 * could hold a huge page a PMD maps: such a page's mapcounts are read
 * in one step (snap_pagemap.c pmd_read_shared), which asks the set of
 * all of memsz's pages. */
static bool self_maps_keep(struct snapper *s, const struct procmaps *pm,
			   const struct self_file *files, size_t nfiles,
			   const struct procmaps *maps)
{
	size_t n = 0;

	free(s->self_maps);
	s->self_maps = NULL;
	s->nself_maps = 0;
	s->self_lazy = false;
	for (size_t i = 0; i < maps->n; i++) {
		const struct procmap *m = &maps->maps[i];
		struct self_file f = self_file_of(m);

		if (!m->ino || !snap_pmd_possible(s, m) ||
		    !bsearch(&f, files, nfiles, sizeof(*files), self_file_cmp))
			continue;
		for (size_t k = 0; k < pm->n; k++) {
			struct self_file g = self_file_of(&pm->maps[k]);

			if (!self_file_cmp(&f, &g))
				return false;
		}
	}
	s->self_maps = xmalloc((pm->n + 1) * sizeof(*s->self_maps));
	for (size_t i = 0; i < pm->n; i++) {
		const struct procmap *m = &pm->maps[i];

		if (!self_shared(m, files, nfiles))
			continue;
		s->self_maps[n++] = (struct self_map){
		    .start = m->start,
		    .end = m->end,
		    .pgoff = m->pgoff >> s->page_shift,
		    .file = self_file_of(m),
		    /* as self_populate: a private mapping of a named file
		     * (or unnamed, as PROCMAP_QUERY gives them) */
		    .populate = (!m->name || m->name[0] == '/') &&
				!(m->flags & MAP_SHARED),
		};
	}
	qsort(s->self_maps, n, sizeof(*s->self_maps), self_map_cmp);
	s->nself_maps = n;
	s->self_lazy = true;
	return true;
}

/* Collect the PFNs of the resident pages of memsz's own mappings of the
 * files the target maps too (/proc/self/maps, /proc/self/pagemap) into
 * s->self_set, so that memsz does not count itself as a sharer of a
 * target's page: the libraries it maps too (libc, libz, libstdc++ ...)
 * would otherwise show a lower PSS than when memsz is not running. A page
 * of a file the target does not map cannot be one of its pages, so
 * memsz's other mappings (its own binary, most of its libraries) are
 * neither populated nor read. The mappings read that follow each other
 * without a gap (a library's three to five) are read in one pread.
 * files (nfiles) are the files the target maps (self_target_files).
 * Reads /proc/self/pagemap through s->self_pm_fd, opened by snapper_new.
 * Returns 0 or -errno. */
static int self_load(struct snapper *s, const struct self_file *files,
		     size_t nfiles, const struct self_target *t)
{
	struct procmaps pm = {0};
	uint64_t *pfns = NULL, *buf = NULL;
	size_t n = 0, cap = 0, bufcap = 0, i, j;
	int fd, ret = procmaps_read_files(getpid(), true, &pm);

	free(s->self_set);
	s->self_set = NULL;
	s->self_mask = 0;
	s->self_lazy = false;
	if (ret < 0)
		goto out;
	if (t && self_maps_keep(s, &pm, files, nfiles, t->maps)) {
		ret = 0; /* looked at task by task: observer_task */
		goto out;
	}
	fd = s->self_pm_fd;
	if (fd < 0) {
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; i < pm.n; i = j) {
		uint64_t start = pm.maps[i].start;
		size_t np, got;
		ssize_t r;

		for (j = i; j < pm.n && self_shared(&pm.maps[j], files, nfiles);
		     j++)
			if (j > i && pm.maps[j].start != pm.maps[j - 1].end)
				break;
		if (j == i) {
			j++;
			continue;
		}
		/* maps [i, j) follow each other: one read of them all */
		np = (pm.maps[j - 1].end - start) >> s->page_shift;
		xgrow(&buf, &bufcap, np, sizeof(*buf));
		r = snap_pread_full(fd, buf, np * 8,
				    (start >> s->page_shift) * 8);
		got = r > 0 ? (size_t)r / 8 : 0;
		for (size_t k = i; k < j; k++) {
			const struct procmap *m = &pm.maps[k];
			size_t o = (m->start - start) >> s->page_shift;
			size_t mp = (m->end - m->start) >> s->page_shift;

			if (got >= o + mp)
				self_populate(s, m, fd, buf + o, mp, t);
		}
		for (size_t k = 0; k < got; k++) {
			uint64_t pfn = buf[k] & PM_PFN_MASK;

			if (!(buf[k] & PM_PRESENT) || !pfn)
				continue;
			xgrow(&pfns, &cap, n + 1, sizeof(*pfns));
			pfns[n++] = pfn;
		}
	}
	if (n)
		self_set_build(s, pfns, n);
	ret = 0;
out:
	free(buf);
	free(pfns);
	procmaps_free(&pm);
	return ret;
}

bool observer_ready(struct snapper *s, const struct procmaps *maps, int pm)
{
	struct self_target t = {maps, pm};
	size_t n;
	struct self_file *files = self_target_files(maps, &n);
	bool ok;

	if (s->prep_files && n == s->nprep &&
	    !memcmp(files, s->prep_files, n * sizeof(*files)))
		ok = s->prep_ok; /* the set snapper_prepare loaded */
	else
		ok = self_load(s, files, n, pm >= 0 ? &t : NULL) == 0;
	free(files);
	free(s->prep_files);
	s->prep_files = NULL;
	return ok;
}

/* Pages of memsz's own pagemap read past pages not needed to join the
 * next needed one in the same pread: an entry costs the kernel ~20 ns, a
 * pread ~0.6 us. */
#define SELF_GAP 32

/* The file page of the entry idx of the task c holds, whose entry 0 is
 * file page base. */
static uint64_t task_file_page(const struct snap_ctx *c, uint64_t base,
			       uint32_t idx)
{
	return base + (c->packed ? c->off[idx] : idx);
}

/* Whether the page to look up idx is one memsz may map too: a file page
 * (a private copy is anonymous) not mapped exclusively. */
static bool self_candidate(const struct snap_ctx *c, uint32_t idx)
{
	return (c->pm[idx] & (PM_FILE | PM_EXCLUSIVE)) == PM_FILE;
}

/* MADV_POPULATE_READ the file pages [a, b) of memsz's mapping sm. */
static void self_map_populate(const struct snapper *s,
			      const struct self_map *sm, uint64_t a, uint64_t b)
{
	(void)madvise(
	    (void *)(uintptr_t)(sm->start + ((a - sm->pgoff) << s->page_shift)),
	    (b - a) << s->page_shift, MADV_POPULATE_READ);
}

/* The entries of e (from file page p0) absent in the file pages [a, b). */
static size_t self_absent(const uint64_t *e, uint64_t p0, uint64_t a,
			  uint64_t b)
{
	size_t n = 0;

	for (uint64_t p = a; p < b; p++)
		n += !(e[p - p0] & PM_PRESENT);
	return n;
}

/* Make resident the pages of sm at the file pages of the keys [i, j) of
 * c->look (with base, see task_file_page) whose entries e (of the file
 * pages [p0, p1]) are absent, in runs joined through POPULATE_JOIN pages
 * of which at most POPULATE_WASTE are absent (as self_populate joins
 * them). True if it asked for any. */
static bool self_fill(const struct snapper *s, const struct snap_ctx *c,
		      const struct self_map *sm, uint64_t base, size_t i,
		      size_t j, const uint64_t *e, uint64_t p0, uint64_t p1)
{
	uint64_t a = 0, b = 0; /* the run [a, b) to populate; b 0: none */
	bool any = false;

	for (size_t k = i; k < j; k++) {
		uint32_t idx = LOOK_IDX(c->look[k]);
		uint64_t p = task_file_page(c, base, idx);

		if (!self_candidate(c, idx) || p < p0 || p > p1 ||
		    (e[p - p0] & PM_PRESENT))
			continue;
		if (b && p >= b && p - b <= POPULATE_JOIN &&
		    self_absent(e, p0, b, p) <= POPULATE_WASTE) {
			b = p + 1;
			continue;
		}
		if (b)
			self_map_populate(s, sm, a, b);
		any |= b != 0;
		a = p;
		b = p + 1;
	}
	if (b)
		self_map_populate(s, sm, a, b);
	return any || b;
}

/* observer_task for one of memsz's mappings, sm, of the task's file:
 * the keys of c->look (nlook, in page order) whose file page sm maps,
 * read from memsz's pagemap in spans (joined through SELF_GAP pages,
 * at most c->nkbuf entries, in c->kbuf), made resident first where they
 * are not. */
static void self_map_mark(const struct snapper *s, struct snap_ctx *c,
			  const struct self_map *sm, uint64_t base,
			  size_t nlook)
{
	uint64_t np = (sm->end - sm->start) >> s->page_shift;
	size_t i = 0;

	while (i < nlook) {
		uint64_t p0, p1, p = 0;
		size_t j;
		ssize_t r;

		/* the first key of the next span */
		for (; i < nlook; i++) {
			uint32_t idx = LOOK_IDX(c->look[i]);

			p = task_file_page(c, base, idx);
			if (self_candidate(c, idx) && p - sm->pgoff < np)
				break;
		}
		if (i == nlook)
			return;
		p0 = p1 = p;
		for (j = i + 1; j < nlook; j++) {
			uint32_t idx = LOOK_IDX(c->look[j]);

			p = task_file_page(c, base, idx);
			if (!self_candidate(c, idx))
				continue;
			if (p < p1 || p - p1 > SELF_GAP ||
			    p - sm->pgoff >= np || p - p0 >= c->nkbuf)
				break;
			p1 = p;
		}
		/* [i, j): the span's keys, its pages [p0, p1] */
		r = snap_pread_full(
		    s->self_pm_fd, c->kbuf, (p1 - p0 + 1) * 8,
		    ((sm->start >> s->page_shift) + p0 - sm->pgoff) * 8);
		if (r == (ssize_t)((p1 - p0 + 1) * 8) && sm->populate &&
		    self_fill(s, c, sm, base, i, j, c->kbuf, p0, p1))
			r = snap_pread_full(
			    s->self_pm_fd, c->kbuf, (p1 - p0 + 1) * 8,
			    ((sm->start >> s->page_shift) + p0 - sm->pgoff) *
				8);
		for (; r == (ssize_t)((p1 - p0 + 1) * 8) && i < j; i++) {
			uint32_t idx = LOOK_IDX(c->look[i]);
			uint64_t e;

			p = task_file_page(c, base, idx);
			if (!self_candidate(c, idx) || p < p0 || p > p1)
				continue;
			e = c->kbuf[p - p0];
			if ((e & PM_PRESENT) &&
			    (e & PM_PFN_MASK) == (c->pm[idx] & PM_PFN_MASK))
				c->extra[idx] |= SCAN_SELF;
		}
		i = j;
	}
}

void observer_task(const struct snapper *s, struct snap_ctx *c,
		   const struct procmap *m, uint64_t va, size_t nlook)
{
	struct self_file f = self_file_of(m);
	uint64_t base;

	if (!s->self_lazy || !m->ino || !nlook)
		return;
	base = ((m->pgoff + (va - m->start)) >> s->page_shift);
	for (size_t k = 0; k < s->nself_maps; k++)
		if (!self_file_cmp(&s->self_maps[k].file, &f))
			self_map_mark(s, c, &s->self_maps[k], base, nlook);
}

void snapper_prepare(struct snapper *s, int pid)
{
	struct procmaps maps = {0};

	free(s->prep_files);
	s->prep_files = NULL;
	if (!s->has_pfn || procmaps_read(pid, 0, &maps) < 0)
		return;
	s->prep_files = self_target_files(&maps, &s->nprep);
	s->prep_ok = self_load(s, s->prep_files, s->nprep, NULL) == 0;
	procmaps_free(&maps);
}
