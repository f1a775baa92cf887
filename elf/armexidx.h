/* SPDX-License-Identifier: GPL-2.0-or-later */
/* armexidx.h — 32-bit ARM unwind tables (.ARM.exidx, .ARM.extab)
 * charged to the functions they describe (elf/armexidx.c); private to
 * elf/. */
#ifndef MEMSZ_ELF_ARMEXIDX_H
#define MEMSZ_ELF_ARMEXIDX_H

#include <stdbool.h>

struct elfimg;
struct elf_section;
struct metasink;

/* Is s one of the sections elf_armexidx_add() charges (an ARM file's
 * SHT_ARM_EXIDX, or its .ARM.extab*)? */
bool elf_armexidx_section(const struct elfimg *img,
			  const struct elf_section *s);

/* Each 8-byte .ARM.exidx entry of img (a 32-bit ARM file; a .o's with
 * its relocations applied) to the label at the function start its first
 * word points to, and the words of the .ARM.extab entry its second word
 * points to (if it does not hold the unwind data inline) that the entry's
 * own words bound, to that label too. Bytes of neither stay
 * "[section ...]". */
void elf_armexidx_add(struct elfimg *img, struct metasink *ms);

#endif
