/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_shmswap.h — the pages of shared memory (tmpfs and /dev/shm files,
 * memfd, SysV segments, shared anonymous memory: shmem) that are swapped
 * out, which the page tables do not show. Internal to record/snap*.c.
 *
 * Reclaim unmaps a shmem page before it swaps it: the page-table entry
 * is cleared (pte_none, not a swap entry), so pagemap shows a hole there,
 * and the swap entry is kept in the object's page cache. smaps counts
 * such pages in its Swap (smap_gather_stats: shmem_swap_usage over the
 * mapping's part of the object, or in a private writable mapping the
 * holes of its page tables whose page cache slot holds a swap entry).
 * memsz asks cachestat(2) (Linux 6.5+) through /proc/PID/map_files: for
 * shmem its nr_evicted counts those swap entries. A gap between the
 * runs of a mapping's pages that has some is cut in halves until each
 * part is all swapped or has none, and its swapped pages become runs
 * SWAPPED | FILE at their places (where the page tables have nothing,
 * as smaps' walk of a private writable mapping counts them; in a shared
 * or read-only mapping every page swapped out is such a hole, but for a
 * copy-on-write copy in a private mapping made read-only since, where
 * smaps counts the object's page swapped as well as the copy: in such a
 * mapping the present runs without FILE are asked about too, the same
 * way, and their pages over the object's swapped ones are flagged
 * MD_PG_OBJ_SWAPPED, counted in SWAP as well as in RSS).
 *
 * What it costs when nothing is swapped: one sysinfo(2) a snapshot with a
 * mapping of a file system without a block device (no swap used: done);
 * else one open of the mapping's map_files link and one cachestat(2) per
 * shmem mapping, and one fstatfs(2) per such file system a snapshot.
 */
#ifndef MEMSZ_RECORD_SNAP_SHMSWAP_H
#define MEMSZ_RECORD_SNAP_SHMSWAP_H

#include "record/snap_int.h"

/* Begin the record of mapping vma of the job (before its first runs are
 * given to shmswap_fill): find whether the shmem object it maps has pages
 * swapped out in the part it maps. Where that cannot be asked (no
 * cachestat(2), map_files refused) while pages are in swap, a NOTE says
 * so, once a recording. Returns 0 or the note's write error. */
int shmswap_begin(struct snap_job *j, uint32_t vma);

/* The n runs of the next chunk of the mapping begun (sorted, after those
 * given before), with the pages swapped out in the gaps before them (and
 * with last, in the gap after them up to the mapping's end) added where
 * they are: j->shm.out and j->shm.nout, runs itself when the mapping has
 * none (else the job's scratch, valid until the next call); j->shm.added
 * counts the pages added. The mapping ends with its last chunk. */
void shmswap_fill(struct snap_job *j, const struct md_run *runs, size_t n,
		  bool last);

/* True if fd, a file of device major dev_major, is shmem (tmpfs) and the
 * page at its start is swapped out: reading it (an ELF header) would swap
 * it in, changing the process recorded. Asked only while pages are in
 * swap. */
bool shmswap_head_out(struct snapper *s, int fd, uint32_t dev_major);

/* Free what the job's shmem look-ups hold (snapper_take's end). */
void shmswap_free(struct snap_job *j);

#endif
