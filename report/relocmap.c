// SPDX-License-Identifier: GPL-2.0-or-later
/* relocmap.c — see relocmap.h */
#include "config.h"

#include "report/relocmap.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/relocs.h"
#include "util/util.h"

/* First index of rm->targets with value >= addr. */
static size_t lower(const struct relocmap *rm, uint64_t addr)
{
	size_t lo = 0, hi = rm->ntargets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rm->targets[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t relocmap_count(const struct relocmap *rm, uint64_t start, uint64_t end)
{
	if (start >= end || !rm->ntargets)
		return 0;
	return lower(rm, end) - lower(rm, start);
}

/* Label the page [page, page+ps) from the targets t[0..n) on it. */
static void add_page(struct relocmap *rm, struct dualmap *base,
		     struct rmap *owners, uint64_t page, uint64_t ps,
		     const uint64_t *t, size_t n)
{
	uint64_t start = page;
	uint32_t cur = LABEL_NONE;

	for (size_t i = 0; i < n; i++) {
		uint32_t o = rmap_lookup(owners, t[i], NULL);

		if (o == LABEL_NONE)
			o = rm->no_relocs; /* outside every section */
		if (cur == LABEL_NONE) {
			cur = o;
			continue;
		}
		if (o == cur)
			continue;
		dualmap_add_vm(&rm->map, base, start, t[i] - start, cur);
		start = t[i];
		cur = o;
	}
	if (cur != LABEL_NONE)
		dualmap_add_vm(&rm->map, base, start, page + ps - start, cur);
}

int relocmap_build(struct relocmap *rm, struct imgmaps *si, struct labels *lb,
		   const struct elf_map_opts *opts, struct strlist *notes,
		   uint64_t page_size)
{
	struct dualmap *syms, *tables;
	const struct elf_reloc *rels;
	const struct elfimg *img = si->img;
	uint64_t mask = page_size - 1;
	size_t n;
	int ret;

	ret = imgmaps_source(si, ELFSRC_SYMBOLS, lb, opts, notes, &syms);
	if (ret < 0)
		return ret;
	ret = imgmaps_source(si, ELFSRC_RELOCS, lb, opts, notes, &tables);
	if (ret < 0)
		return ret;
	elf_relocs_get(si->img, &rels, &n);
	rm->targets = xmalloc((n ? n : 1) * sizeof(*rm->targets));
	for (size_t i = 0; i < n; i++)
		rm->targets[i] = rels[i].target;
	rm->ntargets = n;
	qsort(rm->targets, n, sizeof(*rm->targets), u64_sort_cmp);

	rm->no_relocs = labels_intern(lb, "[no relocations]");
	/* The file side of the adds goes to a scratch map: the file map
	 * of this key is the relocs source's, which must not change. */
	dualmap_init(&rm->map);
	for (size_t i = 0; i < n;) {
		uint64_t page = rm->targets[i] & ~mask;
		size_t j = i;

		while (j < n && (rm->targets[j] & ~mask) == page)
			j++;
		add_page(rm, &si->base, syms->vm, page, page_size,
			 rm->targets + i, j - i);
		i = j;
	}
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];

		if (s->type == PT_LOAD)
			dualmap_add_vm(&rm->map, &si->base, s->vaddr, s->memsz,
				       rm->no_relocs);
	}
	rmap_free(rm->map.file);
	rm->map.file = tables->file;
	return 0;
}

void relocmap_free(struct relocmap *rm)
{
	if (!rm)
		return;
	rmap_free(rm->map.vm);
	free(rm->targets);
	memset(rm, 0, sizeof(*rm));
}
