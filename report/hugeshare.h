/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hugeshare.h — the mappers of hugetlb pages that processes map through a
 * shared PMD page table, counted over the snapshots a report charges.
 *
 * Processes that map the same 1 GiB aligned MAP_SHARED hugetlb range
 * (PostgreSQL's shared buffers with huge_pages=on, after its fork) share
 * the PMD page table that maps it: the kernel counts one mapping of each
 * of its pages for all of them (kpagecount 1), and pagemap and smaps say
 * the page is shared (Shared_Hugetlb). memsz's PSS is bytes / mappers; a
 * snapshot records the kernel's count. A report takes as a page's mappers
 * the most of: that count; 2, where the count is 1 and the page shared
 * (some other process maps it through the shared table, how many only
 * their own snapshots tell); and how many times the snapshots of its
 * pick (all processes, whatever --pid or --filter show) map the same
 * page of the same file at the same moment (hugetlb files have no page
 * cache but their mappings: the page is the file's). So the PSS of all
 * the processes that map such a page sums to its size when the recording
 * holds them all (-a, -G, several -p). Kernels 6.1 to 6.9 call such a
 * page exclusive when the shared table is its one mapping (fixed in
 * 6.10): there only the snapshots' count tells, so a recording of one of
 * the processes alone takes the page as its own (PSS and USS its size).
 *
 * Cost: the ranges are sorted by their first point once; the A ranges
 * counting at a point are summed into a step function per file (O(A log
 * A)), kept from the point before with those ended dropped and those
 * started added (points are charged in nondecreasing order; a point
 * going back rebuilds from all R ranges), and each run looks its offset
 * up in it. */
#ifndef MEMSZ_REPORT_HUGESHARE_H
#define MEMSZ_REPORT_HUGESHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"

struct hugeshare;

struct hugeshare *hugeshare_new(void);
void hugeshare_free(struct hugeshare *h);

/* Pass 1: the pages of mapping m of snapshot snap (pages of page_size
 * bytes) that are shared hugetlb pages of a file mapped MAP_SHARED. */
void hugeshare_add(struct hugeshare *h, uint32_t snap, uint64_t page_size,
		   const struct md_snap_mapping *m);

/* Before pass 2: the snapshots whose pages count (chosen[snap], of
 * nsnaps: those the report's pick chooses, --pid left out) and, with a
 * timeline (at), the points in time each counts in among them, [first[snap],
 * end[snap]): a snapshot's pages count at each of its points. */
void hugeshare_choose(struct hugeshare *h, const bool *chosen,
		      const uint32_t *first, const uint32_t *end, size_t nsnaps,
		      bool at);

/* The first point of snapshot snap given to hugeshare_choose. */
uint32_t hugeshare_point_of(const struct hugeshare *h, size_t snap);

/* With a timeline of fewer snapshots than hugeshare_choose's (--pid):
 * map[p], for each of its n points, is the point of hugeshare_choose's
 * that hugeshare_runs reads for it. */
void hugeshare_map_points(struct hugeshare *h, const uint32_t *map, size_t n);

/* Pass 2: the runs of mapping m of a snapshot charged at point (0
 * without a timeline) with each shared hugetlb page's mapcount raised to
 * its mappers (above), cut where that differs within a run; m's own runs
 * when none is such a page. Valid until the next call; *n their number. */
const struct md_run *hugeshare_runs(struct hugeshare *h, uint32_t point,
				    uint64_t page_size,
				    const struct md_snap_mapping *m, size_t *n);

#endif
