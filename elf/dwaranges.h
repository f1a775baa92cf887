/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwaranges.h — .debug_aranges read as libdw 0.188's dwarf_getaranges()
 * reads it, each entry labelled with its unit's label; private to
 * elf/dwarf.c. dwarf_getaranges() looks each entry's unit up in libdw's
 * tree of units (2 083 look-ups on libc's debug file); the compileunits
 * source has read every unit already and knows their labels. */
#ifndef MEMSZ_ELF_DWARANGES_H
#define MEMSZ_ELF_DWARANGES_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/version.h>
#include <stdbool.h>

/* Whether dwarf.c reads .debug_aranges with dwaranges_read(): only when
 * built against the elfutils whose reading it follows (0.188, Debian
 * 12's). Later ones read a set's entries on past a (0, 0) pair up to the
 * set's length, where 0.188 ends the set there; against any other
 * version dwarf_getaranges() is asked. */
#define DWARANGES_OWN (_ELFUTILS_VERSION == 188)

/* A unit the compileunits source read: the .debug_info offsets of its
 * DIE and of its header, and its label. */
struct dwcuent {
	uint64_t dieoff, hdroff;
	uint32_t label;
};

/* One entry of .debug_aranges: [addr, addr + len) of the unit whose
 * header is at cu in .debug_info (dwaranges_read(): its label); idx: its
 * place in the section. */
struct dwarange {
	uint64_t addr, len, cu;
	uint32_t idx;
};

/* The entries of the .debug_aranges bytes ar (n bytes; big-endian if be)
 * into *v (*nv of them, malloc'd), read as libdw 0.188's
 * dwarf_getaranges() reads them (DWARF 2 sets, addresses of 4 or 8 bytes,
 * no segments; a set's entries end at two zeros) and sorted as it sorts
 * them (by address, equal ones in the section's order), each entry's cu
 * then the label of its unit in cus (ncus of them, sorted by hdroff).
 * Returns 0, or -1 where dwarf_getaranges() would fail (*v NULL, *nv 0):
 * a set cut short or of another version or sizes, a unit offset past
 * .debug_info (info_len bytes), or a unit not in cus or whose DIE is
 * past .debug_info (libdw's would be another kind of unit: the caller
 * asks dwarf_getaranges()). */
int dwaranges_read(const uint8_t *ar, size_t n, size_t info_len, bool be,
		   const struct dwcuent *cus, size_t ncus, struct dwarange **v,
		   size_t *nv);

#endif
