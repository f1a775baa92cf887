/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relocmap.h — dirty-by-relocation: which relocation targets lie on each
 * page of an image, and which symbols own them.
 *
 * The dynamic loader writes every relocation target of an image at load
 * time, so each page holding one becomes a private dirty copy in every
 * process. The relocs key of `memsz report` charges such a page to the
 * symbols owning its targets: the page is cut at the first target of each
 * run of targets with one owner (the first run also gets the bytes before
 * it), so every byte of the page goes to one owner and each owner's
 * targets lie inside its bytes. Owners are the symbols source's labels
 * ("vtable for Foo", or "[section .got]" where no symbol is). Pages without
 * targets are "[no relocations]".
 */
#ifndef MEMSZ_REPORT_RELOCMAP_H
#define MEMSZ_REPORT_RELOCMAP_H

#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"
#include "maps/rangemap.h"
#include "elf/imagemaps.h"

struct relocmap {
	uint64_t *targets; /* sorted VM addresses, one per relocation */
	size_t ntargets;
	/* vm: the page split above over the image's PT_LOAD VM; file: the
	 * relocs source's file map (tables by type), borrowed from si. */
	struct dualmap map;
	uint32_t no_relocs; /* "[no relocations]" */
};

/* Build rm (zeroed by the caller) for image si with pages of page_size
 * bytes, using si's symbols and relocs sources (built if need be as opts
 * says, notes appended to notes). Returns 0 or a negative code from those
 * sources. */
int relocmap_build(struct relocmap *rm, struct imgmaps *si, struct labels *lb,
		   const struct elf_map_opts *opts, struct strlist *notes,
		   uint64_t page_size);
/* Number of relocation targets in image VM [start, end). */
uint64_t relocmap_count(const struct relocmap *rm, uint64_t start,
			uint64_t end);
/* Free what rm holds (not the borrowed file map). */
void relocmap_free(struct relocmap *rm);

#endif
