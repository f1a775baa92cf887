/* SPDX-License-Identifier: GPL-2.0-or-later */
/* benchfloor.h — the floor a snapshot is measured against: the fastest
 * look-up of a snapshot's columns the benchmarks can write with the
 * interfaces memsz must use (bench_snapshot, bench_oneshot_floor). */
#ifndef MEMSZ_BENCHFLOOR_H
#define MEMSZ_BENCHFLOOR_H

#include <stdint.h>
#include <sys/types.h>

/* The floor: the fastest snapshot this bench can write with the
 * interfaces memsz uses for the same columns. Every mapping of pid
 * (/proc/PID/maps) is scanned with PAGEMAP_SCAN for present or swapped
 * pages, but for the part past the first 64 MiB of a dense one
 * (kpc_mapping); the pagemap entries (PFN, exclusive bit, file bit) of
 * what it finds are read, regions in one pread through holes shorter
 * than KPC_HOLE pages and at most 1 MiB, a huge page a PMD maps one
 * entry per huge page (one pread per two, kpc_huge; an anonymous one
 * pagemap calls exclusive also one kpageflags entry of its first page,
 * PG_anon_exclusive, as memsz must read it), the rest of a
 * dense mapping in 1 MiB preads. Each page with
 * a PFN not mapped exclusively is looked up in kpagecount (PSS); each
 * file page in kpagecgroup (CHARGE); a file page in kpageflags (dirty)
 * only when cachestat(2) finds a dirty page in the part of its file the
 * mapping's pages span, asked 64 MiB at a time, and in the piece of it
 * the page lies in, where memsz cuts such a part in pieces (kpc_dirty).
 * Each kpage file's
 * PFNs are sorted once for the whole process (radix) and read in one pread per
 * run of frames closer than KPC_GAP. Nothing is classified, encoded or written.
 * Returns the sum of what it read (so that nothing is optimised away);
 * exits on an error. */
uint64_t bench_floor(pid_t pid);

/* The floor's two page-table parts for a process whose pages are
 * neither huge nor file pages (bench_snapshot's sparse layout), in CPU
 * seconds, each the best of runs: *scan, one PAGEMAP_SCAN walk of every
 * mapping of pid for present or swapped pages, with nothing read of what
 * it finds; *preads, the pagemap preads of the regions it found (through
 * holes shorter than KPC_HOLE pages, as bench_floor reads them), which
 * give the exclusive bit PSS needs and PAGEMAP_SCAN has no category for.
 * Returns the sum of the entries read; exits on an error. */
uint64_t bench_floor_parts(pid_t pid, int runs, double *scan, double *preads);

#endif
