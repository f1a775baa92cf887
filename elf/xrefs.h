/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xrefs.h — code-to-data references (elf/xrefs.c); private to elf/. */
#ifndef MEMSZ_ELF_XREFS_H
#define MEMSZ_ELF_XREFS_H

#include "elf/elfimg.h"
#include "elf/symtab.h"

/* When img is x86-64 (callers ask only with elf_map_opts.disasm): disassemble
 * its code and give each unlabelled data range that an instruction
 * addresses (RIP-relative; absolutely in ET_EXEC) to the label of that
 * instruction in out->vm (see xrefs.c), in VM and through base in file. The
 * data symbols (sym.data) of all[0, nall) (elf_syms_load()'s order; NULL if
 * none) that lie in code sections are not decoded. A
 * target inside one of the nsyms symbol ranges syms (sorted by start; NULL if
 * none) gives the whole symbol instead (compileunits: a vtable no unit
 * describes goes to the unit of the code using it). Call after the source's own
 * labels, before the fallbacks. Counts in st->xref_targets/xref_bytes (st may
 * be NULL). Another machine sets st->xref_unsupported, a libZydis that cannot
 * be loaded (it is loaded on first use) st->xref_error: nothing is charged
 * then, and 0 is returned. The code is decoded once per img: a later call
 * (another source) replays the references kept in img's private part.
 * Returns 0, or -MEMSZ_ENOTSUP if Zydis refuses the 64-bit mode. */
int elf_xrefs_add(struct elfimg *img, struct dualmap *base, struct dualmap *out,
		  const struct sym *all, size_t nall,
		  const struct elf_range *syms, size_t nsyms,
		  struct elfsrc_stats *st);

#endif
