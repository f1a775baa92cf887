// SPDX-License-Identifier: GPL-2.0-or-later
/* relocsrc.c — the relocs source: the bytes of the dynamic relocation
 * tables by relocation type, and what RELR would make of them.
 */
#include "config.h"

#include "elf/relocsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfpriv.h"
#include "elf/relocs.h"
#include "util/util.h"

static uint32_t type_label(struct elfimg *img, struct labels *lb,
			   const struct elf_reloc *r)
{
	const char *name = elf_reloc_type_name(img->machine, r->type);
	char buf[64];

	if (!name) {
		snprintf(buf, sizeof(buf), "[relocation type %u]", r->type);
		name = buf;
	}
	if (r->kind == ELF_RELOC_RELR) {
		char *s = xasprintf("%s (RELR)", name);
		uint32_t id = labels_intern(lb, s);

		free(s);
		return id;
	}
	return labels_intern(lb, name);
}

/* elfsrc_relocs()'s walk: the run of adjacent entries of one label
 * gathered into one add, the type of the entry before, and (with stats)
 * the targets of the RELATIVE relocations, for the RELR estimate */
struct typewalk {
	struct elfimg *img;
	struct labels *lb;
	struct dualmap *base, *out;
	struct elfsrc_stats *stats;
	uint64_t run_off, run_len;
	uint32_t run_label, prev_type;
	enum elf_reloc_kind prev_kind;
	uint64_t *rel; /* RELATIVE targets */
	size_t nrel, relcap;
};

static void count_relative(struct typewalk *w, const struct elf_reloc *r)
{
	struct elfsrc_stats *stats = w->stats;

	stats->rel_relative++;
	if (r->kind != ELF_RELOC_RELR) {
		stats->rel_relative_rela++;
		stats->rel_relative_bytes += r->entry_size;
	}
	xgrow(&w->rel, &w->relcap, w->nrel + 1, sizeof(*w->rel));
	w->rel[w->nrel++] = r->target;
}

static void type_reloc(const struct elf_reloc *r, void *arg)
{
	struct typewalk *w = arg;
	uint32_t id;

	if (r->is_relative && w->stats)
		count_relative(w, r);
	/* Consecutive entries of one type are one add (RELR: one word
	 * holds up to 63 relocations). */
	if (r->type == w->prev_type && r->kind == w->prev_kind &&
	    w->run_label != LABEL_NONE) {
		id = w->run_label;
	} else {
		id = type_label(w->img, w->lb, r);
		w->prev_type = r->type;
		w->prev_kind = r->kind;
	}
	if (id == w->run_label && r->entry_off >= w->run_off &&
	    r->entry_off <= w->run_off + w->run_len) {
		uint64_t end = r->entry_off + r->entry_size;

		if (end > w->run_off + w->run_len)
			w->run_len = end - w->run_off;
		return;
	}
	if (w->run_len)
		dualmap_add_file(w->out, w->base, w->run_off, w->run_len,
				 w->run_label);
	w->run_label = id;
	w->run_off = r->entry_off;
	w->run_len = r->entry_size;
}

int elfsrc_relocs(struct elfimg *img, struct labels *lb, struct dualmap *base,
		  struct dualmap *out, struct elfsrc_stats *stats)
{
	struct typewalk w = {
	    .img = img,
	    .lb = lb,
	    .base = base,
	    .out = out,
	    .stats = stats,
	    .run_label = LABEL_NONE,
	    .prev_type = UINT32_MAX,
	    .prev_kind = ELF_RELOC_REL,
	};
	int bad;

	/* decoded as walked: the relocations are not kept */
	bad = elf_relocs_foreach(img, type_reloc, &w);
	if (w.run_len)
		dualmap_add_file(out, base, w.run_off, w.run_len, w.run_label);
	if (stats) {
		stats->rel_skipped = bad;
		stats->relr_estimate =
		    elf_relocs_relr_size_of(w.rel, w.nrel, img->elfclass);
		for (size_t i = 1; i < img->nsecs; i++)
			if (img->secs[i].type == SHT_RELR &&
			    (img->secs[i].flags & SHF_ALLOC))
				stats->relr_bytes += img->secs[i].size;
	}
	free(w.rel);
	return 0;
}
