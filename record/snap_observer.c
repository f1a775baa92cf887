// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_observer.c — memsz's own pages of the files a target maps (see
 * snap_observer.h): /proc/self/maps and /proc/self/pagemap into a hash
 * set of PFNs.
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
	if (ret < 0)
		goto out;
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
		ok = s->prep_ok;
	else
		ok = self_load(s, files, n, pm >= 0 ? &t : NULL) == 0;
	free(files);
	free(s->prep_files);
	s->prep_files = NULL;
	return ok;
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
