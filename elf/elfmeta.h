/* SPDX-License-Identifier: GPL-2.0-or-later */
/* elfmeta.h — the metadata of an image (unwind records, relocation
 * entries, symbol table entries, their versions, names and hash words)
 * charged to the label each serves. Internal to elf/ (elfsrc.c, the
 * symbols source and the DWARF ones). */
#ifndef MEMSZ_ELF_ELFMETA_H
#define MEMSZ_ELF_ELFMETA_H

#include "elf/elfimg.h"

/* The labels of the symbols source and how it spelled names: a symbol
 * with no place (.tbss) is looked up by its name. */
struct elfmeta_names {
	const struct labels *lb;
	enum elf_demangle_style style;
};

/* Every kind of metadata of img to the label out holds where it serves
 * (an FDE: its pc_begin; a relocation: its target; a symbol table entry:
 * its symbol), file bytes and, through base, the VM they are loaded at;
 * out's labels so far (symbols, units or lines) are the ones looked up,
 * never the metadata added. sn, when not NULL (the symbols source), names
 * the .tbss symbols, which have no address to look their label up by.
 * Returns the bytes of a .o's .eh_frame whose relocations memsz does not
 * apply (its FDEs left to "[section .eh_frame]"); *lsda_skipped (may be
 * NULL) receives the number of LSDAs pointed to that could not be decoded
 * (left to their section's label). */
uint64_t elfmeta_add(struct elfimg *img, const struct elfmeta_names *sn,
		     struct dualmap *base, struct dualmap *out,
		     uint64_t *lsda_skipped);

/* Only the dynamic relocation entries, to the label now at their target
 * (after --disasm gave data to code). */
void elfmeta_add_relocs(struct elfimg *img, struct dualmap *base,
			struct dualmap *out);

#endif
