/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwtype.h — the sizes of DWARF types (elf/dwtype.c); private to elf/. */
#ifndef MEMSZ_ELF_DWTYPE_H
#define MEMSZ_ELF_DWTYPE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "elf/dwp.h"

/* nesting of element types elf_dwarf_type_size() follows (hostile
 * DWARF may make a cycle) */
#define ELF_DWARF_TYPE_DEPTH 16

/* The size of type into *size, as dwarf_aggregate_size() gives it; also
 * of an array in a dwz file's partial unit, which has no DW_AT_language:
 * libdw takes a subrange's default lower bound from the language of the
 * type's own unit, and sizes no such array; here lang (dwarf_srclang() of
 * the unit using the type) gives it. depth: 0 (bounded at
 * ELF_DWARF_TYPE_DEPTH). dc: the DWARF package or .dwo type is
 * from (a type of it may be in a type unit, DW_FORM_ref_sig8, which libdw
 * cannot reach there), or NULL. Returns 0, or -1 if unknown. */
int elf_dwarf_type_size(Dwarf_Die *type, int lang, uint64_t *size, int depth,
			struct dwp_ctx *dc);

/* dwarf_formref_die(), and with dc (see above) a type unit's reference
 * resolved from the DWARF package or .dwo (dwp_type_die()). */
bool elf_dwarf_ref_die(Dwarf_Attribute *a, Dwarf_Die *out, struct dwp_ctx *dc);

#endif
