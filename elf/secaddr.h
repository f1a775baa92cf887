/* SPDX-License-Identifier: GPL-2.0-or-later */
/* secaddr.h — an image's sections of one kind sorted by address, to find
 * the one holding an address in log time (a .o built with
 * -ffunction-sections has a section a function, tens of thousands). */
#ifndef MEMSZ_ELF_SECADDR_H
#define MEMSZ_ELF_SECADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elfimg.h"

struct elf_secaddr {
	struct elf_secaddr_ent {
		uint64_t addr;
		size_t i; /* index in img->secs */
	} * v;
	size_t n;
};

/* Fill x with img's sections of nonzero size for which want(img, s)
 * holds, sorted by address (ties by index). */
void elf_secaddr_build(struct elf_secaddr *x, const struct elfimg *img,
		       bool (*want)(const struct elfimg *img,
				    const struct elf_section *s));

/* The index of x's section holding addr, or 0. Where sections overlap
 * (a hostile file), the last one starting at or before addr, or none. */
size_t elf_secaddr_find(const struct elf_secaddr *x, const struct elfimg *img,
			uint64_t addr);

void elf_secaddr_free(struct elf_secaddr *x);

#endif
