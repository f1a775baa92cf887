// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dwp.c — libFuzzer target: a DWARF package (FILE.dwp, elf/dwp.c)
 * made of the fuzz bytes: its unit indexes (.debug_cu_index,
 * .debug_tu_index) read and checked, then each unit they name (64 of each
 * at most) opened as its own image and its DIEs walked with libdw, as
 * elf/dwarf.c reads a split unit and its type units; a compile unit's
 * variables sized as elf/dwarf.c sizes them (elf_dwarf_type_size()), their
 * type references (DW_FORM_ref_sig8) resolved from the type units. */
#include "config.h"

#include <dwarf.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/dwp.h"
#include "elf/dwtype.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The size of variable die's type, as elf/dwarf.c's add_variable() gives
 * it; dc: the package, for a compile unit's references to type units. */
static void var_size(Dwarf_Die *die, struct dwp_ctx *dc)
{
	Dwarf_Attribute ta;
	Dwarf_Die type;
	uint64_t size;

	if (dwarf_tag(die) == DW_TAG_variable &&
	    dwarf_attr_integrate(die, DW_AT_type, &ta) &&
	    elf_dwarf_ref_die(&ta, &type, dc))
		(void)elf_dwarf_type_size(&type, DW_LANG_C, &size, 0, dc);
}

/* The DIEs of every unit of dbg, 4096 at most, children first; dc (a
 * compile unit's image: NULL for a type unit's, which dwp_type_die()
 * would replace while walked) sizes its variables. */
static void walk(Dwarf *dbg, struct dwp_ctx *dc)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, sub, die;
	Dwarf_Half version;
	uint8_t type;
	unsigned n = 0;

	while (n < 4096 && dwarf_get_units(dbg, cu, &cu, &version, &type,
					   &cudie, &sub) == 0) {
		Dwarf_Word size;

		if (dwarf_child(&cudie, &die) != 0)
			continue;
		do {
			(void)dwarf_diename(&die);
			(void)dwarf_aggregate_size(&die, &size);
			if (dc)
				var_size(&die, dc);
		} while (++n < 4096 && dwarf_siblingof(&die, &die) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwp *p;
	uint64_t id;
	struct dwp_ctx dc = {.in_unit = true};

	if (dwp_open(fuzz_file(data, size), &p) != 0)
		return 0;
	dc.p = p;
	for (int types = 0; types < 2; types++)
		for (size_t i = 0; i < 64 && dwp_id(p, types, i, &id); i++) {
			Dwarf *dbg;
			int version;

			if ((types ? dwp_type_unit(p, id, &dbg, &version)
				   : dwp_unit(p, id, &dbg)) == 0)
				walk(dbg, types ? NULL : &dc);
		}
	dwp_close(p);
	return 0;
}
