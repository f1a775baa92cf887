/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarfscan.h — one forward pass over a DWARF unit's DIEs that finds the
 * variables the compileunits source labels; private to elf/dwarf.c.
 *
 * libdw walks a unit's tree DIE by DIE: each dwarf_tag(), dwarf_child()
 * and dwarf_siblingof() looks the abbreviation up in a hash under a
 * read-write lock, and a sibling past a DIE with children is found by
 * decoding those children again. On libc's debug file that walk was a
 * quarter of `memsz size --by compileunits`. The scan decodes each DIE
 * once, from the same bytes libdw reads; libdw still decodes the few
 * DIEs it finds (their location and type). */
#ifndef MEMSZ_ELF_DWARFSCAN_H
#define MEMSZ_ELF_DWARFSCAN_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

/* DIE nesting the scan (and libdw's walk in dwarf.c) descends into below
 * a unit: deeper DWARF (real code nests a few levels) is taken as hostile
 * and not walked. */
#define DWARF_MAX_DIE_DEPTH 64

/* The bytes of .debug_info and .debug_abbrev (as libdw holds them,
 * inflated; borrowed) and the abbreviation table of the last unit
 * scanned, kept for the next unit that shares it. */
struct dwscan {
	const uint8_t *info, *abbrev;
	size_t info_len, abbrev_len;
	/* .debug_str and .debug_line_str (dwscan_strings(); NULL: none) */
	const uint8_t *str, *line_str;
	size_t str_len, line_str_len;
	bool be; /* big-endian file */
	/* cache of one table (dwarfscan.c) */
	struct dwabbrev *abbrevs; /* by code - 1 */
	size_t nabbrevs, abbrevcap;
	uint16_t *forms; /* the layout of each value of every abbreviation */
	size_t nforms, formcap;
	uint64_t abbrev_off; /* of the table cached; UINT64_MAX: none */
	uint32_t sized_for;  /* the unit sizes its DIE sizes are for; 0: none */
};

/* What the compileunits source reads of a unit DIE (dwscan_unit_die()). */
struct dwcu {
	const char *name, *comp_dir; /* NULL: none */
	uint64_t low, high;	     /* DW_AT_low_pc, DW_AT_high_pc */
	bool has_low, has_high;
	bool high_off; /* high is a constant: an offset from low */
	bool ranges;   /* it has a DW_AT_ranges */
	/* ranges_known: where its list starts (ranges_off, read as
	 * __libdw_formptr() reads it) and the base address libdw gives it
	 * (base: DW_AT_low_pc, else DW_AT_entry_pc, else 0) are read here */
	bool ranges_known;
	uint64_t ranges_off, base;
	bool entry_attr, entry_known; /* DW_AT_entry_pc (the first), read */
	uint64_t entry;
	uint64_t stmt; /* DW_AT_stmt_list, if has_stmt */
	bool has_stmt;
	/* what dwarf_srclang() answers for the DIE (-1: no DW_AT_language),
	 * if has_lang (not set: a form not read here, libdw's answer) */
	int lang;
	bool has_lang;
	bool lang_attr; /* it has a DW_AT_language (the first one is read) */
};

/* One unit: where its DIE is and how its forms are sized. */
struct dwunit {
	uint64_t start;	  /* unit header, in .debug_info */
	uint64_t die_off; /* unit DIE, in .debug_info */
	uint64_t end;	  /* end of the unit, in .debug_info */
	uint64_t abbrev_off;
	unsigned version, addr_size, offset_size;
};

/* Set s up over the two sections (borrowed). */
void dwscan_init(struct dwscan *s, const uint8_t *info, size_t info_len,
		 const uint8_t *abbrev, size_t abbrev_len, bool be);

/* The string sections libdw reads (borrowed), for dwscan_unit_die(): a
 * string with no NUL before its section's end is not read here. */
void dwscan_strings(struct dwscan *s, const uint8_t *str, size_t str_len,
		    const uint8_t *line_str, size_t line_str_len);

/* The unit DIE of u, decoded into *cu as libdw answers dwarf_diename(),
 * the DW_AT_comp_dir string, dwarf_lowpc(), dwarf_highpc(),
 * dwarf_srclang() and the DW_AT_stmt_list offset for it, without libdw's
 * reading of the unit's whole abbreviation table (GCC numbers abbreviations by
 * use, so the unit DIE's comes last: in libc's debug file that reading was 6 %
 * of `size --by compileunits`). Returns 0, or -1 when the DIE holds what is not
 * read here alike (strings by index or in another file, addresses by index,
 * split or skeleton units, DW_AT_abstract_origin or DW_AT_specification, other
 * forms of these attributes, bytes past the unit): libdw reads it then. */
int dwscan_unit_die(struct dwscan *s, const struct dwunit *u, struct dwcu *cu);

/* Whether the unit DIE read into cu (dwscan_unit_die()) says where its
 * DW_AT_ranges list starts and its base address, as libdw's
 * dwarf_ranges() would take them (then in cu->ranges_off, cu->base). */
bool dwscan_unit_ranges(struct dwcu *cu);

/* The variable DIE at off in unit u (one dwscan_vars() gave, its
 * unit's abbreviations still those held) as libdw reads it where it is
 * plain: its DW_AT_location one DW_OP_addr (*addr: its address), its
 * DW_AT_type a reference into u (*type: the type DIE's .debug_info
 * offset, before u's end). Returns 0, or -1 for anything else (a location
 * of other operations, a type by DW_FORM_ref_addr or signature, none, a
 * reference past the unit): libdw then reads the DIE. */
int dwscan_var(struct dwscan *s, const struct dwunit *u, uint64_t off,
	       uint64_t *addr, uint64_t *type);

/* Free what s holds (not the sections). */
void dwscan_free(struct dwscan *s);

/* The .debug_info offsets of the DW_TAG_variable DIEs of unit u that a
 * walk from its unit DIE visits (its children, and the children of every
 * DW_TAG_subprogram, lexical_block, inlined_subroutine, namespace and
 * module among them, recursively, down to DWARF_MAX_DIE_DEPTH levels) and
 * whose DW_AT_location may be one DW_OP_addr or DW_OP_addrx (an
 * expression that starts with one); in the order of the section. Appended to
 * *offs (grown with xgrow, *n and *cap). Returns 0, or -1 when the unit holds
 * what the scan does not decode (DW_FORM_indirect, an unknown form or code,
 * bytes past the unit): *n is then as it was, and the caller walks the unit
 * with libdw. */
int dwscan_vars(struct dwscan *s, const struct dwunit *u, uint64_t **offs,
		size_t *n, size_t *cap);

#endif
