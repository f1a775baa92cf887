// SPDX-License-Identifier: GPL-2.0-or-later
/* dwreloc.c — the relocations of a relocatable file (.o) applied to the
 * bytes of its DWARF libdw reads, and to its .eh_frame. libdw does not
 * apply them (libdwfl does). Where they have explicit addends (SHT_RELA:
 * x86-64 and x32, AArch64, POWER, ppc32, s390x, RISC-V, MIPS n64) the bytes in
 * the file hold 0 where a unit's name (a string offset), its
 * string-offsets base or its addresses should be: every unit was named
 * from the first string of its string table (gcc: its comp_dir) and
 * placed at address 0. SHT_REL ones (i386, 32-bit ARM, MIPS o32) keep
 * their addend in place: the units were named, but placed at their
 * offset in their section. RISC-V's DWARF holds the differences of two
 * labels (a line table's advance, a function's size) as ADD/SUB pairs
 * the linker resolves after relaxing the code. .eh_frame's pointers to
 * the code are PC-relative: made relative to where memsz laid .eh_frame
 * out, they decode as a linked file's do. */
#include "config.h"

#include "elf/elfpriv.h"
#include "util/util.h"

#include <elf.h>
#include <gelf.h>
#include <stdint.h>
#include <string.h>

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
Elf_Data *elf_reloc_xindex(struct elfimg *img, size_t symtab)
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

/* RISC-V's ULEB128 pair (psABI 1.1), newer than <elf.h> */
#ifndef R_RISCV_SET_ULEB128
#define R_RISCV_SET_ULEB128 60
#define R_RISCV_SUB_ULEB128 61
#endif

/* MIPS's PC-relative word (.eh_frame's), not in <elf.h> */
#ifndef R_MIPS_PC32
#define R_MIPS_PC32 248
#endif

/* What a relocation type writes in its size bytes: nothing (R_*_NONE);
 * S + A (ABS); the symbol's offset in its TLS section plus A, a
 * DTPOFF/DTPREL offset (TLS); S + A - P (PCREL, only into a laid-out
 * section: .eh_frame's pointers); the same into the low 31 bits, A
 * their sign-extended value, bit 31 kept (PREL31: ARM's .ARM.exidx
 * words); or, RISC-V's pairs (a difference of
 * two labels the assembler could not compute before linker relaxation),
 * S + A (SET), the bytes there plus or minus S + A (ADD, SUB), S + A into
 * the low 6 bits
 * (SET6, SUB6: minus), into a ULEB128 of its length (ULEB_SET, ULEB_SUB:
 * minus). */
enum dwreloc_op {
	OP_NONE,
	OP_ABS,
	OP_TLS,
	OP_PCREL,
	OP_PREL31,
	OP_SET,
	OP_ADD,
	OP_SUB,
	OP_SET6,
	OP_SUB6,
	OP_ULEB_SET,
	OP_ULEB_SUB,
};

static const struct dwreloc_kind {
	uint16_t machine;
	uint32_t type;
	uint8_t size; /* bytes written; a ULEB128's: its own length */
	uint8_t op;   /* enum dwreloc_op */
} kinds[] = {
    {EM_X86_64, R_X86_64_NONE, 0, OP_NONE},
    {EM_X86_64, R_X86_64_64, 8, OP_ABS},
    {EM_X86_64, R_X86_64_32, 4, OP_ABS},
    {EM_X86_64, R_X86_64_32S, 4, OP_ABS},
    {EM_X86_64, R_X86_64_PC32, 4, OP_PCREL},
    {EM_X86_64, R_X86_64_PC64, 8, OP_PCREL},
    {EM_X86_64, R_X86_64_DTPOFF32, 4, OP_TLS},
    {EM_X86_64, R_X86_64_DTPOFF64, 8, OP_TLS},
    {EM_386, R_386_NONE, 0, OP_NONE},
    {EM_386, R_386_32, 4, OP_ABS},
    {EM_386, R_386_PC32, 4, OP_PCREL},
    {EM_386, R_386_TLS_LDO_32, 4, OP_TLS},
    {EM_ARM, R_ARM_NONE, 0, OP_NONE},
    {EM_ARM, R_ARM_ABS32, 4, OP_ABS},
    {EM_ARM, R_ARM_REL32, 4, OP_PCREL},
    {EM_ARM, R_ARM_PREL31, 4, OP_PREL31},
    {EM_ARM, R_ARM_TLS_LDO32, 4, OP_TLS},
    {EM_MIPS, R_MIPS_NONE, 0, OP_NONE},
    {EM_MIPS, R_MIPS_32, 4, OP_ABS},
    {EM_MIPS, R_MIPS_64, 8, OP_ABS},
    {EM_MIPS, R_MIPS_PC32, 4, OP_PCREL},
    /* the value is offset by 0x8000 from the TLS block (the MIPS DTP
     * bias) in a linked file; memsz does not read TLS locations, so the
     * symbol's offset alone is as good */
    {EM_MIPS, R_MIPS_TLS_DTPREL32, 4, OP_TLS},
    {EM_MIPS, R_MIPS_TLS_DTPREL64, 8, OP_TLS},
    {EM_AARCH64, R_AARCH64_NONE, 0, OP_NONE},
    {EM_AARCH64, R_AARCH64_ABS64, 8, OP_ABS},
    {EM_AARCH64, R_AARCH64_ABS32, 4, OP_ABS},
    {EM_AARCH64, R_AARCH64_PREL64, 8, OP_PCREL},
    {EM_AARCH64, R_AARCH64_PREL32, 4, OP_PCREL},
    {EM_AARCH64, R_AARCH64_TLS_DTPREL, 8, OP_TLS},
    {EM_PPC, R_PPC_NONE, 0, OP_NONE},
    {EM_PPC, R_PPC_ADDR32, 4, OP_ABS},
    {EM_PPC, R_PPC_REL32, 4, OP_PCREL},
    {EM_PPC, R_PPC_DTPREL32, 4, OP_TLS},
    {EM_PPC64, R_PPC64_NONE, 0, OP_NONE},
    {EM_PPC64, R_PPC64_ADDR64, 8, OP_ABS},
    {EM_PPC64, R_PPC64_ADDR32, 4, OP_ABS},
    {EM_PPC64, R_PPC64_REL64, 8, OP_PCREL},
    {EM_PPC64, R_PPC64_REL32, 4, OP_PCREL},
    /* an ELFv1 descriptor's TOC pointer (.opd): the TOC base, which
     * memsz does not lay out; left as it is, only the entry address of a
     * descriptor is read */
    {EM_PPC64, R_PPC64_TOC, 8, OP_NONE},
    {EM_PPC64, R_PPC64_DTPREL64, 8, OP_TLS},
    {EM_S390, R_390_NONE, 0, OP_NONE},
    {EM_S390, R_390_32, 4, OP_ABS},
    {EM_S390, R_390_64, 8, OP_ABS},
    {EM_S390, R_390_PC32, 4, OP_PCREL},
    {EM_S390, R_390_PC64, 8, OP_PCREL},
    {EM_S390, R_390_TLS_LDO32, 4, OP_TLS},
    {EM_S390, R_390_TLS_LDO64, 8, OP_TLS},
    {EM_RISCV, R_RISCV_NONE, 0, OP_NONE},
    {EM_RISCV, R_RISCV_32, 4, OP_ABS},
    {EM_RISCV, R_RISCV_64, 8, OP_ABS},
    {EM_RISCV, R_RISCV_32_PCREL, 4, OP_PCREL},
    {EM_RISCV, R_RISCV_TLS_DTPREL32, 4, OP_TLS},
    {EM_RISCV, R_RISCV_TLS_DTPREL64, 8, OP_TLS},
    {EM_RISCV, R_RISCV_ADD8, 1, OP_ADD},
    {EM_RISCV, R_RISCV_ADD16, 2, OP_ADD},
    {EM_RISCV, R_RISCV_ADD32, 4, OP_ADD},
    {EM_RISCV, R_RISCV_ADD64, 8, OP_ADD},
    {EM_RISCV, R_RISCV_SUB8, 1, OP_SUB},
    {EM_RISCV, R_RISCV_SUB16, 2, OP_SUB},
    {EM_RISCV, R_RISCV_SUB32, 4, OP_SUB},
    {EM_RISCV, R_RISCV_SUB64, 8, OP_SUB},
    {EM_RISCV, R_RISCV_SET8, 1, OP_SET},
    {EM_RISCV, R_RISCV_SET16, 2, OP_SET},
    {EM_RISCV, R_RISCV_SET32, 4, OP_SET},
    {EM_RISCV, R_RISCV_SET6, 1, OP_SET6},
    {EM_RISCV, R_RISCV_SUB6, 1, OP_SUB6},
    {EM_RISCV, R_RISCV_SET_ULEB128, 0, OP_ULEB_SET},
    {EM_RISCV, R_RISCV_SUB_ULEB128, 0, OP_ULEB_SUB},
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
 * sections; an undefined one, for all but an absolute relocation: a
 * PC-relative one, or half a RISC-V pair, whose S = 0 would write a
 * wrong difference): its relocation is left unapplied, as libdw would
 * (a pair's refused by the caller). */
static bool sym_value(const struct elfimg *img, const GElf_Sym *sym,
		      size_t shndx, uint8_t op, uint64_t *s)
{
	/* an index from SHT_SYMTAB_SHNDX is a section's, whatever its
	 * value (a section numbered 0xfff1 is not SHN_ABS) */
	bool x = sym->st_shndx == SHN_XINDEX;

	if (op == OP_TLS || (!x && shndx == SHN_ABS)) {
		*s = sym->st_value;
		return true;
	}
	if (!x && shndx == SHN_UNDEF) {
		*s = 0;
		return op == OP_ABS;
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

/* The n bytes at p, in the byte order of img. */
static uint64_t get(const struct elfimg *img, const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[img->big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The length of the ULEB128 at p, of at most n bytes (and 10, 64 bits),
 * into *len and its value into *v; false if it does not end there. */
static bool uleb_get(const uint8_t *p, size_t n, size_t *len, uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < n && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*len = i + 1;
			return true;
		}
	}
	return false;
}

/* v as a ULEB128 of len bytes at p (padded with continuation bytes, as
 * the assembler left room for it); false if it does not fit. */
static bool uleb_put(uint8_t *p, size_t len, uint64_t v)
{
	for (size_t i = 0; i < len; i++) {
		p[i] = (uint8_t)((v & 0x7f) | (i + 1 < len ? 0x80 : 0));
		v >>= 7;
	}
	return !v;
}

/* The addend of relocation r of a REL section (implicit: the n bytes it
 * patches at p, sign-extended: a 32-bit file's arithmetic is modulo 2^32
 * anyway) or of a RELA one. */
static int64_t addend(const struct elfimg *img, const GElf_Rela *r, bool rel,
		      const uint8_t *p, size_t n)
{
	uint64_t a;

	if (!rel)
		return r->r_addend;
	a = get(img, p, n);
	if (n && n < 8 && (a >> (8 * n - 1)) & 1)
		a |= ~0ull << (8 * n);
	return (int64_t)a;
}

/* A SET_ULEB128 whose SUB_ULEB128 follows at the same place: its S + A
 * (an address, which the ULEB128 need not hold) kept for the difference
 * the pair writes. */
struct uleb_pair {
	bool on;
	uint64_t off, v;
};

/* Apply relocation r of kind k, whose symbol's value is s, to buf (n
 * bytes; the target section laid out at addr); pend: a pending
 * SET_ULEB128 (paired: r is one, and its SUB_ULEB128 follows). False:
 * out of the section, a ULEB128 that does not fit, a SUB_ULEB128 with no
 * SET_ULEB128, an implicit addend (rel) for a type that adds to the bytes
 * in place. */
static bool apply_entry(const struct elfimg *img, const struct dwreloc_kind *k,
			const GElf_Rela *r, bool rel, uint64_t s, uint8_t *buf,
			size_t n, uint64_t addr, struct uleb_pair *pend,
			bool paired)
{
	uint8_t *p = buf + r->r_offset;
	size_t len = k->size;
	uint64_t v, old = 0;

	if (k->op == OP_ULEB_SET || k->op == OP_ULEB_SUB) {
		if (rel || !uleb_get(p, n - r->r_offset, &len, &old))
			return false;
	} else if (n - r->r_offset < len) {
		return false;
	} else if (k->op >= OP_ADD && rel) {
		return false;
	} else if (k->op >= OP_ADD) {
		old = get(img, p, len);
	}
	v = s + (uint64_t)addend(img, r, rel, p, len);
	switch (k->op) {
	case OP_PCREL:
		v -= addr + r->r_offset;
		break;
	case OP_PREL31:
		old = get(img, p, 4);
		if (rel) /* the addend: the low 31 bits, sign-extended */
			v = s + (uint64_t)((int64_t)(old << 33) >> 33);
		v = (old & 0x80000000u) |
		    ((v - addr - r->r_offset) & 0x7fffffff);
		break;
	case OP_ADD:
		v = old + v;
		break;
	case OP_SUB:
		v = old - v;
		break;
	case OP_SET6:
		v = (old & 0xc0) | (v & 0x3f);
		break;
	case OP_SUB6:
		v = (old & 0xc0) | ((old - v) & 0x3f);
		break;
	case OP_ULEB_SET:
		*pend = (struct uleb_pair){paired, r->r_offset, v};
		return paired || uleb_put(p, len, v);
	case OP_ULEB_SUB:
		/* alone (the psABI pairs it with the SET_ULEB128 before
		 * it): refused */
		if (!pend->on || pend->off != r->r_offset)
			return false;
		pend->on = false;
		return uleb_put(p, len, pend->v - v);
	default:
		break;
	}
	/* an address past 4 bytes of a 64-bit file (its code laid out
	 * from ELF_REL_VM_BASE) is left as it is: near 0, where nothing is
	 * laid out, so its range is charged nowhere */
	if (k->op <= OP_SET && len == 4 && img->elfclass == ELFCLASS64 &&
	    v > UINT32_MAX && (int64_t)v != (int32_t)(uint32_t)v)
		return true;
	put(img, p, v, len);
	return true;
}

/* r_info of a relocation of img as GELF_R_SYM() and GELF_R_TYPE() read
 * it. A 64-bit MIPS file's packs a symbol (32 bits), a second symbol and
 * three types (8 bits each, applied in turn, the result of one the addend
 * of the next), which libelf reads as one 64-bit word (in a little-endian
 * file the type bytes come out reversed): its second and third types
 * (R_MIPS_NONE in DWARF) made the type memsz does not apply when they
 * are not. libelf has no reader for it (gelf_getrela() and GELF_R_SYM()
 * assume the generic layout), so it is decoded here by hand, by the
 * file's byte order; the caller checks the symbol index it gives against
 * the symbol count, so that a wrong decoding is refused, never read as
 * another symbol. */
static uint64_t info_of(const struct elfimg *img, uint64_t info)
{
	uint32_t sym, t, t2, t3;

	if (img->machine != EM_MIPS || img->elfclass != ELFCLASS64)
		return info;
	if (img->big_endian) {
		sym = (uint32_t)(info >> 32);
		t = info & 0xff, t2 = (info >> 8) & 0xff,
		t3 = (info >> 16) & 0xff;
	} else {
		sym = (uint32_t)info;
		t = info >> 56, t2 = (info >> 48) & 0xff,
		t3 = (info >> 40) & 0xff;
	}
	return GELF_R_INFO(sym, t2 || t3 ? 0xffffffffu : t);
}

/* Apply the relocation section rel (SHT_REL if isrel, else SHT_RELA) of
 * img to buf, the n bytes of its target laid out at addr (0: not laid
 * out, where a PC-relative one is refused); xs: the extended section
 * indexes of syms, or NULL. */
static bool apply_one(struct elfimg *img, Elf_Data *rel, bool isrel,
		      Elf_Data *syms, Elf_Data *xs, uint8_t *buf, size_t n,
		      uint64_t addr)
{
	size_t nsyms = syms->d_size /
		       gelf_fsize(elfimg_elf(img), ELF_T_SYM, 1, EV_CURRENT);
	struct uleb_pair pend = {0};
	GElf_Rela r, nx;
	GElf_Rel rr;
	GElf_Sym sym;

	for (int i = 0;; i++) {
		const struct dwreloc_kind *k;
		uint64_t s;
		size_t shndx;
		bool paired;

		if (isrel && gelf_getrel(rel, i, &rr))
			r = (GElf_Rela){rr.r_offset, rr.r_info, 0};
		else if (isrel || !gelf_getrela(rel, i, &r))
			break;
		r.r_info = info_of(img, r.r_info);
		k = kind_of(img->machine, (uint32_t)GELF_R_TYPE(r.r_info));
		if (!k || ((k->op == OP_PCREL || k->op == OP_PREL31) && !addr))
			return false;
		if (k->op == OP_NONE)
			continue;
		if (r.r_offset >= n || GELF_R_SYM(r.r_info) >= nsyms ||
		    !sym_get(syms, xs, (int)GELF_R_SYM(r.r_info), &sym, &shndx))
			return false;
		/* half a pair applied would write a wrong difference */
		if (!sym_value(img, &sym, shndx, k->op, &s)) {
			if (k->op >= OP_SET)
				return false;
			continue;
		}
		paired = k->op == OP_ULEB_SET && !isrel &&
			 gelf_getrela(rel, i + 1, &nx) &&
			 GELF_R_TYPE(nx.r_info) == R_RISCV_SUB_ULEB128 &&
			 nx.r_offset == r.r_offset;
		if (!apply_entry(img, k, &r, isrel, s, buf, n, addr, &pend,
				 paired))
			return false;
	}
	return true;
}

/* Apply relocation section i of img (SHT_REL or SHT_RELA) to buf, the n
 * bytes of its target laid out at addr (0: not laid out); xs: the
 * extended section indexes of its symbol table, or NULL. */
static bool apply_section_xs(struct elfimg *img, size_t i, uint8_t *buf,
			     size_t n, uint64_t addr, Elf_Data *xs)
{
	const struct elf_section *s = &img->secs[i];
	Elf *elf = elfimg_elf(img);
	bool isrel = s->type == SHT_REL;
	Elf_Data *rel, *syms;

	if (s->link >= img->nsecs)
		return false;
	rel = elf_getdata(elf_getscn(elf, i), NULL);
	syms = img->secs[s->link].type == SHT_SYMTAB
		   ? elf_getdata(elf_getscn(elf, s->link), NULL)
		   : NULL;
	return rel && syms && rel->d_type == (isrel ? ELF_T_REL : ELF_T_RELA) &&
	       syms->d_type == ELF_T_SYM &&
	       apply_one(img, rel, isrel, syms, xs, buf, n, addr);
}

/* apply_section_xs() with the extended indexes of its symbol table */
static bool apply_section(struct elfimg *img, size_t i, uint8_t *buf, size_t n,
			  uint64_t addr)
{
	size_t link = img->secs[i].link;

	return link < img->nsecs &&
	       apply_section_xs(img, i, buf, n, addr,
				elf_reloc_xindex(img, link));
}

bool elf_reloc_section(struct elfimg *img, size_t tgt, void *buf)
{
	const struct elf_section *t = &img->secs[tgt];

	if (img->type != ET_REL)
		return true;
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];

		if ((s->type == SHT_RELA || s->type == SHT_REL) &&
		    s->info == tgt &&
		    !apply_section(img, i, buf, (size_t)t->size, t->addr))
			return false;
	}
	return true;
}

bool elf_reloc_apply(struct elfimg *img, size_t rel, Elf_Data *xs, void *buf)
{
	const struct elf_section *s = &img->secs[rel];
	const struct elf_section *t;

	if (img->type != ET_REL)
		return true;
	if ((s->type != SHT_RELA && s->type != SHT_REL) || !s->info ||
	    s->info >= img->nsecs)
		return false;
	t = &img->secs[s->info];
	return apply_section_xs(img, rel, buf, (size_t)t->size, t->addr, xs);
}

bool elf_dwarf_relocate(struct elfimg *img)
{
	if (img->type != ET_REL)
		return true;
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		Elf_Data *tgt;

		if ((s->type != SHT_RELA && s->type != SHT_REL) ||
		    s->info >= img->nsecs || !s->info)
			continue;
		tgt = dwarf_data(img, s->info);
		if (tgt && !apply_section(img, i, tgt->d_buf, tgt->d_size, 0))
			return false;
	}
	return true;
}
