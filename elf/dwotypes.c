/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "elf/dwotypes.h"
#include "util/util.h"

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

const struct dwo_seen *dwo_sigs_seen(const struct dwo_sigs *t, dev_t dev,
				     ino_t ino)
{
	for (size_t i = 0; i < t->seen_n; i++)
		if (t->seen[i].dev == dev && t->seen[i].ino == ino)
			return &t->seen[i];
	return NULL;
}

/* Remember the file of im as r left it: false if it was already. */
static bool seen_add(struct dwo_sigs *t, const struct dwo_image *im, int r,
		     const char *sec)
{
	if (dwo_sigs_seen(t, im->dev, im->ino))
		return false;
	t->seen = xrealloc(t->seen, (t->seen_n + 1) * sizeof(*t->seen));
	t->seen[t->seen_n++] = (struct dwo_seen){im->dev, im->ino, r, sec};
	return true;
}

void dwo_sigs_used(struct dwo_sigs *t, const struct dwo_image *im)
{
	t->joined_n += seen_add(t, im, 0, NULL);
}

void dwo_sigs_unjoined(struct dwo_sigs *t, int r, const char *sec,
		       const struct dwo_image *im)
{
	if (r <= -DWO_JOIN_Z && sec && seen_add(t, im, r, sec)) {
		t->unjoined++;
		t->why = -r;
		t->why_sec = sec;
	}
}

/* List dbg's type units into t (its units counted in t->listed): those
 * of its .dwo (at path, NULL: unknown) joined if its sections are in
 * pieces. */
static void list(struct dwo_sigs *t, Dwarf *dbg, const char *path)
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
	/* from the file, read: libdw's Elf of it is mapped (SIGBUS if
	 * the file is truncated while its pieces are copied) */
	r = path ? dwo_join_file(path, &t->joined, &sec) : 1;
	dwo_sigs_unjoined(t, r, sec, &t->joined);
	if (r == 0)
		dwo_sigs_used(t, &t->joined);
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

bool dwo_sigs_listed(const struct dwo_sigs *t, Dwarf *dbg)
{
	/* a type unit's own reference lies in the joined image */
	return dbg && (t->dbg == dbg || t->src == dbg);
}

bool dwo_type_die(struct dwo_sigs *t, Dwarf *dbg, const char *path,
		  uint64_t sig, Dwarf_Die *out)
{
	struct dwo_sig key = {.sig = sig}, *hit;

	if (!dwo_sigs_listed(t, dbg))
		list(t, dbg, path);
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
	free(t->seen);
	*t = (struct dwo_sigs){0};
}
