// SPDX-License-Identifier: GPL-2.0-or-later
/* metasink.c — the sink elfmeta.c adds metadata entries through (see
 * metasink.h). */
#include "config.h"

#include "elf/metasink.h"
#include "maps/labels.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void meta_begin(struct metasink *ms, struct dualmap *base, struct dualmap *out)
{
	*ms = (struct metasink){.base = base, .out = out};
	dualmap_cursor_init(&ms->cur, base ? base->file : NULL);
	rmap_freeze(out->vm);
	rmap_freeze(out->file);
}

/* The entry being extended, added: a loaded one (alloc) to the file and,
 * through the base, to the VM it is loaded at, as dualmap_add_file() adds
 * it. */
static void meta_flush(struct metasink *ms)
{
	struct meta *m = &ms->last;

	if (!m->size)
		return;
	if (!m->alloc)
		rmap_add(ms->out->file, m->off, m->size, m->label);
	else
		dualmap_add_file_cursor(ms->out, &ms->cur, m->off, m->size,
					m->label);
	m->size = 0;
}

void meta_push(struct metasink *ms, uint64_t off, uint64_t size, uint32_t label,
	       bool alloc)
{
	struct meta *last = &ms->last;

	if (label == LABEL_NONE || !size)
		return;
	/* the entries of one table that serve one symbol follow each other
	 * (the relocations of a vtable): one range, the same labels */
	if (last->size && last->label == label && last->alloc == alloc &&
	    last->off + last->size == off) {
		last->size += size;
		return;
	}
	meta_flush(ms);
	*last = (struct meta){off, size, label, alloc};
}

void meta_table(struct metasink *ms, uint64_t off, uint64_t stride, size_t n,
		struct rmap_labels *l, size_t first, bool alloc)
{
	uint64_t lo = stride ? 0 : l->at[first], vm;

	meta_flush(ms);
	if (!n || (stride && n > UINT64_MAX / stride))
		return;
	if (!alloc || !ms->base) { /* as dualmap_add_file() with no base */
		rmap_add_table(ms->out->file, off, stride, n,
			       RMAP_NO_TRANSLATION, l, first);
		return;
	}
	if (!dualmap_cursor_holds(
		&ms->cur, off, stride ? n * stride : l->at[first + n] - lo)) {
		for (size_t k = 0; k < n; k++) {
			uint64_t s =
			    stride ? k * stride : l->at[first + k] - lo;
			uint64_t e =
			    stride ? s + stride : l->at[first + k + 1] - lo;

			meta_push(ms, off + s, e - s, l->id[first + k], true);
		}
		return;
	}
	vm = ms->cur.e.other == RMAP_NO_TRANSLATION
		 ? RMAP_NO_TRANSLATION
		 : ms->cur.e.other + (off - ms->cur.e.start);
	rmap_add_table(ms->out->file, off, stride, n, vm, l, first);
	if (vm != RMAP_NO_TRANSLATION)
		rmap_add_table(ms->out->vm, vm, stride, n, off, l, first);
}

void vartab_add(struct vartab *t, uint64_t s, uint64_t e, uint32_t id)
{
	struct rmap_labels *l = t->l;

	if (t->n + 2 > t->cap) {
		size_t cap = t->cap ? t->cap : 64;

		while (cap < t->n + 2)
			cap *= 2;
		if (cap > (SIZE_MAX - sizeof(*l)) / sizeof(l->id[0]))
			abort(); /* cannot fit in memory anyway */
		l = xrealloc(l, sizeof(*l) + cap * sizeof(l->id[0]));
		if (!t->l) {
			l->refs = 1;
			l->at = NULL;
		}
		t->l = l;
		t->cap = cap;
	}
	if (t->n + 3 > t->acap)
		xgrow(&l->at, &t->acap, t->n + 3, sizeof(*l->at));
	if (!t->n)
		l->at[0] = s;
	if (s > l->at[t->n]) {
		l->id[t->n++] = LABEL_NONE;
		l->at[t->n] = s;
	}
	l->id[t->n++] = id;
	l->at[t->n] = e;
}

void vartab_push(struct vartab *t, struct metasink *ms, uint64_t off,
		 bool alloc)
{
	if (t->n) {
		/* to their size: the slack of the doubling goes back (a
		 * shrinking realloc mostly stays in place; nothing points
		 * into the arrays yet) */
		t->l =
		    xrealloc(t->l, sizeof(*t->l) + t->n * sizeof(t->l->id[0]));
		t->l->at = xrealloc(t->l->at, (t->n + 1) * sizeof(*t->l->at));
		t->l->n = t->n;
		meta_table(ms, off + t->l->at[0], 0, t->n, t->l, 0, alloc);
	}
	vartab_free(t);
}

void vartab_free(struct vartab *t)
{
	rmap_labels_put(t->l);
	memset(t, 0, sizeof(*t));
}

void meta_end(struct metasink *ms)
{
	meta_flush(ms);
	rmap_thaw(ms->out->vm);
	rmap_thaw(ms->out->file);
}
