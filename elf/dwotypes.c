/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "elf/dwotypes.h"

#include <dwarf.h>
#include <stdlib.h>

/* A type unit: its signature, its type DIE's offset, in .debug_types
 * (DWARF 4) or .debug_info (5). */
struct dwo_sig {
	uint64_t sig;
	Dwarf_Off off;
	bool types;
};

static bool add(struct dwo_sigs *t, uint64_t sig, Dwarf_Off off, bool types)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct dwo_sig *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return false;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct dwo_sig){sig, off, types};
	return true;
}

static int by_sig(const void *a, const void *b)
{
	const struct dwo_sig *x = a, *y = b;

	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

/* List dbg's type units into t (its units counted in t->listed): those
 * of its .dwo joined if its sections are in pieces. */
static void list(struct dwo_sigs *t, Dwarf *dbg)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, type;
	Dwarf_Half v;
	uint8_t ut;
	uint64_t sig, toff;
	Dwarf_Off off = 0, next;
	size_t hsize;

	const char *sec;
	int r;

	dwo_sigs_reset(t);
	t->dbg = dbg;
	r = dwo_join(dwarf_getelf(dbg), &t->joined, &sec);
	if (r < 0 && sec) {
		t->unjoined++;
		t->why = -r;
		t->why_sec = sec;
	}
	t->joined_n += r == 0;
	t->src = dbg = r == 0 ? t->joined.dbg : dbg;
	while (t->listed < ELF_DWARF_SIG8_UNITS &&
	       dwarf_get_units(dbg, cu, &cu, &v, &ut, &cudie, &type) == 0) {
		t->listed++;
		/* DWARF 4's, in .debug_types, are listed below */
		if ((ut == DW_UT_split_type || ut == DW_UT_type) && v >= 5 &&
		    type.addr &&
		    dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &sig, NULL,
				  NULL) == 0 &&
		    !add(t, sig, dwarf_dieoffset(&type), false))
			break;
	}
	while (t->listed < ELF_DWARF_SIG8_UNITS &&
	       dwarf_next_unit(dbg, off, &next, &hsize, NULL, NULL, NULL, NULL,
			       &sig, &toff) == 0) {
		t->listed++;
		if (!add(t, sig, off + toff, true))
			break;
		off = next;
	}
	qsort(t->v, t->n, sizeof(*t->v), by_sig);
}

bool dwo_type_die(struct dwo_sigs *t, Dwarf *dbg, uint64_t sig, Dwarf_Die *out)
{
	struct dwo_sig key = {.sig = sig}, *hit;

	/* a type unit's own reference lies in the joined image */
	if (t->dbg != dbg && t->src != dbg)
		list(t, dbg);
	hit = t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), by_sig) : NULL;
	if (!hit)
		return false;
	/* a signature in two units (a hostile .dwo): neither is taken */
	if ((hit > t->v && hit[-1].sig == sig) ||
	    (hit + 1 < t->v + t->n && hit[1].sig == sig))
		return false;
	return hit->types ? dwarf_offdie_types(t->src, hit->off, out) != NULL
			  : dwarf_offdie(t->src, hit->off, out) != NULL;
}

void dwo_sigs_reset(struct dwo_sigs *t)
{
	dwo_image_end(&t->joined);
	t->dbg = t->src = NULL;
	t->n = 0;
}

void dwo_sigs_free(struct dwo_sigs *t)
{
	dwo_image_end(&t->joined);
	free(t->v);
	*t = (struct dwo_sigs){0};
}
