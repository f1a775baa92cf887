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
/* kpagecgroup entries read at a time around a frame. */
#define CG_BLOCK 512
#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* A block of /proc/kpagecgroup read around the frames of a file, which
 * are often near each other. */
struct cg_cache {
	int fd;
	uint64_t first, n;        /* entries [first, first + n) */
	uint64_t v[CG_BLOCK];
};

/* The cgroup of frame pfn (0 when it cannot be read). */
static uint64_t cg_of(struct cg_cache *cc, uint64_t pfn)
{
	ssize_t r;

	if (cc->fd < 0 || !pfn)
		return 0;
	if (pfn < cc->first || pfn >= cc->first + cc->n) {
		r = pread(cc->fd, cc->v, sizeof(cc->v), (off_t)(pfn * 8));
		cc->first = pfn;
		cc->n = r > 0 ? (uint64_t)r / 8 : 0;
		if (!cc->n)
			return 0;
	}
	return cc->v[pfn - cc->first];
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
	pf->runs[pf->nruns++] = (struct md_cache_run){ .page = page,
						       .cgroup = cg,
						       .npages = 1 };
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

/* Scan pages [first, first + n) of the file fd into pf. */
static int scan_chunk(int fd, int pm, struct cg_cache *cc, uint64_t first,
		      size_t n, size_t ps, unsigned char *vec, uint64_t *ent,
		      struct pagecache_file *pf)
{
	uint8_t *base;
	ssize_t r;
	int ret = 0;

	base = mmap(NULL, n * ps, PROT_READ, MAP_SHARED, fd,
		    (off_t)(first * ps));
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
		    !(ent[i] & PM_PRESENT))
			continue;
		run_add(pf, first + i, cg_of(cc, ent[i] & PM_PFN_MASK));
	}
out:
	munmap(base, n * ps);
	return ret;
}

int pagecache_scan(int fd, int kpagecgroup_fd, struct pagecache_file *pf)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct cg_cache *cc;
	unsigned char *vec;
	uint64_t *ent, npages;
	struct stat st;
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
	cc = xcalloc(1, sizeof(*cc));
	cc->fd = kpagecgroup_fd;
	vec = xmalloc(SCAN_CHUNK);
	ent = xmalloc(SCAN_CHUNK * sizeof(*ent));
	for (uint64_t p = 0; p < npages && !ret; p += SCAN_CHUNK)
		ret = scan_chunk(fd, pm, cc, p,
				 (size_t)MIN(SCAN_CHUNK, npages - p), ps, vec,
				 ent, pf);
	free(ent);
	free(vec);
	free(cc);
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
