/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwp.h — split units from a DWARF package file (.dwp), which libdw 0.188
 * cannot read; private to elf/ (elf/dwarf.c).
 *
 * A .dwp (binutils' dwp, llvm-dwp) holds the split units of many .dwo
 * files, their sections concatenated, with a unit index (.debug_cu_index:
 * DWARF 5's, version 5, or GNU's version 2 for DWARF 4 -gsplit-dwarf)
 * giving each unit's DWO id and, per section, the offset and size of its
 * contribution. memsz reads the indexes once, and for each unit
 * (dwp_unit()) only that unit's contributions (pread, the file checked
 * unchanged each time) with a string table of its own, the strings its
 * .debug_str_offsets.dwo slice names (that slice rewritten to point into
 * it), behind an ELF header and a section header table naming them, so
 * that libdw reads it as the .dwo file it came from (elf_memory(),
 * dwarf_begin_elf()). Peak memory is about the largest unit and its
 * strings, not the package (libelf's copy of each section, then
 * memsz's, before: twice the package).
 *
 * Type units (-fdebug-types-section) have an index of their own
 * (.debug_tu_index, by type signature): a compile unit's reference to one
 * (DW_FORM_ref_sig8), which libdw cannot follow from one unit's image to
 * another, is resolved by dwp_type_unit(), whose image lives beside the
 * compile unit's.
 *
 * Bounds (a hostile .dwp): the index must fit its section (header, slots,
 * rows: 16 + 12 * slots + 4 * columns * (2 * units + 1) bytes), have at
 * most 8 columns, each a known section once and DW_SECT_INFO among them,
 * no more units than slots; a slot naming a row past the units, a row
 * whose contribution lies outside its section, and an id in two slots are
 * refused (counted in dwp_bad(), that unit's .dwo then missing), and so
 * is a row whose contributions are more bytes than the file, or a unit
 * whose strings would be more than .debug_str.dwo (and a NUL per entry);
 * a package two of whose sections share bytes is not read
 * (-MEMSZ_EDWPOVERLAP): no amplification. A .dwp whose DWARF
 * sections are compressed is not read (neither tool makes one); nor is
 * one without .debug_info.dwo (binutils 2.40's dwp drops DWARF 5 units:
 * -MEMSZ_EDWPNOINFO) or that is not a regular file (-MEMSZ_ENOTREG).
 * Never mapped.
 */
#ifndef MEMSZ_ELF_DWP_H
#define MEMSZ_ELF_DWP_H

#include <elfutils/libdw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "elf/dwotypes.h"
#include "elf/elfimg.h"

struct dwp;

/* Open the .dwp at path: 0 and *out set; -ENOENT if there is none; else
 * a negative code (its ELF or index is unsound: -MEMSZ_EBADDWP; no
 * .debug_info.dwo: -MEMSZ_EDWPNOINFO; its DWARF is compressed:
 * -MEMSZ_EDWPZ; not a regular file: -MEMSZ_ENOTREG; or from opening
 * it) and *out NULL. */
int dwp_open(const char *path, struct dwp **out);

/* The split unit of DWO id id as a Dwarf of its own (valid until the next
 * dwp_unit() or dwp_close()): 0 and *dbg set; -ENOENT if the index has no
 * such id; -MEMSZ_EBADDWP if its row is refused or libdw cannot read
 * what it names (counted either way). */
int dwp_unit(struct dwp *p, uint64_t id, Dwarf **dbg);

/* The type unit of signature sig (DW_FORM_ref_sig8) from the type
 * units' index (.debug_tu_index), as dwp_unit() gives a compile unit: a
 * Dwarf of its own, valid until the next dwp_type_unit() or dwp_unit();
 * *version, the index's (2: the unit in .debug_types.dwo; 5: in
 * .debug_info.dwo). -ENOENT if there is no such unit or no index. */
int dwp_type_unit(struct dwp *p, uint64_t sig, Dwarf **dbg, int *version);

/* The i-th id (0-based, in id order) of the compile units' index, or
 * with types of the type units': false past the last (fuzz/fuzz_dwp.c
 * opens each). */
bool dwp_id(const struct dwp *p, bool types, size_t i, uint64_t *id);

/* Whether the compile units' index has a unit of DWO id id, and its
 * version (2: GNU's, DWARF 4; 5; 0: no index read). */
bool dwp_has_unit(const struct dwp *p, uint64_t id);
int dwp_version(const struct dwp *p);

/* Rows or ids of the index refused so far (see above). */
uint64_t dwp_bad(const struct dwp *p);

/* -MEMSZ_ETRUNC once the .dwp changed or shrank while read (no unit is
 * read after), else 0. */
int dwp_err(const struct dwp *p);

/* NULL is fine. */
void dwp_close(struct dwp *p);

/* Why a package has no unit for a skeleton unit (struct dwp_ctx):
 * unknown; it has a unit of DWO id 0 (binutils' dwp writes 0 where it
 * cannot read a unit's id); or the skeleton is DWARF 5 and the index is
 * GNU's version 2 (binutils' dwp drops DWARF 5 units). */
enum dwp_absent { DWP_ABSENT_UNKNOWN, DWP_ABSENT_ID0, DWP_ABSENT_V5 };

/* elf/dwarf.c's use: the split units of an image's skeleton units from
 * the .dwp gdb and lldb look for, the image's path + ".dwp", else (its
 * DWARF in a debug file) the debug file's + ".dwp"; opened on first use. */
struct dwp_ctx {
	const struct elfimg *img, *dimg; /* the image, where its DWARF is */
	struct dwp *p;
	bool tried;
	/* the skeleton's .debug_addr (set by the caller; NULL: none) */
	const uint8_t *addr;
	size_t addr_len;
	/* the unit dwp_split_die() last gave: its skeleton's address base
	 * and size, for DW_OP_addrx (dwp_addrx()) */
	bool in_unit;
	uint64_t addr_base;
	uint8_t addr_size;
	uint64_t units, mismatched;
	/* the unit is a .dwo's libdw read (not the .dwp's): its type units'
	 * references libdw 0.188 does not follow are looked up in that .dwo
	 * by dwp_type_die() (elf/dwotypes.h) */
	bool in_dwo;
	struct dwo_sigs dwo_sigs;
	/* the .dwo libdw did not find a unit in read joined by memsz
	 * (elf/dwotypes.h): the unit dwp_split_die() gave is then from it,
	 * with in_unit and in_dwo */
	struct dwo_image own;
	/* the skeleton unit DIE of the unit in_dwo is about (set by the
	 * caller), and libdw's debugdir (once asked) its .dwo is looked
	 * for under */
	Dwarf_Die skel;
	char *debugdir;
	bool debugdir_done;
	/* skeleton units the package has no unit for, and why if it tells
	 * (enum dwp_absent) */
	uint64_t absent;
	int absent_why;
	/* type references (DW_FORM_ref_sig8) not resolved from the .dwp */
	uint64_t sig8_missing;
	int err;
	char path[PATH_MAX];
};

/* cu's split unit (of DWO id id; cudie its skeleton DIE) from its .dwo
 * read joined (elf/dwofind.c; dwo_join_file()): the places libdw looks,
 * the next one when a file does not open or has no such unit, as libdw
 * does; dc->own holds it, kept for the next skeleton naming the same
 * file. true and *sub set. */
bool dwp_own_dwo(struct dwp_ctx *dc, Dwarf_Die *cudie, uint64_t id,
		 Dwarf_Die *sub);

/* The .dwo libdw read the split unit of the skeleton dc->skel from: the
 * first place it looks that holds a regular file. malloc'd, or NULL. */
char *dwp_libdw_dwo(struct dwp_ctx *dc);

/* The split unit DIE (sub) of the skeleton unit cu (its DIE cudie) that
 * libdw did not find: from its .dwo read joined if its sections are in
 * pieces (dwo_join_file(); the .dwo looked for as libdw does, in the
 * directory of the file with its DWARF, then in the unit's
 * DW_AT_comp_dir), with dc->in_dwo set; else from
 * the .dwp: true and dc->in_unit set; false if there is no .dwp, it has
 * no unit of cu's DWO id, or that unit is refused or is not the one
 * asked for (its own id another: counted). sub is valid until the next
 * call or dwp_ctx_end(). */
bool dwp_split_die(struct dwp_ctx *dc, Dwarf_CU *cu, Dwarf_Die *cudie,
		   Dwarf_Die *sub);

/* The address at index idx of .debug_addr for the unit dwp_split_die()
 * gave last (DW_OP_addrx): false if out of the section. */
bool dwp_addrx(const struct dwp_ctx *dc, uint64_t idx, Dwarf_Addr *addr);

/* The type DIE a (a DW_FORM_ref_sig8 attribute of the unit
 * dwp_split_die() gave last) refers to, from the .dwp's type units (libdw
 * resolves none across the unit images): true and *out set, valid until
 * the next call or dwp_split_die(); else false, counted in
 * dc->sig8_missing if a was such an attribute. With dc->in_dwo, from the
 * type units of the .dwo a lies in (valid while libdw keeps it). */
bool dwp_type_die(struct dwp_ctx *dc, Dwarf_Attribute *a, Dwarf_Die *out);

/* What was read or refused into stats (may be NULL); close the .dwp. */
void dwp_ctx_end(struct dwp_ctx *dc, struct elfsrc_stats *stats);

#endif
