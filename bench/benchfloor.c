// SPDX-License-Identifier: GPL-2.0-or-later
/* benchfloor.c — the floor of a snapshot (see benchfloor.h): what the
 * benchmarks measure memsz's snapshots against. */
#include "config.h"

#include "bench/benchfloor.h"

#include "util/util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* PAGEMAP_SCAN (linux/fs.h, 6.7+), declared for older headers. */
struct kpc_region {
	uint64_t start, end, categories;
};
struct kpc_scan {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};
#define KPC_SCAN _IOWR('f', 16, struct kpc_scan)
#define KPC_PRESENT (1u << 3)
#define KPC_SWAPPED (1u << 4)
#define KPC_HUGE (1u << 6)
#define KPC_PMD (512ull * 4096) /* x86-64's PMD size */
#define KPC_VEC 4096
#define KPC_GAP 3    /* read a kpage file through gaps of this many frames */
#define KPC_HOLE 256 /* read pagemap through holes of fewer pages */
#define KPC_BLOCK (1u << 17) /* entries a pread reads at most (1 MiB) */
#define PM_PFN(e) ((e) & ((1ull << 55) - 1))
#define PM_PRESENT_BIT(e) ((e) >> 63 & 1)
#define PM_FILE_BIT(e) ((e) >> 61 & 1)
#define PM_EXCL_BIT(e) ((e) >> 56 & 1)

/* cachestat(2) (linux/mman.h, 6.5+), declared for older headers. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
struct kpc_cachestat_range {
	uint64_t off, len;
};
struct kpc_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

/* A list of PFNs to look up in one kpage file. */
struct kpc_list {
	uint64_t *v, *tmp;
	size_t n, cap;
};

/* The floor's state: the files it reads and the PFNs it looks up in
 * each, a kpage file's pread buffer and a pagemap one. */
struct kpc {
	int pm, kcount, kflags, kcgroup;
	struct kpc_list count, cgroup, flags;
	/* the address of each page of cgroup, for kpc_dirty */
	uint64_t *cgva;
	size_t cgva_cap;
	uint64_t buf[KPC_BLOCK];
};

static void kpc_push(struct kpc_list *l, uint64_t pfn)
{
	if (l->n == l->cap)
		xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = pfn;
}

/* The PFNs of the n pagemap entries e of the pages from va on: every
 * present page with a PFN that is not mapped exclusively into the
 * kpagecount list (its mapcount, for PSS), every file page into the
 * kpagecgroup one (who paid for it, for CHARGE; its address in cgva). An
 * exclusive anonymous page is looked up nowhere. */
static void kpc_entries(struct kpc *f, const uint64_t *e, size_t n, uint64_t va)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = e[i];

		if (!PM_PRESENT_BIT(x) || !PM_PFN(x))
			continue;
		if (!PM_EXCL_BIT(x))
			kpc_push(&f->count, PM_PFN(x));
		if (PM_FILE_BIT(x)) {
			kpc_push(&f->cgroup, PM_PFN(x));
			xgrow(&f->cgva, &f->cgva_cap, f->cgroup.n,
			      sizeof(*f->cgva));
			f->cgva[f->cgroup.n - 1] = va + i * 4096;
		}
	}
}

/* Read the pagemap entries of [a, b) in preads of at most KPC_BLOCK
 * entries and list their PFNs (kpc_entries). */
static void kpc_span(struct kpc *f, uint64_t a, uint64_t b)
{
	static uint64_t e[KPC_BLOCK];

	while (a < b) {
		size_t k = MIN((b - a) / 4096, (uint64_t)KPC_BLOCK);

		if (pread(f->pm, e, k * 8, (off_t)(a / 4096 * 8)) !=
		    (ssize_t)(k * 8))
			return;
		kpc_entries(f, e, k, a);
		a += k * 4096;
	}
}

/* Whether the huge page of pagemap entry e, which pagemap calls
 * exclusive, is: a file one is taken as pagemap says; an anonymous one
 * only while its first page has PG_anon_exclusive (kpageflags' bit 34),
 * one 8-byte kpageflags read, as memsz reads it (pagemap gives every
 * page its first page's exclusive bit: kpage_pmd_maybe_shared). */
static bool kpc_huge_excl(struct kpc *f, uint64_t e)
{
	uint64_t pfn = PM_PFN(e), x = 0;

	if (PM_FILE_BIT(e) || !pfn || f->kflags < 0)
		return true;
	pfn -= pfn % (KPC_PMD / 4096);
	return pread(f->kflags, &x, 8, (off_t)(pfn * 8)) == 8 && (x >> 34 & 1);
}

/* The region [a, b) of huge pages a PMD maps: one pread of two entries
 * (the last page of one, the first of the next: a huge page's entries
 * differ in their PFN only) per two huge pages. One mapped exclusively
 * (kpc_huge_excl) is one entry (its mapcount is 1; its folio's cgroup is
 * its first page's); any other is read whole (kpc_span), its pages'
 * mapcounts differing. */
static void kpc_huge(struct kpc *f, uint64_t a, uint64_t b)
{
	for (uint64_t h = a; h < b; h += 2 * KPC_PMD) {
		uint64_t e[2] = {0, 0}, two = h + KPC_PMD < b;
		uint64_t off = two ? (h + KPC_PMD) / 4096 - 1 : h / 4096;

		if (pread(f->pm, e, (two + 1) * 8, (off_t)(off * 8)) !=
		    (ssize_t)((two + 1) * 8))
			return;
		for (uint64_t k = 0; k <= two; k++)
			if (PM_EXCL_BIT(e[k]) && kpc_huge_excl(f, e[k]))
				kpc_entries(f, &e[k], 1, h + k * KPC_PMD);
			else
				kpc_span(f, h + k * KPC_PMD,
					 MIN(h + (k + 1) * KPC_PMD, b));
	}
}

/* Sort l by PFN: a least-significant-digit radix sort of 16-bit digits
 * over the bits the largest PFN has, unless it already rises. */
static void kpc_sort(struct kpc_list *l)
{
	static uint32_t cnt[1 << 16];
	uint64_t mx = 0, *src = l->v, *dst, *t;
	size_t i;

	for (i = 1; i < l->n && l->v[i] >= l->v[i - 1]; i++)
		;
	if (i >= l->n)
		return;
	for (i = 0; i < l->n; i++)
		mx = MAX(mx, l->v[i]);
	l->tmp = xrealloc(l->tmp, l->cap * sizeof(*l->tmp));
	dst = l->tmp;
	for (unsigned sh = 0; sh < 64 && mx >> sh; sh += 16) {
		uint32_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < l->n; i++)
			cnt[src[i] >> sh & 0xffff]++;
		for (i = 0; i < 1 << 16; i++) {
			uint32_t k = cnt[i];

			cnt[i] = sum;
			sum += k;
		}
		for (i = 0; i < l->n; i++)
			dst[cnt[src[i] >> sh & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	l->v = src;
	l->tmp = dst;
}

/* Read kpage file fd for the PFNs of l, sorted: one pread per run of
 * frames closer than KPC_GAP, at most KPC_BLOCK entries; returns the sum
 * of the values read (so that nothing is optimised away). */
static uint64_t kpc_read(struct kpc *f, struct kpc_list *l, int fd)
{
	uint64_t sum = 0;

	kpc_sort(l);
	for (size_t i = 0, j; i < l->n; i = j) {
		uint64_t first = l->v[i];

		for (j = i + 1; j < l->n && l->v[j] - l->v[j - 1] <= KPC_GAP &&
				l->v[j] - first < KPC_BLOCK;
		     j++)
			;
		if (pread(fd, f->buf, (l->v[j - 1] - first + 1) * 8,
			  (off_t)(first * 8)) < 0)
			exit(1);
		for (size_t k = i; k < j; k++)
			sum += f->buf[l->v[k] - first];
	}
	l->n = 0;
	return sum;
}

/* cachestat(2) is asked about at most this many bytes of a file at a
 * time: one call over a whole 8 GiB file half cached costs ~20% more CPU
 * than calls over its 64 MiB pieces on a loaded machine (measured: a
 * long walk of the page cache is interrupted and resumed more often). */
#define KPC_CACHESTAT_BYTES (64ull << 20)

/* cachestat(2) of fd for [off, off + len): its dirty pages, or
 * UINT64_MAX if it cannot be asked. */
static uint64_t kpc_nr_dirty(int fd, uint64_t off, uint64_t len)
{
	struct kpc_cachestat_range r = {off, len};
	struct kpc_cachestat cs;

	return syscall(__NR_cachestat, fd, &r, &cs, 0) ? UINT64_MAX
						       : cs.nr_dirty;
}

/* The cgroup list's pages [i, j) of a mapping at lo (file offset off of
 * the file fd), d dirty pages where they lie: into the kpageflags list,
 * but those of pieces cachestat(2) finds clean, cut by the same rule as
 * memsz's (record/snap_clean.c span_split: 4 a dirty page, of at least 32
 * pages each, a dirty one cut again). Not in the same places in general:
 * this cuts by the position of the file pages within each 64 MiB of
 * address range (kpc_dirty), memsz by the position of the look-ups within
 * each chunk's spans. For the bench's own file layouts they agree: every
 * other page cached from the mapping's start, each 64 MiB here is a
 * chunk of memsz's (CHUNK_PAGES), its file pages one span. */
static void kpc_pieces(struct kpc *f, int fd, uint64_t lo, uint64_t off,
		       size_t i, size_t j, uint64_t d)
{
	size_t n = j - i, k;

	if (d > n / 32 / 4) {
		for (; i < j; i++)
			kpc_push(&f->flags, f->cgroup.v[i]);
		return;
	}
	k = (size_t)d * 4;
	for (size_t p = 0; p < k; p++) {
		size_t i0 = i + n * p / k, i1 = i + n * (p + 1) / k;
		uint64_t a, dd;

		if (i0 == i1)
			continue;
		a = f->cgva[i0];
		dd = kpc_nr_dirty(fd, off + (a - lo),
				  f->cgva[i1 - 1] + 4096 - a);
		if (dd)
			kpc_pieces(f, fd, lo, off, i0, i1, dd);
	}
}

/* After file mapping [lo, hi) of pid (file offset off, inode ino) was
 * read, its file pages' PFNs from cgroup entry first on, which the span
 * [a, b) of it holds: those of each 64 MiB of it where cachestat(2)
 * finds a dirty page in the part of the file it maps (all, if it cannot
 * be asked: no inode, the file not openable) are listed for kpageflags
 * too (PG_dirty: Shared_Dirty, Private_Dirty), but those of pieces of it
 * found clean (kpc_pieces), as memsz asks; the others are clean. */
static void kpc_dirty(struct kpc *f, pid_t pid, uint64_t lo, uint64_t hi,
		      uint64_t off, uint64_t ino, size_t first, uint64_t a,
		      uint64_t b)
{
	char path[96];
	int fd = -1;
	size_t i = first, j;

	if (f->cgroup.n == first)
		return;
	if (ino) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx",
			 (int)pid, (unsigned long)lo, (unsigned long)hi);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	for (uint64_t o = a; o < b && i < f->cgroup.n;
	     o += KPC_CACHESTAT_BYTES, i = j) {
		uint64_t e = MIN(o + KPC_CACHESTAT_BYTES, b), d;

		for (j = i; j < f->cgroup.n && f->cgva[j] < e; j++)
			;
		if (j == i)
			continue;
		d = fd < 0 ? UINT64_MAX
			   : kpc_nr_dirty(fd, off + (o - lo), e - o);
		if (d)
			kpc_pieces(f, fd, lo, off, i, j, d);
	}
	if (fd >= 0)
		close(fd);
}

/* PAGEMAP_SCAN [s, e) of a mapping; read what it finds: a PMD's huge
 * pages by kpc_huge, the other regions in one pread through holes
 * shorter than KPC_HOLE pages, at most 1 MiB. Widens [*a, *b) to the
 * regions found; returns their pages, and in *huge whether one was a
 * huge page. */
static uint64_t kpc_scan(struct kpc *f, uint64_t s, uint64_t e, uint64_t *a,
			 uint64_t *b, bool *huge)
{
	static struct kpc_region vec[KPC_VEC];
	uint64_t pages = 0;

	while (s < e) {
		struct kpc_scan q = {
		    .size = sizeof(q),
		    .start = s,
		    .end = e,
		    .vec = (uintptr_t)vec,
		    .vec_len = KPC_VEC,
		    .category_anyof_mask = KPC_PRESENT | KPC_SWAPPED,
		    .return_mask = KPC_PRESENT | KPC_SWAPPED | KPC_HUGE,
		};
		long r = ioctl(f->pm, KPC_SCAN, &q);

		if (r < 0)
			break;
		for (long k = 0, g; k < r; k = g) {
			if (vec[k].categories & KPC_HUGE) {
				kpc_huge(f, vec[k].start, vec[k].end);
				*huge = true;
				g = k + 1;
			} else {
				for (g = k + 1;
				     g < r && !(vec[g].categories & KPC_HUGE) &&
				     vec[g].start - vec[g - 1].end <
					 KPC_HOLE * 4096ull &&
				     vec[g].end - vec[k].start <=
					 KPC_BLOCK * 4096ull;
				     g++)
					;
				kpc_span(f, vec[k].start, vec[g - 1].end);
			}
			for (long i = k; i < g; i++)
				pages += (vec[i].end - vec[i].start) / 4096;
			*a = MIN(*a, vec[k].start);
			*b = MAX(*b, vec[g - 1].end);
		}
		if (q.walk_end <= s)
			break;
		s = q.walk_end;
	}
	return pages;
}

/* Read mapping [lo, hi): its first KPC_SAMPLE pages by kpc_scan; the
 * rest by kpc_scan too if that sample was sparse (under 1/8 of its pages
 * present or swapped) or held a huge page, else read whole in 1 MiB
 * preads (a dense mapping's scan would only add to its pagemap read).
 * Sets [*a, *b) to the span holding its pages (*a >= *b: none). */
#define KPC_SAMPLE (1ull << 14)
static void kpc_mapping(struct kpc *f, uint64_t lo, uint64_t hi, uint64_t *a,
			uint64_t *b)
{
	uint64_t mid = MIN(hi, lo + KPC_SAMPLE * 4096);
	bool huge = false;
	uint64_t got;

	*a = hi;
	*b = lo;
	got = kpc_scan(f, lo, mid, a, b, &huge);
	if (mid == hi)
		return;
	if (huge || got * 8 < (mid - lo) / 4096) {
		kpc_scan(f, mid, hi, a, b, &huge);
		return;
	}
	kpc_span(f, mid, hi);
	*a = MIN(*a, mid);
	*b = hi;
}

uint64_t bench_floor(pid_t pid)
{
	static struct kpc f;
	uint64_t sum;
	unsigned long lo, hi, off, ino;
	char path[64], line[512];
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	f.pm = open(path, O_RDONLY);
	f.kcount = open("/proc/kpagecount", O_RDONLY);
	f.kflags = open("/proc/kpageflags", O_RDONLY);
	f.kcgroup = open("/proc/kpagecgroup", O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	if (f.pm < 0 || f.kcount < 0 || f.kflags < 0 || f.kcgroup < 0 || !maps)
		exit(1);
	while (fgets(line, sizeof(line), maps)) {
		size_t first = f.cgroup.n;
		uint64_t a, b;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &lo, &hi, &off,
			   &ino) != 4)
			continue;
		kpc_mapping(&f, lo, hi, &a, &b);
		if (a < b)
			kpc_dirty(&f, pid, lo, hi, off, ino, first, a, b);
	}
	fclose(maps);
	sum = kpc_read(&f, &f.count, f.kcount);
	sum += kpc_read(&f, &f.cgroup, f.kcgroup);
	sum += kpc_read(&f, &f.flags, f.kflags);
	close(f.pm);
	close(f.kcount);
	close(f.kflags);
	close(f.kcgroup);
	return sum;
}

/* CPU time of this process, every thread, in seconds. */
static double parts_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* PAGEMAP_SCAN [s, e) of pm for present or swapped pages: append the
 * regions found to *v (*n of them, *cap allocated). */
static void parts_scan(int pm, uint64_t s, uint64_t e, struct kpc_region **v,
		       size_t *n, size_t *cap)
{
	while (s < e) {
		struct kpc_scan q = {
		    .size = sizeof(q),
		    .start = s,
		    .end = e,
		    .category_anyof_mask = KPC_PRESENT | KPC_SWAPPED,
		    .return_mask = KPC_PRESENT | KPC_SWAPPED | KPC_HUGE,
		};
		long r;

		if (*cap - *n < KPC_VEC) {
			*cap = *cap * 2 + KPC_VEC;
			*v = xrealloc(*v, *cap * sizeof(**v));
		}
		q.vec = (uintptr_t)(*v + *n);
		q.vec_len = KPC_VEC;
		r = ioctl(pm, KPC_SCAN, &q);
		if (r < 0)
			break; /* [vsyscall]: not in the page tables */
		*n += (size_t)r;
		if (q.walk_end <= s)
			break;
		s = q.walk_end;
	}
}

/* bench_floor_parts reads at most this many mappings (a bench child has
 * ~25). */
#define PARTS_MAPS 256

uint64_t bench_floor_parts(pid_t pid, int runs, double *scan, double *preads)
{
	static struct kpc f;
	struct kpc_region *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t lo[PARTS_MAPS], hi[PARTS_MAPS], sum = 0;
	size_t nmap = 0;
	char path[64], line[512];
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	f.pm = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	if (f.pm < 0 || !maps)
		exit(1);
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &lo[nmap],
			   &hi[nmap]) != 2)
			continue;
		if (++nmap == PARTS_MAPS)
			exit(1);
	}
	fclose(maps);
	*scan = *preads = 1e9;
	for (int r = 0; r < runs; r++) {
		double c = parts_cpu();

		n = 0;
		for (size_t m = 0; m < nmap; m++)
			parts_scan(f.pm, lo[m], hi[m], &v, &n, &cap);
		*scan = MIN(*scan, parts_cpu() - c);
		c = parts_cpu();
		for (size_t k = 0, g; k < n; k = g) {
			for (g = k + 1;
			     g < n &&
			     v[g].start - v[g - 1].end < KPC_HOLE * 4096ull &&
			     v[g].end - v[k].start <= KPC_BLOCK * 4096ull;
			     g++)
				;
			/* a region longer than the buffer: its start */
			if (pread(f.pm, f.buf,
				  MIN((v[g - 1].end - v[k].start) / 512,
				      sizeof(f.buf)),
				  (off_t)(v[k].start / 512)) < 8)
				exit(1);
			sum += f.buf[0];
		}
		*preads = MIN(*preads, parts_cpu() - c);
	}
	free(v);
	close(f.pm);
	return sum;
}
