// SPDX-License-Identifier: GPL-2.0-or-later
/* segment.c — see segment.h */
#include "config.h"

#include "report/segment.h"

#include <elf.h>
#include <errno.h>
#include <sys/mman.h>

#include "report/attrib.h"

uint64_t seg_bias(const struct elf_segment *s, uint64_t start, uint64_t pgoff)
{
	return start - pgoff + s->offset - s->vaddr;
}

int seg_find(const struct elfimg *img, uint64_t page_size, uint64_t start,
	     uint64_t pgoff, uint32_t prot, const uint64_t *prefer)
{
	uint64_t mask = page_size - 1;
	int best = -1, best_score = -1;

	for (size_t i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];
		uint64_t off0 = s->offset & ~mask;
		uint64_t fend = (s->offset + s->filesz + mask) & ~mask;
		int score = 0;

		if (s->type != PT_LOAD || !s->filesz)
			continue;
		if (pgoff < off0 || pgoff >= fend)
			continue;
		if ((s->vaddr & mask) != (s->offset & mask))
			continue; /* cannot be mapped by mmap */
		if (prefer && seg_bias(s, start, pgoff) == *prefer)
			score += 4;
		if (pgoff == off0)
			score += 2;
		if (!!(prot & PROT_EXEC) == !!(s->flags & PF_X))
			score += 1;
		if (score > best_score) {
			best = (int)i;
			best_score = score;
		}
	}
	return best;
}

int attrib_elf_segment(const struct elfimg *img, uint64_t page_size,
		       uint64_t start, uint64_t pgoff, uint32_t prot,
		       uint64_t *bias)
{
	int seg;

	if (!page_size || (page_size & (page_size - 1)))
		return -EINVAL;
	seg = seg_find(img, page_size, start, pgoff, prot, NULL);
	if (seg < 0)
		return -ENOENT;
	*bias = seg_bias(&img->segs[seg], start, pgoff);
	return seg;
}
