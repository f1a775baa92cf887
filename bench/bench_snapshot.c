// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_snapshot.c — one residency snapshot beside one read of the same
 * process's /proc/PID/smaps (what `cat /proc/PID/smaps` costs: read(2)
 * until the end, nothing parsed), in the same run, for page layouts of
 * one large mapping, and the size of memsz.data per mapped page.
 * usage: bench_snapshot [MAPPED_GIB [RESIDENT_GIB [RUNS [LAYOUT [DIR]]]]]
 * (defaults 16, 4, 5, all, /tmp; LAYOUT 0-9 runs one of the layouts
 * below; DIR is where the snapshot's file is written: its create costs
 * what that file system charges, on ext4 24-43 us a create and rename,
 * more in a directory where this bench has just deleted thousands, on
 * tmpfs ~14 us).
 * A child maps MAPPED_GIB of anonymous memory (no THP) and touches about
 * RESIDENT_GIB of it in one layout:
 *   contiguous   the first RESIDENT_GIB
 *   every 2nd    every other page of the first 2 * RESIDENT_GIB (the
 *                worst layout: no two resident pages adjacent)
 *   every 4th    every fourth page
 *   random 25%   each page with probability 1/4, over the whole mapping
 *   1 page/2 MiB one page in each 2 MiB of the whole mapping (sparse)
 *   20 TiB reserve a 20 TiB MAP_NORESERVE mapping, untouched (the
 *                mapping's size is not MAPPED_GIB)
 *   THP contig.  the first RESIDENT_GIB, with MADV_HUGEPAGE
 *   file, half   a shared read-only mapping of a 2 * RESIDENT_GIB file
 *                (sparse, its cache dropped first, MADV_RANDOM) of which
 *                every other page is read: half of it cached and mapped,
 *                file pages whose dirtiness a snapshot must know
 *   fork, 3 ch.  the first RESIDENT_GIB, then 3 children forked that
 *                share every page copy-on-write (mapcount 4: PSS needs a
 *                kpagecount look-up per page)
 *   fork, scattered  the same, its pages touched in an order that
 *                jumps, so that neighbouring pages get frames far apart,
 *                as on a machine up for a while (its frames then lie
 *                scattered: 4 GiB touched in order after 22 hours up
 *                here took ~3.7 look-ups a pread sorted chunk by chunk)
 * (a span larger than the mapping is cut to it). Every layout also times
 * its floor: the fastest look-up of the same columns this bench can write
 * with the interfaces memsz must use (time_kpc: PAGEMAP_SCAN, the pagemap
 * entries of what it finds, one pread per two huge pages a PMD maps,
 * kpagecount for pages not mapped exclusively, kpagecgroup for file
 * pages, kpageflags only where cachestat(2) finds dirty pages, each kpage
 * file sorted once for the whole process and read in one pread per run
 * of nearby frames; nothing classified, encoded or written) and prints
 * memsz / floor and floor / smaps. Each time is the
 * best of RUNS runs, as wall time and as CPU time of every thread (the snapshot
 * reads pagemap on several threads; CPU time is what a loaded machine
 * shows best); the snapshot is timed writing a fresh file (the previous one
 * is removed before the clock starts), opened as a one-shot of record
 * opens it (unnamed, linked in at its end: MD_WRITER_UNNAMED). Bits per mapped
 * page count the whole file over every mapping of the process; "v1" is what the
 * same runs took in format version 1 (24 bytes a run). The snapshot knows the
 * process's memory cgroup, as record does. */
#include "config.h"

#include "data/datafile.h"
#include "record/memcg.h"
#include "record/snapshot.h"
#include "util/util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchutil.h"

enum layout {
	CONTIGUOUS,
	EVERY2,
	EVERY4,
	RANDOM25,
	SPARSE2M,
	RESERVE,
	THP,
	FILEHALF,
	FORK,
	FORK_SCATTERED,
	LAYOUT_COUNT
};

static const char *const layout_names[] = {
    "contiguous",     "every 2nd page",	 "every 4th page", "random 25%",
    "1 page / 2 MiB", "20 TiB reserve",	 "THP contig.",	   "file, half",
    "fork, 3 ch.",    "fork, scattered",
};

/* Children the fork layout forks. */
#define FORK_CHILDREN 3

/* The size of the mapping of the reservation layout: what sanitizers,
 * JVMs and Go reserve, untouched. */
#define RESERVE_BYTES (20ull << 40)

/* CPU time (user + system) of this process, every thread. */
static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Wall and CPU time of one measured call. */
struct cost {
	double wall, cpu;
};

/* Touch the pages of layout l in a[0, len); resident is the target. */
static void touch(char *a, size_t len, size_t resident, enum layout l)
{
	size_t pg = 4096, npages = len / pg, i;
	uint64_t x = 88172645463325252ull;

	switch (l) {
	case CONTIGUOUS:
		for (i = 0; i < MIN(resident, len); i += pg)
			a[i] = 1;
		break;
	case EVERY2:
	case EVERY4: {
		size_t step = l == EVERY2 ? 2 : 4;
		size_t span = MIN(npages, resident / pg * step);

		for (i = 0; i < span; i += step)
			a[i * pg] = 1;
		break;
	}
	case SPARSE2M:
		for (i = 0; i < npages; i += 512)
			a[i * pg] = 1;
		break;
	case RESERVE:
	case FILEHALF:
		break;
	case THP:
	case FORK:
		for (i = 0; i < MIN(resident, len); i += pg)
			a[i] = 1;
		break;
	case FORK_SCATTERED: {
		/* the same pages in an order that jumps (an odd stride
		 * modulo a power of two visits each page once): pages
		 * next to each other get frames far apart */
		size_t n =
		    (size_t)1
		    << (63 - __builtin_clzll(MAX(MIN(resident, len) / pg, 1)));

		for (i = 0; i < n; i++)
			a[(i * 0x9e3779b1ull & (n - 1)) * pg] = 1;
		break;
	}
	default:
		for (i = 0; i < npages; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (x % 4 == 0)
				a[i * pg] = 1;
		}
		break;
	}
}

/* The file layout: map a sparse file of 2 * resident bytes (its cache
 * dropped, so that only what is read is cached) and read every other
 * page of it. The file is unlinked at once; the mapping keeps it. */
static char *map_file_half(size_t resident)
{
	char path[] = "/var/tmp/memsz-bench-file-XXXXXX";
	size_t len = 2 * resident, pg = 4096;
	volatile char sum = 0;
	int fd = mkstemp(path);
	char *a;

	if (fd < 0 || ftruncate(fd, (off_t)len))
		_exit(1);
	unlink(path);
	posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
	a = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		_exit(1);
	/* no read-ahead: a fault reads and maps its own page only */
	madvise(a, len, MADV_RANDOM);
	for (size_t i = 0; i < len; i += 2 * pg)
		sum += a[i];
	close(fd);
	return a;
}

static pid_t spawn(size_t len, size_t resident, enum layout l)
{
	int fd[2];
	char c;
	pid_t pid;

	if (pipe(fd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		char *a;

		/* its own group, which the fork layout's children join:
		 * killed together */
		setpgid(0, 0);
		if (l == FILEHALF) {
			a = map_file_half(resident);
		} else {
			a = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
			if (a == MAP_FAILED)
				_exit(1);
			madvise(a, len,
				l == THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
			touch(a, len, resident, l);
		}
		for (int k = 0;
		     (l == FORK || l == FORK_SCATTERED) && k < FORK_CHILDREN;
		     k++)
			if (fork() == 0) {
				pause();
				_exit(0);
			}
		if (write(fd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &c, 1) != 1)
		exit(1);
	close(fd[0]);
	return pid;
}

/* Read /proc/PID/smaps to its end, as cat does. */
static struct cost time_smaps(pid_t pid, size_t *bytes)
{
	static char buf[1 << 16];
	char path[64];
	double c0 = cpu(), t0 = bench_now();
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		exit(1);
	*bytes = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*bytes += (size_t)n;
	close(fd);
	return (struct cost){bench_now() - t0, cpu() - c0};
}

/* The inode of pid's memory cgroup, as record finds it (pages charged
 * to it are the process's own: no charge runs), or 0. */
static uint64_t cgroup_ino(pid_t pid)
{
	struct memcg_mounts mm;
	struct stat st;
	char *dir = NULL;
	uint64_t ino = 0;

	if (memcg_mounts_read(&mm) == 0 &&
	    memcg_dir_of_pid((int)pid, &mm, &dir) == 0 && stat(dir, &st) == 0)
		ino = st.st_ino;
	free(dir);
	return ino;
}

static struct cost time_snapshot(pid_t pid, const char *out,
				 struct snap_stats *st)
{
	struct md_writer *w;
	struct snapper *s;
	char *old = xasprintf("%s.old", out);
	double t0, c0;
	int ret;

	/* freeing the previous file's pages is not the snapshot's cost */
	unlink(out);
	unlink(old);
	free(old);
	c0 = cpu();
	t0 = bench_now();
	/* opened as record --duration 0 opens its file */
	if (md_writer_open_flags(out, MD_WRITER_BATCH | MD_WRITER_UNNAMED,
				 &w) ||
	    snapper_new(w, &s))
		exit(1);
	snapper_set_cgroup(s, cgroup_ino(pid));
	ret = snapper_take(s, pid, 0, 0, st);
	if (ret < 0) {
		fprintf(stderr, "bench_snapshot: %s\n", strerror(-ret));
		exit(1);
	}
	snapper_free(s);
	md_writer_commit(w);
	md_writer_close(w);
	return (struct cost){bench_now() - t0, cpu() - c0};
}

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
	uint64_t buf[KPC_BLOCK];
};

static void kpc_push(struct kpc_list *l, uint64_t pfn)
{
	if (l->n == l->cap)
		xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = pfn;
}

/* The PFNs of the n pagemap entries e: every present page with a PFN that
 * is not mapped exclusively into the kpagecount list (its mapcount, for
 * PSS), every file page into the kpagecgroup one (who paid for it, for
 * CHARGE). An exclusive anonymous page is looked up nowhere. */
static void kpc_entries(struct kpc *f, const uint64_t *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = e[i];

		if (!PM_PRESENT_BIT(x) || !PM_PFN(x))
			continue;
		if (!PM_EXCL_BIT(x))
			kpc_push(&f->count, PM_PFN(x));
		if (PM_FILE_BIT(x))
			kpc_push(&f->cgroup, PM_PFN(x));
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
		kpc_entries(f, e, k);
		a += k * 4096;
	}
}

/* The region [a, b) of huge pages a PMD maps: one pread of two entries
 * (the last page of one, the first of the next: a huge page's entries
 * differ in their PFN only) per two huge pages. One mapped exclusively
 * is one entry (its mapcount is 1; its folio's cgroup is its first
 * page's); any other is read whole (kpc_span), its pages' mapcounts
 * differing. */
static void kpc_huge(struct kpc *f, uint64_t a, uint64_t b)
{
	for (uint64_t h = a; h < b; h += 2 * KPC_PMD) {
		uint64_t e[2] = {0, 0}, two = h + KPC_PMD < b;
		uint64_t off = two ? (h + KPC_PMD) / 4096 - 1 : h / 4096;

		if (pread(f->pm, e, (two + 1) * 8, (off_t)(off * 8)) !=
		    (ssize_t)((two + 1) * 8))
			return;
		for (uint64_t k = 0; k <= two; k++)
			if (PM_EXCL_BIT(e[k]))
				kpc_entries(f, &e[k], 1);
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

/* After file mapping [lo, hi) of pid (file offset off, inode ino) was
 * read, its file pages' PFNs from cgroup entry first on, which the span
 * [a, b) of it holds: if cachestat(2) finds a dirty page in the part of
 * the file that span maps (or cannot be asked: no inode, the file not
 * openable), list them for kpageflags too (PG_dirty: Shared_Dirty,
 * Private_Dirty), else they are clean. */
static void kpc_dirty(struct kpc *f, pid_t pid, uint64_t lo, uint64_t hi,
		      uint64_t off, uint64_t ino, size_t first, uint64_t a,
		      uint64_t b)
{
	struct kpc_cachestat cs;
	char path[96];
	int fd = -1;
	bool dirty = true;

	if (f->cgroup.n == first)
		return;
	if (ino) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx",
			 (int)pid, (unsigned long)lo, (unsigned long)hi);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	for (uint64_t o = a; fd >= 0 && o < b; o += KPC_CACHESTAT_BYTES) {
		struct kpc_cachestat_range r = {
		    off + (o - lo), MIN(KPC_CACHESTAT_BYTES, b - o)};

		dirty = syscall(__NR_cachestat, fd, &r, &cs, 0) != 0 ||
			cs.nr_dirty != 0;
		if (dirty)
			break;
	}
	if (fd >= 0)
		close(fd);
	for (size_t i = first; dirty && i < f->cgroup.n; i++)
		kpc_push(&f->flags, f->cgroup.v[i]);
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

/* The floor: the fastest snapshot this bench can write with the
 * interfaces memsz uses for the same columns. Every mapping of pid
 * (/proc/PID/maps) is scanned with PAGEMAP_SCAN for present or swapped
 * pages, but for the part past the first 64 MiB of a dense one
 * (kpc_mapping); the pagemap entries (PFN, exclusive bit, file bit) of
 * what it finds are read, regions in one pread through holes shorter
 * than KPC_HOLE pages and at most 1 MiB, a huge page a PMD maps one
 * entry per huge page (one pread per two, kpc_huge), the rest of a
 * dense mapping in 1 MiB preads. Each page with
 * a PFN not mapped exclusively is looked up in kpagecount (PSS); each
 * file page in kpagecgroup (CHARGE); a file page in kpageflags (dirty)
 * only when cachestat(2) finds a dirty page in the part of its file the
 * mapping's pages span, asked 64 MiB at a time (kpc_dirty). Each kpage file's
 * PFNs are sorted once for the whole process (radix) and read in one pread per
 * run of frames closer than KPC_GAP. Nothing is classified, encoded or written.
 * Returns its cost, and in *sum the sum of what it read (so that nothing
 * is optimised away). */
static struct cost time_kpc(pid_t pid, uint64_t *sum)
{
	static struct kpc f;
	double c0 = cpu(), t0 = bench_now();
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
	*sum = kpc_read(&f, &f.count, f.kcount);
	*sum += kpc_read(&f, &f.cgroup, f.kcgroup);
	*sum += kpc_read(&f, &f.flags, f.kflags);
	close(f.pm);
	close(f.kcount);
	close(f.kflags);
	close(f.kcgroup);
	return (struct cost){bench_now() - t0, cpu() - c0};
}

/* Mapped pages and the version 1 size of the snapshot in file out. */
static void file_pages(const char *out, uint64_t *mapped, uint64_t *v1)
{
	struct md_reader *r;
	struct md_record rec;
	uint64_t ps;

	*mapped = 0;
	*v1 = 0;
	if (md_reader_open(out, &r))
		exit(1);
	ps = md_reader_header(r)->page_size;
	*v1 = md_reader_offset(r);
	while (md_read_next(r, &rec) == 1) {
		if (rec.type != MD_REC_SNAP_MAPPING) {
			*v1 += rec.size;
			continue;
		}
		*mapped += (rec.u.mapping.end - rec.u.mapping.start) / ps;
		*v1 += 16 + 64 +
		       ((4 + strlen(rec.u.mapping.name) + 1 + 7) & ~7ul) +
		       24 * rec.u.mapping.nruns;
	}
	md_reader_close(r);
}

static void bench(enum layout l, size_t len, size_t resident, const char *out,
		  int runs)
{
	pid_t pid;
	struct cost snap = {1e9, 1e9}, smaps = {1e9, 1e9}, kpc = {1e9, 1e9}, c;
	uint64_t kpc_sum = 0;
	struct snap_stats st;
	uint64_t mapped, v1;
	size_t smaps_bytes = 0;
	struct stat sb;

	if (l == RESERVE)
		len = RESERVE_BYTES;
	pid = spawn(len, resident, l);

	for (int i = 0; i < runs; i++) {
		c = time_smaps(pid, &smaps_bytes);
		smaps.wall = MIN(smaps.wall, c.wall);
		smaps.cpu = MIN(smaps.cpu, c.cpu);
		c = time_snapshot(pid, out, &st);
		snap.wall = MIN(snap.wall, c.wall);
		snap.cpu = MIN(snap.cpu, c.cpu);
		c = time_kpc(pid, &kpc_sum);
		kpc.wall = MIN(kpc.wall, c.wall);
		kpc.cpu = MIN(kpc.cpu, c.cpu);
	}
	if (stat(out, &sb))
		exit(1);
	file_pages(out, &mapped, &v1);
	printf("%-15s %7.0f MiB %9lu %8.2f %6.3f %6.3f %7.2f %7.2f %5.2f "
	       "%7.2f %7.2f %5.2f\n",
	       layout_names[l], (double)st.pages_present * 4096 / (1 << 20),
	       (unsigned long)st.runs, (double)sb.st_size / 1024,
	       (double)sb.st_size / (double)mapped,
	       (double)sb.st_size * 8 / (double)mapped, snap.wall * 1e3,
	       smaps.wall * 1e3, snap.wall / smaps.wall, snap.cpu * 1e3,
	       smaps.cpu * 1e3, snap.cpu / smaps.cpu);
	printf("%-15s %-11s %9s %8.0f %6.3f %6.3f   (version 1)\n", "", "", "",
	       (double)v1 / 1024, (double)v1 / (double)mapped,
	       (double)v1 * 8 / (double)mapped);
	printf("%-15s floor (scan, pagemap, sorted kpage look-ups): %.2f ms "
	       "wall, %.2f ms cpu; snap / floor %.2f cpu, floor / smaps %.2f "
	       "cpu\n",
	       "", kpc.wall * 1e3, kpc.cpu * 1e3, snap.cpu / kpc.cpu,
	       kpc.cpu / smaps.cpu);
	fflush(stdout);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	size_t mapped = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	size_t res = argc > 2 ? strtoul(argv[2], NULL, 10) : 4;
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	int only = argc > 4 ? atoi(argv[4]) : -1;
	char *out =
	    xasprintf("%s/memsz-bench-XXXXXX", argc > 5 ? argv[5] : "/tmp");
	char *old;
	int fd = mkstemp(out);

	if (fd < 0 || !mapped || !res)
		return 1;
	close(fd);
	if (runs < 1)
		runs = 1;
	printf("one %zu GiB anonymous mapping, about %zu GiB resident; "
	       "best of %d\n",
	       mapped, res, runs);
	printf("%-15s %11s %9s %8s %6s %6s %-21s %-21s\n", "", "", "", "", "",
	       "", "wall ms", "cpu ms");
	printf("%-15s %11s %9s %8s %6s %6s %7s %7s %5s %7s %7s %5s\n", "layout",
	       "resident", "runs", "file KiB", "B/page", "bit/pg", "snap",
	       "smaps", "ratio", "snap", "smaps", "ratio");
	for (int l = 0; l < LAYOUT_COUNT; l++)
		if (only < 0 || only == l)
			bench(l, mapped << 30, res << 30, out, runs);
	old = xasprintf("%s.old", out);
	unlink(out);
	unlink(old);
	free(old);
	free(out);
	return 0;
}
