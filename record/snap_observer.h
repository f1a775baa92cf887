/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snap_observer.h — the observer's own pages: memsz maps some of the
 * files a target maps (libc, ...), and a page both map would count memsz
 * as one more sharer. The PFNs of memsz's own resident pages of those
 * files are collected (snapper_prepare before a hold, observer_ready at
 * the snapshot), or memsz's own pages at the offsets each task looks up
 * are read by the task (observer_task), and taken out of each page's
 * mapcount, so that PSS is what it is without memsz. Internal to
 * record/snap*.c.
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
 * page resident (pm: the target's open pagemap; -1: all of them); or,
 * with the target's pagemap and no mapping of those files in the target
 * large enough for a huge page a PMD maps, left to the snapshot's tasks
 * (observer_task), which look only at the pages they look up. True if
 * they are known (or left to the tasks). */
bool observer_ready(struct snapper *s, const struct procmaps *maps, int pm);

/* When observer_ready left memsz's own pages to the tasks (s->self_lazy:
 * a target none of whose mappings of a file memsz maps could hold a huge
 * page a PMD maps), mark SCAN_SELF in c->extra on the pages among the
 * nlook to look up of the task at va of mapping m (c->look, in page
 * order) whose frame memsz maps at the same offset of the same file: it
 * reads memsz's pagemap there, after making those pages resident, so
 * that memsz does not map one of them later, before its mapcount is
 * read. A page memsz's pagemap cannot be read for is not marked. */
void observer_task(const struct snapper *s, struct snap_ctx *c,
		   const struct procmap *m, uint64_t va, size_t nlook);

#endif
