/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pprof.h — the row tree as a pprof profile (`--format pprof`).
 *
 * Writes a gzip-compressed profile.proto message (rows/profile.proto, the
 * published pprof schema) that `go tool pprof` and other pprof readers
 * open. One sample per leaf row; its values are the chosen columns (sample
 * types "rss"/"bytes", "pss"/"bytes", ..., "reloc_count"/"count"; PSS
 * rounded to whole bytes), the default sample type the sort column. Its
 * stack is the key path, leaf first: one location per level, except a
 * "callers" level, which is the fault's call stack, one location per
 * frame, innermost first. Locations under a "files" level carry that
 * image's mapping (path and build-id, when known) and its path as the
 * functions' file. Each sample carries a string label per level that is
 * not a stack ("sections" = ".text", ...), and for a "pids" level a number
 * label "pid" and a string label "comm". Notes become profile comments.
 * pprof sums samples: a leaf's FILE SIZE and VM SIZE less what the TOTAL
 * counted already (row.again: a file, a range of it, an earlier process
 * maps too) are its values, so that they sum to the TOTAL's and a file's
 * to its size; a comment says so where a sample left some out.
 */
#ifndef MEMSZ_ROWS_PPROF_H
#define MEMSZ_ROWS_PPROF_H

#include <stdio.h>

#include "rows/output.h"
#include "rows/rows.h"

/* Write finished tree t (all rows: finish it with no limit, or the "[N
 * others]" rows become samples of their own) as a gzipped profile to f.
 * Returns 0 or a negative errno (-EIO on a write error). */
int pprof_write(FILE *f, const struct rowtree *t, const struct out_opts *o);

#endif
