// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_clean.c — which file pages of a snapshot's chunk need no kpageflags
 * look-up: cachestat(2) finds no dirty page where they lie (see
 * kpage_file_clean in snap_kpage.h). */
#include "config.h"

#include "record/snap_kpage.h"

#include "record/snap_images.h"
#include "util/util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451 /* the same number on every architecture */
#endif

/* cachestat(2)'s arguments (linux/mman.h, 6.5+), for older headers. */
struct snap_cachestat_range {
	uint64_t off, len;
};
struct snap_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

/* A span of the task's file pages to look up, [a, b) in pages from its
 * first page, is ended where the next lies more than this many pages on:
 * a cachestat(2) call costs about as much as walking that many cached
 * pages (30-100 ns each, see CLEAN_PAGES_PER_LOOKUP). */
#define CLEAN_SPAN_GAP 16

/* Walks the file pages to look up of the task c holds, by span: the
 * nlook keys of c->look are in page order as kpage_prepass lists them
 * (kpage_fill sorts them by PFN only later). */
struct clean_spans {
	const struct snap_ctx *c;
	size_t i, n;
	size_t pages; /* file pages to look up seen so far */
};

/* The next span into [*a, *b); false after the last. */
static bool span_next(struct clean_spans *it, uint64_t *a, uint64_t *b)
{
	const struct snap_ctx *c = it->c;
	bool have = false;

	for (; it->i < it->n; it->i++) {
		uint32_t idx = LOOK_IDX(c->look[it->i]);
		uint64_t o = c->packed ? c->off[idx] : idx;

		if (!(c->pm[idx] & PM_FILE))
			continue;
		if (have && o > *b + CLEAN_SPAN_GAP)
			break;
		if (!have)
			*a = o;
		have = true;
		*b = o + (c->weighted ? c->w[idx] : 1);
		it->pages++;
	}
	return have;
}

/* Whether asking cachestat(2) about the spans of the task's file pages
 * to look up pays for the walk: the cached pages of the spans, and a
 * call's worth more for each, at most CLEAN_PAGES_PER_LOOKUP a page to
 * look up. */
static bool spans_pay(const struct snap_ctx *c, size_t nlook)
{
	struct clean_spans it = {c, 0, nlook, 0};
	uint64_t a, b, cost = 0;

	while (span_next(&it, &a, &b))
		cost += b - a + CLEAN_SPAN_GAP;
	return it.pages && cost <= (uint64_t)it.pages * CLEAN_PAGES_PER_LOOKUP;
}

/* cachestat(2) of the file fd for [off, off + len) (len 0: to its end):
 * its dirty pages, or UINT64_MAX if it cannot be asked. */
static uint64_t range_dirty(int fd, uint64_t off, uint64_t len)
{
	struct snap_cachestat_range r = {off, len};
	struct snap_cachestat cs;

	return syscall(__NR_cachestat, fd, &r, &cs, 0) == 0 ? cs.nr_dirty
							    : UINT64_MAX;
}

/* cachestat(2) of the file fd for [off, off + len): true if no page of it
 * is dirty. */
static bool range_clean(int fd, uint64_t off, uint64_t len)
{
	return range_dirty(fd, off, len) == 0;
}

/* A span cachestat(2) found d dirty pages in (of its file, mapped or not;
 * a dirty large folio counts each of its pages) is cut into
 * CLEAN_SPLIT_PER_DIRTY * d pieces of as many look-ups each, asked again,
 * when they have at least CLEAN_PIECE_MIN look-ups each: then at least
 * 3/4 of them are clean, and their kpageflags look-ups saved (a pread
 * entry, ~50 ns, and its share of the sort) pay for the second walk of the
 * span's cached pages (30-100 ns each; over every piece together, about
 * the span's) and the calls; a dirty piece is cut again the same way.
 * Dirty pages denser (1 in 8 cached pages: ~10% more CPU for the snapshot
 * cut in pieces, none clean) are looked up as before. */
#define CLEAN_SPLIT_PER_DIRTY 4
#define CLEAN_PIECE_MIN 32

/* The file page offsets [*a, *b) (from the task's first page) of the
 * file pages among positions [i0, i1) of c->look (in page order); false
 * if none is a file page. */
static bool look_span(const struct snap_ctx *c, size_t i0, size_t i1,
		      uint64_t *a, uint64_t *b)
{
	bool have = false;

	for (size_t i = i0; i < i1; i++) {
		uint32_t idx = LOOK_IDX(c->look[i]);
		uint64_t o = c->packed ? c->off[idx] : idx;

		if (!(c->pm[idx] & PM_FILE))
			continue;
		if (!have)
			*a = o;
		have = true;
		*b = o + (c->weighted ? c->w[idx] : 1);
	}
	return have;
}

/* Mark the file pages among positions [i0, i1) of c->look PM_CLEAN. */
static void look_mark_clean(struct snap_ctx *c, size_t i0, size_t i1)
{
	for (size_t i = i0; i < i1; i++) {
		uint32_t idx = LOOK_IDX(c->look[i]);

		if (c->pm[idx] & PM_FILE)
			c->pm[idx] |= PM_CLEAN;
	}
}

/* Positions [i0, i1) of c->look, a part of the task's file pages that
 * cachestat(2) found dirty pages in: cut into pieces when that pays (see
 * CLEAN_SPLIT_PER_DIRTY), each asked; the file pages of a clean one are
 * marked PM_CLEAN, a dirty one is cut again. */
static void span_split(struct snap_ctx *c, size_t i0, size_t i1, uint64_t dirty,
		       int fd, uint64_t off0, unsigned shift)
{
	size_t n = i1 - i0, k;

	if (dirty > n / CLEAN_PIECE_MIN / CLEAN_SPLIT_PER_DIRTY)
		return;
	k = (size_t)dirty * CLEAN_SPLIT_PER_DIRTY;
	for (size_t p = 0; p < k; p++) {
		size_t j0 = i0 + n * p / k, j1 = i0 + n * (p + 1) / k;
		uint64_t a, b, d;

		if (!look_span(c, j0, j1, &a, &b))
			continue;
		d = range_dirty(fd, off0 + (a << shift), (b - a) << shift);
		if (!d)
			look_mark_clean(c, j0, j1);
		else
			span_split(c, j0, j1, d, fd, off0, shift);
	}
}

/* True if no span of the task's file pages to look up (the task's first
 * page at file offset off0) has a dirty page in the file fd. Else the
 * file pages of the spans without one are marked PM_CLEAN, and those of
 * pieces without one of a span with a few (span_split). */
static bool spans_clean(struct snap_ctx *c, size_t nlook, int fd, uint64_t off0,
			unsigned shift)
{
	struct clean_spans it = {c, 0, nlook, 0};
	uint64_t a, b, d;
	bool clean = true;

	for (size_t i0 = 0; span_next(&it, &a, &b); i0 = it.i) {
		d = range_dirty(fd, off0 + (a << shift), (b - a) << shift);
		if (d && clean) {
			/* the spans before were clean */
			clean = false;
			look_mark_clean(c, 0, i0);
		}
		if (!d && !clean)
			look_mark_clean(c, i0, it.i);
		else if (d)
			span_split(c, i0, it.i, d, fd, off0, shift);
	}
	return clean;
}

enum kpage_clean kpage_file_clean(const struct snap_job *j, struct snap_ctx *c,
				  size_t k, size_t nlook, bool whole)
{
	const struct snap_task *t = &j->tasks[k];
	const struct procmap *m = &j->maps->maps[t->vma];
	unsigned shift = j->s->page_shift;
	uint64_t off0 = m->pgoff + (t->first << shift);
	enum kpage_clean ret;
	struct stat st;
	char path[80];
	uint64_t size;
	bool own;
	int fd;
	/* the spans' walk pays for itself */
	bool range = spans_pay(c, nlook);

	if (!m->ino || !m->dev_major || (m->vmflags & PROCMAP_VM_HUGETLB) ||
	    (!whole && !range))
		return KPAGE_CLEAN_UNKNOWN;
	/* the file the image registry opened in this snapshot, if it did */
	fd = snap_images_fd(j->s, m, &size);
	own = fd < 0;
	if (own) {
		snprintf(path, sizeof(path),
			 "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, j->pid,
			 m->start, m->end);
		/* the target may map a device node here: not opened, nor
		 * blocked on */
		fd = open_regular_at(AT_FDCWD, path, &st);
		if (fd < 0)
			return KPAGE_CLEAN_UNKNOWN;
		size = (uint64_t)st.st_size;
	}
	if (whole && size <= CLEAN_WHOLE_MAX_BYTES &&
	    (uint64_t)nlook * CLEAN_PAGES_PER_LOOKUP >= size >> shift)
		ret = range_clean(fd, 0, 0) ? KPAGE_CLEAN_FILE
					    : KPAGE_CLEAN_UNKNOWN;
	else if (range)
		ret = spans_clean(c, nlook, fd, off0, shift)
			  ? KPAGE_CLEAN_RANGE
			  : KPAGE_CLEAN_UNKNOWN;
	else /* too few look-ups to pay for the walk: a later task of the
	      * file, with more, may ask it whole */
		ret = whole && size <= CLEAN_WHOLE_MAX_BYTES
			  ? KPAGE_CLEAN_UNASKED
			  : KPAGE_CLEAN_UNKNOWN;
	if (own)
		close(fd);
	return ret;
}
