/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ppcopd.h — the code of powerpc64 ELFv1 functions, found through their
 * descriptors in .opd (elf/ppcopd.c); private to elf/. */
#ifndef MEMSZ_ELF_PPCOPD_H
#define MEMSZ_ELF_PPCOPD_H

#include <stdbool.h>
#include <stdint.h>

struct elfimg;
struct elf_opd;

/* The .opd of img, a powerpc64 file, ready to read the entry addresses of
 * its descriptors; NULL if it has none (not powerpc64, no .opd, a .o
 * whose relocations of it memsz does not apply). */
struct elf_opd *elf_opd_open(struct elfimg *img);

/* The code of the function whose descriptor is at VM address desc: its
 * entry address (the descriptor's first doubleword: in the file, or the
 * addend of the RELATIVE relocation that sets it, or a .o's relocation
 * applied) into *addr, and size, the symbol's st_size (the code's in
 * ELFv1), cut to the end of the executable section holding the entry,
 * into *size. False if desc is not a descriptor of .opd or its entry
 * lies in no executable section. */
bool elf_opd_code(const struct elf_opd *o, uint64_t desc, uint64_t size,
		  uint64_t *addr, uint64_t *out_size);

void elf_opd_close(struct elf_opd *o);

#endif
