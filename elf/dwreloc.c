// SPDX-License-Identifier: GPL-2.0-or-later
/* dwreloc.c — the relocations of a relocatable file's (.o) DWARF applied
 * to the bytes libdw reads. libdw does not apply them (libdwfl does), and
 * where they have explicit addends (SHT_RELA: x86-64, AArch64, POWER,
 * s390x, RISC-V) the bytes in the file hold 0 where a unit's name (a
 * string offset), its string-offsets base or its addresses should be:
 * every unit was named from the first string of its string table (gcc:
 * its comp_dir) and placed at address 0. SHT_REL ones keep their addend
 * in place, which is the offset into a DWARF section (whose symbol is at
 * 0): those are left as they are. */
#include "config.h"

#include "elf/elfpriv.h"
#include "util/util.h"

#include <elf.h>
#include <gelf.h>
#include <stdint.h>
#include <string.h>

/* A relocation type applied: S + A written in size bytes; tls: S is the
 * symbol's offset in its TLS section (a DTPOFF/DTPREL offset), not its
 * address. size 0: none (R_*_NONE). */
static const struct dwreloc_kind {
	uint16_t machine;
	uint32_t type;
	uint8_t size;
	bool tls;
} kinds[] = {
    {EM_X86_64, R_X86_64_NONE, 0, false},
    {EM_X86_64, R_X86_64_64, 8, false},
    {EM_X86_64, R_X86_64_32, 4, false},
    {EM_X86_64, R_X86_64_32S, 4, false},
    {EM_X86_64, R_X86_64_DTPOFF32, 4, true},
    {EM_X86_64, R_X86_64_DTPOFF64, 8, true},
    {EM_AARCH64, R_AARCH64_NONE, 0, false},
    {EM_AARCH64, R_AARCH64_ABS64, 8, false},
    {EM_AARCH64, R_AARCH64_ABS32, 4, false},
    {EM_AARCH64, R_AARCH64_TLS_DTPREL, 8, true},
    {EM_PPC64, R_PPC64_NONE, 0, false},
    {EM_PPC64, R_PPC64_ADDR64, 8, false},
    {EM_PPC64, R_PPC64_ADDR32, 4, false},
    {EM_PPC64, R_PPC64_DTPREL64, 8, true},
    {EM_S390, R_390_NONE, 0, false},
    {EM_S390, R_390_32, 4, false},
    {EM_S390, R_390_64, 8, false},
    {EM_S390, R_390_TLS_LDO32, 4, true},
    {EM_S390, R_390_TLS_LDO64, 8, true},
    {EM_RISCV, R_RISCV_NONE, 0, false},
    {EM_RISCV, R_RISCV_32, 4, false},
    {EM_RISCV, R_RISCV_64, 8, false},
    {EM_RISCV, R_RISCV_TLS_DTPREL32, 4, true},
    {EM_RISCV, R_RISCV_TLS_DTPREL64, 8, true},
};

static const struct dwreloc_kind *kind_of(uint16_t machine, uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].machine == machine && kinds[i].type == type)
			return &kinds[i];
	return NULL;
}

/* S of symbol sym of img, whose section index is shndx (SHN_XINDEX
 * resolved): the address memsz laid its section out at
 * (layout_relocatable(); 0 for a DWARF section) plus its value, or for
 * tls its value alone. False if it has no section memsz lays out (a
 * COMMON symbol of -fcommon, another reserved index, one past the
 * sections): its relocation is left unapplied, as libdw would. */
static bool sym_value(const struct elfimg *img, const GElf_Sym *sym,
		      size_t shndx, bool tls, uint64_t *s)
{
	/* an index from SHT_SYMTAB_SHNDX is a section's, whatever its
	 * value (a section numbered 0xfff1 is not SHN_ABS) */
	bool x = sym->st_shndx == SHN_XINDEX;

	if (tls || (!x && shndx == SHN_ABS)) {
		*s = sym->st_value;
		return true;
	}
	if (!x && shndx == SHN_UNDEF) {
		*s = 0;
		return true;
	}
	if ((!x && shndx >= SHN_LORESERVE) || !shndx || shndx >= img->nsecs)
		return false;
	*s = img->secs[shndx].addr + sym->st_value;
	return true;
}

/* Symbol i of syms (the table xs holds the section indexes of past
 * SHN_LORESERVE, or NULL) into *sym and its section index into *shndx. */
static bool sym_get(Elf_Data *syms, Elf_Data *xs, int i, GElf_Sym *sym,
		    size_t *shndx)
{
	Elf32_Word x = 0;

	if (!gelf_getsymshndx(syms, xs, i, sym, &x))
		return false;
	*shndx = sym->st_shndx == SHN_XINDEX ? x : sym->st_shndx;
	return true;
}

/* Write v in n bytes at p, in the byte order of img. */
static void put(const struct elfimg *img, uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[img->big_endian ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Apply the SHT_RELA section rel of img to its target's data tgt (xs:
 * the extended section indexes of syms, or NULL). */
static bool apply_one(struct elfimg *img, Elf_Data *rel, Elf_Data *syms,
		      Elf_Data *xs, Elf_Data *tgt)
{
	GElf_Rela r;
	GElf_Sym sym;

	for (int i = 0; gelf_getrela(rel, i, &r); i++) {
		const struct dwreloc_kind *k =
		    kind_of(img->machine, (uint32_t)GELF_R_TYPE(r.r_info));
		uint64_t s, v;
		size_t shndx;

		if (!k)
			return false;
		if (!k->size)
			continue;
		if (r.r_offset > tgt->d_size ||
		    tgt->d_size - r.r_offset < k->size ||
		    !sym_get(syms, xs, (int)GELF_R_SYM(r.r_info), &sym, &shndx))
			return false;
		if (!sym_value(img, &sym, shndx, k->tls, &s))
			continue;
		v = s + (uint64_t)r.r_addend;
		/* an address past 4 bytes (a 32-bit file's code, laid out
		 * from ELF_REL_VM_BASE) is left as it is: near 0, where
		 * nothing is laid out, so its range is charged nowhere */
		if (k->size == 4 && v > UINT32_MAX &&
		    (int64_t)v != (int32_t)(uint32_t)v)
			continue;
		put(img, (uint8_t *)tgt->d_buf + r.r_offset, v, k->size);
	}
	return true;
}

/* The data of section i of img as libdw reads it (inflated by it, not
 * hidden from it), or NULL: none, or not a DWARF section. */
static Elf_Data *dwarf_data(struct elfimg *img, size_t i)
{
	Elf_Scn *scn = elf_getscn(elfimg_elf(img), i);
	const char *name = img->secs[i].name;
	GElf_Shdr sh;
	Elf_Data *d;

	if (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8))
		return NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    (sh.sh_flags & (SHF_COMPRESSED | SHF_ALLOC)))
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size ||
	    (name[1] == 'z' && d->d_size >= 4 && !memcmp(d->d_buf, "ZLIB", 4)))
		return NULL;
	return d;
}

/* The data of the SHT_SYMTAB_SHNDX section of symbol table symtab of
 * img (a file of more than 0xff00 sections), or NULL. */
static Elf_Data *xindex_data(struct elfimg *img, size_t symtab)
{
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_SYMTAB_SHNDX &&
		    img->secs[i].link == symtab) {
			Elf_Data *d =
			    elf_getdata(elf_getscn(elfimg_elf(img), i), NULL);

			return d && d->d_type == ELF_T_WORD ? d : NULL;
		}
	return NULL;
}

bool elf_dwarf_relocate(struct elfimg *img)
{
	Elf *elf = elfimg_elf(img);

	if (img->type != ET_REL)
		return true;
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		Elf_Data *rel, *syms, *tgt;

		if (s->type != SHT_RELA || s->info >= img->nsecs ||
		    s->link >= img->nsecs || !s->info)
			continue;
		tgt = dwarf_data(img, s->info);
		if (!tgt)
			continue;
		rel = elf_getdata(elf_getscn(elf, i), NULL);
		syms = img->secs[s->link].type == SHT_SYMTAB
			   ? elf_getdata(elf_getscn(elf, s->link), NULL)
			   : NULL;
		if (!rel || !syms || rel->d_type != ELF_T_RELA ||
		    syms->d_type != ELF_T_SYM ||
		    !apply_one(img, rel, syms, xindex_data(img, s->link), tgt))
			return false;
	}
	return true;
}
