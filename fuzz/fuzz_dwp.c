// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_dwp.c — libFuzzer target: a DWARF package (FILE.dwp, elf/dwp.c)
 * made of the fuzz bytes: its unit indexes (.debug_cu_index,
 * .debug_tu_index) read and checked, then each unit they name (64 of each
 * at most) opened as its own image and its DIEs walked with libdw, as
 * elf/dwarf.c reads a split unit and its type units. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "elf/dwp.h"
#include "fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The DIEs of every unit of dbg, 4096 at most, children first. */
static void walk(Dwarf *dbg)
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
		} while (++n < 4096 && dwarf_siblingof(&die, &die) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwp *p;
	uint64_t id;

	if (dwp_open(fuzz_file(data, size), &p) != 0)
		return 0;
	for (int types = 0; types < 2; types++)
		for (size_t i = 0; i < 64 && dwp_id(p, types, i, &id); i++) {
			Dwarf *dbg;
			int version;

			if ((types ? dwp_type_unit(p, id, &dbg, &version)
				   : dwp_unit(p, id, &dbg)) == 0)
				walk(dbg);
		}
	dwp_close(p);
	return 0;
}
