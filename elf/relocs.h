/* SPDX-License-Identifier: GPL-2.0-or-later */
/* relocs.h — the dynamic relocations of an ELF image, RELR decoded.
 *
 * Every relocation the dynamic loader applies, one entry per patched
 * address, read from the SHF_ALLOC sections of type SHT_RELA, SHT_REL
 * (.rela.dyn, .rela.plt, .rel.dyn, .rel.plt, ...) and SHT_RELR (.relr.dyn,
 * the jump+bitmap encoding of the gABI: an even word is an address, an odd
 * word a bitmap of the next 63 (ELFCLASS32: 31) words). Non-ALLOC
 * relocation sections (static ones: .rela.text of --emit-relocs) are not
 * read. Entries are decoded by hand in the file's byte order, both classes.
 */
#ifndef MEMSZ_ELF_RELOCS_H
#define MEMSZ_ELF_RELOCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfimg;

enum elf_reloc_kind {
	ELF_RELOC_REL,	/* SHT_REL: r_offset, r_info */
	ELF_RELOC_RELA, /* SHT_RELA: r_offset, r_info, r_addend */
	ELF_RELOC_RELR, /* SHT_RELR: address or bitmap word */
};

struct elf_reloc {
	uint64_t target;     /* VM address patched (r_offset; RELR: decoded) */
	uint64_t entry_off;  /* file offset of the entry encoding it (RELR:
			      * the address or bitmap word that sets it) */
	uint64_t entry_addr; /* VM address of that entry (sh_addr based) */
	uint32_t entry_size; /* its size: 8/12/16/24, RELR the word size */
	uint32_t type;	     /* r_type; RELR: the machine's RELATIVE type
			      * (0 if memsz does not know it) */
	uint32_t sym;	     /* symbol index in the linked .dynsym; 0: none
			      * (always 0 for RELR) */
	uint32_t section;    /* index of the section it came from */
	int64_t addend;	     /* RELA r_addend, else 0 */
	enum elf_reloc_kind kind;
	bool is_relative; /* a RELATIVE relocation (RELR: always) */
};

/* Read every dynamic relocation of img into *out (*n entries), ordered by
 * section index, then by entry (RELR: targets ascending within a word).
 * *out is malloc'd, caller frees (NULL when *n is 0). Sections with an
 * unexpected sh_entsize are skipped; a RELR word decoded before any address
 * word, and RELR targets outside every PT_LOAD, are dropped (a bitmap word
 * can encode at most 63 targets, so *n stays bounded by the file size).
 * Returns the number of entries or sections skipped or dropped (0 for a
 * well-formed image); never fails except by aborting on out-of-memory. */
int elf_relocs_read(struct elfimg *img, struct elf_reloc **out, size_t *n);

/* Called by elf_relocs_foreach() with each relocation; r is valid
 * during the call only. */
typedef void (*elf_reloc_fn)(const struct elf_reloc *r, void *arg);

/* Call fn(r, arg) for every dynamic relocation of img, in the order and
 * with the values elf_relocs_read() would store, decoding one entry at a
 * time: nothing is kept, for a single pass over tables whose decoded
 * entries would take far more memory than their bytes (a RELR word
 * encodes up to 63 relocations). Returns what elf_relocs_read()
 * returns. */
int elf_relocs_foreach(struct elfimg *img, elf_reloc_fn fn, void *arg);

/* elf_relocs_read(), decoded once per image and kept in it: *out is
 * borrowed (do not free), valid until elfimg_close(img); NULL when *n is 0.
 * Returns what elf_relocs_read() returned on the first call. */
int elf_relocs_get(struct elfimg *img, const struct elf_reloc **out, size_t *n);

/* The RELATIVE relocation type of ELF machine EM_*, or 0 if unknown
 * (x86-64, i386, AArch64, ARM, RISC-V, PowerPC, s390, SPARC, LoongArch). */
uint32_t elf_reloc_relative_type(uint16_t machine);

/* True if type is machine's RELATIVE type (the only one RELR encodes). */
bool elf_reloc_is_relative(uint16_t machine, uint32_t type);

/* A short name of a relocation type ("R_X86_64_RELATIVE") for x86-64,
 * i386 and AArch64's common types; NULL if not known. Static storage. */
const char *elf_reloc_type_name(uint16_t machine, uint32_t type);

/* Bytes the RELATIVE relocations of rels would take as RELR words under
 * the standard encoding for an image of class elfclass (ELFCLASS32 or
 * ELFCLASS64): the same greedy packing as the linkers. rels need not be
 * sorted and may mix kinds; only is_relative entries count. */
uint64_t elf_relocs_relr_size(const struct elf_reloc *rels, size_t n,
			      int elfclass);

/* elf_relocs_relr_size() of the RELATIVE relocations whose targets are
 * a[0, m) (any order; a is sorted in place). */
uint64_t elf_relocs_relr_size_of(uint64_t *a, size_t m, int elfclass);

#endif
