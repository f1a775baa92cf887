/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ehframe.h — the unwind tables: .eh_frame CIEs/FDEs and the binary search
 * table of .eh_frame_hdr, parsed from a buffer.
 *
 * The parsers take the section bytes and the VM address they load at (for
 * pc-relative and data-relative pointers) and never trust a length: a record
 * running past the buffer ends the walk, a record that cannot be decoded (bad
 * CIE pointer, unknown augmentation, unsupported pointer encoding) is skipped
 * and counted, never fatal.
 */
#ifndef MEMSZ_ELF_EHFRAME_H
#define MEMSZ_ELF_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfimg;

/* One FDE. off is relative to the buffer given to elf_ehframe_parse(), or a
 * file offset when it comes from elf_ehframe_read(). */
struct elf_fde {
	uint64_t off;	   /* start of the record (its length field) */
	uint64_t size;	   /* whole record: 4 (or 12) + length */
	uint64_t cie_off;  /* its CIE, same space as off */
	uint64_t pc_begin; /* VM address of the first instruction covered */
	uint64_t pc_range; /* bytes covered */
	/* VM address of its LSDA (its CIE's 'L' augmentation: the pointer
	 * in the FDE's augmentation data; 0 there means none) */
	uint64_t lsda;
	bool has_lsda;
};

/* One entry of the .eh_frame_hdr search table; off as in struct elf_fde. */
struct elf_ehhdr_entry {
	uint64_t off;	      /* start of the entry */
	uint32_t size;	      /* both fields: 8 for the usual udata4/sdata4 */
	uint64_t initial_loc; /* VM address of the function start */
	uint64_t fde_addr;    /* VM address of its FDE */
};

/* Parse .eh_frame bytes buf[0, len), loaded at VM address addr, of an image
 * of class elfclass (ELFCLASS32/64; absptr size) and byte order be. FDEs go
 * to *out (*n), malloc'd, caller frees (NULL if none); *ncies (may be NULL)
 * receives the number of CIEs. A zero length word ends the walk (the
 * terminator); so does a record running past len. Returns the number of
 * records skipped as undecodable, plus one if the walk ended early on an
 * overrunning length (0 for a well-formed section). */
int elf_ehframe_parse(const void *buf, size_t len, uint64_t addr, int elfclass,
		      bool be, struct elf_fde **out, size_t *n, size_t *ncies);

/* elf_ehframe_parse() without the array: each FDE to fn(arg, f) as it is
 * decoded, in order (f: valid during the call). Same return value. */
int elf_ehframe_walk(const void *buf, size_t len, uint64_t addr, int elfclass,
		     bool be, void (*fn)(void *arg, const struct elf_fde *f),
		     void *arg, size_t *ncies);

/* Parse .eh_frame_hdr bytes buf[0, len) loaded at addr. Entries of the
 * search table go to *out (*n), malloc'd, caller frees; *fde_count (may be
 * NULL) receives the header's count (0 without a table). Entries beyond len
 * are not returned. Returns 0, or -EINVAL for a bad version or an encoding
 * the table cannot use (uleb128, omitted, indirect). */
int elf_ehframe_hdr_parse(const void *buf, size_t len, uint64_t addr,
			  int elfclass, bool be, struct elf_ehhdr_entry **out,
			  size_t *n, uint64_t *fde_count);
/* elf_ehframe_hdr_parse() without the array: each entry to fn(arg, e) as
 * it is decoded, in order. On -EINVAL, fn may have had the entries before
 * the one that failed: a caller that must not use part of a table keeps
 * what it got until 0 is returned. */
int elf_ehframe_hdr_walk(const void *buf, size_t len, uint64_t addr,
			 int elfclass, bool be,
			 void (*fn)(void *arg, const struct elf_ehhdr_entry *e),
			 void *arg, uint64_t *fde_count);

/* The same for img: its SHF_ALLOC .eh_frame (every such section, in index
 * order) and .eh_frame_hdr, offsets turned into file offsets. Sections
 * absent give 0 entries. Return values as for the buffer parsers; the hdr
 * one returns -EINVAL as above. */
int elf_ehframe_read(struct elfimg *img, struct elf_fde **out, size_t *n);
int elf_ehframe_hdr_read(struct elfimg *img, struct elf_ehhdr_entry **out,
			 size_t *n);
/* elf_ehframe_hdr_read() without the array, as elf_ehframe_hdr_walk()
 * (the same caution on -EINVAL). */
int elf_ehframe_hdr_foreach(struct elfimg *img,
			    void (*fn)(void *arg,
				       const struct elf_ehhdr_entry *e),
			    void *arg);

#endif
