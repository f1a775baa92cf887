/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwotypes.h — the type units of a .dwo file libdw read, by signature
 * (elf/dwotypes.c); private to elf/ (elf/dwp.c's dwp_type_die()).
 *
 * libdw 0.188 follows no DW_FORM_ref_sig8 reference of a split unit read
 * from its .dwo: the .dwo's own type units (DWARF 5's in .debug_info.dwo,
 * DWARF 4's in .debug_types.dwo) are listed once per .dwo, sorted by
 * signature, and looked up there. gcc's DWARF 4 puts each type unit in a
 * .debug_types.dwo section of its own, of which libdw reads the first:
 * the others are not found.
 */
#ifndef MEMSZ_ELF_DWOTYPES_H
#define MEMSZ_ELF_DWOTYPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* units of .dwo files listed, all of an image's together: a hostile .dwo
 * of millions of units costs this */
#define ELF_DWARF_SIG8_UNITS (1u << 20)

struct dwo_sig;

/* The type units of the .dwo last looked in (zeroed: none yet). */
struct dwo_sigs {
	Dwarf *dbg;
	struct dwo_sig *v;
	size_t n, cap;
	uint64_t listed; /* units listed so far (ELF_DWARF_SIG8_UNITS) */
};

/* The type DIE of the type unit of signature sig in dbg (a .dwo's
 * Dwarf): true and *out set; false if dbg has none listed. */
bool dwo_type_die(struct dwo_sigs *t, Dwarf *dbg, uint64_t sig, Dwarf_Die *out);

void dwo_sigs_free(struct dwo_sigs *t);

#endif
