// SPDX-License-Identifier: GPL-2.0-or-later
/* dwtype.c — the sizes of DWARF types: libdw's dwarf_aggregate_size(),
 * and the arrays it cannot size (those of a dwz file's partial units). */
#include "config.h"

#include "elf/dwtype.h"

#include <dwarf.h>
#include <stdbool.h>

/* True if the bounds of subrange sub are signed: its DW_AT_type's
 * DW_AT_encoding is DW_ATE_signed or signed_char, or it has none (libdw's
 * array_size() test: gcc gives bounds sizetype and the smallest data form,
 * which dwarf_formsdata() would sign-extend, 200 read as -56). */
static bool bounds_signed(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	Dwarf_Die type;
	Dwarf_Word enc;

	if (!dwarf_attr_integrate(sub, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &type) ||
	    !dwarf_attr(&type, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc) != 0)
		return true;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* Bound attr of subrange sub, signed or not, as a Dwarf_Word (two's
 * complement of a signed one); -1 if absent or unreadable. */
static int bound(Dwarf_Die *sub, int attr, bool sgn, Dwarf_Word *v)
{
	Dwarf_Attribute a;
	Dwarf_Sword s;

	if (!dwarf_attr_integrate(sub, attr, &a))
		return -1;
	if (!sgn)
		return dwarf_formudata(&a, v);
	if (dwarf_formsdata(&a, &s) != 0)
		return -1;
	*v = (Dwarf_Word)s;
	return 0;
}

/* Element count of subrange sub of a unit in language lang (-1: none
 * known; the default lower bound comes from it): DW_AT_count, or
 * upper - lower + 1 (0 if upper < lower), computed unsigned; -1 if a
 * bound is unreadable or the count is past 64 bits. */
static int subrange_count(Dwarf_Die *sub, int lang, uint64_t *n)
{
	Dwarf_Attribute a;
	Dwarf_Sword dflt;
	Dwarf_Word lower, upper;
	bool sgn = bounds_signed(sub), below;

	if (dwarf_attr_integrate(sub, DW_AT_count, &a))
		return dwarf_formudata(&a, n);
	if (bound(sub, DW_AT_upper_bound, sgn, &upper) != 0)
		return -1;
	if (dwarf_hasattr_integrate(sub, DW_AT_lower_bound)) {
		if (bound(sub, DW_AT_lower_bound, sgn, &lower) != 0)
			return -1;
	} else if (lang < 0 || dwarf_default_lower_bound(lang, &dflt) != 0) {
		return -1;
	} else {
		lower = (Dwarf_Word)dflt;
	}
	/* upper < lower, compared as the bounds' type would */
	below = sgn ? (Dwarf_Sword)upper < (Dwarf_Sword)lower : upper < lower;
	if (below) {
		*n = 0;
		return 0;
	}
	if (upper - lower == UINT64_MAX)
		return -1;
	*n = upper - lower + 1;
	return 0;
}

bool elf_dwarf_ref_die(Dwarf_Attribute *a, Dwarf_Die *out, struct dwp_ctx *dc)
{
	if (dwarf_formref_die(a, out))
		return true;
	return dc && dwp_type_die(dc, a, out);
}

/* dwarf_peel_type() that also follows a type unit's reference from a
 * DWARF package (dc; NULL: dwarf_peel_type() itself), and a declaration's
 * DW_AT_signature. */
static int peel(Dwarf_Die *in, Dwarf_Die *out, struct dwp_ctx *dc)
{
	if (!dc)
		return dwarf_peel_type(in, out);
	*out = *in;
	for (int i = 0; i < ELF_DWARF_TYPE_DEPTH * 4; i++) {
		Dwarf_Attribute a;

		/* gcc's stand-in for a type in a type unit: a declaration
		 * naming it by DW_AT_signature */
		if (dwarf_attr(out, DW_AT_signature, &a)) {
			if (!elf_dwarf_ref_die(&a, out, dc))
				return -1;
			continue;
		}
		switch (dwarf_tag(out)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
		case DW_TAG_packed_type:
		case DW_TAG_shared_type:
			break;
		default:
			return 0;
		}
		if (!dwarf_attr_integrate(out, DW_AT_type, &a) ||
		    !elf_dwarf_ref_die(&a, out, dc))
			return -1;
	}
	return -1;
}

/* elf_dwarf_type_size() of array type t (peeled): its elements' size times
 * each subrange's count; -1 if unknown or past 64 bits, or strided. The
 * counts are read first: sizing the elements may replace the type unit
 * image t lies in (dc). */
static int array_size(Dwarf_Die *t, int lang, uint64_t *size, int depth,
		      struct dwp_ctx *dc)
{
	Dwarf_Attribute a;
	Dwarf_Die elem, sub;
	uint64_t n, count = 1, esize;
	unsigned dims = 0;

	if (dwarf_hasattr_integrate(t, DW_AT_byte_stride) ||
	    dwarf_hasattr_integrate(t, DW_AT_bit_stride) ||
	    dwarf_child(t, &sub) != 0)
		return -1;
	do {
		/* an enumeration_type index counts its enumerators (libdw);
		 * memsz sizes no such array */
		if (dwarf_tag(&sub) == DW_TAG_enumeration_type)
			return -1;
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (subrange_count(&sub, lang, &n) != 0 ||
		    (n && count > UINT64_MAX / n))
			return -1;
		count *= n;
		dims++;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	if (!dims) /* no dimension: unknown, as libdw says */
		return -1;
	if (!dwarf_attr_integrate(t, DW_AT_type, &a) ||
	    !elf_dwarf_ref_die(&a, &elem, dc) ||
	    elf_dwarf_type_size(&elem, lang, &esize, depth + 1, dc) != 0 ||
	    (count && esize > UINT64_MAX / count))
		return -1;
	*size = esize * count;
	return 0;
}

int elf_dwarf_type_size(Dwarf_Die *type, int lang, uint64_t *size, int depth,
			struct dwp_ctx *dc)
{
	Dwarf_Die t;

	if (dwarf_aggregate_size(type, size) == 0)
		return 0;
	if (depth > ELF_DWARF_TYPE_DEPTH || peel(type, &t, dc) != 0)
		return -1;
	if (dwarf_tag(&t) == DW_TAG_array_type)
		return array_size(&t, lang, size, depth, dc);
	/* a type libdw could not reach (in a type unit of the .dwp): its
	 * own size */
	if (dc && t.addr != type->addr)
		return dwarf_aggregate_size(&t, size) == 0 ? 0 : -1;
	return -1;
}
