// SPDX-License-Identifier: GPL-2.0-or-later
/* pagecache.c — a file's cached pages and their cgroups (see
 * pagecache.h). */
#include "config.h"

#include "record/pagecache.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Pages mapped at a time (128 MiB of 4 KiB pages). */
#define SCAN_CHUNK (1u << 15)
/* At most this many kpagecgroup entries a pread, read through gaps of up
 * to CG_GAP frames: each entry read costs the kernel a look-up. */
#define CG_BLOCK 512
#define CG_GAP 8
#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* A frame to look up in kpagecgroup: its number and the page of the
 * chunk it holds. */
struct look {
	uint64_t pfn;
	uint32_t idx;
};

static int look_cmp(const void *a, const void *b)
{
	const struct look *x = a, *y = b;

	return (x->pfn > y->pfn) - (x->pfn < y->pfn);
}

/* The cgroups of the n frames of look[] into cg[look[i].idx], read
 * through fd sorted by frame, one pread for frames at most CG_GAP apart
 * (0 where a frame cannot be read). */
static void cg_lookup(int fd, struct look *look, size_t n, uint64_t *cg)
{
	uint64_t buf[CG_BLOCK];
	size_t i = 0;

	qsort(look, n, sizeof(*look), look_cmp);
	while (i < n) {
		uint64_t first = look[i].pfn;
		size_t j = i + 1, got;
		ssize_t r;

		while (j < n && look[j].pfn - look[j - 1].pfn <= CG_GAP &&
		       look[j].pfn - first < CG_BLOCK)
			j++;
		r = pread(fd, buf, (look[j - 1].pfn - first + 1) * 8,
			  (off_t)(first * 8));
		got = r > 0 ? (size_t)r / 8 : 0;
		for (; i < j; i++)
			cg[look[i].idx] = look[i].pfn - first < got
					      ? buf[look[i].pfn - first]
					      : 0;
	}
}

/* Add page (an index in the file) charged to cg to pf's runs. */
static void run_add(struct pagecache_file *pf, uint64_t page, uint64_t cg)
{
	struct md_cache_run *p = pf->nruns ? &pf->runs[pf->nruns - 1] : NULL;

	pf->cached++;
	if (p && p->cgroup == cg && p->page + p->npages == page &&
	    p->npages < UINT32_MAX) {
		p->npages++;
		return;
	}
	xgrow(&pf->runs, &pf->cap, pf->nruns + 1, sizeof(*pf->runs));
	pf->runs[pf->nruns++] =
	    (struct md_cache_run){.page = page, .cgroup = cg, .npages = 1};
}

/* Map the cached ones of the n pages at base (vec: mincore's answer) a
 * resident range at a time. */
static void populate(uint8_t *base, const unsigned char *vec, size_t n,
		     size_t ps)
{
	size_t i = 0;

	while (i < n) {
		size_t j;

		if (!(vec[i] & 1)) {
			i++;
			continue;
		}
		for (j = i; j < n && (vec[j] & 1); j++)
			;
		/* an error (the file cut short) leaves those pages out */
		madvise(base + i * ps, (j - i) * ps, MADV_POPULATE_READ);
		i = j;
	}
}

/* Scratch of a scan, for SCAN_CHUNK pages. */
struct scan_buf {
	unsigned char *vec; /* mincore */
	uint64_t *ent;	    /* pagemap entries, then cgroups */
	struct look *look;
};

/* Scan pages [first, first + n) of the file fd into pf. */
static int scan_chunk(int fd, int pm, int kpc, uint64_t first, size_t n,
		      size_t ps, struct scan_buf *sb, struct pagecache_file *pf)
{
	unsigned char *vec = sb->vec;
	uint64_t *ent = sb->ent;
	size_t nlook = 0;
	uint8_t *base;
	ssize_t r;
	int ret = 0;

	base =
	    mmap(NULL, n * ps, PROT_READ, MAP_SHARED, fd, (off_t)(first * ps));
	if (base == MAP_FAILED)
		return -errno;
	if (mincore(base, n * ps, vec) < 0) {
		ret = -errno;
		goto out;
	}
	populate(base, vec, n, ps);
	r = pread(pm, ent, n * 8, (off_t)((uintptr_t)base / ps * 8));
	if (r < 0) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		/* cached, as mincore said and the page table shows */
		if (!(vec[i] & 1) || (size_t)r < (i + 1) * 8 ||
		    !(ent[i] & PM_PRESENT)) {
			vec[i] = 0;
			continue;
		}
		sb->look[nlook++] =
		    (struct look){ent[i] & PM_PFN_MASK, (uint32_t)i};
		ent[i] = 0;
	}
	if (kpc >= 0)
		cg_lookup(kpc, sb->look, nlook, ent);
	for (size_t i = 0; i < n; i++)
		if (vec[i] & 1)
			run_add(pf, first + i, ent[i]);
out:
	munmap(base, n * ps);
	return ret;
}

int pagecache_scan(int fd, int kpagecgroup_fd, struct pagecache_file *pf)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct scan_buf sb;
	uint64_t npages;
	struct stat st;
	size_t n;
	int pm, ret = 0;

	pf->nruns = 0;
	pf->cached = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	pf->dev_major = major(st.st_dev);
	pf->dev_minor = minor(st.st_dev);
	pf->ino = st.st_ino;
	pf->size = (uint64_t)st.st_size;
	npages = (pf->size + ps - 1) / ps;
	if (!npages)
		return 0;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0)
		return -errno;
	n = (size_t)MIN(SCAN_CHUNK, npages);
	sb.vec = xmalloc(n);
	sb.ent = xmalloc(n * sizeof(*sb.ent));
	sb.look = xmalloc(n * sizeof(*sb.look));
	for (uint64_t p = 0; p < npages && !ret; p += SCAN_CHUNK)
		ret = scan_chunk(fd, pm, kpagecgroup_fd, p,
				 (size_t)MIN(SCAN_CHUNK, npages - p), ps, &sb,
				 pf);
	free(sb.look);
	free(sb.ent);
	free(sb.vec);
	close(pm);
	return ret;
}

void pagecache_release(struct pagecache_file *pf)
{
	if (!pf)
		return;
	free(pf->runs);
	memset(pf, 0, sizeof(*pf));
}
