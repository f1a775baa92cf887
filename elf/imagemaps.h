/* SPDX-License-Identifier: GPL-2.0-or-later */
/* imagemaps.h — an opened ELF image and the DualMaps built from it.
 *
 * Shared by the on-disk report (`memsz size`) and the resident-memory
 * report, so that both label bytes the same way: the base map is built on
 * open, each source map on its first use, with the footer notes about what
 * the source could not explain.
 */
#ifndef MEMSZ_ELF_IMAGEMAPS_H
#define MEMSZ_ELF_IMAGEMAPS_H

#include <stdbool.h>

#include "elf/elfimg.h"
#include "maps/labels.h"
#include "maps/rangemap.h"
#include "util/strlist.h"

/* True if label is a fallback of elf source src: a label given to bytes
 * the source itself does not explain. Those are "[section X]", the PT_LOAD
 * labels "LOAD #n [..]" (except for segments, whose own labels they are),
 * "[ELF Header]", "[ELF Program Headers]", "[ELF Section Headers]" (except
 * for segments and sections, which name them as readelf does) and
 * "[Unmapped]". Kind labels of anonymous memory ("[heap]") are not. */
bool elf_label_is_fallback(enum elf_source src, const char *label);

/* One opened ELF image and the DualMaps built from it on demand. */
struct imgmaps {
	struct elfimg *img;
	struct dualmap base;
	struct dualmap src[ELFSRC__COUNT];
	bool built[ELFSRC__COUNT];
	bool changed_noted;	  /* NOTE_IMAGE_CHANGED_READ given */
	bool debug_changed_noted; /* the same, of its debug file */
};

/* Open path into im (zeroed by the caller) and build its base map.
 * Returns 0 or a negative code (im is then left closed). */
int imgmaps_open(struct imgmaps *im, const char *path, struct labels *lb);
/* The DualMap of source src, built on the first call as opts says (NULL:
 * defaults; symbols look for a debug file under opts->debug_root first);
 * notes about it are appended then. Returns 0 and *out (borrowed, valid
 * until imgmaps_close), or a negative code. */
int imgmaps_source(struct imgmaps *im, enum elf_source src, struct labels *lb,
		   const struct elf_map_opts *opts, struct strlist *notes,
		   struct dualmap **out);
/* Free the maps and close the image; im may be closed already. */
void imgmaps_close(struct imgmaps *im);

#endif
