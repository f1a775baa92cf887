/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lsdatab.h — the LSDA reader (GCC's format), and the LSDAs of
 * .gcc_except_table charged to the functions whose FDEs point to them
 * (elf/lsdatab.c); private to elf/ (and its tests). */
#ifndef MEMSZ_ELF_LSDATAB_H
#define MEMSZ_ELF_LSDATAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfimg;
struct metasink;
struct elf_refs;

/* Room elf_lsda_len() keeps between calls (zeroed: empty); freed by
 * elf_lsda_scratch_free(). */
struct elf_lsda_scratch {
	uint64_t *seen; /* a bit an action table byte: a record read there */
	size_t seen_cap;
	uint64_t *spec; /* exception specification lists' offsets */
	size_t nspec, spec_cap;
	uint64_t *reach; /* those the call sites reach */
	size_t reach_cap;
	/* the caller's: offsets in the buffer (sorted) of the words a .o
	 * relocates, which hold 0 there: an ARM specification list's
	 * entries (R_ARM_TARGET2), not its end */
	const uint64_t *reloc;
	size_t nreloc;
};

/* The length of the LSDA (the GCC format __gxx_personality_v0 and
 * __gcc_personality_v0 read: a header, the call-site table, the action
 * table, the type table ending at the TType base, the exception
 * specification lists after it) at buf[off], which must end within
 * room bytes (off + room <= the buffer's length). ehabi: an ARM EHABI
 * LSDA, whose specification lists are 4-byte words, not ULEB128. The
 * addresses it holds are not read, only skipped: no relocation needed.
 * Returns 0 if it cannot be decoded there: an unknown pointer encoding,
 * a table running past room, an action link leaving the LSDA, a type
 * filter without a type table. Each action record is read once (a loop
 * of links ends), each specification byte at most once. */
uint64_t elf_lsda_len(const unsigned char *buf, size_t off, size_t room,
		      int elfclass, bool be, bool ehabi,
		      struct elf_lsda_scratch *sc);
void elf_lsda_scratch_free(struct elf_lsda_scratch *sc);

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
