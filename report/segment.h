/* SPDX-License-Identifier: GPL-2.0-or-later */
/* segment.h — step 1 of the attribution rule (DESIGN.md): the PT_LOAD
 * segment of an ELF image that a mapping maps, and its load bias.
 * (attrib_elf_segment(), declared in attrib.h, is built on these.) */
#ifndef MEMSZ_REPORT_SEGMENT_H
#define MEMSZ_REPORT_SEGMENT_H

#include <stdint.h>

#include "elf/elfimg.h"

/* The load bias of segment s mapped at start from file offset pgoff:
 * image VM address = address - bias. */
uint64_t seg_bias(const struct elf_segment *s, uint64_t start, uint64_t pgoff);

/* The index of the PT_LOAD of img that a mapping at start of file offset
 * pgoff with protection prot maps: its page-aligned file extent holds
 * pgoff. Two segments may share a file page (the end of one, the start
 * of the next), so the one whose load bias is *prefer (NULL: none) wins;
 * then an exact match of the aligned p_offset (the first mapping of a
 * segment); then one whose X permission agrees (a segment split by
 * mprotect, e.g. RELRO, continues at a later pgoff). -1 if none. */
int seg_find(const struct elfimg *img, uint64_t page_size, uint64_t start,
	     uint64_t pgoff, uint32_t prot, const uint64_t *prefer);

#endif
