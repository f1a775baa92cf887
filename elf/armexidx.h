/* SPDX-License-Identifier: GPL-2.0-or-later */
/* armexidx.h — 32-bit ARM unwind tables (.ARM.exidx, .ARM.extab)
 * charged to the functions they describe (elf/armexidx.c); private to
 * elf/. */
#ifndef MEMSZ_ELF_ARMEXIDX_H
#define MEMSZ_ELF_ARMEXIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct elf_section;
struct metasink;

/* Is s one of the sections elf_armexidx_add() charges (an ARM file's
 * SHT_ARM_EXIDX, or its .ARM.extab*)? */
bool elf_armexidx_section(const struct elfimg *img,
			  const struct elf_section *s);

/* The length of the descriptor list at buf[off] (the ARM EHABI's
 * exception-handling table of an .ARM.extab entry of ARM's compact model
 * idx, 0 to 2, after its unwind data words), which must end within room
 * bytes: each descriptor's scope (two halfwords, pr2's two words), then
 * a cleanup's landing pad, a catch's landing pad and type, or an
 * exception specification's count word, its types and, if the count's
 * bit 31 is set, its landing pad; then the zero word ending the list.
 * be: big-endian words. reloc: the offsets in buf (sorted, nreloc of
 * them) where a .o's relocations patch it. Returns 0 if it cannot be
 * read: a list not ended within room, a scope of length 0 or of the
 * reserved kind, a count past room, a scope or count word a relocation
 * patches, at any of its bytes (its value is not in the .o). */
uint64_t elf_armdesc_len(const unsigned char *buf, size_t off, size_t room,
			 unsigned idx, bool be, const uint64_t *reloc,
			 size_t nreloc);

/* Each 8-byte .ARM.exidx entry of img (a 32-bit ARM file; a .o's with
 * its relocations applied) to the label at the function start its first
 * word points to, and the .ARM.extab entry its second word points to (if
 * it does not hold the unwind data inline) to that label too: the words
 * the entry's own words bound, and what follows them, a compact model's
 * descriptor list (elf_armdesc_len()) or a generic routine's LSDA
 * (elf_lsda_len()). Bytes of neither stay "[section ...]". */
void elf_armexidx_add(struct elfimg *img, struct metasink *ms);

#endif
