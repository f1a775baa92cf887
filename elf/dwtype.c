// SPDX-License-Identifier: GPL-2.0-or-later
/* dwtype.c — the sizes of DWARF types: libdw's dwarf_aggregate_size(),
 * and the arrays it cannot size (those of a dwz file's partial units). */
#include "config.h"

#include "elf/dwtype.h"

#include <dwarf.h>

/* The number of elements of subrange sub: DW_AT_count, else upper bound
 * - lower bound + 1, the lower bound lang's default when it has none (as
 * libdw's aggregate_size.c counts). -1 if unknown. */
static int subrange_count(Dwarf_Die *sub, int lang, uint64_t *n)
{
	Dwarf_Attribute a;
	Dwarf_Sword lower = 0, upper;

	if (dwarf_attr_integrate(sub, DW_AT_count, &a))
		return dwarf_formudata(&a, n);
	if (!dwarf_attr_integrate(sub, DW_AT_upper_bound, &a) ||
	    dwarf_formsdata(&a, &upper) != 0)
		return -1;
	if (dwarf_attr_integrate(sub, DW_AT_lower_bound, &a)) {
		if (dwarf_formsdata(&a, &lower) != 0)
			return -1;
	} else if (lang < 0 || dwarf_default_lower_bound(lang, &lower) != 0) {
		return -1;
	}
	*n = upper >= lower ? (Dwarf_Word)(upper - lower) + 1 : 0;
	return 0;
}

/* elf_dwarf_type_size() of array type t (peeled): its elements' size times each
 * subrange's count; -1 if unknown or past 64 bits, or strided. */
static int array_size(Dwarf_Die *t, int lang, uint64_t *size, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die elem, sub;
	uint64_t n, total;

	if (dwarf_hasattr_integrate(t, DW_AT_byte_stride) ||
	    dwarf_hasattr_integrate(t, DW_AT_bit_stride) ||
	    !dwarf_attr_integrate(t, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &elem) ||
	    elf_dwarf_type_size(&elem, lang, &total, depth + 1) != 0 ||
	    dwarf_child(t, &sub) != 0)
		return -1;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (subrange_count(&sub, lang, &n) != 0 ||
		    (n && total > UINT64_MAX / n))
			return -1;
		total *= n;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	*size = total;
	return 0;
}

int elf_dwarf_type_size(Dwarf_Die *type, int lang, uint64_t *size, int depth)
{
	Dwarf_Die t;

	if (dwarf_aggregate_size(type, size) == 0)
		return 0;
	if (depth > ELF_DWARF_TYPE_DEPTH || dwarf_peel_type(type, &t) != 0 ||
	    dwarf_tag(&t) != DW_TAG_array_type)
		return -1;
	return array_size(&t, lang, size, depth);
}
