// SPDX-License-Identifier: GPL-2.0-or-later
/* snapshot.c — one residency snapshot of one process (see snapshot.h):
 * /proc/PID/maps, the VMA flags that matter (locked, hugetlb), the image
 * ids, then the job of its pages (snap_pool.c) between SNAP_BEGIN and
 * SNAP_END. The parts: snap_pagemap.c reads the page tables,
 * snap_kpage.c looks the page frames up and classifies the pages,
 * snap_observer.c keeps memsz's own pages out of the mapcounts,
 * snap_images.c writes each mapped file once.
 */
#include "config.h"

#include "record/snapshot.h"

#include "record/procmaps.h"
#include "record/snap_images.h"
#include "record/snap_int.h"
#include "record/snap_observer.h"
#include "record/snap_pagemap.h"
#include "record/snap_pool.h"
#include "record/target.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef MFD_HUGE_SHIFT
#define MFD_HUGE_SHIFT 26 /* linux/memfd.h: log2 of the size, shifted */
#endif
#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6 /* linux/magic.h */
#endif

/* What the kernel offers every snapper alike, probed by the first:
 * PAGEMAP_SCAN (an ioctl) and the PMD size (a sysfs file). Whether PFNs
 * are readable is probed by each, as memsz's capabilities may differ. */
static struct {
	bool probed, has_scan;
	uint32_t pmd_pages;
} kernel_probe;

/* A device of major 0 as s knows it: 1 a hugetlbfs, 0 not, -1 unknown. */
static int fsdev_hugetlb(const struct snapper *s, uint32_t minor)
{
	for (size_t i = 0; i < s->nfsdevs; i++)
		if (s->fsdevs[i].major == 0 && s->fsdevs[i].minor == minor)
			return s->fsdevs[i].hugetlb;
	return -1;
}

static void fsdev_add(struct snapper *s, uint32_t major, uint32_t minor,
		      bool hugetlb)
{
	xgrow(&s->fsdevs, &s->fsdevs_cap, s->nfsdevs + 1, sizeof(*s->fsdevs));
	s->fsdevs[s->nfsdevs++] = (struct snap_fsdev){
	    .major = major, .minor = minor, .hugetlb = hugetlb};
}

/* The device (major 0) of a new memfd of flags, or -1. */
static int64_t memfd_minor(unsigned flags)
{
	int fd = memfd_create("memsz-hugetlb-probe", MFD_CLOEXEC | flags);
	struct stat st;
	int64_t ret = -1;

	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && !major(st.st_dev))
		ret = minor(st.st_dev);
	close(fd);
	return ret;
}

/* Learn the kernel's internal hugetlbfs mounts, one per huge page size,
 * which every MAP_HUGETLB, memfd_create(MFD_HUGETLB) and SHM_HUGETLB
 * mapping maps: the device of a hugetlb memfd of each size in
 * /sys/kernel/mm/hugepages (creating one takes no huge page). The
 * internal tmpfs mount (memfd, MAP_SHARED | MAP_ANONYMOUS, SysV shared
 * memory) is learned too, as not hugetlbfs. */
static void fsdev_probe(struct snapper *s)
{
	DIR *d = opendir("/sys/kernel/mm/hugepages");
	struct dirent *e;
	int64_t dev = memfd_minor(0);

	if (dev >= 0)
		fsdev_add(s, 0, (uint32_t)dev, false);
	while (d && (e = readdir(d))) {
		unsigned long kb;

		if (sscanf(e->d_name, "hugepages-%lukB", &kb) != 1 || !kb ||
		    (kb & (kb - 1)))
			continue;
		dev = memfd_minor(
		    MFD_HUGETLB |
		    ((unsigned)(__builtin_ctzl(kb) + 10) << MFD_HUGE_SHIFT));
		if (dev >= 0 && fsdev_hugetlb(s, (uint32_t)dev) < 0)
			fsdev_add(s, 0, (uint32_t)dev, true);
	}
	if (d)
		closedir(d);
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
	s->kpagecgroup_fd = -1;
	s->root_fd = -1;
	s->self_pm_fd = -1;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm >= 0 && !kernel_probe.probed) {
		kernel_probe.has_scan = pagemap_probe_scan(pm, s->page_size);
		kernel_probe.pmd_pages = pagemap_pmd_pages(s->page_size);
		kernel_probe.probed = true;
	}
	if (pm >= 0) {
		s->has_pfn = pagemap_probe_pfn(pm, s->page_size);
		s->has_scan = kernel_probe.has_scan;
	}
	/* kept for the observer (snap_observer.c), which reads memsz's own
	 * pages at every snapshot that needs their PFNs */
	if (pm >= 0 && s->has_pfn)
		s->self_pm_fd = pm;
	else if (pm >= 0)
		close(pm);
	if (s->has_pfn) {
		s->kpagecount_fd =
		    open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
		s->kpageflags_fd =
		    open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		if (s->kpagecount_fd < 0)
			s->has_pfn = false;
		s->has_kpageflags = s->has_pfn && s->kpageflags_fd >= 0;
		s->kpagecgroup_fd =
		    open("/proc/kpagecgroup", O_RDONLY | O_CLOEXEC);
		s->has_kpagecgroup = s->has_pfn && s->kpagecgroup_fd >= 0;
	}
	s->pmd_pages = kernel_probe.probed ? kernel_probe.pmd_pages
					   : pagemap_pmd_pages(s->page_size);
	/* s->nthreads is counted by the first job large enough for threads
	 * (snap_pool.c): most snapshots run on the caller's thread alone */
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
	if (s->kpagecgroup_fd >= 0)
		close(s->kpagecgroup_fd);
	if (s->self_pm_fd >= 0)
		close(s->self_pm_fd);
	free(s->cgacc);
	free(s->fsdevs);
	free(s->payers);
	free(s->self_set);
	free(s->prep_files);
	procmaps_free(&s->given);
	free(s->self_pop);
	free(s->stash);
	for (i = 0; i < s->nnoted; i++)
		free(s->noted[i]);
	free(s->noted);
	snap_images_free(s);
	for (i = 0; i < SNAP_THREADS_MAX; i++) {
		struct snap_ctx *c = s->ctx[i];

		if (!c)
			continue;
		free(c->pm); /* the block of all its scratch (ctx_get) */
		free(c->vec);
		free(c->cf);
		free(c->ra);
		free(c);
	}
	for (i = 0; i < WINDOW; i++) {
		free(s->slots[i].runs);
		free(s->slots[i].cg);
	}
	free(s);
}

bool snapper_has_pfn(const struct snapper *s)
{
	return s->has_pfn;
}

void snapper_set_release(struct snapper *s, void (*fn)(void *arg), void *arg)
{
	s->release = fn;
	s->release_arg = arg;
}

void snapper_set_tick(struct snapper *s, void (*fn)(void *arg), void *arg)
{
	s->tick = fn;
	s->tick_arg = arg;
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

/* What a snapshot takes from /proc/PID/status, in one read: VmLck,
 * VmRSS and VmHWM (kB) and Threads, each -ENOENT with no
 * such line or -errno when the file cannot be read (what
 * target_status_kb() gives). The status is read through fd
 * (target_status_open, or -errno), once with the maps and again at the
 * snapshot's end for its VmHWM (snap_run()); the first VmHWM is the
 * fallback for a process gone by then. */
struct snap_status {
	int64_t lck, rss, hwm, threads;
};

static void status_read(int fd, struct snap_status *st)
{
	char buf[TARGET_STATUS_MAX], *big = NULL;
	ssize_t len =
	    fd < 0 ? fd : target_status_reread(fd, buf, sizeof(buf), &big);
	const char *text = big ? big : buf;

	if (len < 0) {
		st->lck = st->rss = st->hwm = st->threads = len;
		return;
	}
	st->lck = target_status_field(text, "VmLck");
	st->rss = target_status_field(text, "VmRSS");
	st->hwm = target_status_field(text, "VmHWM");
	st->threads = target_status_field(text, "Threads");
	free(big);
}

/* True if a PMD could map some of m: it holds a whole aligned range of
 * pmd_pages pages (a huge page is mapped by a PMD only inside one VMA, at
 * its own alignment). */
static bool map_pmd_possible(const struct snapper *s, const struct procmap *m)
{
	uint64_t size = (uint64_t)s->pmd_pages << s->page_shift;
	uint64_t a = (m->start + size - 1) & ~(size - 1);

	return size && a >= m->start && a < m->end && m->end - a >= size;
}

/* Learn from pid's mountinfo which devices of major 0 are the hugetlbfs
 * mounted where it lives (its mount namespace). Returns false if it
 * cannot be read. */
static bool fsdev_learn(struct snapper *s, int pid)
{
	const char *p, *end, *ls, *le, *sep;
	char path[64], *buf = NULL;
	unsigned maj, min;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	n = read_small_file(path, 1u << 24, &buf);
	if (n < 0)
		return false;
	p = buf;
	end = buf + n;
	while (text_next_line(&p, end, &ls, &le)) {
		/* "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - FSTYPE ..." */
		sep = memmem(ls, (size_t)(le - ls), " - ", 3);
		if (!sep || sscanf(ls, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    maj || fsdev_hugetlb(s, min) >= 0)
			continue;
		fsdev_add(s, 0, min,
			  le - sep >= 13 && !memcmp(sep + 3, "hugetlbfs ", 10));
	}
	free(buf);
	return true;
}

/* Whether m maps a hugetlbfs as statfs(2) of its /proc/PID/map_files
 * link tells (~3 us; the link needs CAP_SYS_ADMIN: on EPERM s stops
 * asking): 1 yes, 0 no, -1 unknown. */
static int map_statfs_hugetlb(struct snapper *s, int pid,
			      const struct procmap *m)
{
	char path[96];
	struct statfs sf;

	if (s->no_map_files)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, m->start, m->end);
	if (statfs(path, &sf)) {
		s->no_map_files = errno == EPERM || errno == EACCES;
		return -1;
	}
	return (uint32_t)sf.f_type == HUGETLBFS_MAGIC;
}

/* Whether the device of major 0 of m (pid's) is a hugetlbfs: 1 yes, 0
 * no, -1 unknown. Asked in turn, each answer kept for the device: what s
 * knows, statfs(2) of m's file, the kernel's own hugetlbfs mounts (probed
 * once), then a hugetlbfs mounted where pid lives (its mountinfo, read at
 * most once a snapshot: *learned -1 not yet, 0 unreadable, 1 read); a
 * device that is in none is an internal mount that is not hugetlbfs. */
static int fsdev_of(struct snapper *s, int pid, const struct procmap *m,
		    int *learned)
{
	int v = fsdev_hugetlb(s, m->dev_minor);

	if (v < 0 && (v = map_statfs_hugetlb(s, pid, m)) >= 0)
		fsdev_add(s, 0, m->dev_minor, v);
	if (v < 0 && !s->fsdevs_probed) {
		fsdev_probe(s);
		s->fsdevs_probed = true;
		v = fsdev_hugetlb(s, m->dev_minor);
	}
	if (v < 0 && *learned < 0) {
		*learned = fsdev_learn(s, pid);
		v = fsdev_hugetlb(s, m->dev_minor);
	}
	if (v < 0 && *learned > 0) {
		fsdev_add(s, 0, m->dev_minor, false);
		v = 0;
	}
	return v;
}

/* Mark the hugetlb mappings of maps (PROCMAP_VM_HUGETLB) that could hold
 * a PMD-mapped page: PAGEMAP_SCAN reports their pages huge as it does
 * THP's. They map a hugetlbfs, whose device tells them whatever the
 * process's status counted when read (HugetlbPages is 0 in a process
 * that maps another's hugetlb pages through a shared page table). Only
 * the devices of major 0 (file systems without a block device) are
 * asked about (fsdev_of); most processes have no such mapping large
 * enough, and their snapshots ask nothing. If no way tells, the mapping
 * is taken for what it is not (its huge pages may be marked THP, as
 * kpageflags' KPF_HUGE does not prevent on pages not looked up). */
static void hugetlb_mark(struct snapper *s, int pid, struct procmaps *maps)
{
	int learned = -1;

	for (size_t i = 0; i < maps->n; i++) {
		struct procmap *m = &maps->maps[i];

		if (m->dev_major || !m->ino || !map_pmd_possible(s, m))
			continue;
		if (fsdev_of(s, pid, m, &learned) > 0)
			m->vmflags |= PROCMAP_VM_HUGETLB;
	}
}

/* What the snapshot of pid can say about THP and locked memory: sets
 * MD_SNAP_F_PMD in *flags when PMD-mapped pages will be marked (*pmd:
 * there may be some to mark: a mapping other than hugetlb's could hold
 * one) and MD_SNAP_F_LOCKED when the locked mappings of maps are known
 * (their vmflags). /proc/PID/smaps, as costly as the snapshot, is read
 * only when the process has locked memory (VmLck). Marking finds nothing
 * where no page is PMD-mapped (what PAGEMAP_SCAN reports huge and
 * present outside hugetlb mappings; a pread task asks it only where 512
 * present entries run over aligned frames). */
static void vma_flags_load(struct snapper *s, int pid,
			   const struct snap_status *ps, struct procmaps *maps,
			   uint32_t *flags, bool *pmd)
{
	bool smaps = ps->lck > 0 && smaps_vmflags(pid, maps) >= 0;

	*pmd = false;
	if (ps->lck == 0 || smaps)
		*flags |= MD_SNAP_F_LOCKED;
	if (!s->has_scan && s->pmd_pages)
		return;
	*flags |= MD_SNAP_F_PMD;
	if (!s->pmd_pages)
		return;
	/* after smaps, whose VmFlags replace the mappings' vmflags */
	hugetlb_mark(s, pid, maps);
	for (size_t i = 0; i < maps->n && !*pmd; i++)
		*pmd = !(maps->maps[i].vmflags & PROCMAP_VM_HUGETLB) &&
		       map_pmd_possible(s, &maps->maps[i]);
}

/* NOTE, once per recording, that PSS is unavailable (no PFNs). Returns 0
 * or a write error. */
static int pss_note(struct snapper *s)
{
	int ret;

	if (s->has_pfn || s->pss_note_written)
		return 0;
	ret = md_write_note_kind(s->w, MD_NOTE_NO_PFN, NULL,
				 "PSS unavailable: PFNs are not "
				 "readable without CAP_SYS_ADMIN (mapcounts "
				 "unknown; dirty is estimated: anonymous "
				 "pages dirty, file pages clean)");
	if (ret < 0)
		return ret;
	s->pss_note_written = true;
	return 0;
}

/* Write the SNAP_BEGIN of snapshot seq of pid (nmappings mappings) with
 * the flags the caller and the snapper's features give it. */
static int snap_begin(struct snapper *s, int pid, uint32_t seq, uint32_t flags,
		      size_t nmappings)
{
	struct md_snap_begin b = {0};

	b.time = mono_ns();
	b.pid = (uint32_t)pid;
	b.seq = seq;
	b.flags = flags | (s->has_pfn ? MD_SNAP_F_PFN : 0) |
		  (s->has_kpageflags ? MD_SNAP_F_KPAGEFLAGS : 0) |
		  (s->has_scan ? MD_SNAP_F_PAGEMAP_SCAN : 0);
	b.nmappings = (uint32_t)nmappings;
	return md_write_snap_begin(s->w, &b);
}

/* The SNAP_CHARGE records of the snapshot whose mappings were written, if
 * any of its pages is charged elsewhere, and the cgroups that pay for
 * them (snapper_payers). Returns 0 or a write error. */
static int charge_write(struct snapper *s)
{
	for (size_t i = 0; i < s->ncgacc; i++) {
		size_t k = 0;

		while (k < s->npayers && s->payers[k] != s->cgacc[i].cgroup)
			k++;
		if (k < s->npayers)
			continue;
		xgrow(&s->payers, &s->payers_cap, s->npayers + 1,
		      sizeof(*s->payers));
		s->payers[s->npayers++] = s->cgacc[i].cgroup;
	}
	for (size_t i = 0; i < s->ncgacc; i += MD_CHARGE_MAX_RUNS) {
		struct md_snap_charge g = {
		    .own = s->own_cg,
		    .nruns = (uint32_t)MIN(s->ncgacc - i, MD_CHARGE_MAX_RUNS),
		    .runs = s->cgacc + i,
		};
		int ret = md_write_snap_charge(s->w, &g);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Run the job of the begun snapshot seq of pid and end it: SNAP_END (in
 * any case: on an error, -ESRCH when the process is gone, what was begun
 * is ended), then a NOTE of the pages found changed. Its VmHWM is read
 * once the pages are, through sfd (status_read): a target that is not
 * held meanwhile (interval snapshots; growth snapshots once the page
 * tables are scanned) may grow while they are read, and the peak must
 * hold what the snapshot counted; hwm (kB, <= 0 unknown), read with the
 * maps, stands in if the process is gone by then. Returns 0 or the first
 * error. */
static int snap_run(struct snapper *s, struct snap_job *j, int pid,
		    uint32_t seq, int64_t hwm, int sfd, const uint32_t *ids,
		    struct snap_stats *st)
{
	struct md_snap_end e = {0};
	struct snap_status late;
	int ret, ret2;

	ret = snap_job_run(j, ids, &e, st);
	snap_release(s);
	if (!ret)
		ret = charge_write(s);
	status_read(sfd, &late);
	if (late.hwm > 0)
		hwm = late.hwm;
	e.vm_hwm = hwm > 0 ? (uint64_t)hwm << 10 : 0;
	e.time = mono_ns();
	e.pid = (uint32_t)pid;
	e.seq = seq;
	ret2 = md_write_snap_end(s->w, &e);
	if (!ret)
		ret = ret2;
	if (!ret && st->pages_changed) {
		char *txt =
		    xasprintf("pid %d, snapshot %u: %" PRIu64 " page(s) "
			      "changed between the stop and the "
			      "reading of their pagemap entries: "
			      "counted as they were at the stop, "
			      "without their page frame (mapcount, "
			      "page flags)",
			      pid, seq, st->pages_changed);

		ret =
		    md_write_note_kind(s->w, MD_NOTE_PAGES_CHANGED, NULL, txt);
		free(txt);
	}
	return ret;
}

void snapper_give_maps(struct snapper *s, int pid, const struct procmaps *maps)
{
	struct procmaps *g = &s->given;

	procmaps_free(g);
	memset(g, 0, sizeof(*g));
	s->given_pid = pid;
	if (!maps->n)
		return;
	g->maps = xmalloc(maps->n * sizeof(*g->maps));
	g->n = g->cap = maps->n;
	for (size_t i = 0; i < maps->n; i++) {
		g->maps[i] = maps->maps[i];
		g->maps[i].name =
		    maps->maps[i].name ? xstrdup(maps->maps[i].name) : NULL;
	}
}

/* Read pid's mappings into maps (or take those given for pid, see
 * snapper_give_maps), in order, and NOTE those left out as overlapping
 * (the list changed while read). Returns 0 or -errno. */
static int snap_maps(struct snapper *s, int pid, uint32_t seq,
		     struct procmaps *maps)
{
	size_t dropped;
	int ret = 0;

	if (s->given_pid == pid && s->given.n) {
		*maps = s->given;
		memset(&s->given, 0, sizeof(s->given));
	} else {
		ret = procmaps_read(pid, 0, maps);
	}
	procmaps_free(&s->given);
	s->given_pid = 0;
	if (ret < 0)
		return ret;
	dropped = procmaps_order(maps);
	if (dropped) {
		char *txt = xasprintf("pid %d, snapshot %u: %zu mapping(s) "
				      "overlapping others in /proc/%d/maps "
				      "(it changed while read) left out",
				      pid, seq, dropped, pid);

		ret = md_write_note_kind(s->w, MD_NOTE_MAPS_CHANGED, NULL, txt);
		free(txt);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int snapper_take(struct snapper *s, int pid, uint32_t seq, uint32_t flags,
		 struct snap_stats *stats)
{
	struct procmaps maps = {0};
	struct snap_stats local = {0};
	struct snap_stats *st = stats ? stats : &local;
	struct snap_status ps;
	struct snap_job j = {.s = s, .pid = pid, .pm = -1, .maps = &maps};
	uint32_t *ids = NULL;
	char path[64];
	int ret, ret2, sfd = -1;

	memset(st, 0, sizeof(*st));
	st->pfn_available = s->has_pfn;
	/* the snapshot's records (images, mappings, charges, its end) go to
	 * the file in one write(2) at its end, not one each */
	ret = md_writer_gather(s->w, true);
	if (ret < 0) {
		md_writer_gather(s->w, false);
		return ret;
	}
	ret = snap_maps(s, pid, seq, &maps);
	if (ret < 0)
		goto out;
	/* read after the maps, so that a thread started meanwhile counts:
	 * one thread is the main one, whose stack the kernel names */
	sfd = target_status_open(pid);
	status_read(sfd, &ps);
	if (ps.rss >= 0) {
		j.rss_pages = (uint64_t)ps.rss << 10 >> s->page_shift;
		j.rss_known = true;
	}
	if (ps.threads != 1)
		snap_name_thread_stacks(pid, &maps);
	vma_flags_load(s, pid, &ps, &maps, &flags, &j.pmd);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	j.pm = open(path, O_RDONLY | O_CLOEXEC);
	if (j.pm < 0) {
		ret = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	s->npayers = 0;
	s->ncgacc = 0;
	ret = snap_images_map(s, pid, &maps, &ids);
	if (ret < 0)
		goto out;
	ret = pss_note(s);
	if (ret < 0)
		goto out;
	if (s->has_pfn && observer_ready(s, &maps, j.pm))
		flags |= MD_SNAP_F_OBSERVER_FREE;
	ret = snap_begin(s, pid, seq, flags, maps.n);
	if (ret < 0)
		goto out;
	ret = snap_run(s, &j, pid, seq, ps.hwm, sfd, ids, st);
out:
	snap_release(s);
	snap_images_close_fds(s);
	ret2 = md_writer_gather(s->w, false);
	if (!ret)
		ret = ret2;
	if (j.pm >= 0)
		close(j.pm);
	if (sfd >= 0)
		close(sfd);
	free(j.tasks);
	free(j.regions);
	free(j.sparse);
	free(ids);
	procmaps_free(&maps);
	return ret;
}

void snapper_set_cgroup(struct snapper *s, uint64_t ino)
{
	s->own_cg = ino;
}

void snapper_set_anon_charges(struct snapper *s, bool on)
{
	s->anon_cg = on;
}

size_t snapper_payers(const struct snapper *s, const uint64_t **inos)
{
	*inos = s->payers;
	return s->npayers;
}
