/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgcharge.h — a report's memory cgroup charges: what the recorded cgroup
 * pays for (the CGROUP and SNAP_CHARGE records of memsz.data).
 *
 * The cgroup reported is the -G cgroup and its descendants in a -G
 * recording, else the memory cgroups of the processes recorded. Each
 * present page is charged to the cgroup /proc/kpagecgroup named for its
 * frame: to the process's own unless a SNAP_CHARGE record says another.
 * CHARGE counts each page the cgroup pays for once: a page cache page
 * where it is first seen (by file and offset), other pages a share per
 * mapper. In a -G recording, the pages another cgroup pays for go to the
 * row "[charged elsewhere]", the paying cgroup one level down, and the
 * kernel's counters (memory.stat) give the rest of the charge as rows of
 * their own, "[unexplained]" the difference, so that the TOTAL of CHARGE
 * equals memory.current (v2) or memory.usage_in_bytes (v1).
 */
#ifndef MEMSZ_REPORT_CGCHARGE_H
#define MEMSZ_REPORT_CGCHARGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"
#include "maps/labels.h"
#include "rows/rows.h"

struct cgcharge;

/* A reader of a recording's cgroup records, interning labels into lb
 * (borrowed): give it every record in file order (cgcharge_add), then
 * finish it. */
struct cgcharge *cgcharge_new(struct labels *lb);
/* Take what rec (any record) says of charges. */
void cgcharge_add(struct cgcharge *g, const struct md_record *rec);
/* The charges of the records added (g, ready), or NULL (g freed) when
 * the recording has no CGROUP record of a process nor MACHINE record: no
 * CHARGE. page_size is the recording's. */
struct cgcharge *cgcharge_finish(struct cgcharge *g, uint64_t page_size);
void cgcharge_free(struct cgcharge *g);
/* True in a -G recording: pages charged elsewhere get their own row. */
bool cgcharge_group(const struct cgcharge *g);
/* True in a -G recording and in a -a one with MACHINE records: the
 * kernel's counters give rows of their own (cgcharge_kernel_rows). */
bool cgcharge_accounts(const struct cgcharge *g);
/* True once cgcharge_kernel_rows() gave a page cache row of shared
 * memory (/dev/shm, a memfd, SysV) that no process maps: no FILE SIZE,
 * as a mapping of it has none. */
bool cgcharge_shm_unsized(const struct cgcharge *g);

/* The runs of mapping m of the snapshot of pid whose SNAP_BEGIN is at
 * snap_off, with the ATTRIB_PG_* flags of CHARGE; a run charged elsewhere
 * has ATTRIB_PG_ELSEWHERE and in reserved the paying cgroup's number for
 * cgcharge_payer(). step (PICK_ALL: the step, else 0) keeps page cache
 * pages apart per step; m's file counts as mapped in step (its page cache
 * row gets no FILE SIZE of its own: the mapping gives it). Returns the runs
 * (borrowed until the next call) and their count in *n. */
const struct md_run *cgcharge_runs(struct cgcharge *g, uint64_t snap_off,
				   uint32_t pid, uint32_t step,
				   const struct md_snap_mapping *m, size_t *n);
/* The label of paying cgroup number k (a run's reserved): its path, or
 * "[cgroup N]" (N its inode) when it was not found. */
uint32_t cgcharge_payer(const struct cgcharge *g, uint32_t k);
/* The path[0..n-1] of a piece that cgroup label payer pays for, moved
 * under "[charged elsewhere]": then "PAYER: LABEL" (LABEL its first key's
 * label), then its labels of the keys but the last. */
void cgcharge_relabel(struct cgcharge *g, uint32_t payer, uint32_t *path,
		      size_t n);

/* Add to t (depth nkeys) the rows of the charge no process maps, from
 * the -G cgroup's counters (or, -a, the machine's /proc/meminfo)
 * recorded first at or after time (ns, the clock of the records): the
 * kernel's parts (and, -a, free memory), the page cache of the files
 * scanned (with FILE SIZE, the file's size at its scan, where no process
 * charged in step maps it) and the rest of it, the anonymous memory no
 * process showed,
 * and "[unexplained]" for what is left of the charge (-a: MemTotal)
 * after t's CHARGE so far. Then t's TOTAL CHARGE is the charge. Nothing
 * but in a -G or -a recording. *over receives the bytes t's CHARGE
 * exceeded the charge by (0 normally); *note a line (malloc'd) when the
 * page frame walk and meminfo disagree, else NULL. Returns 0, or -ENOENT
 * when no counters were recorded after time (no row added). */
int cgcharge_kernel_rows(struct cgcharge *g, struct rowtree *t, size_t nkeys,
			 uint32_t step, uint64_t time, uint64_t *over,
			 char **note);

#endif
