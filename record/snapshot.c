// SPDX-License-Identifier: GPL-2.0-or-later
/* snapshot.c — one residency snapshot of one process (see snapshot.h):
 * /proc/PID/maps, the VMA flags that matter (locked, hugetlb), the image
 * ids, then the job of its pages (snap_pool.c) between SNAP_BEGIN and
 * SNAP_END. The parts: snap_pagemap.c reads the page tables,
 * snap_kpage.c looks the page frames up and classifies the pages
 * (snap_charge.c reads the memory cgroups of those it queues),
 * snap_observer.c keeps memsz's own pages out of the mapcounts,
 * snap_images.c writes each mapped file once.
 */
#include "config.h"

#include "record/snapshot.h"

#include "record/procmaps.h"
#include "record/snap_hold.h"
#include "record/snap_images.h"
#include "record/snap_int.h"
#include "record/snap_kpage.h"
#include "record/snap_dirty.h"
#include "record/snap_share.h"
#include "record/snap_observer.h"
#include "record/snap_pagemap.h"
#include "record/snap_pool.h"
#include "record/snap_shmswap.h"
#include "record/target.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* What the kernel offers every snapper alike, probed by the first:
 * PAGEMAP_SCAN (an ioctl), the PMD size (a sysfs file), the release and
 * the swap areas on (kpage_swap_layout). Whether PFNs are readable is
 * probed by each, as memsz's capabilities may differ. */
static struct {
	bool probed, has_scan;
	uint32_t pmd_pages, scan_guard;
	unsigned major, minor;
	unsigned long swap_areas;
} kernel_probe;

/* The swap areas /proc/swaps lists (a line each below its header); 0 if
 * it cannot be read (no CONFIG_SWAP: no swap). */
static unsigned long swap_areas(void)
{
	FILE *f = fopen("/proc/swaps", "re");
	unsigned long n = 0;
	int c, prev = '\n';

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF) {
		n += prev == '\n';
		prev = c;
	}
	fclose(f);
	return n ? n - 1 : 0;
}

/* The running kernel's major.minor (uname(2)), 0.0 if not read. */
static void kernel_release(unsigned *major, unsigned *minor)
{
	struct utsname u;

	*major = *minor = 0;
	if (uname(&u) == 0 && sscanf(u.release, "%u.%u", major, minor) != 2)
		*major = *minor = 0;
}

/* MEMSZ_CGQ_NARROW_MAX=N: the charge queue keeps frames up to N (not
 * UINT32_MAX) in 32-bit keys, 64-bit ones from the first frame above, a
 * testing aid for machines whose frames all fit (snap_charge.c). */
static uint64_t cgq_narrow_max_env(void)
{
	const char *e = getenv("MEMSZ_CGQ_NARROW_MAX");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return UINT32_MAX;
	v = strtoull(e, &end, 10);
	return *end || v > UINT32_MAX ? UINT32_MAX : (uint64_t)v;
}

/* MEMSZ_NO_PAGEMAP_SCAN set (not "0"): snapshot as on a kernel without
 * PAGEMAP_SCAN (before Linux 6.7), a testing aid. */
static bool scan_disabled_by_env(void)
{
	const char *e = getenv("MEMSZ_NO_PAGEMAP_SCAN");

	return e && *e && strcmp(e, "0");
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
	s->anon_excl_off = xcalloc(1, sizeof(*s->anon_excl_off));
	s->kpageflags_fd = -1;
	s->kpagecgroup_fd = -1;
	s->root_fd = -1;
	s->self_fd_dir = -1;
	s->cgq_narrow_max = cgq_narrow_max_env();
	s->self_pm_fd = -1;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm >= 0 && !kernel_probe.probed) {
		kernel_probe.has_scan = !scan_disabled_by_env() &&
					pagemap_probe_scan(pm, s->page_size, 0);
		if (kernel_probe.has_scan &&
		    pagemap_probe_scan(pm, s->page_size, SCAN_IS_GUARD))
			kernel_probe.scan_guard = SCAN_IS_GUARD;
		kernel_probe.pmd_pages = pagemap_pmd_pages(s->page_size);
		kernel_release(&kernel_probe.major, &kernel_probe.minor);
		kernel_probe.swap_areas = swap_areas();
		kernel_probe.probed = true;
	}
	if (pm >= 0) {
		s->has_pfn = pagemap_probe_pfn(pm, s->page_size);
		s->has_scan = kernel_probe.has_scan;
		s->scan_guard = kernel_probe.scan_guard;
		kpage_swap_layout(s, kernel_probe.major, kernel_probe.minor,
				  kernel_probe.swap_areas);
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
	free(s->anon_excl_off);
	free(s->cgacc);
	free(s->cgkey);
	free(s->cgva);
	free(s->cgtmp);
	free(s->payers);
	free(s->self_set);
	free(s->self_maps);
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
	snap_hold_free(s);
	for (i = 0; i < WINDOW; i++) {
		free(s->slots[i].runs);
		free(s->slots[i].cg);
	}
	for (i = 0; i < s->nspare; i++) {
		free(s->spare[i].runs);
		free(s->spare[i].cg);
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

void snapper_set_tell(struct snapper *s, void (*fn)(void *arg, const char *msg),
		      void *arg)
{
	s->tell = fn;
	s->tell_arg = arg;
}

void snap_tell(const struct snapper *s, const char *msg)
{
	if (s->tell)
		s->tell(s->tell_arg, msg);
}

int snap_note(const struct snapper *s, enum md_note_kind kind,
	      const char *subject, const char *text)
{
	return snap_note_vals(s, kind, subject, text, NULL, 0);
}

int snap_note_vals(const struct snapper *s, enum md_note_kind kind,
		   const char *subject, const char *text, const uint64_t *vals,
		   uint32_t n)
{
	int ret = md_write_note_vals(s->w, kind, subject, text, vals, n);

	if (ret >= 0 && s->tell) {
		char *msg = xasprintf("note: %s", text);

		s->tell(s->tell_arg, msg);
		free(msg);
	}
	return ret;
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

/* Whether m could be a hugetlb mapping holding a PMD-sized page: it maps
 * a file system without a block device (major 0: hugetlbfs, whether the
 * kernel's own mounts behind MAP_HUGETLB, memfd_create(MFD_HUGETLB) and
 * SHM_HUGETLB, or a mounted one; SysV segments' inode is their id, 0
 * too) and holds an aligned PMD-sized range. Device 0:0 is no file. */
static bool map_hugetlb_candidate(const struct snapper *s,
				  const struct procmap *m)
{
	return !m->dev_major && (m->dev_minor || m->ino) &&
	       snap_pmd_possible(s, m);
}

/* Mark the hugetlb mappings of maps (PROCMAP_VM_HUGETLB) that could hold
 * a PMD-mapped page: PAGEMAP_SCAN reports their pages huge as it does
 * THP's. The kernel says it of each mapping, now: PROCMAP_QUERY's page
 * size (Linux 6.11+; a query per candidate, ~0.5 us), else smaps'
 * VmFlags (read only for a process with a candidate). A process's
 * HugetlbPages cannot tell (0 in one that maps another's hugetlb pages
 * through a shared page table), nor a device number learned once (an
 * unmounted file system's is given to the next mount). Most processes
 * have no candidate and ask nothing. With neither answer the mapping's
 * huge pages may be marked THP (kpageflags' KPF_HUGE clears the pages it
 * looks up). */
static void hugetlb_mark(struct snapper *s, int pid, struct procmaps *maps)
{
	size_t i;
	int fd = -1, ret = 0;

	for (i = 0; i < maps->n; i++) {
		struct procmap *m = &maps->maps[i];
		uint64_t psize;

		if (!map_hugetlb_candidate(s, m))
			continue;
		if (fd < 0 && (ret = fd = procmaps_query_open(pid)) < 0)
			break;
		ret = procmaps_query_page_size(fd, m->start, &psize);
		/* unmapped since the maps were read: nothing to mark (the
		 * pagemap read sees what is there now); not worth smaps */
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret < 0)
			break;
		if (psize > s->page_size)
			m->vmflags |= PROCMAP_VM_HUGETLB;
	}
	if (fd >= 0)
		close(fd);
	/* no PROCMAP_QUERY (or it failed otherwise): smaps, unless the
	 * process is gone */
	if (i < maps->n && ret != -ESRCH)
		smaps_vmflags(pid, maps);
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
	/* smaps' VmFlags already say which mappings are hugetlb; without
	 * PAGEMAP_SCAN (no PMD marking) they are still told, as their
	 * pages are hugetlb's (hugetlb_runs), not counted apart again */
	if (!smaps && s->pmd_pages)
		hugetlb_mark(s, pid, maps);
	if (!s->has_scan && s->pmd_pages)
		return;
	*flags |= MD_SNAP_F_PMD;
	if (!s->pmd_pages)
		return;
	for (size_t i = 0; i < maps->n && !*pmd; i++)
		*pmd = !(maps->maps[i].vmflags & PROCMAP_VM_HUGETLB) &&
		       snap_pmd_possible(s, &maps->maps[i]);
}

/* NOTE, once per recording, that PSS is unavailable (no PFNs). Returns 0
 * or a write error. */
static int pss_note(struct snapper *s)
{
	int ret;

	if (s->has_pfn || s->pss_note_written)
		return 0;
	/* not snap_note: the session says this on stderr already */
	ret =
	    md_write_note_kind(s->w, MD_NOTE_NO_PFN, NULL,
			       "PSS unavailable: PFNs are not readable without "
			       "CAP_SYS_ADMIN (mapcounts unknown; dirty is "
			       "estimated: anonymous pages dirty, file pages "
			       "clean)");
	if (ret < 0)
		return ret;
	s->pss_note_written = true;
	return 0;
}

/* NOTE, once per recording, that swap entries of types 22 and up are
 * counted as swap, as so many swap areas are on that a real one may have
 * such a type (kpage_swap_layout). Returns 0 or a write error. */
static int swap_types_note(struct snapper *s)
{
	char txt[256];
	int ret;

	if (!s->has_pfn || !s->swp_types_off || s->swp_note_written)
		return 0;
	snprintf(txt, sizeof(txt),
		 "%lu swap areas are on: pages under migration and PTE "
		 "markers (uffd-wp, poisoned; guard regions before Linux "
		 "6.15) may count as swapped, as a swap type from %d up may "
		 "be a real swap area's",
		 kernel_probe.swap_areas, PM_SWP_NOT_SWAP);
	ret = snap_note(s, MD_NOTE_OTHER, NULL, txt);
	if (ret < 0)
		return ret;
	s->swp_note_written = true;
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
 * is ended), then a NOTE of the pages found changed. Its VmHWM must hold
 * what the snapshot counted: a target that is not held meanwhile
 * (interval snapshots; growth snapshots once the page tables are
 * scanned) may grow while the pages are read. hwm (kB, <= 0 unknown),
 * the peak read with the maps, is kept when it holds the resident pages
 * counted, as it does unless the process grew past it meanwhile (one
 * status read, ~6 us, less: the SNAP_END then says the peak at the
 * snapshot's start); else the status is read again through sfd once the
 * pages are (status_read), hwm standing in if the process is gone by
 * then. Returns 0 or the first error. */
static int snap_run(struct snapper *s, struct snap_job *j, int pid,
		    uint32_t seq, int64_t hwm, int sfd, const uint32_t *ids,
		    struct snap_stats *st)
{
	struct md_snap_end e = {0};
	struct snap_status late;
	uint64_t counted;
	int ret, ret2;

	ret = snap_job_run(j, ids, &e, st);
	snap_release(s);
	if (!ret)
		ret = charge_write(s);
	counted = st->pages_present << s->page_shift;
	if (hwm <= 0 || counted > (uint64_t)hwm << 10) {
		status_read(sfd, &late);
		if (late.hwm > 0)
			hwm = late.hwm;
	}
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

		ret = snap_note(s, MD_NOTE_PAGES_CHANGED, NULL, txt);
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

		ret = snap_note(s, MD_NOTE_MAPS_CHANGED, NULL, txt);
		free(txt);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Tell (snapper_set_tell) what snapshot seq of j's process decided by
 * cost: whether smaps was read for the VmFlags of its locked memory and,
 * where the kernel has THP and PAGEMAP_SCAN, for the sharing of its huge
 * pages (snap_share.h). Nothing if the snapshot failed (ret < 0). */
static void tell_decisions(const struct snapper *s, const struct snap_job *j,
			   const struct snap_status *ps, uint32_t seq, int ret)
{
	char how[192], *msg;

	if (ret < 0 || !s->tell)
		return;
	if (ps->lck > 0) {
		msg = xasprintf(
		    "pid %d snapshot %" PRIu32 ": smaps read for "
		    "the VmFlags of its locked memory (VmLck %" PRId64 " kB)",
		    j->pid, seq, ps->lck);
		snap_tell(s, msg);
		free(msg);
	}
	if (!s->pmd_pages || !s->has_scan || !j->share)
		return;
	snap_share_tell(j->share, how, sizeof(how));
	msg = xasprintf("pid %d snapshot %" PRIu32 ": %s", j->pid, seq, how);
	snap_tell(s, msg);
	free(msg);
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
	s->shm_swap = 0; /* asked again (snap_shmswap.c) */
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
	s->ncgq = 0;
	ret = snap_images_map(s, pid, &maps, &ids);
	if (ret < 0)
		goto out;
	ret = pss_note(s);
	if (ret >= 0)
		ret = swap_types_note(s);
	if (ret < 0)
		goto out;
	if (s->has_pfn && observer_ready(s, &maps, j.pm))
		flags |= MD_SNAP_F_OBSERVER_FREE;
	ret = snap_begin(s, pid, seq, flags, maps.n);
	if (ret < 0)
		goto out;
	/* smaps' dirty totals, where anonymous pages may be clean, read
	 * right before the page walk: the target is held through both only
	 * when this snapshot holds it (--freeze, a growth snapshot of a
	 * traced target, the exit snapshot); else a page it writes between
	 * the reads is counted as smaps counted it (snap_dirty.h) */
	snap_dirty_load(&j);
	ret = snap_run(s, &j, pid, seq, ps.hwm, sfd, ids, st);
	tell_decisions(s, &j, &ps, seq, ret);
out:
	ret2 = snap_dirty_finish(&j, seq, ret >= 0);
	if (!ret)
		ret = ret2;
	snap_release(s);
	snap_images_close_fds(s);
	ret2 = md_writer_gather(s->w, false);
	if (!ret)
		ret = ret2;
	if (j.pm >= 0)
		close(j.pm);
	if (sfd >= 0)
		close(sfd);
	shmswap_free(&j);
	free(j.tasks);
	free(j.regions);
	free(j.sparse);
	snap_share_free(j.share);
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
