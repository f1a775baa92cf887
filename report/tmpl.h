/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tmpl.h — an image's maps flattened once for walks made again and again.
 *
 * A template is the rollup (rmap_rollup) of the k maps of one kind of walk
 * of an image (its VM walks, or its file walks) over all they cover:
 * piece i is [bound[i], bound[i + 1]) with labels lab[i * k .. i * k + k -
 * 1] (LABEL_NONE where a map has none). A walk of any range over it cuts
 * at the same places as rmap_rollup() of that range, and names each piece
 * by its index, so that a caller can keep what it derives from a piece's
 * labels (report/charge.c: the rows of every mapping of the image in every
 * process). It is built only when a range is walked a second time: an
 * image walked once costs no template.
 */
#ifndef MEMSZ_REPORT_TMPL_H
#define MEMSZ_REPORT_TMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/rangemap.h"

#define TMPL_SEEN 8 /* ranges remembered while there is no template */

struct tmpl {
	struct rmap *maps[RMAP_ROLLUP_MAX]; /* what it was built from */
	size_t k, n;
	uint64_t *bound; /* n + 1; NULL: not built */
	uint32_t *lab;	 /* n * k */
	uint64_t seen[TMPL_SEEN][2];
	uint8_t nseen;
	uint64_t owner; /* who walked it first (tmpl_get) */
};

/* The template in tm (zeroed at first) of maps[0..k-1] (k <=
 * RMAP_ROLLUP_MAX, borrowed: they must outlive it and not change) for a
 * walk of [s, e) by owner (a process: 0 for none): built when that range
 * was walked before, or when many ranges were and owner is not the one
 * who walked first (one process walking the many parts of one big image
 * would pay the template's memory for no repeat); again if it was built
 * from other maps; NULL while not (the range is remembered). */
const struct tmpl *tmpl_get(struct tmpl *tm, struct rmap *const *maps, size_t k,
			    uint64_t s, uint64_t e, uint64_t owner);

/* Free what tm holds (it stays usable, zeroed). */
void tmpl_free(struct tmpl *tm);

/* Callback of tmpl_rollup(): a piece [start, end) with labels (one per
 * map), ix its index in the template (UINT32_MAX: outside what the maps
 * cover, every label LABEL_NONE). Non-zero stops. */
typedef int (*tmpl_fn)(void *arg, const uint32_t *labels, uint64_t start,
		       uint64_t end, uint32_t ix);

/* rmap_rollup() of tm's maps over [start, end), from the template: the
 * same pieces, in order. Returns 0 or fn's non-zero value. */
int tmpl_rollup(const struct tmpl *tm, uint64_t start, uint64_t end, tmpl_fn fn,
		void *arg);

#endif
