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

int elfsrc_relocs(struct elfimg *img, struct labels *lb, struct dualmap *base,
		  struct dualmap *out, struct elfsrc_stats *stats)
{
	const struct elf_reloc *rels;
	size_t n;
	uint64_t run_off = 0, run_len = 0;
	uint32_t run_label = LABEL_NONE, prev_type = UINT32_MAX;
	enum elf_reloc_kind prev_kind = ELF_RELOC_REL;
	int bad;

	bad = elf_relocs_get(img, &rels, &n);
	for (size_t i = 0; i < n; i++) {
		const struct elf_reloc *r = &rels[i];
		uint32_t id;

		if (r->is_relative && stats) {
			stats->rel_relative++;
			if (r->kind != ELF_RELOC_RELR) {
				stats->rel_relative_rela++;
				stats->rel_relative_bytes += r->entry_size;
			}
		}
		/* Consecutive entries of one type are one add (RELR: one
		 * word holds up to 63 relocations). */
		if (r->type == prev_type && r->kind == prev_kind &&
		    run_label != LABEL_NONE) {
			id = run_label;
		} else {
			id = type_label(img, lb, r);
			prev_type = r->type;
			prev_kind = r->kind;
		}
		if (id == run_label && r->entry_off >= run_off &&
		    r->entry_off <= run_off + run_len) {
			uint64_t end = r->entry_off + r->entry_size;

			if (end > run_off + run_len)
				run_len = end - run_off;
			continue;
		}
		if (run_len)
			dualmap_add_file(out, base, run_off, run_len,
					 run_label);
		run_label = id;
		run_off = r->entry_off;
		run_len = r->entry_size;
	}
	if (run_len)
		dualmap_add_file(out, base, run_off, run_len, run_label);
	if (stats) {
		stats->rel_skipped = bad;
		stats->relr_estimate =
		    elf_relocs_relr_size(rels, n, img->elfclass);
		for (size_t i = 1; i < img->nsecs; i++)
			if (img->secs[i].type == SHT_RELR &&
			    (img->secs[i].flags & SHF_ALLOC))
				stats->relr_bytes += img->secs[i].size;
	}
	return 0;
}
