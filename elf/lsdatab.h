/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lsdatab.h — the LSDAs of .gcc_except_table charged to the functions
 * whose FDEs point to them (elf/lsdatab.c); private to elf/. */
#ifndef MEMSZ_ELF_LSDATAB_H
#define MEMSZ_ELF_LSDATAB_H

#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct metasink;

/* The LSDAs the FDEs point to, in the order of the FDEs: where, whose
 * (LABEL_NONE: no label's code, where the LSDA before it ends only), and
 * the order met in (the first labelled FDE pointing there wins). */
struct lsda_refs {
	struct lsda_ref {
		uint64_t addr;
		uint32_t id;
		size_t seq;
	} * v;
	size_t n, cap;
};

void lsda_ref_add(struct lsda_refs *r, uint64_t addr, uint32_t id);

/* Each LSDA of r lying in a loaded .gcc_except_table (or
 * .gcc_except_table.*) section of img to its label, each once, the
 * bytes elf_lsda_len() finds it spans before the next LSDA pointed to
 * (by any FDE, of a label's code or not) or its section's end. r is
 * emptied. Returns the number of distinct LSDAs of labelled code pointed
 * to in such a section that could not be decoded there (their bytes stay
 * "[section ...]"). */
uint64_t elf_lsda_add(struct elfimg *img, struct metasink *ms,
		      struct lsda_refs *r);

#endif
