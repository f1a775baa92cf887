/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lsdatab.h — the LSDAs of .gcc_except_table charged to the functions
 * whose FDEs point to them (elf/lsdatab.c); private to elf/. */
#ifndef MEMSZ_ELF_LSDATAB_H
#define MEMSZ_ELF_LSDATAB_H

#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct metasink;
struct elf_refs;

/* Each LSDA r (the FDEs' pointers, in their order, to their labels)
 * points to lying in a loaded .gcc_except_table (or
 * .gcc_except_table.*) section of img to its label, each once, the
 * bytes elf_lsda_len() finds it spans before the next LSDA pointed to
 * (by any FDE, of a label's code or not) or its section's end. r is
 * emptied. Returns the number of distinct LSDAs of labelled code pointed
 * to in such a section that could not be decoded there (their bytes stay
 * "[section ...]"). */
uint64_t elf_lsda_add(struct elfimg *img, struct metasink *ms,
		      struct elf_refs *r);

#endif
