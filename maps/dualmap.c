// SPDX-License-Identifier: GPL-2.0-or-later
/* dualmap.c — DualMaps (see rangemap.h): a VM map and a file map of one
 * image, labelled together through a base DualMap's translations. Only
 * the public RangeMap calls; dualmap_init() is in rangemap.c (it marks
 * the maps as taking no open adds, a private field). */
#include "maps/rangemap.h"

#include <stdint.h>

#include "util/util.h"

#define NO RMAP_NO_TRANSLATION

void dualmap_free(struct dualmap *dm)
{
	if (!dm)
		return;
	rmap_free(dm->vm);
	rmap_free(dm->file);
	dm->vm = NULL;
	dm->file = NULL;
}

struct through {
	struct rmap *same, *other;
	uint32_t label;
};

static int add_through(void *arg, const struct rmap_entry *piece)
{
	struct through *t = arg;
	uint64_t len = piece->end - piece->start;

	rmap_add_translated(t->same, piece->start, len, piece->other, t->label);
	if (piece->other != NO)
		rmap_add_translated(t->other, piece->other, len, piece->start,
				    t->label);
	return 0;
}

static uint64_t clip_end(uint64_t start, uint64_t size)
{
	return size > UINT64_MAX - start ? UINT64_MAX : start + size;
}

/* Label [start, start+size) of space same (dm->vm or dm->file; other is
 * the other one) with label: through base_same, base's map of the same
 * space, when there is a base (see dualmap_add_vm()), else as it is. */
static void add_via_base(struct rmap *same, struct rmap *other,
			 struct rmap *base_same, uint64_t start, uint64_t size,
			 uint32_t label)
{
	struct through t = {same, other, label};

	if (!base_same) {
		rmap_add(same, start, size, label);
		return;
	}
	rmap_foreach(base_same, start, clip_end(start, size), add_through, &t);
}

void dualmap_add_vm(struct dualmap *dm, struct dualmap *base, uint64_t vmaddr,
		    uint64_t size, uint32_t label)
{
	add_via_base(dm->vm, dm->file, base ? base->vm : NULL, vmaddr, size,
		     label);
}

void dualmap_add_file(struct dualmap *dm, struct dualmap *base, uint64_t off,
		      uint64_t size, uint32_t label)
{
	add_via_base(dm->file, dm->vm, base ? base->file : NULL, off, size,
		     label);
}

void dualmap_cursor_init(struct dualmap_cursor *c, struct rmap *base_map)
{
	*c = (struct dualmap_cursor){.base = base_map};
}

/* add_via_base() of [start, start + size) through c, a cursor on
 * base_same: the one piece rmap_foreach() would find in c's entry when
 * that holds the range, without the walk. */
static void add_via_cursor(struct rmap *same, struct rmap *other,
			   struct dualmap_cursor *c, uint64_t start,
			   uint64_t size, uint32_t label)
{
	struct through t = {same, other, label};
	struct rmap_entry piece;

	if (!c->base || !size || !dualmap_cursor_holds(c, start, size)) {
		add_via_base(same, other, c->base, start, size, label);
		return;
	}
	piece = (struct rmap_entry){
	    start, start + size,
	    c->e.other == NO ? NO : c->e.other + (start - c->e.start),
	    c->e.label};
	add_through(&t, &piece);
}

void dualmap_add_vm_cursor(struct dualmap *dm, struct dualmap_cursor *c,
			   uint64_t vmaddr, uint64_t size, uint32_t label)
{
	add_via_cursor(dm->vm, dm->file, c, vmaddr, size, label);
}

void dualmap_add_file_cursor(struct dualmap *dm, struct dualmap_cursor *c,
			     uint64_t off, uint64_t size, uint32_t label)
{
	add_via_cursor(dm->file, dm->vm, c, off, size, label);
}

void dualmap_add_both(struct dualmap *dm, uint64_t vmaddr, uint64_t vmsize,
		      uint64_t off, uint64_t filesize, uint32_t label)
{
	uint64_t common = MIN(vmsize, filesize);

	/* The translated prefix must fit in both spaces. */
	common = MIN(common, UINT64_MAX - vmaddr);
	common = MIN(common, UINT64_MAX - off);
	rmap_add_translated(dm->vm, vmaddr, common, off, label);
	rmap_add_translated(dm->file, off, common, vmaddr, label);
	if (vmsize > common)
		rmap_add(dm->vm, vmaddr + common, vmsize - common, label);
	if (filesize > common)
		rmap_add(dm->file, off + common, filesize - common, label);
}
