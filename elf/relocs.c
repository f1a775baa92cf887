// SPDX-License-Identifier: GPL-2.0-or-later
/* relocs.c — read the dynamic relocations of an image, decode RELR.
 *
 * Entries are decoded by hand from the raw section bytes, read a window at
 * a time with pread (elf_window: no copy of a whole table), in the file's
 * byte order, so that both classes and both byte orders work
 * the same way and each entry's file offset is known exactly.
 *
 * RELR (gABI, binutils -z pack-relative-relocs): a sequence of words. An
 * even word is an address: relocate it, the next address is one word past
 * it. An odd word is a bitmap: bit i (1 <= i < word bits) set relocates
 * base + (i - 1) words; then base advances by (word bits - 1) words.
 */
#include "config.h"

#include "elf/elfpriv.h"
#include "elf/relocs.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

uint32_t elf_reloc_relative_type(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64:
		return R_X86_64_RELATIVE;
	case EM_386:
		return R_386_RELATIVE;
	case EM_AARCH64:
		return R_AARCH64_RELATIVE;
	case EM_ARM:
		return R_ARM_RELATIVE;
	case EM_RISCV:
		return 3; /* R_RISCV_RELATIVE */
	case EM_PPC:
		return R_PPC_RELATIVE;
	case EM_PPC64:
		return R_PPC64_RELATIVE;
	case EM_S390:
		return R_390_RELATIVE;
	case EM_SPARC:
	case EM_SPARCV9:
		return R_SPARC_RELATIVE;
	case EM_LOONGARCH:
		return 3; /* R_LARCH_RELATIVE */
	default:
		return 0;
	}
}

bool elf_reloc_is_relative(uint16_t machine, uint32_t type)
{
	uint32_t rel = elf_reloc_relative_type(machine);

	return rel && type == rel;
}

struct type_name {
	uint16_t machine;
	uint32_t type;
	const char *name;
};

static const struct type_name type_names[] = {
    {EM_X86_64, R_X86_64_64, "R_X86_64_64"},
    {EM_X86_64, R_X86_64_COPY, "R_X86_64_COPY"},
    {EM_X86_64, R_X86_64_GLOB_DAT, "R_X86_64_GLOB_DAT"},
    {EM_X86_64, R_X86_64_JUMP_SLOT, "R_X86_64_JUMP_SLOT"},
    {EM_X86_64, R_X86_64_RELATIVE, "R_X86_64_RELATIVE"},
    {EM_X86_64, R_X86_64_DTPMOD64, "R_X86_64_DTPMOD64"},
    {EM_X86_64, R_X86_64_DTPOFF64, "R_X86_64_DTPOFF64"},
    {EM_X86_64, R_X86_64_TPOFF64, "R_X86_64_TPOFF64"},
    {EM_X86_64, R_X86_64_IRELATIVE, "R_X86_64_IRELATIVE"},
    {EM_386, R_386_32, "R_386_32"},
    {EM_386, R_386_PC32, "R_386_PC32"},
    {EM_386, R_386_COPY, "R_386_COPY"},
    {EM_386, R_386_GLOB_DAT, "R_386_GLOB_DAT"},
    {EM_386, R_386_JMP_SLOT, "R_386_JUMP_SLOT"},
    {EM_386, R_386_RELATIVE, "R_386_RELATIVE"},
    {EM_386, R_386_TLS_TPOFF, "R_386_TLS_TPOFF"},
    {EM_386, R_386_TLS_DTPMOD32, "R_386_TLS_DTPMOD32"},
    {EM_386, R_386_TLS_DTPOFF32, "R_386_TLS_DTPOFF32"},
    {EM_386, R_386_IRELATIVE, "R_386_IRELATIVE"},
    {EM_AARCH64, R_AARCH64_ABS64, "R_AARCH64_ABS64"},
    {EM_AARCH64, R_AARCH64_COPY, "R_AARCH64_COPY"},
    {EM_AARCH64, R_AARCH64_GLOB_DAT, "R_AARCH64_GLOB_DAT"},
    {EM_AARCH64, R_AARCH64_JUMP_SLOT, "R_AARCH64_JUMP_SLOT"},
    {EM_AARCH64, R_AARCH64_RELATIVE, "R_AARCH64_RELATIVE"},
    {EM_AARCH64, R_AARCH64_TLS_TPREL, "R_AARCH64_TLS_TPREL"},
    {EM_AARCH64, R_AARCH64_TLSDESC, "R_AARCH64_TLSDESC"},
    {EM_AARCH64, R_AARCH64_IRELATIVE, "R_AARCH64_IRELATIVE"},
};

const char *elf_reloc_type_name(uint16_t machine, uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i].machine == machine &&
		    type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

/* Is VM address addr (a word of wsize bytes) inside some PT_LOAD? */
static bool in_load(const struct elfimg *img, uint64_t addr, uint64_t wsize)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];

		if (s->type != PT_LOAD || addr < s->vaddr)
			continue;
		if (addr - s->vaddr < s->memsz &&
		    s->memsz - (addr - s->vaddr) >= wsize)
			return true;
	}
	return false;
}

struct relvec {
	struct elf_reloc *v;
	size_t n, cap;
};

/* elf_reloc_fn that appends a copy of r to the relvec arg */
static void relvec_push(const struct elf_reloc *r, void *arg)
{
	struct relvec *rv = arg;

	xgrow(&rv->v, &rv->cap, rv->n + 1, sizeof(*rv->v));
	rv->v[rv->n++] = *r;
}

/* elf_get_uint() with a plain load where the file's byte order is the
 * host's: a table of hundreds of thousands of entries is decoded once or
 * twice a run. */
static inline uint64_t get_uint(const unsigned char *p, size_t n, bool be)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!be && n == 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	if (!be && n == 4) {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
#endif
	return elf_get_uint(p, n, be);
}

/* ELF_FIELD() through get_uint() */
#define GET_FIELD(p, is64, T, f, be)                                           \
	((is64) ? get_uint((p) + offsetof(Elf64_##T, f),                       \
			   sizeof(((Elf64_##T *)0)->f), (be))                  \
		: get_uint((p) + offsetof(Elf32_##T, f),                       \
			   sizeof(((Elf32_##T *)0)->f), (be)))

/* One relocation section being walked: its index, the callback, and
 * RELR's running state (the next address a bitmap word starts from). */
struct relwalk {
	struct elfimg *img;
	size_t i;
	elf_reloc_fn fn;
	void *arg;
	bool have_base;
	uint64_t base;
	int dropped;
};

/* The SHT_REL / SHT_RELA entries [off, off + len) of section w->i (whole
 * entries of esz bytes), whose bytes are at p. */
static void read_relx(struct relwalk *w, const unsigned char *p, uint64_t off,
		      uint64_t len, size_t esz)
{
	const struct elf_section *s = &w->img->secs[w->i];
	bool is64 = w->img->elfclass == ELFCLASS64;
	bool rela = s->type == SHT_RELA;
	bool be = w->img->big_endian;
	/* elf_reloc_is_relative()'s answer, asked once, not per entry */
	uint32_t relative = elf_reloc_relative_type(w->img->machine);

	for (uint64_t end = off + len; off < end; off += esz, p += esz) {
		struct elf_reloc rel = {0}, *r = &rel;
		/* Elf_Rel is the first two fields of Elf_Rela */
		uint64_t info = GET_FIELD(p, is64, Rela, r_info, be);

		r->target = GET_FIELD(p, is64, Rela, r_offset, be);
		r->entry_off = s->offset + off;
		r->entry_addr = s->addr + off;
		r->entry_size = esz;
		r->type = is64 ? ELF64_R_TYPE(info) : ELF32_R_TYPE(info);
		r->sym = is64 ? ELF64_R_SYM(info) : ELF32_R_SYM(info);
		r->section = w->i;
		if (rela) {
			uint64_t a = GET_FIELD(p, is64, Rela, r_addend, be);

			if (!is64)
				a = (uint64_t)(int64_t)(int32_t)a;
			r->addend = (int64_t)a;
		}
		r->kind = rela ? ELF_RELOC_RELA : ELF_RELOC_REL;
		r->is_relative = relative && r->type == relative;
		w->fn(r, w->arg);
	}
}

/* The SHT_RELR words [off, off + len) of section w->i (wsize bytes each),
 * whose bytes are at p; words and targets dropped counted in w. */
static void read_relr(struct relwalk *w, const unsigned char *p, uint64_t off,
		      uint64_t len, size_t wsize)
{
	const struct elf_section *s = &w->img->secs[w->i];
	uint32_t reltype = elf_reloc_relative_type(w->img->machine);

	for (uint64_t end = off + len; off < end; off += wsize, p += wsize) {
		uint64_t word = get_uint(p, wsize, w->img->big_endian);
		uint64_t targets[64]; /* a bitmap word: up to 63 */
		size_t nt = 0;

		if (!(word & 1)) {
			targets[nt++] = word;
			w->base = word + wsize;
			w->have_base = true;
		} else if (!w->have_base) {
			w->dropped++;
			continue;
		} else {
			for (size_t b = 1; b < 8 * wsize; b++)
				if (word >> b & 1)
					targets[nt++] =
					    w->base + (b - 1) * wsize;
			w->base += (8 * wsize - 1) * wsize;
		}
		for (size_t k = 0; k < nt; k++) {
			struct elf_reloc rel = {0}, *r = &rel;

			if (!in_load(w->img, targets[k], wsize)) {
				w->dropped++;
				continue;
			}
			r->target = targets[k];
			r->entry_off = s->offset + off;
			r->entry_addr = s->addr + off;
			r->entry_size = wsize;
			r->type = reltype;
			r->section = w->i;
			r->kind = ELF_RELOC_RELR;
			r->is_relative = true;
			w->fn(r, w->arg);
		}
	}
}

/* Bytes of a relocation table read at a time: whole entries of every
 * size (8, 12, 16, 24; RELR words 4, 8), a few dozen kilobytes instead
 * of libelf's copy of the whole table (megabytes), which would live
 * until the image's data is dropped. */
#define RELOC_WINDOW (48 * 2048)

/* The entry size of relocation section s, or 0 if its header is not one
 * memsz reads (then the section is skipped). */
static size_t reloc_entsize(const struct elfimg *img,
			    const struct elf_section *s)
{
	bool is64 = img->elfclass == ELFCLASS64;
	size_t esz;

	if (s->type == SHT_RELR) {
		esz = is64 ? 8 : 4;
		return (s->entsize && s->entsize != esz) || s->size % esz ? 0
									  : esz;
	}
	esz = s->type == SHT_RELA ? ELF_SIZEOF(is64, Rela)
				  : ELF_SIZEOF(is64, Rel);
	return s->entsize != esz || s->size % esz ? 0 : esz;
}

/* Walk section i through window win; the number of entries or words
 * skipped or dropped (a table the file does not hold whole: 1). */
static int read_section(struct elfimg *img, size_t i, struct elf_window *win,
			elf_reloc_fn fn, void *arg)
{
	const struct elf_section *s = &img->secs[i];
	struct relwalk w = {img, i, fn, arg, false, 0, 0};
	size_t esz = reloc_entsize(img, s);

	if (s->offset > img->file_size || s->size > img->file_size - s->offset)
		return 1;
	if (!esz)
		return 1;
	for (uint64_t off = 0; off < s->size;) {
		uint64_t len = MIN(s->size - off, (uint64_t)RELOC_WINDOW);
		const unsigned char *p =
		    elf_window_get(win, s->offset + off, len);

		if (!p) /* the file shrank under us */
			return w.dropped + 1;
		if (s->type == SHT_RELR)
			read_relr(&w, p, off, len, esz);
		else
			read_relx(&w, p, off, len, esz);
		off += len;
	}
	return w.dropped;
}

int elf_relocs_foreach(struct elfimg *img, elf_reloc_fn fn, void *arg)
{
	struct elf_window win;
	int bad = 0;

	elf_window_init(&win, img, RELOC_WINDOW);
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];

		if (s->type != SHT_REL && s->type != SHT_RELA &&
		    s->type != SHT_RELR)
			continue;
		if (!(s->flags & SHF_ALLOC) || !s->size)
			continue;
		bad += read_section(img, i, &win, fn, arg);
	}
	elf_window_free(&win);
	return bad;
}

int elf_relocs_read(struct elfimg *img, struct elf_reloc **out, size_t *n)
{
	struct relvec rv = {0};
	int bad = elf_relocs_foreach(img, relvec_push, &rv);

	*out = rv.v;
	*n = rv.n;
	return bad;
}

int elf_relocs_get(struct elfimg *img, const struct elf_reloc **out, size_t *n)
{
	struct elfimg_priv *priv = img->priv;

	if (!priv->relocs_read) {
		priv->relocs_bad =
		    elf_relocs_read(img, &priv->relocs, &priv->nrelocs);
		priv->relocs_read = true;
	}
	*out = priv->relocs;
	*n = priv->nrelocs;
	return priv->relocs_bad;
}

uint64_t elf_relocs_relr_size(const struct elf_reloc *rels, size_t n,
			      int elfclass)
{
	uint64_t *a = xmalloc((n ? n : 1) * sizeof(*a));
	size_t m = 0;
	uint64_t size;

	for (size_t i = 0; i < n; i++)
		if (rels[i].is_relative)
			a[m++] = rels[i].target;
	size = elf_relocs_relr_size_of(a, m, elfclass);
	free(a);
	return size;
}

uint64_t elf_relocs_relr_size_of(uint64_t *a, size_t m, int elfclass)
{
	uint64_t w = elfclass == ELFCLASS32 ? 4 : 8;
	uint64_t nbits = 8 * w - 1, words = 0;

	if (!m)
		return 0;
	qsort(a, m, sizeof(*a), u64_sort_cmp);
	for (size_t i = 0; i < m;) {
		uint64_t base;

		/* An address word (odd addresses cannot be encoded: they
		 * stay in .rela.dyn, as the linkers leave them). */
		if (a[i] & 1) {
			i++;
			continue;
		}
		words++;
		base = a[i] + w;
		i++;
		for (;;) {
			bool any = false;

			while (i < m && a[i] >= base &&
			       a[i] < base + nbits * w &&
			       (a[i] - base) % w == 0) {
				any = true;
				i++;
			}
			/* Duplicates and misaligned ones end the run. */
			while (i < m && a[i] < base)
				i++;
			if (!any)
				break;
			words++;
			base += nbits * w;
		}
	}
	return words * w;
}
