/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dwarf.h — the DWARF data sources of an image (compileunits, inlines);
 * private to elf/, reached through elfimg_source_map().
 *
 * The DWARF is read with libdw from the image itself when it has a
 * .debug_info, else from img->debug (elfimg_find_debug(); same addresses).
 * Split DWARF: a skeleton unit's ranges and line table are in the image;
 * its split unit (.dwo) is used when libdw finds it, else counted in
 * stats->split_missing.
 */
#ifndef MEMSZ_ELF_DWARF_H
#define MEMSZ_ELF_DWARF_H

#include "elf/elfimg.h"

/* The bound on what memsz (or libdw for it) inflates of one image's
 * compressed DWARF: an image whose compressed sections libdw would read
 * (with its dwz and .dwo files') claim more inflated bytes than both of
 * these (the sum over the sections) has its DWARF left unread
 * (stats->dwarf_zclaim). zlib inflates up to 1032
 * times what it is given, so without a bound a 14 MB file would cost
 * 14 GB of RAM; real DWARF inflates 2 to 10 times (libc6-dbg's libc:
 * 2.6; of 273 debug files in /usr/lib/debug none passes 25). Each
 * file's compressed bytes count at most once, and at most its size
 * (headers may share bytes): a hostile file costs at most
 * max(256 MiB, 64 times its size), with its dwz and .dwo files
 * max(256 MiB, 64 times the sum of their sizes); a small file of any
 * ratio (t1105's 2 MiB name at 1 000 times) is still read. What is
 * inflated is what was counted: each section to the size its header
 * claimed when counted, from bytes still carrying that header, or not at
 * all (a file rewritten in place meanwhile; elf_dwarf_inflate()). */
#define DWARF_INFLATE_BYTES_MAX (256ull << 20)
#define DWARF_INFLATE_RATIO_MAX 64ull

/* Add the own labels of src (ELFSRC_COMPILEUNITS or ELFSRC_INLINES) of img
 * to out, before any fallback (the caller adds those):
 *
 * compileunits: label = the CU's DW_AT_name (a skeleton without one: its
 *   DW_AT_dwo_name), joined to DW_AT_comp_dir when relative, "." and ".."
 *   removed lexically ("./csu" + "../sysdeps/x.c" -> "sysdeps/x.c"; Bloaty
 *   shows the bare DW_AT_name, which merges CUs of one name). VM (and through
 * base, file): every range of the CU DIE (DW_AT_low_pc/high_pc, DW_AT_ranges,
 * DWARF 4 .debug_ranges and 5 .debug_rnglists), then .debug_aranges, then every
 * DW_TAG_variable whose DW_AT_location is one DW_OP_addr (or DW_OP_addrx) with
 * the byte size of its type. Only type/partial units give nothing. Ranges are
 *   clipped to the image's SHF_ALLOC sections (a range at address 0 left
 *   by a discarded COMDAT or gc'd section is dropped). File only, when the
 *   DWARF is in img and the section is not compressed: each unit's
 *   .debug_info bytes (unit header + DIEs: initial length + 4, or + 12 for
 *   64-bit DWARF) and the line program its DW_AT_stmt_list points at in
 *   .debug_line go to the CU.
 * inlines: every row of each CU's line table (dwarf_getsrclines), range
 *   [row address, next row address), labelled "FILE:LINE" with FILE as
 *   dwarf_linesrc() gives it, joined to the comp_dir and normalised like
 *   CU names; consecutive rows of one FILE:LINE make one range. Rows are
 *   cut at the end of the CU range holding them (see add_lines()).
 *
 * stats (may be NULL): units, split_missing, dwarf_errors,
 * dwarf_from_debug, no_dwarf, dwarf_zbytes and dwarf_zclaim (DWARF past
 * the bound above: not read, no_dwarf set), dwarf_refused, dwarf_zfile
 * and dwarf_zerr (DWARF not read whatever it claims: a compressed
 * section-name table; a dwz or .dwo file libdw would open by itself that
 * is there but is no regular ELF file memsz can read; a .dwo file naming
 * a dwz file of its own). Returns 0; a DWARF libdw
 * cannot read is not an error (its bytes fall back; counted in
 * stats->dwarf_errors).
 */
int elf_dwarf_source(struct elfimg *img, enum elf_source src, struct labels *lb,
		     struct dualmap *base, struct dualmap *out,
		     struct elfsrc_stats *stats);

#endif
