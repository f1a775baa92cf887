// SPDX-License-Identifier: GPL-2.0-or-later
/* snap_shmswap.c — shmem pages swapped out, found in the page cache of
 * the object a mapping maps (see snap_shmswap.h).
 */
#include "config.h"

#include "record/snap_shmswap.h"

#include "record/snap_images.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
static bool swap_used(struct snapper *s)
{
	struct sysinfo si;

	if (!s->shm_swap)
		s->shm_swap =
		    sysinfo(&si) == 0 && si.totalswap == si.freeswap ? 1 : 2;
	return s->shm_swap == 2;
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
	ret = snap_note(s, MD_NOTE_SHMEM_SWAP, NULL, txt);
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

/* /proc/PID/map_files of the job's process, opened at the first mapping
 * asked about in the snapshot (each entry is then one short walk), or
 * -errno. */
static int map_files_dir(struct snap_shmswap *w, int pid)
{
	char path[40];

	if (!w->mf_tried) {
		w->mf_tried = true;
		snprintf(path, sizeof(path), "/proc/%d/map_files", pid);
		w->mf = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (w->mf < 0)
			w->mf = -errno;
	}
	return w->mf;
}

/* Whether the file system of mapping m, whose file is open as fd, is a
 * tmpfs, asked once a snapshot (fstatfs(2) works on an O_PATH
 * descriptor): false if that cannot be told. */
static bool dev_tmpfs(struct snap_shmswap *w, const struct procmap *m, int fd)
{
	struct shmswap_dev *d = dev_find(w, m->dev_major, m->dev_minor);
	struct statfs sf;

	if (!d) {
		if (fstatfs(fd, &sf) < 0)
			return false;
		xgrow(&w->devs, &w->devs_cap, w->ndevs + 1, sizeof(*w->devs));
		d = &w->devs[w->ndevs++];
		*d = (struct shmswap_dev){m->dev_major, m->dev_minor,
					  sf.f_type == TMPFS_MAGIC};
	}
	return d->tmpfs;
}

/* Open the object mapping m of the job maps into w->fd if it is shmem:
 * the file the image registry opened in this snapshot, if it did
 * (borrowed), else the mapping's map_files entry, looked at through an
 * O_PATH descriptor first: a device node mapped there (a GPU's, on
 * devtmpfs: major 0 too) is never opened. Returns 1 if open, 0 if not
 * shmem (or unmapped meanwhile), or -EPERM / -EACCES (map_files
 * refused). */
static int shm_obj_open(struct snap_job *j, const struct procmap *m)
{
	struct snap_shmswap *w = &j->shm;
	struct shmswap_dev *d = dev_find(w, m->dev_major, m->dev_minor);
	int dir, self, pfd, fd = -1;
	struct stat st;
	uint64_t size;
	char name[48];

	if (d && !d->tmpfs)
		return 0;
	fd = snap_images_fd(j->s, m, &size);
	if (fd >= 0) {
		w->fd = fd;
		w->own = false;
		return dev_tmpfs(w, m, fd);
	}
	dir = map_files_dir(w, j->pid);
	if (dir == -EPERM || dir == -EACCES)
		return dir;
	snprintf(name, sizeof(name), "%" PRIx64 "-%" PRIx64, m->start, m->end);
	pfd = dir < 0 ? -1 : openat(dir, name, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return dir < 0 || (errno != EPERM && errno != EACCES) ? 0
								      : -errno;
	/* a regular file, the one the maps name (not another mapped there
	 * since they were read) */
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_ino != m->ino || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor || !dev_tmpfs(w, m, pfd))
		goto out;
	/* opened again through /proc/self/fd: cachestat(2) takes no
	 * O_PATH descriptor */
	self = snap_images_self_fd_dir(j->s);
	snprintf(name, sizeof(name), "%s%d", self >= 0 ? "" : "/proc/self/fd/",
		 pfd);
	fd = openat(self >= 0 ? self : AT_FDCWD, name,
		    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
out:
	close(pfd);
	if (fd < 0)
		return 0;
	w->fd = fd;
	w->own = true;
	return 1;
}

/* Close the mapping's object, if open and not borrowed. */
static void shm_close(struct snap_shmswap *w)
{
	if (w->on && w->own)
		close(w->fd);
	w->on = false;
}

bool shmswap_head_out(struct snapper *s, int fd, uint32_t dev_major)
{
	struct statfs sf;
	uint64_t ev = 0;

	return !dev_major && swap_used(s) && fstatfs(fd, &sf) == 0 &&
	       sf.f_type == TMPFS_MAGIC &&
	       evicted_in(fd, 0, 1, s->page_shift, &ev) == 0 && ev;
}

int shmswap_begin(struct snap_job *j, uint32_t vma)
{
	struct snapper *s = j->s;
	struct snap_shmswap *w = &j->shm;
	const struct procmap *m = &j->maps->maps[vma];
	uint64_t ev = 0;
	int ret;

	shm_close(w);
	if (w->off || s->shm_no_cachestat || !shm_candidate(m) || !swap_used(s))
		return 0;
	ret = shm_obj_open(j, m);
	if (ret < 0) {
		w->off = true;
		return shm_note(s, "/proc/PID/map_files cannot be opened "
				   "(needs CAP_SYS_ADMIN)");
	}
	if (!ret)
		return 0;
	w->on = true; /* shm_close() closes it */
	ret = evicted_in(w->fd, m->pgoff >> s->page_shift,
			 (m->end - m->start) >> s->page_shift, s->page_shift,
			 &ev);
	if (ret < 0 || !ev) {
		shm_close(w);
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
	w->start = m->start;
	w->end = m->end;
	w->pgoff = m->pgoff;
	w->pos = m->start;
	/* smaps counts the object's pages swapped in the whole range of a
	 * mapping that cannot write (shmem_swap_usage), under its
	 * copy-on-write copies too; of a writable private one, those in the
	 * holes of its page tables only */
	w->ro_private = !(m->flags & MAP_SHARED) && !(m->prot & PROT_WRITE);
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

/* Append the pages [va, end) of w->cow, the copy being split, flagged
 * with fl besides its own flags. */
static void cow_put(struct snap_shmswap *w, uint64_t va, uint64_t end,
		    uint32_t fl, unsigned shift)
{
	struct md_run r = *w->cow;

	if (va >= end)
		return;
	r.vaddr = va;
	r.npages = (uint32_t)((end - va) >> shift);
	r.flags |= fl;
	run_put(w, r, shift);
}

/* Append the n pages at va, swapped out, as runs of at most UINT32_MAX
 * pages; or, while a copy is being split (w->cow), its pages before va
 * as they are and those of [va, va + n) flagged MD_PG_OBJ_SWAPPED. */
static void swapped_put(struct snap_shmswap *w, uint64_t va, uint64_t n,
			unsigned shift)
{
	w->added += n;
	if (w->cow) {
		cow_put(w, w->cow_pos, va, 0, shift);
		cow_put(w, va, va + (n << shift), MD_PG_OBJ_SWAPPED, shift);
		w->cow_pos = va + (n << shift);
		return;
	}
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

/* Append run r, a present page run of the mapping: in a private
 * read-only one, a copy-on-write copy (not FILE) over pages its object
 * has swapped out is split, those pages flagged MD_PG_OBJ_SWAPPED. A
 * failed cachestat(2) ends the look-ups of the mapping. */
static void cow_fill(struct snap_shmswap *w, const struct md_run *r,
		     unsigned shift)
{
	uint64_t ev = 0, end = r->vaddr + ((uint64_t)r->npages << shift);
	int ret = 0;

	if (!w->on || !w->ro_private || !(r->flags & MD_PG_PRESENT) ||
	    (r->flags & MD_PG_FILE)) {
		run_put(w, *r, shift);
		return;
	}
	w->cow = r;
	w->cow_pos = r->vaddr;
	ret = evicted_in(w->fd, (w->pgoff + r->vaddr - w->start) >> shift,
			 r->npages, shift, &ev);
	if (!ret)
		ret = swapped_find(w, r->vaddr, r->npages, ev, shift);
	cow_put(w, w->cow_pos, end, 0, shift);
	w->cow = NULL;
	if (ret < 0)
		shm_close(w);
}

void shmswap_fill(struct snap_job *j, const struct md_run *runs, size_t n,
		  bool last)
{
	struct snap_shmswap *w = &j->shm;
	unsigned shift = j->s->page_shift;

	w->out = runs;
	w->nout = n;
	w->added = 0;
	if (!w->on)
		return;
	w->nruns = 0;
	for (size_t i = 0; i < n; i++) {
		if (runs[i].vaddr > w->pos)
			gap_fill(w, w->pos, runs[i].vaddr, shift);
		cow_fill(w, &runs[i], shift);
		w->pos = runs[i].vaddr + ((uint64_t)runs[i].npages << shift);
	}
	if (last) {
		gap_fill(w, w->pos, w->end, shift);
		shm_close(w);
	}
	w->out = w->runs;
	w->nout = w->nruns;
}

void shmswap_free(struct snap_job *j)
{
	shm_close(&j->shm);
	if (j->shm.mf_tried && j->shm.mf >= 0)
		close(j->shm.mf);
	free(j->shm.devs);
	free(j->shm.runs);
	memset(&j->shm, 0, sizeof(j->shm));
}
