/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagecache.h — a file's pages in the page cache, and the memory cgroups
 * that pay for them, found without reading the file from disk.
 *
 * memsz maps the file read-only (shared, MADV_RANDOM), asks mincore(2)
 * which pages are cached, maps just those into its page tables (a load
 * from each: a page cached is not read again; a file cut short meanwhile
 * raises SIGBUS, taken while the loads run, and the pages past its end
 * are left out), reads their frame numbers from /proc/self/pagemap and
 * each frame's cgroup from /proc/kpagecgroup, then unmaps it. The mapping
 * exists only during the scan, after the process snapshots it is taken
 * for: it is never counted as a sharer. The pages are not marked accessed
 * (Linux 6.3+: before it, unmapping a young PTE marks its page accessed
 * whatever the mapping's advice). The SIGBUS handler is the process's
 * while the loads run: the scan must run while no other thread does.
 */
#ifndef MEMSZ_RECORD_PAGECACHE_H
#define MEMSZ_RECORD_PAGECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"

/* The cached pages of one file, as a FILE_CACHE record holds them. */
struct pagecache_file {
	uint32_t dev_major, dev_minor;
	uint64_t ino, size;
	struct md_cache_run *runs; /* owned */
	size_t nruns, cap;
	uint64_t cached; /* pages cached */
};

/* Scan the regular file open as fd into *pf (its runs replaced): its
 * cached pages with their cgroups, read through kpagecgroup_fd (-1:
 * every cgroup 0). Returns 0, -EINVAL if fd is not a regular file, -EPERM
 * if mincore(2) would not tell (memsz neither owns the file nor may
 * write it nor has CAP_FOWNER over it, as root of a user namespace that
 * does not map its owner: the kernel says every page is cached, and
 * loading them would read the file in), or -errno. */
int pagecache_scan(int fd, int kpagecgroup_fd, struct pagecache_file *pf);
/* Free what pf holds. NULL is fine. */
void pagecache_release(struct pagecache_file *pf);

#endif
