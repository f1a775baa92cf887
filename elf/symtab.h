/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symtab.h — the usable symbols of an image's symbol table, placed
 * (elf/symtab.c); private to elf/. */
#ifndef MEMSZ_ELF_SYMTAB_H
#define MEMSZ_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf/elfpriv.h"

/* Where a symbol's bytes are: loaded (VM, and file through the base map),
 * in a non-loaded section (file only: glibc's .gnu.warning.* link
 * warnings), or nowhere in the image (a .tbss variable: only its symbol
 * table entries are its). Sorted in this order. */
enum sym_where { SYM_VM, SYM_FILE, SYM_NONE };

struct sym {
	uint64_t addr, size; /* VM range; SYM_FILE: file offset, size */
	const char *name;
	uint8_t rank; /* GLOBAL 0, WEAK 1, others 2 */
	bool data;    /* STT_OBJECT or STT_TLS: no code (elf/xrefs.c) */
	enum sym_where where;
};

/* The usable symbols of .symtab, else img->debug's .symtab, else .dynsym
 * and those of the .symtab of img's MiniDebugInfo (elf/minidebug.h; one
 * of a place, address and name kept: the first in the order below)
 * (defined STT_FUNC, STT_OBJECT, STT_GNU_IFUNC and STT_TLS of non-zero
 * size, placed by elf_sym_place()), sorted SYM_VM first, then by address,
 * larger first, GLOBAL before WEAK before LOCAL, then by name, into *out
 * (caller frees; names borrowed from the image) and *n. st (may be NULL)
 * gets clipped, used_debug_file, used_dynsym and the mdi_ counts. A
 * MiniDebugInfo symbol that cannot be right is left out (mdi_dropped), a
 * MiniDebugInfo that cannot be read is (mdi_why). Returns 0,
 * -MEMSZ_EBADSYM or -MEMSZ_EBADSTRTAB. */
int elf_syms_load(struct elfimg *img, struct sym **out, size_t *n,
		  struct elfsrc_stats *st);

/* Index of the first non-empty section of type type (SHT_SYMTAB,
 * SHT_DYNSYM) of img, or -1. */
ssize_t elf_symtab_find(const struct elfimg *img, uint32_t type);

/* The value of symbol name in img's .symtab (a defined one), in *v;
 * false if it has none. */
bool elf_sym_value(const struct elfimg *img, const char *name, uint64_t *v);

/* How many of syms (sorted by elf_syms_load) are SYM_VM: they come
 * first. */
size_t elf_syms_count_vm(const struct sym *syms, size_t n);

/* Where the symbol of type type and value value in section sec of img
 * lies: *addr (VM address, or file offset for SYM_FILE) and the answer.
 * STT_TLS values are offsets into PT_TLS, relocatable files' values into
 * their section. */
enum sym_where elf_sym_place(const struct elfimg *img,
			     const struct elf_section *sec, int type,
			     uint64_t value, uint64_t *addr);

/* Is an entry of type type and size size one the symbols source
 * labels? */
bool elf_sym_type_used(int type, uint64_t size);

/* A symbol's VM range [start, end). */
struct elf_range {
	uint64_t start, end;
};

/* The range of syms (n of them, sorted by start) holding a, or NULL. */
const struct elf_range *elf_range_holding(const struct elf_range *syms,
					  size_t n, uint64_t a);

/* The start of the first range of syms (sorted by start) after a, if
 * below end; else end. */
uint64_t elf_range_next(const struct elf_range *syms, size_t n, uint64_t a,
			uint64_t end);

/* Whether img was linked by Go, and where its Go code lies, [*lo, *hi)
 * (all of it when runtime.text and runtime.etext are missing): see
 * symtab.c. */
bool elf_go_text(const struct elfimg *img, uint64_t *lo, uint64_t *hi);

#endif
