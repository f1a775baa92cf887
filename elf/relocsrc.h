/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relocsrc.h — the relocs source of an image (on disk): every byte of its
 * dynamic relocation tables labelled by relocation type, and the numbers
 * behind the RELR estimate. Internal to elf/ (elfsrc.c dispatches to it).
 */
#ifndef MEMSZ_ELF_RELOCSRC_H
#define MEMSZ_ELF_RELOCSRC_H

#include "elf/elfimg.h"

/* Label the entries of the SHF_ALLOC REL, RELA and RELR sections of img
 * (elf/relocs.h) by type: "R_X86_64_RELATIVE", "R_X86_64_GLOB_DAT", ...,
 * "[relocation type N]" for types memsz cannot name, RELR words
 * "R_X86_64_RELATIVE (RELR)"; file bytes and, through base, the VM they
 * are loaded at. Fallbacks are left to the caller. stats (may be NULL)
 * gets the rel_* and relr_* counts. Returns 0. */
int elfsrc_relocs(struct elfimg *img, struct labels *lb, struct dualmap *base,
		  struct dualmap *out, struct elfsrc_stats *stats);

#endif
