// SPDX-License-Identifier: GPL-2.0-or-later
/* pagecache.c — a file's cached pages and their cgroups (see
 * pagecache.h). */
#include "config.h"

#include "record/pagecache.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451 /* the same number on every architecture */
#endif

/* Pages mapped at a time (128 MiB of 4 KiB pages). */
#define SCAN_CHUNK (1u << 15)
/* At most this many kpagecgroup entries a pread, read through gaps of up
 * to CG_GAP frames: each entry read costs the kernel a look-up. */
#define CG_BLOCK 512
#define CG_GAP 8
/* A range of pages with cached ones is split in this many parts (of a
 * SCAN_CHUNK at least), each asked cachestat(2) again, unless it is at
 * most a SCAN_CHUNK or at least one page in DENSE is cached: then it is
 * mapped and asked mincore(2) whole. Below a chunk, splitting saves
 * little and costs a mapping per part: a 4 GiB file with one page in 17
 * cached took 3.5 times as long split down to 64 pages. */
#define FANOUT 16
#define DENSE 16
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

/* The jump out of a load that raised SIGBUS (the file cut short under
 * it), while populate() loads from [bus_lo, bus_hi); NULL otherwise. */
static __thread sigjmp_buf *volatile bus_jump;
static __thread const uint8_t *volatile bus_lo, *volatile bus_hi;
/* What SIGBUS did before populate() took it. */
static struct sigaction bus_old;

/* A SIGBUS the kernel raised for a load of populate() jumps out of it;
 * any other (sent by kill(2), a fault elsewhere) is given to what SIGBUS
 * did before (the default action: memsz dies by it), once this handler
 * returns (the signal is blocked in it). */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const uint8_t *a = si->si_addr;

	(void)uc;
	if (bus_jump && si->si_code > 0 && a >= bus_lo && a < bus_hi)
		siglongjmp(*bus_jump, 1);
	sigaction(sig, &bus_old, NULL);
	raise(sig);
}

/* Map the cached ones of the n pages at base (vec: mincore's answer) by
 * loading a byte of each: a fault maps the page (and its cached
 * neighbours) and marks none of them accessed. MADV_POPULATE_READ would
 * (get_user_pages' FOLL_TOUCH), and with the PTE young at munmap (the
 * mapping is VM_RAND_READ: not) a second time, which moved the pages
 * looked at from the inactive list to the active one. A load past the
 * end of the file (cut short meanwhile) raises SIGBUS: those pages are
 * left out. */
static void populate(const uint8_t *base, const unsigned char *vec, size_t n,
		     size_t ps)
{
	struct sigaction sa = {.sa_sigaction = on_sigbus,
			       .sa_flags = SA_SIGINFO};
	sigjmp_buf jump;
	volatile size_t i = 0;
	volatile uint8_t sink = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &bus_old) < 0)
		return;
	if (sigsetjmp(jump, 1))
		i = n; /* cut short: the rest is beyond its end too */
	bus_lo = base;
	bus_hi = base + n * ps;
	bus_jump = &jump;
	for (; i < n; i++)
		if (vec[i] & 1)
			sink += *(const volatile uint8_t *)(base + i * ps);
	bus_jump = NULL;
	sigaction(SIGBUS, &bus_old, NULL);
	(void)sink;
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
	/* no recency: unmapping a page whose PTE is young marks it accessed
	 * unless the mapping is VM_RAND_READ (Linux 6.3+); the scan must not
	 * change what reclaim takes */
	madvise(base, n * ps, MADV_RANDOM);
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

/* cachestat(2)'s arguments (linux/mman.h, 6.5+), for older headers. */
struct pc_cachestat_range {
	uint64_t off, len;
};
struct pc_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

/* A scan of one file: its descriptors, page size and scratch. */
struct scan {
	int fd, pm, kpc;
	size_t ps;
	struct scan_buf sb;
	struct pagecache_file *pf;
};

/* How many pages of [first, first + n) mincore(2) may find cached, as
 * cachestat(2) tells (what is cached, and for tmpfs the pages in the swap
 * cache, which are among the evicted ones), or -1 if it cannot tell
 * (before Linux 6.5). The kernel's walk costs only the pages cached in the
 * range, not its length. */
static int64_t cached_in(const struct scan *sc, uint64_t first, uint64_t n)
{
	struct pc_cachestat_range r = {first * sc->ps, n * sc->ps};
	struct pc_cachestat cs;

	if (syscall(__NR_cachestat, sc->fd, &r, &cs, 0) < 0)
		return -1;
	return (int64_t)MIN(cs.nr_cache + cs.nr_evicted, n);
}

/* Scan pages [first, first + n) SCAN_CHUNK at a time. */
static int scan_whole(struct scan *sc, uint64_t first, uint64_t n)
{
	int ret = 0;

	for (uint64_t p = first; p < first + n && !ret; p += SCAN_CHUNK)
		ret = scan_chunk(sc->fd, sc->pm, sc->kpc, p,
				 (size_t)MIN(SCAN_CHUNK, first + n - p), sc->ps,
				 &sc->sb, sc->pf);
	return ret;
}

/* Scan pages [first, first + n), skipping the parts cachestat(2) finds
 * nothing cached in: a sparse file of exabytes (tmpfs allows them, and
 * a process memsz records may hold one open) costs its cached pages, not
 * its length. Parts are visited in order, so runs stay sorted. */
static int scan_range(struct scan *sc, uint64_t first, uint64_t n)
{
	int64_t c = cached_in(sc, first, n);
	uint64_t part;
	int ret = 0;

	if (!c)
		return 0;
	if (c < 0 || n <= SCAN_CHUNK || (uint64_t)c >= n / DENSE)
		return scan_whole(sc, first, n);
	part = MAX((n + FANOUT - 1) / FANOUT, SCAN_CHUNK);
	for (uint64_t p = first; p < first + n && !ret; p += part)
		ret = scan_range(sc, p, MIN(part, first + n - p));
	return ret;
}

/* What mincore(2) says of a page a GiB or more past the end of the file
 * fd (st) that is never cached (no folio reaches that far): 1 if "not
 * cached", the truth; 0 if "cached", the answer it gives of every page
 * of a file it tells nothing of; -1 if it cannot be asked (the file not
 * mapped there). The kernel's own rule (can_do_mincore()), whatever makes
 * it (a user namespace's root without CAP_FOWNER over a file whose owner
 * it does not map, a read-only bind mount, fsuid, LSMs). */
static int mincore_probe(int fd, const struct stat *st, size_t ps)
{
	const off_t gib = (off_t)1 << 30;
	unsigned char v = 0;
	void *p;
	int ret;

	if (st->st_size > INT64_MAX / 2)
		return -1;
	p = mmap(NULL, ps, PROT_READ, MAP_SHARED, fd,
		 (st->st_size / gib + 2) * gib);
	if (p == MAP_FAILED)
		return -1;
	ret = mincore(p, ps, &v) < 0 ? -1 : !(v & 1);
	munmap(p, ps);
	return ret;
}

/* True if mincore(2) tells which pages of the file fd (st) are cached:
 * to a process that neither owns the file (nor has CAP_FOWNER over it)
 * nor may open it for writing, the kernel says every page is
 * (can_do_mincore(), Linux 5.0+: a side channel otherwise), and loading
 * them would read the whole file in. Asked of the kernel; where it cannot
 * be, a guess by the same rule. */
static bool mincore_tells(int fd, const struct stat *st, size_t ps)
{
	char link[64];
	int probe = mincore_probe(fd, st, ps);

	if (probe >= 0)
		return probe;
	if (!geteuid() || st->st_uid == geteuid())
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return !faccessat(AT_FDCWD, link, W_OK, AT_EACCESS);
}

int pagecache_scan(int fd, int kpagecgroup_fd, struct pagecache_file *pf)
{
	struct scan sc = {.fd = fd, .kpc = kpagecgroup_fd, .pf = pf};
	uint64_t npages;
	struct stat st;
	size_t n;
	int ret;

	sc.ps = (size_t)sysconf(_SC_PAGESIZE);
	pf->nruns = 0;
	pf->cached = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (!mincore_tells(fd, &st, sc.ps))
		return -EPERM;
	pf->dev_major = major(st.st_dev);
	pf->dev_minor = minor(st.st_dev);
	pf->ino = st.st_ino;
	pf->size = (uint64_t)st.st_size;
	npages = (pf->size + sc.ps - 1) / sc.ps;
	if (!npages)
		return 0;
	sc.pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (sc.pm < 0)
		return -errno;
	n = (size_t)MIN(SCAN_CHUNK, npages);
	sc.sb.vec = xmalloc(n);
	sc.sb.ent = xmalloc(n * sizeof(*sc.sb.ent));
	sc.sb.look = xmalloc(n * sizeof(*sc.sb.look));
	/* a file of one chunk is scanned as it is: asking first would
	 * only add a walk of its cached pages */
	ret = npages <= SCAN_CHUNK ? scan_whole(&sc, 0, npages)
				   : scan_range(&sc, 0, npages);
	free(sc.sb.look);
	free(sc.sb.ent);
	free(sc.sb.vec);
	close(sc.pm);
	return ret;
}

void pagecache_release(struct pagecache_file *pf)
{
	if (!pf)
		return;
	free(pf->runs);
	memset(pf, 0, sizeof(*pf));
}
