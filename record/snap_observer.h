/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_observer.h — the observer's own pages: memsz maps some of the
 * files a target maps (libc, ...), and a page both map would count memsz
 * as one more sharer. The PFNs of memsz's own resident pages of those
 * files are collected (snapper_prepare before a hold, observer_ready at
 * the snapshot) and taken out of each page's mapcount, so that PSS is
 * what it is without memsz. Internal to record/snap*.c.
 */
#ifndef MEMSZ_RECORD_SNAP_OBSERVER_H
#define MEMSZ_RECORD_SNAP_OBSERVER_H

#include "record/snap_int.h"

/* The slot of s->self_set where pfn's probe starts. */
static inline uint64_t observer_slot(const struct snapper *s, uint64_t pfn)
{
	return (pfn * 0x9e3779b97f4a7c15ull) >> 32 & s->self_mask;
}

/* True if memsz itself maps the page frame pfn (see observer_ready). */
static inline bool observer_maps(const struct snapper *s, uint64_t pfn)
{
	if (!s->self_set || !pfn)
		return false;
	for (uint64_t h = observer_slot(s, pfn); s->self_set[h];
	     h = (h + 1) & s->self_mask)
		if (s->self_set[h] == pfn)
			return true;
	return false;
}

/* memsz's own pages of the files the target maps (self_load), as late as
 * possible, since memsz maps more of its libraries as it runs: those
 * snapper_prepare loaded if the target maps the same files now, else
 * loaded again, memsz's own made resident where the target has the file
 * page resident (pm: the target's open pagemap; -1: all of them). True
 * if they are known. */
bool observer_ready(struct snapper *s, const struct procmaps *maps, int pm);

#endif
