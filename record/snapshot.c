/* snapshot.c — one residency snapshot of one process: /proc/PID/maps, then
 * per VMA /proc/PID/pagemap in large preads (PAGEMAP_SCAN first where the
 * mapping is sparse), then /proc/kpagecount and /proc/kpageflags for the
 * pages whose sharing or dirtiness pagemap cannot tell, sorted by PFN and
 * read in blocks. Page classification follows fs/proc/task_mmu.c
 * (smaps_account) so that sums over runs equal the smaps fields:
 *   Rss           pages mapped to a normal page (not the zero page)
 *   private       mapcount < 2, which is exactly pagemap's exclusive bit
 *   dirty         pte dirty or PG_dirty. pagemap does not show the pte bit:
 *                 anonymous swap-backed pages are taken as dirty (the kernel
 *                 maps them dirty on the write fault that creates them and a
 *                 fork keeps the bit), everything else uses KPF_DIRTY.
 *   Pss           sum of (page_size << 12) / mapcount, >> 12 when printed.
 * Without PFNs (no CAP_SYS_ADMIN) sharing is still exact (exclusive bit),
 * dirtiness is approximated (anonymous = dirty, file = clean) and PSS is
 * unavailable; a NOTE says so.
 */
#include "config.h"

#include "record/snapshot.h"
#include "record/target.h"
#include "elf/elfimg.h"
#include "record/procmaps.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <linux/kernel-page-flags.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <inttypes.h>

/* pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)
#define PM_EXCLUSIVE (1ull << 56)
#define PM_SOFTDIRTY (1ull << 55)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* PAGEMAP_SCAN (linux/fs.h, 6.7+), declared here for older headers. */
struct snap_page_region {
	uint64_t start, end, categories;
};

struct snap_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define SNAP_PAGEMAP_SCAN _IOWR('f', 16, struct snap_scan_arg)
#define SCAN_IS_FILE (1u << 2)
#define SCAN_IS_PRESENT (1u << 3)
#define SCAN_IS_SWAPPED (1u << 4)
#define SCAN_IS_PFNZERO (1u << 5)
#define SCAN_IS_HUGE (1u << 6)
/* Set in c->extra for every page PAGEMAP_SCAN returned, whatever its
 * categories, so that read_marked() reads it. */
#define SCAN_MARKED 0x80u
/* Set in c->extra by pmd_mark() (not a kernel category): the page is
 * present and mapped by a PMD, a huge page of THP. */
#define SCAN_PMD 0x01u

#define CHUNK_PAGES (1u << 14)   /* pagemap entries per pread = per task */
#define SCAN_VEC 4096            /* regions per PAGEMAP_SCAN call */
#define KPAGE_BLOCK (1u << 17)   /* max entries per kpage pread (1 MiB) */
#define KPAGE_GAP 32             /* read through gaps this small */
#define PAGEMAP_GAP 64           /* pages: likewise for pagemap spans */
/* A chunk whose resident fraction is below 1/SPARSE is "sparse": the next
 * one is found with PAGEMAP_SCAN instead of a plain pread. */
#define SPARSE 8
/* Threads that read and classify chunks (the caller's included), and how
 * many chunks may be claimed ahead of the oldest one not yet written. */
#define SNAP_THREADS_MAX 4
#define WINDOW 64
/* Below this many pages of VM a snapshot runs in the caller's thread. */
#define THREAD_MIN_PAGES (1u << 15)

struct snap_image {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t id;
};

/* Per-thread scratch for one chunk. */
struct snap_ctx {
	uint64_t *pm;            /* pagemap entries */
	uint8_t *extra;          /* SCAN_IS_* bits per page (when scanned) */
	uint64_t *kcount, *kflags;
	uint64_t *look, *look2;  /* LOOK_KEY(pfn, page): pages to look up */
	uint64_t *kbuf;
	struct snap_page_region *vec;
	uint64_t kpage_lookups;
	bool scanned;
	/* task_read of a split job only scanned the task: its pagemap
	 * entries are read after the release */
	bool deferred;
	uint64_t changed;        /* pages reconcile() changed */
};

/* The result of one chunk, kept until it is written (slot = chunk index
 * modulo WINDOW). */
struct snap_slot {
	struct md_run *runs;
	size_t nruns, cap;
	uint64_t present, swapped, unreadable;
	int ret;
	bool done;
};

/* A mapped file as /proc/PID/maps names it: its device and inode. */
struct self_file {
	uint64_t dev, ino;
};

struct snapper {
	struct md_writer *w;
	int kpagecount_fd, kpageflags_fd;
	bool has_pfn, has_kpageflags, has_scan;
	bool pss_note_written;
	size_t page_size;
	unsigned page_shift;
	uint32_t pmd_pages;      /* pages a PMD maps (THP); 0: no THP */
	unsigned nthreads;
	struct snap_image *images;
	size_t nimages, images_cap;
	char **noted;            /* unreadable mapping names already noted */
	size_t nnoted, noted_cap;

	struct snap_ctx *ctx[SNAP_THREADS_MAX];
	struct snap_slot slots[WINDOW];
	/* PFNs memsz's own file mappings hold (observer-free mapcounts): a
	 * bitmap of the PFNs [self_lo, self_lo + 64 * self_words). */
	uint64_t *self_bits;
	uint64_t self_lo, self_words;
	/* the files they were loaded for by snapper_prepare (sorted), and
	 * whether that worked; NULL when nothing is prepared */
	struct self_file *prep_files;
	size_t nprep;
	bool prep_ok;
	/* snapper_set_release: called once the page tables are read */
	void (*release)(void *arg);
	void *release_arg;
	/* snapper_set_tick: called between chunks while the process runs */
	void (*tick)(void *arg);
	void *tick_arg;
	/* where a split job keeps each task's scan bits and pagemap
	 * entries: kept for the next one (up to STASH_KEEP_BYTES), so that a
	 * snapshot that holds the process does not spend the hold faulting
	 * in fresh memory */
	uint8_t *stash;
	size_t stash_size;
};

static ssize_t pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return done ? (ssize_t)done : -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

/* PFNs are shown to openers with CAP_SYS_ADMIN: look at one of our own
 * resident pages. */
static bool probe_pfn(int pm, size_t page_size)
{
	static volatile char probe = 1;
	uint64_t e = 0;
	uintptr_t va = (uintptr_t)&probe;

	probe = 2;
	if (pread(pm, &e, 8, (off_t)(va / page_size * 8)) != 8)
		return false;
	return (e & PM_PRESENT) && (e & PM_PFN_MASK);
}

static bool probe_scan(int pm, size_t page_size)
{
	static volatile char probe = 1;
	struct snap_page_region r;
	uintptr_t va = (uintptr_t)&probe & ~(uintptr_t)(page_size - 1);
	struct snap_scan_arg a = {
		.size = sizeof(a), .start = va, .end = va + page_size,
		.vec = (uintptr_t)&r, .vec_len = 1,
		.category_anyof_mask = SCAN_IS_PRESENT,
		.return_mask = SCAN_IS_PRESENT,
	};

	probe = 2;
	return ioctl(pm, SNAP_PAGEMAP_SCAN, &a) >= 0;
}

/* Pages a PMD maps, from the kernel's THP size; 0 if it has no THP. */
static uint32_t pmd_pages_read(size_t page_size)
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

int snapper_new(struct md_writer *w, struct snapper **out)
{
	struct snapper *s = xcalloc(1, sizeof(*s));
	long ncpu;
	int pm;

	s->w = w;
	s->page_size = (size_t)sysconf(_SC_PAGESIZE);
	while ((1ul << s->page_shift) < s->page_size)
		s->page_shift++;
	s->kpagecount_fd = -1;
	s->kpageflags_fd = -1;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm >= 0) {
		s->has_pfn = probe_pfn(pm, s->page_size);
		s->has_scan = probe_scan(pm, s->page_size);
		close(pm);
	}
	if (s->has_pfn) {
		s->kpagecount_fd = open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
		s->kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		if (s->kpagecount_fd < 0)
			s->has_pfn = false;
		s->has_kpageflags = s->has_pfn && s->kpageflags_fd >= 0;
	}
	s->pmd_pages = pmd_pages_read(s->page_size);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	s->nthreads = (unsigned)MAX(1, MIN(ncpu, SNAP_THREADS_MAX));
	*out = s;
	return 0;
}

void snapper_free(struct snapper *s)
{
	size_t i;

	if (!s)
		return;
	if (s->kpagecount_fd >= 0)
		close(s->kpagecount_fd);
	if (s->kpageflags_fd >= 0)
		close(s->kpageflags_fd);
	free(s->self_bits);
	free(s->prep_files);
	free(s->stash);
	for (i = 0; i < s->nnoted; i++)
		free(s->noted[i]);
	free(s->noted);
	free(s->images);
	for (i = 0; i < SNAP_THREADS_MAX; i++) {
		struct snap_ctx *c = s->ctx[i];

		if (!c)
			continue;
		free(c->pm);
		free(c->extra);
		free(c->kcount);
		free(c->kflags);
		free(c->look);
		free(c->look2);
		free(c->kbuf);
		free(c->vec);
		free(c);
	}
	for (i = 0; i < WINDOW; i++)
		free(s->slots[i].runs);
	free(s);
}

bool snapper_has_pfn(const struct snapper *s)
{
	return s->has_pfn;
}

/* --- images --- */

static bool same_file(const struct stat *st, uint32_t maj, uint32_t min,
		      uint64_t ino)
{
	return (uint64_t)st->st_ino == ino && major(st->st_dev) == maj &&
	       minor(st->st_dev) == min;
}

/* Find where the file (dev, ino) mapped by pid at path can be opened:
 * /proc/PID/root/PATH, PATH itself, or an entry of /proc/PID/map_files.
 * Returns an allocated path ("" if none) and fills *st. */
static char *find_open_path(int pid, const char *path, uint64_t start,
			    uint64_t end, uint32_t maj, uint32_t min,
			    uint64_t ino, struct stat *st)
{
	char *p, *clean = xstrdup(path);
	size_t len = strlen(clean);
	static const char deleted[] = " (deleted)";

	if (len > sizeof(deleted) - 1 &&
	    !strcmp(clean + len - (sizeof(deleted) - 1), deleted))
		clean[len - (sizeof(deleted) - 1)] = 0;
	if (clean[0] == '/') {
		p = xasprintf("/proc/%d/root%s", pid, clean);
		if (!stat(p, st) && same_file(st, maj, min, ino))
			goto found;
		free(p);
		if (!stat(clean, st) && same_file(st, maj, min, ino)) {
			p = xstrdup(clean);
			goto found;
		}
	}
	/* Deleted files, memfd, shared memory, other mount namespaces: the
	 * mapping's own link (one stat, not a walk of every mapping). */
	p = xasprintf("/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start,
		      end);
	if (!stat(p, st) && same_file(st, maj, min, ino))
		goto found;
	free(p);
	free(clean);
	memset(st, 0, sizeof(*st));
	return xstrdup("");
found:
	free(clean);
	return p;
}

int snapper_image(struct snapper *s, int pid, const char *path,
		  uint64_t start, uint64_t end, uint32_t dev_major,
		  uint32_t dev_minor, uint64_t ino, const uint8_t *build_id,
		  uint32_t build_id_len, uint32_t *image_id)
{
	struct md_image im = { 0 };
	struct snap_image *si;
	struct stat st;
	char *open_path;
	size_t i;
	int fd, ret;

	for (i = 0; i < s->nimages; i++) {
		si = &s->images[i];
		if (si->ino == ino && si->dev_major == dev_major &&
		    si->dev_minor == dev_minor) {
			*image_id = si->id;
			return 0;
		}
	}
	open_path = find_open_path(pid, path, start, end, dev_major, dev_minor,
				   ino, &st);
	im.id = (uint32_t)s->nimages;
	im.dev_major = dev_major;
	im.dev_minor = dev_minor;
	im.ino = ino;
	im.path = path;
	im.open_path = open_path;
	if (open_path[0]) {
		im.size = (uint64_t)st.st_size;
		im.mtime_ns = (int64_t)st.st_mtim.tv_sec * NSEC_PER_SEC +
			      st.st_mtim.tv_nsec;
	}
	if (build_id && build_id_len) {
		im.build_id_len = MIN(build_id_len, sizeof(im.build_id));
		memcpy(im.build_id, build_id, im.build_id_len);
	} else if (open_path[0] && S_ISREG(st.st_mode)) {
		fd = open(open_path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ret = elf_build_id_read(fd, im.build_id,
						sizeof(im.build_id));
			im.build_id_len = ret > 0 ? ret : 0;
			close(fd);
		}
	}
	ret = md_write_image(s->w, &im);
	free(open_path);
	if (ret < 0)
		return ret;
	xgrow(&s->images, &s->images_cap, s->nimages + 1, sizeof(*s->images));
	si = &s->images[s->nimages++];
	si->dev_major = dev_major;
	si->dev_minor = dev_minor;
	si->ino = ino;
	si->id = im.id;
	*image_id = im.id;
	return 0;
}

/* --- page runs --- */

static struct snap_ctx *ctx_get(struct snapper *s, unsigned t)
{
	struct snap_ctx *c = s->ctx[t];

	if (c)
		return c;
	c = xcalloc(1, sizeof(*c));
	c->pm = xmalloc(CHUNK_PAGES * sizeof(*c->pm));
	c->extra = xmalloc(CHUNK_PAGES);
	c->kcount = xmalloc(CHUNK_PAGES * sizeof(*c->kcount));
	c->kflags = xmalloc(CHUNK_PAGES * sizeof(*c->kflags));
	c->look = xmalloc(CHUNK_PAGES * sizeof(*c->look));
	c->look2 = xmalloc(CHUNK_PAGES * sizeof(*c->look2));
	c->kbuf = xmalloc(KPAGE_BLOCK * sizeof(*c->kbuf));
	c->vec = xmalloc(SCAN_VEC * sizeof(*c->vec));
	s->ctx[t] = c;
	return c;
}

/* A page to look up in kpagecount/kpageflags: its PFN above its index in
 * the chunk, so that sorting the keys sorts by PFN. A PFN that does not
 * fit (none does: physical addresses have at most 52 bits) is not looked
 * up and reads as zeros, as a PFN beyond the end of the files does. */
#define LOOK_IDX_BITS 14
#define LOOK_PFN_MAX (UINT64_MAX >> LOOK_IDX_BITS)
#define LOOK_KEY(pfn, i) ((pfn) << LOOK_IDX_BITS | (i))
#define LOOK_PFN(k) ((k) >> LOOK_IDX_BITS)
#define LOOK_IDX(k) ((uint32_t)((k) & ((1u << LOOK_IDX_BITS) - 1)))
_Static_assert(CHUNK_PAGES <= 1u << LOOK_IDX_BITS, "chunk index fits a key");
#define RADIX_MAX_BITS 12

/* Sort the n keys of c->look by PFN: a least-significant-digit radix sort
 * over the PFN bits the largest key has, in as few passes of at most
 * RADIX_MAX_BITS as they need (two up to 64 GiB of RAM), through
 * c->look2. */
static void look_sort(struct snap_ctx *c, size_t n, uint64_t maxkey)
{
	uint32_t cnt[1u << RADIX_MAX_BITS];
	unsigned top = 64 - (unsigned)__builtin_clzll(maxkey | 1);
	unsigned bits = top > LOOK_IDX_BITS ? top - LOOK_IDX_BITS : 0;
	unsigned passes = (bits + RADIX_MAX_BITS - 1) / RADIX_MAX_BITS;
	unsigned width = passes ? (bits + passes - 1) / passes : 0;
	uint64_t *src = c->look, *dst = c->look2, *t, mask;

	mask = ((uint64_t)1 << width) - 1;
	for (unsigned p = 0; p < passes; p++) {
		unsigned sh = LOOK_IDX_BITS + p * width;
		uint32_t sum = 0;

		memset(cnt, 0, ((size_t)mask + 1) * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(src[i] >> sh) & mask]++;
		for (size_t d = 0; d <= mask; d++) {
			uint32_t k = cnt[d];

			cnt[d] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != c->look)
		memcpy(c->look, src, n * sizeof(*src));
}

/* Read one of the kpage files into dst for the sorted keys that want it:
 * one pread per block of nearby PFNs. With count set (kpagecount), the
 * pages pagemap says are exclusively mapped are not read: their mapcount
 * is 1. */
static int kpage_read(struct snap_ctx *c, size_t n, int fd, uint64_t *dst,
		      bool count)
{
	size_t i = 0, j, k;

	while (i < n) {
		uint64_t first, cnt, last;
		ssize_t r;

		if (count && (c->pm[LOOK_IDX(c->look[i])] & PM_EXCLUSIVE)) {
			dst[LOOK_IDX(c->look[i++])] = 1;
			continue;
		}
		first = last = LOOK_PFN(c->look[i]);
		for (j = i + 1; j < n; j++) {
			uint64_t p = LOOK_PFN(c->look[j]);

			if (p - last > KPAGE_GAP || p - first >= KPAGE_BLOCK)
				break;
			if (!count ||
			    !(c->pm[LOOK_IDX(c->look[j])] & PM_EXCLUSIVE))
				last = p;
		}
		cnt = last - first + 1;
		r = pread_full(fd, c->kbuf, cnt * 8, first * 8);
		if (r < 0)
			return (int)r;
		for (k = i; k < j; k++) {
			uint64_t o = LOOK_PFN(c->look[k]) - first;
			uint32_t idx = LOOK_IDX(c->look[k]);

			if (count && (c->pm[idx] & PM_EXCLUSIVE))
				dst[idx] = 1;
			else
				dst[idx] = (o + 1) * 8 <= (uint64_t)r ?
						   c->kbuf[o] : 0;
		}
		i = j;
	}
	return 0;
}

/* Fill kcount/kflags for the n pages of c->look (maxkey the largest key):
 * sorted by PFN unless they already rise, as the pages of a file read in
 * order often do. */
static int kpage_fill(const struct snapper *s, struct snap_ctx *c, size_t n,
		      uint64_t maxkey)
{
	size_t i;
	int ret;

	for (i = 1; i < n && c->look[i] >= c->look[i - 1]; i++)
		;
	if (i < n)
		look_sort(c, n, maxkey);
	ret = kpage_read(c, n, s->kpagecount_fd, c->kcount, true);
	if (ret < 0 || !s->has_kpageflags) {
		for (i = 0; !ret && i < n; i++)
			c->kflags[LOOK_IDX(c->look[i])] = 0;
		return ret;
	}
	return kpage_read(c, n, s->kpageflags_fd, c->kflags, false);
}

/* True if memsz itself maps the page frame pfn (see self_load). */
static inline bool self_maps(const struct snapper *s, uint64_t pfn)
{
	uint64_t o = pfn - s->self_lo;

	return s->self_bits && pfn >= s->self_lo && o / 64 < s->self_words &&
	       (s->self_bits[o / 64] >> (o % 64) & 1);
}

/* MADV_POPULATE_READ (linux/mman.h, 5.14+), for older headers. */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Map every page of memsz's own file mapping m into its page tables, once:
 * then the set of pages memsz shares with a target does not grow while a
 * snapshot runs (the code it first runs there would otherwise be mapped
 * after the set was read, and still counted as a sharer). */
static void self_populate(const struct procmap *m)
{
	if (m->name && m->name[0] == '/' && !(m->flags & MAP_SHARED))
		(void)madvise((void *)(uintptr_t)m->start, m->end - m->start,
			      MADV_POPULATE_READ);
}

static int self_file_cmp(const void *a, const void *b)
{
	const struct self_file *x = a, *y = b;

	return x->dev != y->dev ? u64_cmp(x->dev, y->dev) :
				  u64_cmp(x->ino, y->ino);
}

static struct self_file self_file_of(const struct procmap *m)
{
	return (struct self_file){ ((uint64_t)m->dev_major << 32) |
					   m->dev_minor,
				   m->ino };
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

/* Collect the PFNs of the resident pages of memsz's own mappings of the
 * files the target maps too (/proc/self/maps, /proc/self/pagemap) into
 * s->self_bits, so that memsz does not count itself as a sharer of a
 * target's page: the libraries it maps too (libc, libz, libstdc++ ...)
 * would otherwise show a lower PSS than when memsz is not running. A page
 * of a file the target does not map cannot be one of its pages, so
 * memsz's other mappings (its own binary, most of its libraries) are
 * neither populated nor read. files (nfiles) are the files the target
 * maps (self_target_files). Returns 0 or -errno. */
static int self_load(struct snapper *s, const struct self_file *files,
		     size_t nfiles)
{
	struct procmaps pm = { 0 };
	uint64_t *pfns = NULL, lo = UINT64_MAX, hi = 0, *buf = NULL;
	size_t n = 0, cap = 0, bufcap = 0;
	int fd, ret = procmaps_read(getpid(), 0, &pm);

	free(s->self_bits);
	s->self_bits = NULL;
	s->self_words = 0;
	if (ret < 0)
		goto out;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; i < pm.n; i++) {
		const struct procmap *m = &pm.maps[i];
		size_t np = (m->end - m->start) >> s->page_shift;
		struct self_file key = self_file_of(m);
		ssize_t got;

		if (!m->ino || !np ||
		    !bsearch(&key, files, nfiles, sizeof(*files),
			     self_file_cmp))
			continue;
		self_populate(m);
		xgrow(&buf, &bufcap, np, sizeof(*buf));
		got = pread_full(fd, buf, np * 8,
				 (m->start >> s->page_shift) * 8);
		for (ssize_t k = 0; k < got / 8; k++) {
			uint64_t pfn = buf[k] & PM_PFN_MASK;

			if (!(buf[k] & PM_PRESENT) || !pfn)
				continue;
			xgrow(&pfns, &cap, n + 1, sizeof(*pfns));
			pfns[n++] = pfn;
			lo = MIN(lo, pfn);
			hi = MAX(hi, pfn);
		}
	}
	close(fd);
	if (n) {
		s->self_lo = lo;
		s->self_words = (hi - lo) / 64 + 1;
		s->self_bits = xcalloc(s->self_words, sizeof(uint64_t));
		for (size_t k = 0; k < n; k++)
			s->self_bits[(pfns[k] - lo) / 64] |=
				1ull << ((pfns[k] - lo) % 64);
	}
	ret = 0;
out:
	free(buf);
	free(pfns);
	procmaps_free(&pm);
	return ret;
}

/* The /proc/kpageflags bits a run keeps, and the run flag each becomes. */
static const struct {
	uint8_t kpf;
	uint32_t md;
} kpf_kept[] = {
	{ KPF_DIRTY, MD_PG_DIRTY },
	{ KPF_ANON, MD_PG_ANON },
	{ KPF_SWAPBACKED, MD_PG_SWAPBACKED },
	{ KPF_KSM, MD_PG_KSM },
	{ KPF_THP, MD_PG_THP },
	{ KPF_HUGE, MD_PG_HUGE },
	{ KPF_IDLE, MD_PG_IDLE },
};

/* What one page is: its run flags and mapcount, and how it counts. */
enum page_kind { PAGE_NONE, PAGE_PRESENT, PAGE_SWAPPED, PAGE_ZERO };

/* Classify one page from its pagemap entry e, its PAGEMAP_SCAN bits x and,
 * if looked (see needs_lookup), its kpageflags kf and kpagecount kc. */
static enum page_kind page_class(const struct snapper *s, uint64_t e,
				 uint8_t x, bool looked, uint64_t kf,
				 uint64_t kc, uint32_t *flp, uint32_t *mcp)
{
	uint32_t fl = 0, mapcount = 0;
	bool dirty;

	*mcp = 0;
	if (e & PM_SWAPPED) {
		fl = MD_PG_SWAPPED;
		if (e & PM_FILE)
			fl |= MD_PG_FILE;
		if (e & PM_SOFTDIRTY)
			fl |= MD_PG_SOFTDIRTY;
		*flp = fl;
		return PAGE_SWAPPED;
	}
	if (!(e & PM_PRESENT))
		return PAGE_NONE;
	if (e & PM_FILE)
		fl |= MD_PG_FILE;
	if (e & PM_EXCLUSIVE)
		fl |= MD_PG_EXCLUSIVE;
	if (e & PM_SOFTDIRTY)
		fl |= MD_PG_SOFTDIRTY;
	if (x & SCAN_IS_HUGE)
		fl |= MD_PG_THP;
	if (x & SCAN_PMD)
		fl |= MD_PG_PMD;
	if (looked) {
		mapcount = (uint32_t)MIN(kc, UINT32_MAX);
		for (size_t i = 0; i < ARRAY_SIZE(kpf_kept); i++)
			if (s->has_kpageflags &&
			    (kf & (1ull << kpf_kept[i].kpf)))
				fl |= kpf_kept[i].md;
		/* not a normal page (the zero page, a pfn mapping): smaps
		 * does not count it */
		if ((kf & ((1ull << KPF_ZERO_PAGE) | (1ull << KPF_NOPAGE))) ||
		    mapcount == 0) {
			*flp = (fl & ~(uint32_t)(MD_PG_THP | MD_PG_PMD)) |
			       MD_PG_ZERO;
			return PAGE_ZERO;
		}
		/* a hugetlb page is not THP */
		if (s->has_kpageflags && (kf & (1ull << KPF_HUGE)))
			fl &= ~(uint32_t)MD_PG_PMD;
	} else if (x & SCAN_IS_PFNZERO) {
		*flp = (fl & ~(uint32_t)MD_PG_PMD) | MD_PG_ZERO;
		return PAGE_ZERO;
	}
	fl |= MD_PG_PRESENT;
	if (e & PM_EXCLUSIVE)
		mapcount = 1;
	/* memsz's own mapping of the page is not a sharer: without memsz
	 * the page would be mapped once less (and private if that leaves
	 * one) */
	if (looked && mapcount > 1 && self_maps(s, e & PM_PFN_MASK)) {
		mapcount--;
		if (mapcount == 1) {
			fl |= MD_PG_EXCLUSIVE;
			e |= PM_EXCLUSIVE;
		}
	}
	if (!(e & PM_FILE) && !looked) {
		/* anonymous, not looked up: swap-backed, dirty */
		if (s->has_kpageflags)
			fl |= MD_PG_ANON | MD_PG_SWAPBACKED;
		dirty = true;
	} else if (s->has_kpageflags) {
		dirty = (fl & MD_PG_DIRTY) ||
			((fl & MD_PG_ANON) && (fl & MD_PG_SWAPBACKED));
	} else {
		dirty = !(e & PM_FILE);
	}
	if (dirty)
		fl |= (e & PM_EXCLUSIVE) ? MD_PG_PRIVATE_DIRTY :
					   MD_PG_SHARED_DIRTY;
	*flp = fl;
	*mcp = mapcount;
	return PAGE_PRESENT;
}

/* True if a page's sharing and dirtiness need kpagecount/kpageflags:
 * present with a PFN (one a look-up key holds), unless exclusive
 * anonymous (mapcount 1, dirty). Branch-free: the pre-pass runs it on
 * every page. */
static inline bool needs_lookup(uint64_t e)
{
	uint64_t pfn = e & PM_PFN_MASK;

	return (bool)(((e & PM_PRESENT) != 0) & (pfn != 0) &
		      (pfn <= LOOK_PFN_MAX) &
		      (((e & PM_EXCLUSIVE) == 0) | ((e & PM_FILE) != 0)));
}

/* The bits of a pagemap entry that page_class reads when it does not look
 * the page up (the PFN only as "non-zero"). */
#define PM_KEY_MASK (PM_PRESENT | PM_SWAPPED | PM_FILE | PM_EXCLUSIVE | \
		     PM_SOFTDIRTY)
/* In such a key: the PFN is non-zero (above the 8 bits of c->extra, below
 * PM_KEY_MASK's). */
#define KEY_HAS_PFN 0x100u

/* One pass over the n pagemap entries of a chunk (c->pm): the pages to
 * look up, when PFNs are readable, into c->look (*nlook of them, *maxkey
 * the largest key). Returns how many pages are present or swapped. */
static size_t chunk_prepass(const struct snapper *s, struct snap_ctx *c,
			    size_t n, size_t *nlook, uint64_t *maxkey)
{
	const uint64_t *pm = c->pm;
	uint64_t *look = c->look, mx = 0;
	size_t i, amb = 0, nl = 0;

	if (!s->has_pfn) {
		for (i = 0; i < n; i++)
			amb += (pm[i] & (PM_PRESENT | PM_SWAPPED)) != 0;
	} else {
		for (i = 0; i < n; i++) {
			uint64_t e = pm[i];
			uint64_t k = LOOK_KEY(e & PM_PFN_MASK, (uint64_t)i);
			bool want = needs_lookup(e);

			amb += (e & (PM_PRESENT | PM_SWAPPED)) != 0;
			/* written always, kept when wanted */
			look[nl] = k;
			nl += want;
			mx = want && k > mx ? k : mx;
		}
	}
	*nlook = nl;
	*maxkey = mx;
	return amb;
}

/* Classify the n pages of one chunk at va (entries in c->pm, scan bits in
 * c->extra, the nlook pages to look up in c->look by chunk_prepass) into
 * the slot's runs. Pages that need no look-up are classified once per
 * distinct masked entry. */
static int classify(const struct snapper *s, struct snap_ctx *c,
		    struct snap_slot *sl, uint64_t va, size_t n, size_t nlook,
		    uint64_t maxkey)
{
	size_t i;
	uint64_t pkey = UINT64_MAX, lkey = UINT64_MAX, lkf = 0, lkc = 0;
	uint32_t pfl = 0, pmc = 0, lfl = 0, lmc = 0;
	enum page_kind pkind = PAGE_NONE, lkind = PAGE_NONE;
	struct md_run *cur = NULL;
	uint64_t cnt[4] = { 0 };
	int ret;

	if (nlook) {
		ret = kpage_fill(s, c, nlook, maxkey);
		if (ret < 0)
			return ret;
		c->kpage_lookups += nlook;
	}
	for (i = 0; i < n; i++) {
		uint64_t e = c->pm[i], key;
		uint32_t fl, mc;
		enum page_kind kind;

		if (!(e & (PM_PRESENT | PM_SWAPPED))) {
			cur = NULL;
			continue;
		}
		if (s->has_pfn && needs_lookup(e)) {
			uint64_t kf = c->kflags[i], kc = c->kcount[i];

			/* mapped once or less, the page's class depends on
			 * its entry's bits and kpage values only: pages of
			 * a file mostly repeat the previous one's */
			key = (e & PM_KEY_MASK) | c->extra[i];
			if (kc > 1 || key != lkey || kf != lkf || kc != lkc) {
				lkind = page_class(s, e, c->extra[i], true, kf,
						   kc, &lfl, &lmc);
				lkey = kc > 1 ? UINT64_MAX : key;
				lkf = kf;
				lkc = kc;
			}
			kind = lkind;
			fl = lfl;
			mc = lmc;
		} else {
			key = (e & PM_KEY_MASK) | c->extra[i] |
			      ((e & PM_PFN_MASK) ? KEY_HAS_PFN : 0);
			if (key != pkey) {
				pkind = page_class(s, e, c->extra[i], false,
						   0, 0, &pfl, &pmc);
				pkey = key;
			}
			kind = pkind;
			fl = pfl;
			mc = pmc;
		}
		cnt[kind]++;
		/* cur, when set, ends at this page */
		if (cur && cur->flags == fl && cur->mapcount == mc &&
		    cur->npages < UINT32_MAX) {
			cur->npages++;
			continue;
		}
		if (sl->nruns == sl->cap)
			xgrow(&sl->runs, &sl->cap, sl->nruns + 1,
			      sizeof(*sl->runs));
		cur = &sl->runs[sl->nruns++];
		cur->vaddr = va + ((uint64_t)i << s->page_shift);
		cur->npages = 1;
		cur->flags = fl;
		cur->mapcount = mc;
		cur->reserved = 0;
	}
	sl->present += cnt[PAGE_PRESENT];
	sl->swapped += cnt[PAGE_SWAPPED];
	return 0;
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
			uint8_t bits = set ? set :
					     (uint8_t)(c->vec[k].categories |
						       SCAN_MARKED);

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
		.category_anyof_mask = mask,
		.return_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED |
			       SCAN_IS_PFNZERO | SCAN_IS_HUGE,
	};

	memset(c->extra, 0, n);
	return scan_mark(s, c, pm, base, base,
			 base + ((uint64_t)n << s->page_shift), q, 0);
}

/* Make the n pagemap entries of a chunk of mapping m, read (when read is
 * set) after the process ran again, agree with what PAGEMAP_SCAN found
 * while it was held (the bits in c->extra). A page the scan did not mark
 * was not there: its entry is zeroed (read_marked() reads some such
 * entries and leaves the others as they were). A marked page whose entry
 * shows it in another state now (freed, or swapped in or out, meanwhile;
 * or not read at all) gets an entry of the state it was in, without a
 * PFN: a file page if m maps a file (asking the scan whether each page is
 * a file page would cost it a look at every page), else an anonymous page
 * mapped once. Such pages are counted in c->changed. */
static void reconcile(struct snap_ctx *c, const struct procmap *m, size_t n,
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
		c->changed++;
	}
}

/* Read pagemap for the pages of the chunk marked in c->extra, in spans
 * that skip long holes; the other entries are zeroed when zero is set,
 * else left for reconcile(). */
static int read_marked(const struct snapper *s, struct snap_ctx *c, int pm,
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
		ssize_t r = pread_full(pm, c->pm + i, (j - i) * 8,
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

/* One chunk of at most CHUNK_PAGES pages of one mapping. */
struct snap_task {
	uint32_t vma;
	uint32_t n;              /* pages */
	uint64_t first;          /* first page, counted from the VMA start */
};

/* One snapshot's work, shared by its threads. The tasks are claimed in
 * order (next) and written in order (flushed) by the caller's thread; a
 * task k may be claimed only while k < flushed + WINDOW, so its slot
 * (k % WINDOW) is free. */
struct snap_job {
	struct snapper *s;
	int pid, pm;
	const struct procmaps *maps;
	struct snap_task *tasks;
	size_t ntasks;
	uint8_t *sparse;         /* per VMA: read the next chunk by scanning */
	bool pmd;                /* mark PMD-mapped pages (pmd_mark) */
	/* job_run_split: task_read only scans, and the pagemap entries
	 * are read after the release */
	bool split;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next, flushed;    /* under mu */
	bool stop;               /* under mu */
};

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
 * in c->extra. Returns 0 or -errno. */
static int pmd_scan(const struct snapper *s, struct snap_ctx *c, int pm,
		    uint64_t base, uint64_t start, uint64_t end)
{
	struct snap_scan_arg q = {
		.category_inverted = SCAN_IS_PFNZERO,
		.category_mask = SCAN_IS_HUGE | SCAN_IS_PRESENT |
				 SCAN_IS_PFNZERO,
		.return_mask = SCAN_IS_HUGE,
	};
	long r = scan_mark(s, c, pm, base, start, end, q, SCAN_PMD);

	return r < 0 ? (int)r : 0;
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
 * call. Returns 0 or -errno. */
static int pmd_mark(const struct snap_job *j, struct snap_ctx *c,
		    const struct procmap *m, uint64_t va, size_t n,
		    bool scanned)
{
	const struct snapper *s = j->s;
	uint64_t psz = (uint64_t)s->pmd_pages << s->page_shift;
	uint64_t lo, hi, a, b, p;
	int ret;

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
		}
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
	}
	return 0;
}

/* Read what the page tables say of task k's pages into c->pm and
 * c->extra (and the pages to look up into c->look: *nlook of them, the
 * largest key *maxkey). A task of a sparse mapping is scanned with
 * PAGEMAP_SCAN, and only what it finds is read from pagemap; a task of a
 * split job is only scanned (c->deferred; far cheaper per page than
 * pagemap while the process is held): its pagemap entries are read after
 * the release, and then reconciled with the scan. What cannot be scanned
 * ([vsyscall]) is read whole. Returns 1 if the pages are to be
 * classified, 0 if the slot is complete already (nothing there, or
 * unreadable), or -errno. */
static int task_read(struct snap_job *j, struct snap_ctx *c, size_t k,
		     size_t *nlook, uint64_t *maxkey)
{
	struct snapper *s = j->s;
	const struct snap_task *t = &j->tasks[k];
	const struct procmap *m = &j->maps->maps[t->vma];
	struct snap_slot *sl = &s->slots[k % WINDOW];
	uint64_t va = m->start + (t->first << s->page_shift);
	size_t n = t->n, i, amb, lo = n, hi = 0;
	bool sparse = __atomic_load_n(&j->sparse[t->vma], __ATOMIC_RELAXED);
	long got = -1;
	int ret = 0;

	*nlook = 0;
	*maxkey = 0;
	c->deferred = false;
	sl->nruns = 0;
	sl->present = sl->swapped = sl->unreadable = 0;
	if (!n)
		return 0;
	if (sparse || (j->split && s->has_scan)) {
		got = scan_range(s, c, j->pm, va, n,
				 SCAN_IS_PRESENT | SCAN_IS_SWAPPED);
		if (got < 0 && sparse)
			return (int)got;
	}
	if (got >= 0) {
		sparse = true;
		c->scanned = true;
		if (!got)
			return 0;   /* nothing present or swapped: no runs */
		if (j->split) {
			c->deferred = true;
		} else {
			ret = read_marked(s, c, j->pm, va, n, true);
			if (ret < 0)
				return ret;
			chunk_prepass(s, c, n, nlook, maxkey);
			if ((size_t)got * SPARSE >= n)
				__atomic_store_n(&j->sparse[t->vma], 0,
						 __ATOMIC_RELAXED);
		}
	} else {
		ssize_t r = pread_full(j->pm, c->pm, n * 8,
				       (va >> s->page_shift) * 8);

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
		amb = chunk_prepass(s, c, n, nlook, maxkey);
		/* present, neither file nor exclusive, no PFN to look at:
		 * maybe the zero page */
		if (!s->has_pfn && s->has_scan) {
			for (i = 0; i < n; i++) {
				uint64_t e = c->pm[i];

				if ((e & (PM_PRESENT | PM_FILE |
					  PM_EXCLUSIVE)) == PM_PRESENT) {
					lo = MIN(lo, i);
					hi = i + 1;
				}
			}
		}
		if (s->has_scan && amb * SPARSE < n &&
		    (uint64_t)(m->end - m->start) >> s->page_shift >
			    CHUNK_PAGES)
			__atomic_store_n(&j->sparse[t->vma], 1,
					 __ATOMIC_RELAXED);
		if (hi > lo) {
			got = scan_range(s, c, j->pm,
					 va + (lo << s->page_shift), hi - lo,
					 SCAN_IS_PFNZERO);
			if (got < 0)
				return (int)got;
			c->scanned = true;
			memmove(c->extra + lo, c->extra, hi - lo);
			memset(c->extra, 0, lo);
		}
	}
	ret = pmd_mark(j, c, m, va, n, sparse);
	return ret < 0 ? ret : 1;
}

/* The page at which task k starts. */
static uint64_t task_va(const struct snap_job *j, size_t k)
{
	const struct snap_task *t = &j->tasks[k];

	return j->maps->maps[t->vma].start + (t->first << j->s->page_shift);
}

static void task_run(struct snap_job *j, struct snap_ctx *c, size_t k)
{
	struct snap_slot *sl = &j->s->slots[k % WINDOW];
	size_t nlook;
	uint64_t maxkey;
	int ret = task_read(j, c, k, &nlook, &maxkey);

	if (ret > 0)
		ret = classify(j->s, c, sl, task_va(j, k), j->tasks[k].n,
			       nlook, maxkey);
	sl->ret = ret < 0 ? ret : 0;
}

/* Claim the next task, waiting while the window is full. Returns its index
 * or SIZE_MAX when there is nothing left to claim. Called with j->mu held;
 * the caller's thread (flusher) must not wait on itself. */
static size_t task_claim(struct snap_job *j, bool flusher)
{
	while (!j->stop && j->next < j->ntasks &&
	       j->next >= j->flushed + WINDOW) {
		if (flusher)
			return SIZE_MAX;
		pthread_cond_wait(&j->cv, &j->mu);
	}
	if (j->stop || j->next >= j->ntasks)
		return SIZE_MAX;
	j->s->slots[j->next % WINDOW].done = false;
	return j->next++;
}

static void task_done(struct snap_job *j, size_t k)
{
	pthread_mutex_lock(&j->mu);
	j->s->slots[k % WINDOW].done = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

struct snap_thread {
	struct snap_job *j;
	struct snap_ctx *c;
	pthread_t tid;
};

static void *worker_main(void *arg)
{
	struct snap_thread *th = arg;
	struct snap_job *j = th->j;
	size_t k;

	for (;;) {
		pthread_mutex_lock(&j->mu);
		k = task_claim(j, false);
		pthread_mutex_unlock(&j->mu);
		if (k == SIZE_MAX)
			break;
		task_run(j, th->c, k);
		task_done(j, k);
	}
	return NULL;
}

static bool noted(struct snapper *s, const char *name)
{
	for (size_t i = 0; i < s->nnoted; i++)
		if (!strcmp(s->noted[i], name))
			return true;
	xgrow(&s->noted, &s->noted_cap, s->nnoted + 1, sizeof(*s->noted));
	s->noted[s->nnoted++] = xstrdup(name);
	return false;
}

/* The mapping being written from its tasks' runs. */
struct vma_acc {
	uint64_t present, swapped, unreadable;
};

/* Call the tick callback, if any (snapper_set_tick). */
static void snap_tick(const struct snapper *s)
{
	if (s->tick)
		s->tick(s->tick_arg);
}

/* Write the finished tasks [from, to) in order: each task's runs go to the
 * encoder of its mapping's record as they come (the encoder joins the run
 * that crosses a chunk boundary), the record is written after its last
 * task. Returns 0 or the first task's error. */
static int flush_tasks(struct snap_job *j, size_t from, size_t to,
		       const uint32_t *ids, struct vma_acc *a,
		       struct md_snap_end *e, struct snap_stats *st)
{
	struct snapper *s = j->s;
	size_t k;
	int ret;

	/* on the calling thread, which is the only one to flush; the
	 * process may be running (it is not held, or no longer) */
	snap_tick(s);
	for (k = from; k < to; k++) {
		const struct snap_task *t = &j->tasks[k];
		const struct procmap *m = &j->maps->maps[t->vma];
		struct snap_slot *sl = &s->slots[k % WINDOW];
		uint64_t npages = (m->end - m->start) >> s->page_shift;
		uint64_t nruns;

		if (sl->ret < 0)
			return sl->ret;
		if (t->first == 0) {
			memset(a, 0, sizeof(*a));
			ret = md_mapping_begin(s->w, m->start, m->end);
			if (ret < 0)
				return ret;
		}
		a->present += sl->present;
		a->swapped += sl->swapped;
		a->unreadable += sl->unreadable;
		ret = md_mapping_add(s->w, sl->runs, sl->nruns);
		if (ret < 0)
			return ret;
		if (t->first + t->n < npages)
			continue;
		struct md_snap_mapping mr = {
			.start = m->start, .end = m->end, .pgoff = m->pgoff,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
			.ino = m->ino, .prot = m->prot,
			.flags = m->flags |
				 (m->vmflags & PROCMAP_VM_LOCKED ?
					  MD_MAP_LOCKED : 0),
			.image_id = ids[t->vma], .name = m->name,
		};

		/* [vsyscall] lies above the task size, where pagemap has no
		 * entries; it is the kernel's page (smaps: Rss 0), so nothing
		 * the process owns goes unread. */
		if (!strcmp(m->name, "[vsyscall]"))
			a->unreadable = 0;
		e->unreadable_pages += a->unreadable;
		if (a->unreadable && !noted(s, m->name)) {
			char *txt = xasprintf("%lu pages of '%s' cannot be "
					      "read from pagemap",
					      (unsigned long)a->unreadable,
					      m->name);

			ret = md_write_note(s->w, txt);
			free(txt);
			if (ret < 0)
				return ret;
		}
		ret = md_mapping_end(s->w, &mr, &nruns);
		if (ret < 0)
			return ret;
		st->mappings++;
		st->pages_present += a->present;
		st->pages_swapped += a->swapped;
		st->runs += nruns;
	}
	return 0;
}

/* Split the mappings into tasks of at most CHUNK_PAGES pages (one even
 * for an empty mapping, so that every mapping gets its record). */
static void tasks_make(struct snap_job *j, uint64_t *total_pages)
{
	const struct snapper *s = j->s;
	size_t cap = 0, i;

	*total_pages = 0;
	j->ntasks = 0;
	j->sparse = xcalloc(j->maps->n + 1, 1);
	for (i = 0; i < j->maps->n; i++) {
		const struct procmap *m = &j->maps->maps[i];
		uint64_t npages = m->start < m->end ?
				  (m->end - m->start) >> s->page_shift : 0;
		uint64_t first = 0;

		*total_pages += npages;
		j->sparse[i] = s->has_scan && npages > CHUNK_PAGES;
		do {
			struct snap_task *t;

			xgrow(&j->tasks, &cap, j->ntasks + 1,
			      sizeof(*j->tasks));
			t = &j->tasks[j->ntasks++];
			t->vma = (uint32_t)i;
			t->first = first;
			t->n = (uint32_t)MIN(npages - first,
					     (uint64_t)CHUNK_PAGES);
			first += t->n;
		} while (first < npages);
	}
}

/* Add what the threads' contexts counted to st, and start them over. */
static void ctx_collect(struct snapper *s, struct snap_stats *st)
{
	for (unsigned t = 0; t < SNAP_THREADS_MAX; t++) {
		if (!s->ctx[t])
			continue;
		st->kpage_lookups += s->ctx[t]->kpage_lookups;
		st->used_pagemap_scan |= s->ctx[t]->scanned;
		st->pages_changed += s->ctx[t]->changed;
		s->ctx[t]->kpage_lookups = 0;
		s->ctx[t]->changed = 0;
		s->ctx[t]->scanned = false;
	}
}

/* Call the release callback, if any, once. */
static void snap_release(struct snapper *s)
{
	void (*fn)(void *) = s->release;

	s->release = NULL;
	if (fn)
		fn(s->release_arg);
}

void snapper_set_release(struct snapper *s, void (*fn)(void *arg),
			 void *arg)
{
	s->release = fn;
	s->release_arg = arg;
}

void snapper_set_tick(struct snapper *s, void (*fn)(void *arg), void *arg)
{
	s->tick = fn;
	s->tick_arg = arg;
}

/* At most this many bytes of page table entries are kept for a split job
 * (9 per page of its tasks); a larger one runs whole before the release. */
#define SPLIT_MAX_BYTES (128ull << 20)
/* A stash up to this size is kept for the next split job (one of a
 * process with 14 GiB of address space mapped); a larger one is freed. */
#define STASH_KEEP_BYTES (32ull << 20)

/* What task_read found of one task of a split job, kept while the
 * process runs again: its result, whether its pagemap entries are still
 * to be read (deferred), and where in s->stash its n entries are,
 * followed by n bytes of scan bits. */
struct stash {
	int ret;
	bool deferred;
	uint64_t unreadable;
	size_t off;
};

/* Bytes of s->stash task of n pages takes: its entries and scan bits,
 * rounded up so that the next task's entries are aligned. */
static size_t stash_bytes(size_t n)
{
	return (n * 9 + 7) & ~(size_t)7;
}

/* Run the job in two passes on this thread: scan every task's page
 * tables, release (the process may run again), then read the pagemap
 * entries, look the pages up and write the mapping records. Returns 0 or
 * the first error. */
static int job_run_split(struct snap_job *j, const uint32_t *ids,
			 struct md_snap_end *e, struct snap_stats *st)
{
	struct snapper *s = j->s;
	struct snap_ctx *c = ctx_get(s, 0);
	struct stash *sh = xcalloc(j->ntasks + 1, sizeof(*sh));
	uint64_t *pm = c->pm, maxkey;
	uint8_t *extra = c->extra;
	struct vma_acc acc = { 0 };
	size_t k, n, nlook, need = 0;
	int ret = 0;

	j->split = true;
	for (k = 0; k < j->ntasks; k++) {
		sh[k].off = need;
		need += stash_bytes(j->tasks[k].n);
	}
	if (need > s->stash_size) {
		free(s->stash);
		s->stash = xmalloc(need);
		s->stash_size = need;
	}
	/* task_read writes straight into each task's part of the stash */
	for (k = 0; k < j->ntasks && ret >= 0; k++) {
		n = j->tasks[k].n;
		c->pm = (uint64_t *)(s->stash + sh[k].off);
		c->extra = (uint8_t *)(c->pm + n);
		ret = sh[k].ret = task_read(j, c, k, &nlook, &maxkey);
		sh[k].deferred = c->deferred;
		sh[k].unreadable = s->slots[k % WINDOW].unreadable;
	}
	c->pm = pm;
	c->extra = extra;
	snap_release(s);
	for (k = 0; k < j->ntasks && ret >= 0; k++) {
		struct snap_slot *sl = &s->slots[k % WINDOW];

		n = j->tasks[k].n;
		sl->nruns = 0;
		sl->present = sl->swapped = 0;
		sl->unreadable = sh[k].unreadable;
		sl->ret = 0;
		if (sh[k].ret > 0) {
			/* classify reads the entries where task_read left
			 * them */
			c->pm = (uint64_t *)(s->stash + sh[k].off);
			c->extra = (uint8_t *)(c->pm + n);
			/* a process gone since is snapshot as it was
			 * when held, without the PFNs */
			if (sh[k].deferred)
				reconcile(c, &j->maps->maps[j->tasks[k].vma],
					  n, read_marked(s, c, j->pm,
							 task_va(j, k), n,
							 false) == 0);
			chunk_prepass(s, c, n, &nlook, &maxkey);
			sl->ret = classify(s, c, sl, task_va(j, k), n, nlook,
					   maxkey);
			c->pm = pm;
			c->extra = extra;
		}
		ret = flush_tasks(j, k, k + 1, ids, &acc, e, st);
	}
	free(sh);
	if (s->stash_size > STASH_KEEP_BYTES) {
		free(s->stash);
		s->stash = NULL;
		s->stash_size = 0;
	}
	ctx_collect(s, st);
	return ret;
}

/* Run the job's tasks on up to s->nthreads threads and write the mapping
 * records in order. Returns 0 or the first error. */
static int job_run(struct snap_job *j, const uint32_t *ids,
		   struct md_snap_end *e, struct snap_stats *st)
{
	struct snapper *s = j->s;
	struct snap_thread th[SNAP_THREADS_MAX];
	struct snap_ctx *c0 = ctx_get(s, 0);
	struct vma_acc acc = { 0 };
	uint64_t total;
	unsigned nth = 0, t;
	int ret = 0;

	snap_tick(s); /* after what snapper_take read first */
	tasks_make(j, &total);
	if (s->release && total * 9 <= SPLIT_MAX_BYTES)
		return job_run_split(j, ids, e, st);
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	if (j->ntasks > 1 && total >= THREAD_MIN_PAGES) {
		for (t = 1; t < s->nthreads; t++) {
			th[nth].j = j;
			th[nth].c = ctx_get(s, t);
			if (pthread_create(&th[nth].tid, NULL, worker_main,
					   &th[nth]))
				break;
			nth++;
		}
	}
	for (;;) {
		size_t from, to, k;

		pthread_mutex_lock(&j->mu);
		from = to = j->flushed;
		while (to < j->next && s->slots[to % WINDOW].done)
			to++;
		k = to == from ? task_claim(j, true) : SIZE_MAX;
		if (to == from && k == SIZE_MAX) {
			if (from == j->ntasks) {
				pthread_mutex_unlock(&j->mu);
				break;
			}
			/* wait for a task another thread is running */
			pthread_cond_wait(&j->cv, &j->mu);
		}
		pthread_mutex_unlock(&j->mu);
		if (k != SIZE_MAX) {
			task_run(j, c0, k);
			task_done(j, k);
			snap_tick(s);
			continue;
		}
		if (to == from)
			continue;
		ret = flush_tasks(j, from, to, ids, &acc, e, st);
		pthread_mutex_lock(&j->mu);
		j->flushed = to;
		if (ret < 0)
			j->stop = true;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
		if (ret < 0)
			break;
	}
	for (t = 0; t < nth; t++)
		pthread_join(th[t].tid, NULL);
	ctx_collect(s, st);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	return ret;
}

/* Name "[stack:TID]" each anonymous mapping that holds the stack pointer
 * of thread TID (not the main thread's, which the kernel names [stack]),
 * as kernels before 4.5 did in /proc/PID/maps. A thread running right now
 * has no stack pointer to read: its stack stays unnamed. */
static void name_thread_stacks(int pid, struct procmaps *maps)
{
	struct target_sp *sps = NULL;
	int n = target_thread_sps(pid, &sps);

	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < maps->n; k++) {
			struct procmap *m = &maps->maps[k];

			if (sps[i].sp < m->start || sps[i].sp >= m->end)
				continue;
			if (!m->ino && (!m->name || !m->name[0])) {
				free(m->name);
				m->name = xasprintf("[stack:%d]", sps[i].tid);
			}
			break;
		}
	}
	free(sps);
}

/* True if /proc/meminfo counts any PMD-mapped memory (AnonHugePages,
 * ShmemPmdMapped, FilePmdMapped), or cannot be read. */
static bool meminfo_pmd_mapped(void)
{
	static const char *const fields[] = { "AnonHugePages:",
					      "ShmemPmdMapped:",
					      "FilePmdMapped:" };
	char line[128];
	bool any = false;
	int seen = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return true;
	while (!any && seen < 3 && fgets(line, sizeof(line), f))
		for (int i = 0; i < 3; i++) {
			size_t len = strlen(fields[i]);

			if (strncmp(line, fields[i], len))
				continue;
			seen++;
			any = strtoull(line + len, NULL, 10) != 0;
		}
	fclose(f);
	return any || seen < 3;
}

/* Read /proc/PID/smaps for the VmFlags of maps (ordered). Returns the
 * number of mappings found or -errno. */
static int smaps_vmflags(int pid, struct procmaps *maps)
{
	char path[64];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ret = procmaps_parse_vmflags(f, maps);
	fclose(f);
	return ret;
}

/* What the snapshot of pid can say about THP and locked memory: sets
 * MD_SNAP_F_PMD in *flags when PMD-mapped pages will be marked (*pmd:
 * there may be some to mark) and MD_SNAP_F_LOCKED when the locked mappings
 * of maps are known (their vmflags). /proc/PID/smaps, as costly as the
 * snapshot, is read only when the process has locked memory (VmLck) or,
 * while PMD-mapped memory exists, hugetlb pages (HugetlbPages), which
 * PAGEMAP_SCAN reports as huge too. */
static void vma_flags_load(const struct snapper *s, int pid,
			   struct procmaps *maps, uint32_t *flags, bool *pmd)
{
	bool thp = s->has_scan && s->pmd_pages && meminfo_pmd_mapped();
	int64_t lck = target_status_kb(pid, "VmLck");
	int64_t htlb = thp ? target_status_kb(pid, "HugetlbPages") : 0;
	bool smaps = false;

	*pmd = false;
	if (lck > 0 || htlb != 0)
		smaps = smaps_vmflags(pid, maps) >= 0;
	if (lck == 0 || (lck > 0 && smaps))
		*flags |= MD_SNAP_F_LOCKED;
	if ((s->has_scan || !s->pmd_pages) && (htlb == 0 || smaps)) {
		*flags |= MD_SNAP_F_PMD;
		*pmd = thp;
	}
}

/* memsz's own pages of the files the target maps (self_load), as late as
 * possible, since memsz maps more of its libraries as it runs: those
 * snapper_prepare loaded if the target maps the same files now, else
 * loaded again. True if they are known. */
static bool self_ready(struct snapper *s, const struct procmaps *maps)
{
	size_t n;
	struct self_file *files = self_target_files(maps, &n);
	bool ok;

	if (s->prep_files && n == s->nprep &&
	    !memcmp(files, s->prep_files, n * sizeof(*files)))
		ok = s->prep_ok;
	else
		ok = self_load(s, files, n) == 0;
	free(files);
	free(s->prep_files);
	s->prep_files = NULL;
	return ok;
}

void snapper_prepare(struct snapper *s, int pid)
{
	struct procmaps maps = { 0 };

	free(s->prep_files);
	s->prep_files = NULL;
	if (!s->has_pfn || procmaps_read(pid, 0, &maps) < 0)
		return;
	s->prep_files = self_target_files(&maps, &s->nprep);
	s->prep_ok = self_load(s, s->prep_files, s->nprep) == 0;
	procmaps_free(&maps);
}

int snapper_take(struct snapper *s, int pid, uint32_t seq, uint32_t flags,
		 struct snap_stats *stats)
{
	struct procmaps maps = { 0 };
	struct md_snap_begin b = { 0 };
	struct md_snap_end e = { 0 };
	struct snap_stats local = { 0 };
	struct snap_stats *st = stats ? stats : &local;
	struct snap_job j = { .s = s, .pid = pid, .pm = -1, .maps = &maps };
	uint32_t *ids = NULL;
	char path[64];
	int64_t hwm;
	int ret, ret2;
	size_t i, dropped;

	memset(st, 0, sizeof(*st));
	st->pfn_available = s->has_pfn;
	ret = procmaps_read(pid, 0, &maps);
	if (ret < 0) {
		snap_release(s);
		return ret;
	}
	dropped = procmaps_order(&maps);
	if (dropped) {
		char *txt = xasprintf("pid %d, snapshot %u: %zu mapping(s) "
				      "overlapping others in /proc/%d/maps "
				      "(it changed while read) left out",
				      pid, seq, dropped, pid);

		ret = md_write_note(s->w, txt);
		free(txt);
		if (ret < 0)
			goto out;
	}
	name_thread_stacks(pid, &maps);
	vma_flags_load(s, pid, &maps, &flags, &j.pmd);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	j.pm = open(path, O_RDONLY | O_CLOEXEC);
	if (j.pm < 0) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	ids = xmalloc((maps.n + 1) * sizeof(*ids));
	for (i = 0; i < maps.n; i++) {
		struct procmap *m = &maps.maps[i];

		ids[i] = UINT32_MAX;
		if (m->ino == 0 && m->dev_major == 0 && m->dev_minor == 0)
			continue;
		ret = snapper_image(s, pid, m->name, m->start, m->end,
				    m->dev_major, m->dev_minor, m->ino, NULL, 0,
				    &ids[i]);
		if (ret < 0)
			goto out;
	}
	if (!s->has_pfn && !s->pss_note_written) {
		ret = md_write_note(s->w, "PSS unavailable: PFNs are not "
				    "readable without CAP_SYS_ADMIN (mapcounts "
				    "unknown; dirty is estimated: anonymous "
				    "pages dirty, file pages clean)");
		if (ret < 0)
			goto out;
		s->pss_note_written = true;
	}
	if (s->has_pfn && self_ready(s, &maps))
		flags |= MD_SNAP_F_OBSERVER_FREE;
	b.time = mono_ns();
	b.pid = (uint32_t)pid;
	b.seq = seq;
	b.flags = flags | (s->has_pfn ? MD_SNAP_F_PFN : 0) |
		  (s->has_kpageflags ? MD_SNAP_F_KPAGEFLAGS : 0) |
		  (s->has_scan ? MD_SNAP_F_PAGEMAP_SCAN : 0);
	b.nmappings = (uint32_t)maps.n;
	ret = md_write_snap_begin(s->w, &b);
	if (ret < 0)
		goto out;
	/* on an error (-ESRCH: the process is gone) end what was begun */
	ret = job_run(&j, ids, &e, st);
	snap_release(s);
	hwm = target_status_kb(pid, "VmHWM");
	e.vm_hwm = hwm > 0 ? (uint64_t)hwm << 10 : 0;
	e.time = mono_ns();
	e.pid = (uint32_t)pid;
	e.seq = seq;
	ret2 = md_write_snap_end(s->w, &e);
	if (!ret)
		ret = ret2;
	if (!ret && st->pages_changed) {
		char *txt = xasprintf("pid %d, snapshot %u: %" PRIu64 " page(s) "
				      "changed between the stop and the "
				      "reading of their pagemap entries: "
				      "counted as they were at the stop, "
				      "without their page frame (mapcount, "
				      "page flags)", pid, seq,
				      st->pages_changed);

		ret = md_write_note(s->w, txt);
		free(txt);
	}
out:
	snap_release(s);
	if (j.pm >= 0)
		close(j.pm);
	free(j.tasks);
	free(j.sparse);
	free(ids);
	procmaps_free(&maps);
	return ret;
}
