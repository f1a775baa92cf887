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
#include "record/procmaps.h"
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kernel-page-flags.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

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

#define CHUNK_PAGES (1u << 16)   /* pagemap entries per pread */
#define SCAN_VEC 4096            /* regions per PAGEMAP_SCAN call */
#define KPAGE_BLOCK (1u << 17)   /* max entries per kpage pread (1 MiB) */
#define KPAGE_GAP 32             /* read through gaps this small */
/* A chunk whose resident fraction is below 1/SPARSE is "sparse": the next
 * one is found with PAGEMAP_SCAN instead of a plain pread. */
#define SPARSE 8

struct snap_image {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t id;
};

struct snapper {
	struct md_writer *w;
	int kpagecount_fd, kpageflags_fd;
	bool has_pfn, has_kpageflags, has_scan;
	bool pss_note_written;
	size_t page_size;
	unsigned page_shift;
	struct snap_image *images;
	size_t nimages, images_cap;
	char **noted;            /* unreadable mapping names already noted */
	size_t nnoted, noted_cap;

	/* per-chunk scratch */
	uint64_t *pm;            /* pagemap entries */
	uint8_t *extra;          /* SCAN_IS_* bits per page (when scanned) */
	uint64_t *kcount, *kflags;
	struct snap_lookup { uint64_t pfn; uint32_t idx; } *look;
	uint64_t *kbuf;
	struct snap_page_region *vec;
	struct md_run *runs;
	size_t runs_cap;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

int snapper_new(struct md_writer *w, struct snapper **out)
{
	struct snapper *s = xcalloc(1, sizeof(*s));
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
	s->pm = xmalloc(CHUNK_PAGES * sizeof(*s->pm));
	s->extra = xmalloc(CHUNK_PAGES);
	s->kcount = xmalloc(CHUNK_PAGES * sizeof(*s->kcount));
	s->kflags = xmalloc(CHUNK_PAGES * sizeof(*s->kflags));
	s->look = xmalloc(CHUNK_PAGES * sizeof(*s->look));
	s->kbuf = xmalloc(KPAGE_BLOCK * sizeof(*s->kbuf));
	s->vec = xmalloc(SCAN_VEC * sizeof(*s->vec));
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
	for (i = 0; i < s->nnoted; i++)
		free(s->noted[i]);
	free(s->noted);
	free(s->images);
	free(s->pm);
	free(s->extra);
	free(s->kcount);
	free(s->kflags);
	free(s->look);
	free(s->kbuf);
	free(s->vec);
	free(s->runs);
	free(s);
}

bool snapper_has_pfn(const struct snapper *s)
{
	return s->has_pfn;
}

/* --- images --- */

/* Read the NT_GNU_BUILD_ID note of an ELF file through its PT_NOTE
 * segments. Returns the id's length (0 if none). */
static uint32_t read_build_id(int fd, uint8_t *id, uint32_t max)
{
	unsigned char eh[64];
	bool is64, swap;
	uint64_t phoff;
	unsigned phnum, phentsize, i;

	if (pread(fd, eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh, ELFMAG, SELFMAG))
		return 0;
	is64 = eh[EI_CLASS] == ELFCLASS64;
	swap = eh[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
					ELFDATA2LSB : ELFDATA2MSB);
#define RD16(p) (swap ? __builtin_bswap16(*(uint16_t *)(p)) : *(uint16_t *)(p))
#define RD32(p) (swap ? __builtin_bswap32(*(uint32_t *)(p)) : *(uint32_t *)(p))
#define RD64(p) (swap ? __builtin_bswap64(*(uint64_t *)(p)) : *(uint64_t *)(p))
	if (is64) {
		Elf64_Ehdr h;

		memcpy(&h, eh, sizeof(h));
		phoff = RD64(&h.e_phoff);
		phnum = RD16(&h.e_phnum);
		phentsize = RD16(&h.e_phentsize);
	} else {
		Elf32_Ehdr h;

		memcpy(&h, eh, sizeof(h));
		phoff = RD32(&h.e_phoff);
		phnum = RD16(&h.e_phnum);
		phentsize = RD16(&h.e_phentsize);
	}
	if (phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
	    phnum > 4096)
		return 0;
	for (i = 0; i < phnum; i++) {
		unsigned char ph[sizeof(Elf64_Phdr)], *note;
		uint64_t off, size, pos = 0;

		if (pread(fd, ph, phentsize > sizeof(ph) ? sizeof(ph) :
			  phentsize, (off_t)(phoff + (uint64_t)i * phentsize)) <
		    (ssize_t)(is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
			return 0;
		if (is64) {
			Elf64_Phdr p;

			memcpy(&p, ph, sizeof(p));
			if (RD32(&p.p_type) != PT_NOTE)
				continue;
			off = RD64(&p.p_offset);
			size = RD64(&p.p_filesz);
		} else {
			Elf32_Phdr p;

			memcpy(&p, ph, sizeof(p));
			if (RD32(&p.p_type) != PT_NOTE)
				continue;
			off = RD32(&p.p_offset);
			size = RD32(&p.p_filesz);
		}
		if (size > (1 << 20) || size < 12)
			continue;
		note = xmalloc(size);
		if (pread(fd, note, size, (off_t)off) != (ssize_t)size) {
			free(note);
			continue;
		}
		while (pos + 12 <= size) {
			uint32_t nsz = RD32(note + pos), dsz = RD32(note + pos + 4);
			uint32_t type = RD32(note + pos + 8);
			uint64_t name = pos + 12;
			uint64_t desc = name + ((nsz + 3ull) & ~3ull);
			uint64_t next = desc + ((dsz + 3ull) & ~3ull);

			if (next > size)
				break;
			if (type == NT_GNU_BUILD_ID && nsz == 4 &&
			    !memcmp(note + name, "GNU", 4) && dsz > 0) {
				uint32_t n = dsz < max ? dsz : max;

				memcpy(id, note + desc, n);
				free(note);
				return n;
			}
			pos = next;
		}
		free(note);
	}
#undef RD16
#undef RD32
#undef RD64
	return 0;
}

static bool same_file(const struct stat *st, uint32_t maj, uint32_t min,
		      uint64_t ino)
{
	return (uint64_t)st->st_ino == ino && major(st->st_dev) == maj &&
	       minor(st->st_dev) == min;
}

/* Find where the file (dev, ino) mapped by pid at path can be opened:
 * /proc/PID/root/PATH, PATH itself, or an entry of /proc/PID/map_files.
 * Returns an allocated path ("" if none) and fills *st. */
static char *find_open_path(int pid, const char *path, uint32_t maj,
			    uint32_t min, uint64_t ino, struct stat *st)
{
	char *p, *clean = xstrdup(path);
	size_t len = strlen(clean);
	static const char deleted[] = " (deleted)";
	DIR *d;
	struct dirent *de;

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
	p = xasprintf("/proc/%d/map_files", pid);
	d = opendir(p);
	free(p);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			p = xasprintf("/proc/%d/map_files/%s", pid, de->d_name);
			if (!stat(p, st) && same_file(st, maj, min, ino)) {
				closedir(d);
				goto found;
			}
			free(p);
		}
		closedir(d);
	}
	free(clean);
	memset(st, 0, sizeof(*st));
	return xstrdup("");
found:
	free(clean);
	return p;
}

int snapper_image(struct snapper *s, int pid, const char *path,
		  uint32_t dev_major, uint32_t dev_minor, uint64_t ino,
		  const uint8_t *build_id, uint32_t build_id_len,
		  uint32_t *image_id)
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
	open_path = find_open_path(pid, path, dev_major, dev_minor, ino, &st);
	im.id = (uint32_t)s->nimages;
	im.dev_major = dev_major;
	im.dev_minor = dev_minor;
	im.ino = ino;
	im.path = path;
	im.open_path = open_path;
	if (open_path[0]) {
		im.size = (uint64_t)st.st_size;
		im.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
			      st.st_mtim.tv_nsec;
	}
	if (build_id && build_id_len) {
		im.build_id_len = MIN(build_id_len, sizeof(im.build_id));
		memcpy(im.build_id, build_id, im.build_id_len);
	} else if (open_path[0] && S_ISREG(st.st_mode)) {
		fd = open(open_path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			im.build_id_len = read_build_id(fd, im.build_id,
							sizeof(im.build_id));
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

struct vma_state {
	int pid;
	struct md_run *runs;
	size_t nruns;
	uint64_t present, swapped, unreadable;
};

static void run_add(struct snapper *s, struct vma_state *v, uint64_t va,
		    uint32_t flags, uint32_t mapcount)
{
	struct md_run *r = v->nruns ? &s->runs[v->nruns - 1] : NULL;

	if (r && r->flags == flags && r->mapcount == mapcount &&
	    r->npages < UINT32_MAX &&
	    r->vaddr + ((uint64_t)r->npages << s->page_shift) == va) {
		r->npages++;
		return;
	}
	xgrow(&s->runs, &s->runs_cap, v->nruns + 1, sizeof(*s->runs));
	r = &s->runs[v->nruns++];
	r->vaddr = va;
	r->npages = 1;
	r->flags = flags;
	r->mapcount = mapcount;
	r->reserved = 0;
}

static int cmp_lookup(const void *a, const void *b)
{
	const struct snap_lookup *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* Fill kcount/kflags for the n looked-up pages (sorted by PFN): one pread
 * per block of nearby PFNs. */
static int kpage_fill(struct snapper *s, size_t n)
{
	size_t i = 0, j, k;
	int fds[2] = { s->kpagecount_fd,
		       s->has_kpageflags ? s->kpageflags_fd : -1 };
	uint64_t *dst[2] = { s->kcount, s->kflags };

	qsort(s->look, n, sizeof(*s->look), cmp_lookup);
	while (i < n) {
		uint64_t first = s->look[i].pfn, cnt;

		j = i + 1;
		while (j < n && s->look[j].pfn - s->look[j - 1].pfn <= KPAGE_GAP &&
		       s->look[j].pfn - first < KPAGE_BLOCK)
			j++;
		cnt = s->look[j - 1].pfn - first + 1;
		for (int f = 0; f < 2; f++) {
			ssize_t r;

			if (fds[f] < 0) {
				for (k = i; k < j; k++)
					dst[f][s->look[k].idx] = 0;
				continue;
			}
			r = pread_full(fds[f], s->kbuf, cnt * 8, first * 8);
			if (r < 0)
				return (int)r;
			for (k = i; k < j; k++) {
				uint64_t o = s->look[k].pfn - first;

				dst[f][s->look[k].idx] =
					(o + 1) * 8 <= (uint64_t)r ? s->kbuf[o] : 0;
			}
		}
		i = j;
	}
	return 0;
}

/* Classify the n pages of one chunk at va (entries in s->pm, scan bits in
 * s->extra) and append them to the VMA's runs. */
static int classify(struct snapper *s, struct vma_state *v, uint64_t va,
		    size_t n, struct snap_stats *st)
{
	size_t i, nlook = 0;
	int ret;

	if (s->has_pfn) {
		for (i = 0; i < n; i++) {
			uint64_t e = s->pm[i];

			if (!(e & PM_PRESENT) || !(e & PM_PFN_MASK))
				continue;
			/* exclusive anonymous pages: mapcount 1, dirty */
			if ((e & PM_EXCLUSIVE) && !(e & PM_FILE))
				continue;
			s->look[nlook].pfn = e & PM_PFN_MASK;
			s->look[nlook].idx = (uint32_t)i;
			nlook++;
		}
		if (nlook) {
			ret = kpage_fill(s, nlook);
			if (ret < 0)
				return ret;
			if (st)
				st->kpage_lookups += nlook;
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t e = s->pm[i], kf = 0;
		uint32_t fl = 0, mapcount = 0;
		bool dirty, looked;

		if (e & PM_SWAPPED) {
			fl = MD_PG_SWAPPED;
			if (e & PM_FILE)
				fl |= MD_PG_FILE;
			if (e & PM_SOFTDIRTY)
				fl |= MD_PG_SOFTDIRTY;
			v->swapped++;
			run_add(s, v, va + (i << s->page_shift), fl, 0);
			continue;
		}
		if (!(e & PM_PRESENT))
			continue;
		if (e & PM_FILE)
			fl |= MD_PG_FILE;
		if (e & PM_EXCLUSIVE)
			fl |= MD_PG_EXCLUSIVE;
		if (e & PM_SOFTDIRTY)
			fl |= MD_PG_SOFTDIRTY;
		if (s->extra[i] & SCAN_IS_HUGE)
			fl |= MD_PG_THP;
		looked = s->has_pfn && (e & PM_PFN_MASK) &&
			 !((e & PM_EXCLUSIVE) && !(e & PM_FILE));
		if (looked) {
			kf = s->kflags[i];
			mapcount = (uint32_t)MIN(s->kcount[i], UINT32_MAX);
			if (s->has_kpageflags) {
				if (kf & (1ull << KPF_DIRTY))
					fl |= MD_PG_DIRTY;
				if (kf & (1ull << KPF_ANON))
					fl |= MD_PG_ANON;
				if (kf & (1ull << KPF_SWAPBACKED))
					fl |= MD_PG_SWAPBACKED;
				if (kf & (1ull << KPF_KSM))
					fl |= MD_PG_KSM;
				if (kf & (1ull << KPF_THP))
					fl |= MD_PG_THP;
				if (kf & (1ull << KPF_HUGE))
					fl |= MD_PG_HUGE;
				if (kf & (1ull << KPF_IDLE))
					fl |= MD_PG_IDLE;
			}
			/* not a normal page (the zero page, a pfn mapping):
			 * smaps does not count it */
			if ((kf & ((1ull << KPF_ZERO_PAGE) |
				   (1ull << KPF_NOPAGE))) ||
			    mapcount == 0) {
				fl = (fl & ~(uint32_t)MD_PG_THP) | MD_PG_ZERO;
				run_add(s, v, va + (i << s->page_shift), fl, 0);
				continue;
			}
		} else if (s->extra[i] & SCAN_IS_PFNZERO) {
			run_add(s, v, va + (i << s->page_shift),
				fl | MD_PG_ZERO, 0);
			continue;
		}
		fl |= MD_PG_PRESENT;
		if (e & PM_EXCLUSIVE)
			mapcount = 1;
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
		v->present++;
		run_add(s, v, va + (i << s->page_shift), fl, mapcount);
	}
	return 0;
}

/* PAGEMAP_SCAN over [start, end): fill s->extra for the pages of the chunk
 * at base (n pages) with each region's categories. Returns the number of
 * pages reported present or swapped, or a negative code. */
static long scan_range(struct snapper *s, int pm, uint64_t base, size_t n,
		       uint64_t mask)
{
	uint64_t start = base, end = base + ((uint64_t)n << s->page_shift);
	long pages = 0;

	memset(s->extra, 0, n);
	while (start < end) {
		struct snap_scan_arg a = {
			.size = sizeof(a), .start = start, .end = end,
			.vec = (uintptr_t)s->vec, .vec_len = SCAN_VEC,
			.category_anyof_mask = mask,
			.return_mask = SCAN_IS_PRESENT | SCAN_IS_SWAPPED |
				       SCAN_IS_PFNZERO | SCAN_IS_HUGE,
		};
		long r = ioctl(pm, SNAP_PAGEMAP_SCAN, &a);

		if (r < 0)
			return -errno;
		for (long k = 0; k < r; k++) {
			uint64_t a0 = (s->vec[k].start - base) >> s->page_shift;
			uint64_t a1 = (s->vec[k].end - base) >> s->page_shift;
			uint8_t c = (uint8_t)(s->vec[k].categories | 0x80);

			memset(s->extra + a0, c, a1 - a0);
			pages += (long)(a1 - a0);
		}
		if (a.walk_end <= start)
			break;
		start = a.walk_end;
	}
	return pages;
}

/* Read pagemap for the pages of the chunk marked in s->extra (bit 0x80),
 * in spans that skip long holes; other entries are zeroed. */
static int read_marked(struct snapper *s, int pm, uint64_t base, size_t n)
{
	size_t i = 0, j;
	uint64_t first = base >> s->page_shift;

	while (i < n) {
		if (!s->extra[i]) {
			s->pm[i++] = 0;
			continue;
		}
		/* extend the span through holes shorter than 64 pages */
		j = i + 1;
		for (;;) {
			size_t k = j;

			while (k < n && !s->extra[k] && k - j < 64)
				k++;
			if (k < n && s->extra[k])
				j = k + 1;
			else
				break;
			while (j < n && s->extra[j])
				j++;
		}
		ssize_t r = pread_full(pm, s->pm + i, (j - i) * 8,
				       (first + i) * 8);
		if (r < 0)
			return (int)r;
		if ((size_t)r < (j - i) * 8)
			return -ESRCH;
		for (size_t k = i; k < j; k++)
			if (!s->extra[k])
				s->pm[k] = 0;
		i = j;
	}
	return 0;
}

/* True if pid has exited (gone or a zombie: its memory is released). */
static bool process_gone(int pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static int snap_vma(struct snapper *s, int pm, const struct procmap *m,
		    struct vma_state *v, struct snap_stats *st, bool *scanned)
{
	uint64_t npages = (m->end - m->start) >> s->page_shift, done = 0;
	bool sparse = s->has_scan && npages > CHUNK_PAGES;
	int ret;

	v->nruns = 0;
	v->present = v->swapped = v->unreadable = 0;
	if (m->start >= m->end)
		return 0;
	while (done < npages) {
		size_t n = (size_t)MIN(npages - done, (uint64_t)CHUNK_PAGES);
		uint64_t va = m->start + (done << s->page_shift);
		ssize_t r;
		size_t i, amb = 0, lo = n, hi = 0;

		if (sparse) {
			long got = scan_range(s, pm, va, n,
					      SCAN_IS_PRESENT | SCAN_IS_SWAPPED);

			if (got < 0)
				return (int)got;
			*scanned = true;
			ret = read_marked(s, pm, va, n);
			if (ret < 0)
				return ret;
			sparse = (size_t)got * SPARSE < n;
		} else {
			r = pread_full(pm, s->pm, n * 8,
				       (va >> s->page_shift) * 8);
			if (r < 0 && r != -EIO && r != -EINVAL)
				return (int)r;
			if (r < (ssize_t)(n * 8)) {
				if (process_gone(v->pid))
					return -ESRCH;
				/* e.g. [vsyscall], above the task size */
				v->unreadable += npages - done;
				break;
			}
			memset(s->extra, 0, n);
			for (i = 0; i < n; i++) {
				uint64_t e = s->pm[i];

				if (e & (PM_PRESENT | PM_SWAPPED))
					amb++;
				/* present, neither file nor exclusive, no
				 * PFN to look at: maybe the zero page */
				if ((e & PM_PRESENT) && !(e & PM_FILE) &&
				    !(e & PM_EXCLUSIVE) && !s->has_pfn) {
					lo = MIN(lo, i);
					hi = i + 1;
				}
			}
			if (s->has_scan && npages > CHUNK_PAGES &&
			    amb * SPARSE < n)
				sparse = true;
			if (s->has_scan && hi > lo) {
				long got = scan_range(
					s, pm, va + (lo << s->page_shift),
					hi - lo, SCAN_IS_PFNZERO);

				if (got < 0)
					return (int)got;
				*scanned = true;
				memmove(s->extra + lo, s->extra, hi - lo);
				memset(s->extra, 0, lo);
			}
		}
		ret = classify(s, v, va, n, st);
		if (ret < 0)
			return ret;
		done += n;
	}
	v->runs = s->runs;
	return 0;
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

int snapper_take(struct snapper *s, int pid, uint32_t seq, uint32_t flags,
		 struct snap_stats *stats)
{
	struct procmaps maps = { 0 };
	struct md_snap_begin b = { 0 };
	struct md_snap_end e = { 0 };
	struct snap_stats local = { 0 };
	struct snap_stats *st = stats ? stats : &local;
	uint32_t *ids = NULL;
	bool scanned = false;
	char path[64];
	int pm = -1, ret, ret2;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->pfn_available = s->has_pfn;
	ret = procmaps_read(pid, 0, &maps);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pm = open(path, O_RDONLY | O_CLOEXEC);
	if (pm < 0) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	ids = xmalloc((maps.n + 1) * sizeof(*ids));
	for (i = 0; i < maps.n; i++) {
		struct procmap *m = &maps.maps[i];

		ids[i] = UINT32_MAX;
		if (m->ino == 0 && m->dev_major == 0 && m->dev_minor == 0)
			continue;
		ret = snapper_image(s, pid, m->name, m->dev_major, m->dev_minor,
				    m->ino, NULL, 0, &ids[i]);
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
	b.time = now_ns();
	b.pid = (uint32_t)pid;
	b.seq = seq;
	b.flags = flags | (s->has_pfn ? MD_SNAP_F_PFN : 0) |
		  (s->has_kpageflags ? MD_SNAP_F_KPAGEFLAGS : 0) |
		  (s->has_scan ? MD_SNAP_F_PAGEMAP_SCAN : 0);
	b.nmappings = (uint32_t)maps.n;
	ret = md_write_snap_begin(s->w, &b);
	if (ret < 0)
		goto out;
	for (i = 0; i < maps.n; i++) {
		struct procmap *m = &maps.maps[i];
		struct vma_state v = { .pid = pid };
		struct md_snap_mapping mr = {
			.start = m->start, .end = m->end, .pgoff = m->pgoff,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
			.ino = m->ino, .prot = m->prot, .flags = m->flags,
			.image_id = ids[i], .name = m->name,
		};

		ret = snap_vma(s, pm, m, &v, st, &scanned);
		if (ret < 0 && ret != -ESRCH)
			break;
		if (ret == -ESRCH) {
			/* the process is gone: end what was begun */
			break;
		}
		mr.runs = v.runs;
		mr.nruns = v.nruns;
		e.unreadable_pages += v.unreadable;
		if (v.unreadable && !noted(s, m->name)) {
			char *t = xasprintf("%lu pages of '%s' cannot be read "
					    "from pagemap",
					    (unsigned long)v.unreadable,
					    m->name);

			ret = md_write_note(s->w, t);
			free(t);
			if (ret < 0)
				break;
		}
		ret = md_write_mapping(s->w, &mr);
		if (ret < 0)
			break;
		st->mappings++;
		st->pages_present += v.present;
		st->pages_swapped += v.swapped;
		st->runs += v.nruns;
	}
	st->used_pagemap_scan = scanned;
	e.time = now_ns();
	e.pid = (uint32_t)pid;
	e.seq = seq;
	ret2 = md_write_snap_end(s->w, &e);
	if (!ret)
		ret = ret2;
out:
	if (pm >= 0)
		close(pm);
	free(ids);
	procmaps_free(&maps);
	return ret;
}
