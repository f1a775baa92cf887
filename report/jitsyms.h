/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jitsyms.h — names of JIT-compiled code, per process, from the JITMAP
 * records of a recording (perf-PID.map files read by `memsz record`).
 *
 * JIT code lives in anonymous memory: no image names it. The symbols of a
 * pid name its frames in fault stacks (faults.c) and, under the symbols
 * key, the resident pages of its anonymous executable memory (report.c).
 * Of two symbols over the same bytes the later one wins (a JIT reuses
 * code space after its garbage collector freed it).
 */
#ifndef MEMSZ_REPORT_JITSYMS_H
#define MEMSZ_REPORT_JITSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"
#include "maps/labels.h"
#include "maps/rangemap.h"

struct jitsyms;

/* New empty table interning names into lb (borrowed). */
struct jitsyms *jitsyms_new(struct labels *lb);
/* NULL is fine. */
void jitsyms_free(struct jitsyms *j);
/* Add the symbols of a JITMAP record (copied). */
void jitsyms_add(struct jitsyms *j, const struct md_jitmap *m);
/* Label of the JIT symbol of pid holding addr, or LABEL_NONE. */
uint32_t jitsyms_lookup(struct jitsyms *j, uint32_t pid, uint64_t addr);
/* The map of pid's JIT symbols (address -> name label), or NULL if pid has
 * none. Borrowed: valid until the next jitsyms_add() or jitsyms_free(). */
struct rmap *jitsyms_map(struct jitsyms *j, uint32_t pid);
/* Symbols added in all, and processes that have some. */
size_t jitsyms_count(const struct jitsyms *j, size_t *npids);

#endif
