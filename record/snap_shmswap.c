// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_shmswap.c — shmem pages swapped out, found in the page cache of
 * the object a mapping maps (see snap_shmswap.h).
 */
#include "config.h"

#include "record/snap_shmswap.h"

#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef __NR_cachestat
#define __NR_cachestat 451 /* the same number on every architecture */
#endif

/* cachestat(2)'s arguments (linux/mman.h, 6.5+), for older headers. */
struct shm_cachestat_range {
	uint64_t off, len;
};
struct shm_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

/* Whether mapping m may map shmem: a file (inode) on a file system
 * without a block device (major 0: tmpfs is one, and the kernel's own
 * mount behind memfd, SysV segments and shared anonymous memory), not
 * hugetlb (whose pages are never swapped). */
static bool shm_candidate(const struct procmap *m)
{
	return m->ino && !m->dev_major && !(m->vmflags & PROCMAP_VM_HUGETLB);
}

/* Whether any page is in swap now (sysinfo(2), asked once a snapshot):
 * without, no shmem page is swapped out and nothing is to be asked. */
static bool swap_used(struct snap_shmswap *w)
{
	struct sysinfo si;

	if (!w->swap)
		w->swap =
		    sysinfo(&si) == 0 && si.totalswap == si.freeswap ? 1 : 2;
	return w->swap == 2;
}

/* The entry of device (major, minor) in the snapshot's list, or NULL. */
static struct shmswap_dev *dev_find(struct snap_shmswap *w, uint32_t major,
				    uint32_t minor)
{
	for (size_t i = 0; i < w->ndevs; i++)
		if (w->devs[i].major == major && w->devs[i].minor == minor)
			return &w->devs[i];
	return NULL;
}

/* Note, once a recording, that shmem pages swapped out cannot be counted
 * (why). Returns 0 or the write error. */
static int shm_note(struct snapper *s, const char *why)
{
	char *txt;
	int ret;

	if (s->shm_noted)
		return 0;
	s->shm_noted = true;
	txt = xasprintf("shared memory swapped out (tmpfs, memfd, SysV, "
			"shared anonymous) is not counted in SWAP: %s",
			why);
	ret = md_write_note_kind(s->w, MD_NOTE_SHMEM_SWAP, NULL, txt);
	free(txt);
	return ret;
}

/* The pages evicted from [first, first + n) of the object open as fd
 * (pages of 1 << shift bytes) into *ev, at most n: for shmem the swap
 * entries its page cache holds there. Returns 0 or -errno. */
static int evicted_in(int fd, uint64_t first, uint64_t n, unsigned shift,
		      uint64_t *ev)
{
	struct shm_cachestat_range r = {first << shift, n << shift};
	struct shm_cachestat cs;

	if (syscall(__NR_cachestat, fd, &r, &cs, 0) < 0)
		return -errno;
	*ev = MIN(cs.nr_evicted, n);
	return 0;
}

/* Open the object mapping m of pid maps (its map_files link) into
 * w->fd if it is shmem, caching each file system's answer in the
 * snapshot's list. Returns 1 if open, 0 if not shmem (or unmapped
 * meanwhile), or -EPERM / -EACCES (map_files refused). */
static int shm_open(struct snap_shmswap *w, int pid, const struct procmap *m)
{
	struct shmswap_dev *d = dev_find(w, m->dev_major, m->dev_minor);
	struct statfs sf;
	struct stat st;
	char path[80];
	int fd;

	if (d && !d->tmpfs)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, m->start, m->end);
	fd = open_regular_at(AT_FDCWD, path, &st);
	if (fd == -EPERM || fd == -EACCES)
		return fd;
	if (fd < 0)
		return 0;
	/* another file mapped there since the maps were read */
	if ((uint64_t)st.st_ino != m->ino || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor)
		goto no;
	if (!d) {
		if (fstatfs(fd, &sf) < 0)
			goto no;
		xgrow(&w->devs, &w->devs_cap, w->ndevs + 1, sizeof(*w->devs));
		d = &w->devs[w->ndevs++];
		*d = (struct shmswap_dev){m->dev_major, m->dev_minor,
					  sf.f_type == TMPFS_MAGIC};
	}
	if (!d->tmpfs)
		goto no;
	w->fd = fd;
	return 1;
no:
	close(fd);
	return 0;
}

/* Close the mapping's object, if open. */
static void shm_close(struct snap_shmswap *w)
{
	if (w->on)
		close(w->fd);
	w->on = false;
}

bool shmswap_head_out(int fd, uint32_t dev_major, unsigned shift)
{
	struct statfs sf;
	uint64_t ev = 0;

	return !dev_major && fstatfs(fd, &sf) == 0 &&
	       sf.f_type == TMPFS_MAGIC &&
	       evicted_in(fd, 0, 1, shift, &ev) == 0 && ev;
}

int shmswap_begin(struct snap_job *j, uint32_t vma)
{
	struct snapper *s = j->s;
	struct snap_shmswap *w = &j->shm;
	const struct procmap *m = &j->maps->maps[vma];
	uint64_t ev = 0;
	int ret;

	shm_close(w);
	if (w->off || s->shm_no_cachestat || !shm_candidate(m) || !swap_used(w))
		return 0;
	ret = shm_open(w, j->pid, m);
	if (ret < 0) {
		w->off = true;
		return shm_note(s, "/proc/PID/map_files cannot be opened "
				   "(needs CAP_SYS_ADMIN)");
	}
	if (!ret)
		return 0;
	ret = evicted_in(w->fd, m->pgoff >> s->page_shift,
			 (m->end - m->start) >> s->page_shift, s->page_shift,
			 &ev);
	if (ret < 0 || !ev) {
		close(w->fd);
		if (ret == -ENOSYS)
			s->shm_no_cachestat = true;
		if (ret == -ENOSYS || ret == -EPERM)
			return shm_note(s,
					ret == -ENOSYS
					    ? "the kernel has no cachestat(2) "
					      "(Linux 6.5+)"
					    : "cachestat(2) refused");
		return 0;
	}
	w->on = true;
	w->start = m->start;
	w->end = m->end;
	w->pgoff = m->pgoff;
	w->pos = m->start;
	return 0;
}

/* Append to the output the run r, joined to the last if it continues it
 * with the same flags and mapcount (up to UINT32_MAX pages a run). */
static void run_put(struct snap_shmswap *w, struct md_run r, unsigned shift)
{
	struct md_run *p = w->nruns ? &w->runs[w->nruns - 1] : NULL;

	if (p && p->flags == r.flags && p->mapcount == r.mapcount &&
	    p->vaddr + ((uint64_t)p->npages << shift) == r.vaddr &&
	    (uint64_t)p->npages + r.npages <= UINT32_MAX) {
		p->npages += r.npages;
		return;
	}
	xgrow(&w->runs, &w->runs_cap, w->nruns + 1, sizeof(*w->runs));
	w->runs[w->nruns++] = r;
}

/* Append the n pages at va, swapped out, as runs of at most UINT32_MAX
 * pages. */
static void swapped_put(struct snap_shmswap *w, uint64_t va, uint64_t n,
			unsigned shift)
{
	w->added += n;
	while (n) {
		uint32_t k = (uint32_t)MIN(n, (uint64_t)UINT32_MAX);

		run_put(w,
			(struct md_run){.vaddr = va,
					.npages = k,
					.flags = MD_PG_SWAPPED | MD_PG_FILE},
			shift);
		va += (uint64_t)k << shift;
		n -= k;
	}
}

/* Append the pages swapped out of the n pages at va, ev of which are
 * (known), halving the range until each part holds none or is all
 * swapped out: one cachestat(2) a step (the first half is asked, the
 * second has the rest). Returns 0 or -errno. */
static int swapped_find(struct snap_shmswap *w, uint64_t va, uint64_t n,
			uint64_t ev, unsigned shift)
{
	uint64_t half, lev = 0;
	int ret;

	while (ev) {
		if (ev >= n) {
			swapped_put(w, va, n, shift);
			return 0;
		}
		half = n / 2; /* n >= 2: 0 < ev < n */
		ret = evicted_in(w->fd, (w->pgoff + va - w->start) >> shift,
				 half, shift, &lev);
		if (ret < 0)
			return ret;
		lev = MIN(lev, ev);
		ret = swapped_find(w, va, half, lev, shift);
		if (ret < 0)
			return ret;
		va += half << shift;
		n -= half;
		ev -= lev;
	}
	return 0;
}

/* Append the pages swapped out in the gap [a, b) of the mapping. A
 * failed cachestat(2) (the object gone) ends the look-ups of the
 * mapping. */
static void gap_fill(struct snap_shmswap *w, uint64_t a, uint64_t b,
		     unsigned shift)
{
	uint64_t n = (b - a) >> shift, ev = 0;

	if (!w->on || !n)
		return;
	if (evicted_in(w->fd, (w->pgoff + a - w->start) >> shift, n, shift,
		       &ev) < 0 ||
	    swapped_find(w, a, n, ev, shift) < 0)
		shm_close(w);
}

void shmswap_fill(struct snap_job *j, const struct md_run *runs, size_t n,
		  bool last, const struct md_run **out, size_t *nout,
		  uint64_t *added)
{
	struct snap_shmswap *w = &j->shm;
	unsigned shift = j->s->page_shift;

	*out = runs;
	*nout = n;
	*added = 0;
	if (!w->on)
		return;
	w->nruns = 0;
	w->added = 0;
	for (size_t i = 0; i < n; i++) {
		if (runs[i].vaddr > w->pos)
			gap_fill(w, w->pos, runs[i].vaddr, shift);
		run_put(w, runs[i], shift);
		w->pos = runs[i].vaddr + ((uint64_t)runs[i].npages << shift);
	}
	if (last) {
		gap_fill(w, w->pos, w->end, shift);
		shm_close(w);
	}
	*out = w->runs;
	*nout = w->nruns;
	*added = w->added;
}

void shmswap_free(struct snap_job *j)
{
	shm_close(&j->shm);
	free(j->shm.devs);
	free(j->shm.runs);
	memset(&j->shm, 0, sizeof(j->shm));
}
