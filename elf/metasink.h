/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metasink.h — where elfmeta.c's metadata entries go: the sink that
 * extends, flushes and adds them (one by one or as range-map tables) to
 * the map being built, frozen meanwhile. Private to elf/. */
#ifndef MEMSZ_ELF_METASINK_H
#define MEMSZ_ELF_METASINK_H

#include "maps/rangemap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- metadata charged to the symbol it serves ---
 *
 * The map being built is queried (its VM side holds nothing but symbols,
 * or compile units, or line rows, at that point) for the label at the
 * address each metadata entry describes. The queries must not see the
 * metadata entries added so far, and the adds must come before every
 * fallback: the map is frozen (rmap_freeze(): queries answer from what
 * it held before) and each entry is added as soon as it is known, so
 * that the hundreds of thousands of entries of a big .dynsym are never
 * held twice. */

struct meta {
	uint64_t off, size; /* file range of the entry */
	uint32_t label;
	bool alloc; /* also label the VM it is loaded at */
};

struct metasink {
	struct dualmap *base, *out;
	struct meta last; /* the entry being extended (size 0: none) */
	/* a cursor on base->file (base NULL: none): the entry the last
	 * loaded entry fell in; a table's entries lie in one section, one
	 * entry of the base map, and need no search of it each */
	struct dualmap_cursor cur;
	/* bytes of a .o's .eh_frame whose relocations memsz does not apply:
	 * its FDEs left under "[section .eh_frame]" */
	uint64_t eh_unrelocated;
	/* LSDAs an FDE or .ARM.extab entry points to (an ARM compact
	 * model's descriptor list too) that could not be decoded: left
	 * under their section's label */
	uint64_t lsda_skipped;
};

/* A table of elements of varying sizes being built, in the labels it
 * is pushed as (no copy): bounds l->at[0, n] (at[0]: where the first
 * element starts), labels l->id[0, n); room for cap ids, acap bounds. A
 * zeroed vartab is empty. */
struct vartab {
	struct rmap_labels *l;
	size_t n, cap, acap;
};

/* Start adding metadata entries to out (file, and through base the VM
 * they are loaded at): out is frozen until meta_end(). */
void meta_begin(struct metasink *ms, struct dualmap *base, struct dualmap *out);

/* Entry [off, off + size) of the file (alloc: and the VM it is loaded
 * at) to label: joined to the entry before when it follows it with the
 * same label, else that one is added first. Nothing for LABEL_NONE or
 * size 0. */
void meta_push(struct metasink *ms, uint64_t off, uint64_t size, uint32_t label,
	       bool alloc);

/* Elements k in [0, n) of a table at file offset off, of stride bytes
 * each (stride 0: [off + at[first + k] - at[first], off + at[first + k +
 * 1] - at[first]) of l->at), to labels l->id[first + k]: what
 * meta_push() of each in order adds, held as one table per map
 * (rmap_add_table(): 4 bytes an element, or 12, where entries of the maps
 * took 64) when the table is not loaded or lies in one entry of the base,
 * else pushed one by one. */
void meta_table(struct metasink *ms, uint64_t off, uint64_t stride, size_t n,
		struct rmap_labels *l, size_t first, bool alloc);

/* Append element [s, e) (s at or after the last one's end) labelled id
 * to t, after a hole up to s if there is one. */
void vartab_add(struct vartab *t, uint64_t s, uint64_t e, uint32_t id);

/* t to meta_table() from file offset off (where its at[0] is), and
 * emptied. */
void vartab_push(struct vartab *t, struct metasink *ms, uint64_t off,
		 bool alloc);
/* t emptied, its elements dropped. */
void vartab_free(struct vartab *t);

/* Add the last entry and thaw out. */
void meta_end(struct metasink *ms);

/* Label at VM address addr, or LABEL_NONE: the symbol there (--by symbols)
 * or the unit or line there (compileunits, inlines). */
static inline uint32_t sym_at(struct metasink *ms, uint64_t addr)
{
	return rmap_lookup(ms->out->vm, addr, NULL);
}

#endif
