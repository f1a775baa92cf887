// SPDX-License-Identifier: GPL-2.0-or-later
/* elfsrc.c — the data sources of an ELF image: segments, sections, symbols.
 *
 * Each source adds its own labels first, then the fallbacks, so that the
 * file map covers [0, file_size) and the VM map exactly the base map's VM
 * (first writer wins, so the order of the adds is the policy).
 */
#include "config.h"

#include "elf/bbaddrmap.h"
#include "elf/dwarf.h"
#include "elf/ehframe.h"
#include "elf/elfpriv.h"
#include "elf/relocs.h"
#include "elf/relocsrc.h"
#include "elf/symtab.h"
#include "elf/xrefs.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const source_names[ELFSRC__COUNT] = {
    [ELFSRC_SEGMENTS] = "segments", [ELFSRC_SECTIONS] = "sections",
    [ELFSRC_SYMBOLS] = "symbols",   [ELFSRC_BBS] = "bbs",
    [ELFSRC_RELOCS] = "relocs",	    [ELFSRC_COMPILEUNITS] = "compileunits",
    [ELFSRC_INLINES] = "inlines",
};

int elfsrc_from_name(const char *name)
{
	for (int i = 0; i < ELFSRC__COUNT; i++)
		if (!strcmp(source_names[i], name))
			return i;
	return -1;
}

const char *elfsrc_name(enum elf_source src)
{
	if ((unsigned)src >= ELFSRC__COUNT)
		return NULL;
	return source_names[src];
}

/* Label every section: VM (clipped to the base VM, translated to file)
 * for SHF_ALLOC ones, file for those with file bytes. .tbss (TLS NOBITS)
 * gets nothing: it is the template of per-thread memory, allocated by the
 * TLS runtime, and its sh_addr overlaps the sections that follow it. With
 * fallback set, the labels are "[section NAME]". */
static void add_sections(struct elfimg *img, struct labels *lb,
			 struct dualmap *base, struct dualmap *out,
			 bool fallback)
{
	for (size_t i = 1; i < img->nsecs; i++) {
		struct elf_section *s = &img->secs[i];
		bool nobits = s->type == SHT_NOBITS;
		char *name;
		uint32_t id;

		if (s->type == SHT_NULL || s->size == 0)
			continue;
		if (nobits && (!(s->flags & SHF_ALLOC) || (s->flags & SHF_TLS)))
			continue;
		if (!s->name[0])
			name = xasprintf("[section #%zu]", i);
		else if (fallback)
			name = xasprintf("[section %s]", s->name);
		else
			name = NULL;
		id = labels_intern(lb, name ? name : s->name);
		free(name);
		if (s->flags & SHF_ALLOC)
			dualmap_add_vm(out, base, s->addr, s->size, id);
		if (!nobits)
			rmap_add(out->file, s->offset, s->size, id);
	}
}

static int source_segments(struct elfimg *img, struct labels *lb,
			   struct dualmap *base, struct dualmap *out)
{
	/* TLS first: its initialisation image (.tdata) in file and VM.
	 * Its memsz tail (.tbss) has no address in the image. */
	for (size_t i = 0; i < img->nsegs; i++) {
		struct elf_segment *s = &img->segs[i];
		uint32_t id;

		if (s->type != PT_TLS)
			continue;
		id = labels_intern(lb, "TLS");
		dualmap_add_vm(out, base, s->vaddr, s->filesz, id);
		rmap_add(out->file, s->offset, s->filesz, id);
	}
	elfimg_add_fallbacks(img, lb, out, false);
	return 0;
}

/* --- metadata charged to the symbol it serves ---
 *
 * The map being built is queried (its VM side holds nothing but symbols,
 * or compile units, or line rows, at that point) for the label at the
 * address each metadata entry describes. The queries must not see the
 * metadata entries added so far, and the adds must come before every
 * fallback: the map is frozen (rmap_freeze(): queries answer from what
 * it held before) and each entry is added as soon as it is known, so
 * that the hundreds of thousands of entries of a big .dynsym are never
 * held twice. */

struct meta {
	uint64_t off, size; /* file range of the entry */
	uint32_t label;
	bool alloc; /* also label the VM it is loaded at */
};

struct metasink {
	struct dualmap *base, *out;
	struct meta last; /* the entry being extended (size 0: none) */
};

/* Start adding metadata entries to out (file, and through base the VM
 * they are loaded at): out is frozen until meta_end(). */
static void meta_begin(struct metasink *ms, struct dualmap *base,
		       struct dualmap *out)
{
	*ms = (struct metasink){.base = base, .out = out};
	rmap_freeze(out->vm);
	rmap_freeze(out->file);
}

/* The entry being extended, added. */
static void meta_flush(struct metasink *ms)
{
	struct meta *m = &ms->last;

	if (!m->size)
		return;
	if (m->alloc)
		dualmap_add_file(ms->out, ms->base, m->off, m->size, m->label);
	else
		rmap_add(ms->out->file, m->off, m->size, m->label);
	m->size = 0;
}

static void meta_push(struct metasink *ms, uint64_t off, uint64_t size,
		      uint32_t label, bool alloc)
{
	struct meta *last = &ms->last;

	if (label == LABEL_NONE || !size)
		return;
	/* the entries of one table that serve one symbol follow each other
	 * (the relocations of a vtable): one range, the same labels */
	if (last->size && last->label == label && last->alloc == alloc &&
	    last->off + last->size == off) {
		last->size += size;
		return;
	}
	meta_flush(ms);
	*last = (struct meta){off, size, label, alloc};
}

/* Add the last entry and thaw out. */
static void meta_end(struct metasink *ms)
{
	meta_flush(ms);
	rmap_thaw(ms->out->vm);
	rmap_thaw(ms->out->file);
}

/* Label at VM address addr, or LABEL_NONE: the symbol there (--by symbols)
 * or the unit or line there (compileunits, inlines). */
static uint32_t sym_at(struct metasink *ms, uint64_t addr)
{
	return rmap_lookup(ms->out->vm, addr, NULL);
}

/* Each FDE (its whole record) to the symbol holding its pc_begin; each
 * .eh_frame_hdr search table entry to the symbol of its initial location.
 * CIEs and the table's header stay "[section ...]". */
static void meta_unwind(struct elfimg *img, struct metasink *ms)
{
	struct elf_ehhdr_entry *hent = NULL;
	struct elf_fde *fdes = NULL;
	size_t nf = 0, nh = 0, hint = 0;

	elf_ehframe_read(img, &fdes, &nf);
	/* FDEs mostly follow the code: looked up from the last one on */
	for (size_t i = 0; i < nf; i++)
		meta_push(
		    ms, fdes[i].off, fdes[i].size,
		    rmap_lookup_near(ms->out->vm, fdes[i].pc_begin, &hint),
		    true);
	hint = 0;
	if (elf_ehframe_hdr_read(img, &hent, &nh) == 0)
		for (size_t i = 0; i < nh; i++) /* sorted by address */
			meta_push(ms, hent[i].off, hent[i].size,
				  rmap_lookup_near(ms->out->vm,
						   hent[i].initial_loc, &hint),
				  true);
	free(fdes);
	free(hent);
}

/* meta_relocs()'s walk: the sink, the entry last labelled (a RELR word
 * is labelled once) and the lookup hint */
struct relwalk {
	struct metasink *ms;
	uint64_t done;
	size_t hint;
};

static void meta_reloc(const struct elf_reloc *r, void *arg)
{
	struct relwalk *w = arg;
	uint32_t id;

	if (r->entry_off == w->done)
		return;
	/* tables are mostly sorted by the address patched */
	id = rmap_lookup_near(w->ms->out->vm, r->target, &w->hint);
	if (id == LABEL_NONE)
		return;
	meta_push(w->ms, r->entry_off, r->entry_size, id, true);
	w->done = r->entry_off;
}

/* Each relocation entry to the symbol holding the address it patches; a
 * RELR word (which may set up to 63 addresses) to the symbol of the first
 * address it encodes that lies in a symbol. Decoded as walked: the
 * relocations are not kept. */
static void meta_relocs(struct elfimg *img, struct metasink *ms)
{
	struct relwalk w = {ms, UINT64_MAX, 0};

	elf_relocs_foreach(img, meta_reloc, &w);
}

/* The labels of the symbols source and how it spelled names: a symbol
 * with no place (.tbss) is looked up by its name. */
struct symnames {
	const struct labels *lb;
	enum elf_demangle_style style;
};

/* The label of the symbol of type type and value value in section sec,
 * or LABEL_NONE: looked up where elf_sym_place() puts it, in VM or in file;
 * one with no place (.tbss) by its name in sn (NULL: not looked up). */
static uint32_t entry_label(const struct elfimg *img,
			    const struct elf_section *sec, int type,
			    uint64_t value, const char *name,
			    const struct symnames *sn, struct metasink *ms)
{
	uint32_t id = LABEL_NONE;
	char *dm;

	switch (elf_sym_place(img, sec, type, value, &value)) {
	case SYM_VM:
		return sym_at(ms, value);
	case SYM_FILE:
		return rmap_lookup(ms->out->file, value, NULL);
	case SYM_NONE:
		if (!sn || !name)
			return LABEL_NONE;
		dm = elf_demangle_as(name, sn->style);
		id = labels_find(sn->lb, dm ? dm : name);
		free(dm);
		return id;
	}
	return LABEL_NONE;
}

/* Entries of symbol table tabndx of img describing a labelled symbol (a
 * defined function or object of non-zero size whose address the symbols
 * map labels), their names, and for .dynsym their .gnu.version entries,
 * to that symbol. With ids set, *ids is a new array (caller frees) of the
 * label of every entry (LABEL_NONE for the others), *nids entries. */
static void meta_symtab(struct elfimg *img, size_t tabndx,
			const struct symnames *sn, struct metasink *ms,
			uint32_t **ids, size_t *nids)
{
	Elf *elf = elfimg_elf(img);
	const struct elf_section *tab = &img->secs[tabndx];
	const struct elf_section *strs, *ver = NULL;
	size_t entsize, nsyms;
	bool alloc = tab->flags & SHF_ALLOC;
	Elf_Data *d, *sd;

	entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (tab->entsize != entsize || tab->size % entsize ||
	    tab->type == SHT_NOBITS)
		return;
	strs = &img->secs[tab->link];
	d = elf_getdata(elf_getscn(elf, tabndx), NULL);
	sd = elf_rawdata(elf_getscn(elf, tab->link), NULL);
	if (!d || d->d_size != tab->size || !sd || !sd->d_buf ||
	    sd->d_size != strs->size || strs->type == SHT_NOBITS)
		return;
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_GNU_versym &&
		    img->secs[i].link == tabndx &&
		    img->secs[i].size == tab->size / entsize * 2)
			ver = &img->secs[i];
	nsyms = tab->size / entsize;
	if (ids) {
		*ids = xcalloc(nsyms, sizeof(**ids));
		*nids = nsyms;
		for (size_t i = 0; i < nsyms; i++)
			(*ids)[i] = LABEL_NONE;
	}
	for (size_t i = 1; i < nsyms; i++) {
		const char *name;
		uint64_t value;
		uint32_t id;
		size_t len = 0;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(d, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (!elf_sym_type_used(type, sym.st_size) ||
		    sym.st_shndx == SHN_UNDEF ||
		    (sym.st_shndx >= SHN_LORESERVE &&
		     sym.st_shndx != SHN_XINDEX))
			continue;
		value = sym.st_value;
		if (img->machine == EM_ARM && type == STT_FUNC)
			value &= ~(uint64_t)1;
		name = NULL;
		if (sym.st_name && sym.st_name < sd->d_size) {
			name = (const char *)sd->d_buf + sym.st_name;
			len = strnlen(name, sd->d_size - sym.st_name);
			if (len == sd->d_size - sym.st_name)
				name = NULL; /* not terminated */
		}
		if (sym.st_shndx == SHN_XINDEX || sym.st_shndx >= img->nsecs)
			/* no section at hand: by address, as loaded */
			id = type == STT_TLS ? LABEL_NONE : sym_at(ms, value);
		else
			id = entry_label(img, &img->secs[sym.st_shndx], type,
					 value, name, sn, ms);
		if (id == LABEL_NONE)
			continue;
		if (ids)
			(*ids)[i] = id;
		meta_push(ms, tab->offset + i * entsize, entsize, id, alloc);
		if (ver)
			meta_push(ms, ver->offset + i * 2, 2, id,
				  ver->flags & SHF_ALLOC);
		if (name)
			meta_push(ms, strs->offset + sym.st_name, len + 1, id,
				  strs->flags & SHF_ALLOC);
	}
}

/* The words of the symbol hash tables of symbol table tabndx (.hash,
 * .gnu.hash) that name one symbol, to that symbol's label ids[index]:
 * .hash's bucket (the first symbol of its chain) and chain words (one per
 * symbol), .gnu.hash's buckets (the first symbol of the bucket) and hash
 * values (one per symbol from symoffset on). Headers and .gnu.hash's bloom
 * filter serve all symbols and stay "[section ...]". */
static void meta_hash(struct elfimg *img, size_t tabndx, const uint32_t *ids,
		      size_t nids, struct metasink *ms)
{
	Elf *elf = elfimg_elf(img);
	bool be = img->big_endian;

	for (size_t k = 1; k < img->nsecs; k++) {
		const struct elf_section *h = &img->secs[k];
		bool alloc = h->flags & SHF_ALLOC;
		const unsigned char *p;
		uint64_t nb, w, hdr;
		Elf_Data *d;

		if ((h->type != SHT_HASH && h->type != SHT_GNU_HASH) ||
		    h->link != tabndx)
			continue;
		d = elf_rawdata(elf_getscn(elf, k), NULL);
		if (!d || !d->d_buf || d->d_size != h->size || h->size < 16)
			continue;
		p = d->d_buf;
		nb = elf_get_uint(p, 4, be);
		if (h->type == SHT_HASH) {
			uint64_t nc = elf_get_uint(p + 4, 4, be);

			if (8 + (nb + nc) * 4 > h->size || nc > nids)
				continue;
			for (uint64_t b = 0; b < nb; b++) {
				uint64_t y = elf_get_uint(p + 8 + b * 4, 4, be);

				if (y && y < nids)
					meta_push(ms, h->offset + 8 + b * 4, 4,
						  ids[y], alloc);
			}
			for (uint64_t i = 1; i < nc; i++)
				meta_push(ms, h->offset + 8 + (nb + i) * 4, 4,
					  ids[i], alloc);
			continue;
		}
		/* .gnu.hash: nbuckets, symoffset, bloom_size, bloom_shift */
		w = img->elfclass == ELFCLASS64 ? 8 : 4;
		{
			uint64_t symoff = elf_get_uint(p + 4, 4, be);
			uint64_t nbloom = elf_get_uint(p + 8, 4, be);

			if (nbloom > h->size / w || nb > h->size / 4)
				continue;
			hdr = 16 + nbloom * w;
			if (hdr + nb * 4 > h->size || symoff > nids)
				continue;
			for (uint64_t b = 0; b < nb; b++) {
				uint64_t y =
				    elf_get_uint(p + hdr + b * 4, 4, be);

				if (y && y < nids)
					meta_push(ms, h->offset + hdr + b * 4,
						  4, ids[y], alloc);
			}
			hdr += nb * 4;
			for (uint64_t i = symoff;
			     i < nids && hdr + (i - symoff + 1) * 4 <= h->size;
			     i++)
				meta_push(ms,
					  h->offset + hdr + (i - symoff) * 4, 4,
					  ids[i], alloc);
		}
	}
}

/* Only the dynamic relocation entries, to the label now at their
 * target (after --disasm gave data to code). */
static void add_reloc_metadata(struct elfimg *img, struct dualmap *base,
			       struct dualmap *out)
{
	struct metasink ms;

	meta_begin(&ms, base, out);
	meta_relocs(img, &ms);
	meta_end(&ms);
}

/* Every kind of metadata to the label it serves. sn, when not NULL (the
 * symbols source), names the .tbss symbols, which have no address to
 * look their label up by. */
static void add_metadata(struct elfimg *img, const struct symnames *sn,
			 struct dualmap *base, struct dualmap *out)
{
	struct metasink ms;

	meta_begin(&ms, base, out);
	/* each table read is done with once its entries are added: free
	 * libelf's copies (.rela.dyn, .eh_frame: megabytes) as the maps
	 * grow */
	meta_unwind(img, &ms);
	elfimg_drop_data(img);
	meta_relocs(img, &ms);
	elfimg_drop_data(img);
	for (size_t i = 1; i < img->nsecs; i++) {
		uint32_t *ids = NULL;
		size_t nids = 0;

		if (img->secs[i].type == SHT_SYMTAB) {
			meta_symtab(img, i, sn, &ms, NULL, NULL);
		} else if (img->secs[i].type == SHT_DYNSYM) {
			meta_symtab(img, i, sn, &ms, &ids, &nids);
			meta_hash(img, i, ids, nids, &ms);
			free(ids);
		}
	}
	meta_end(&ms);
	elfimg_drop_data(img);
}

/* --- padding between symbols --- */

/* The longest x86 instruction is 15 bytes: a nop has at most 14 prefix
 * bytes (0x66 operand size, 0x2e segment) before its opcode. */
#define X86_MAX_NOP_PREFIXES 14
/* A gap between symbols is alignment padding only if shorter than the
 * alignment of the next symbol's address, capped at one cache line: a
 * higher power of two in an address is taken as chance, not as asked. */
#define PADDING_MAX_ALIGN 64
/* add_padding() reads the gaps through a window of this many bytes */
#define PADDING_WINDOW 4096

/* Length of the x86 filler instruction at p (a nop of any length, int3,
 * or a zero byte), 0 if it is something else. */
static size_t x86_fill_len(const unsigned char *p, size_t n)
{
	static const unsigned char lea[][7] = {
	    /* i386 gas fillers: mov %esi,%esi; lea 0(%esi),%esi ... */
	    {2, 0x89, 0xf6},
	    {3, 0x8d, 0x76, 0x00},
	    {4, 0x8d, 0x74, 0x26, 0x00},
	    {6, 0x8d, 0xb6, 0, 0, 0, 0},
	};
	size_t i = 0, len;
	unsigned mod, rm;

	if (p[0] == 0x90 || p[0] == 0xcc || p[0] == 0x00)
		return 1;
	for (size_t k = 0; k < ARRAY_SIZE(lea); k++)
		if (lea[k][0] <= n && !memcmp(p, lea[k] + 1, lea[k][0]))
			return lea[k][0];
	while (i < n && i < X86_MAX_NOP_PREFIXES &&
	       (p[i] == 0x66 || p[i] == 0x2e))
		i++;
	if (i < n && p[i] == 0x90)
		return i + 1;
	if (i + 3 > n || p[i] != 0x0f || p[i + 1] != 0x1f)
		return 0;
	/* nopl/nopw with a ModRM memory operand */
	mod = p[i + 2] >> 6;
	rm = p[i + 2] & 7;
	len = i + 3;
	if (mod != 3 && rm == 4) {
		if (len >= n)
			return 0;
		if (mod == 0 && (p[len] & 7) == 5)
			len += 4;
		len++;
	}
	if (mod == 0 && rm == 5)
		len += 4;
	else if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len <= n ? len : 0;
}

/* Does buf[0, n) look like filler for section s of img? */
static bool is_fill(const struct elfimg *img, const struct elf_section *s,
		    const unsigned char *buf, size_t n)
{
	bool x86 = img->machine == EM_X86_64 || img->machine == EM_386;
	bool code = s->flags & SHF_EXECINSTR;

	for (size_t i = 0; i < n;) {
		size_t k = 1;

		if (buf[i] == 0) {
			i++;
			continue;
		}
		if (!code)
			return false;
		if (x86) {
			k = x86_fill_len(buf + i, n - i);
			if (!k)
				return false;
		} else if (img->machine == EM_AARCH64) {
			/* nop: d503201f (little-endian) */
			if (n - i < 4 || (i & 3) ||
			    memcmp(buf + i, "\x1f\x20\x03\xd5", 4))
				return false;
			k = 4;
		}
		/* other machines: code fill not checked */
		i += k;
	}
	return true;
}

/* Label "[padding]" the gaps between two symbols of one section that the
 * alignment of the following symbol explains: shorter than its address's
 * alignment (at most 64) and made of filler bytes (zeros; nops or int3 in
 * x86 code, nops in AArch64 code; not checked in other machines' code and
 * in NOBITS sections). syms is sorted by address. */
static void add_padding(struct elfimg *img, struct labels *lb,
			struct dualmap *base, struct dualmap *out,
			const struct sym *syms, size_t n)
{
	uint32_t id = LABEL_NONE;
	struct elf_window w;
	uint64_t end = 0;

	/* the gaps' bytes only, read in address order: not a copy of each
	 * section (node's are 75 MiB) */
	elf_window_init(&w, img, PADDING_WINDOW);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = syms[i].addr, gap, align;
		const struct elf_section *s = NULL;
		bool ok = true;

		if (i == 0 || a <= end)
			goto next;
		gap = a - end;
		align = a & -a;
		if (!align || align > PADDING_MAX_ALIGN)
			align = PADDING_MAX_ALIGN;
		if (gap >= align)
			goto next;
		for (size_t k = 1; k < img->nsecs; k++) {
			const struct elf_section *c = &img->secs[k];

			if ((c->flags & SHF_ALLOC) && end >= c->addr &&
			    a <= c->addr + c->size && !(c->flags & SHF_TLS) &&
			    c->size) {
				s = c;
				break;
			}
		}
		if (!s)
			goto next;
		if (s->type != SHT_NOBITS) {
			const unsigned char *b = elf_window_get(
			    &w, s->offset + (end - s->addr), gap);

			ok = b && is_fill(img, s, b, gap);
		}
		if (ok) {
			if (id == LABEL_NONE)
				id = labels_intern(lb, "[padding]");
			dualmap_add_vm(out, base, end, gap, id);
		}
	next:
		if (i == 0 || a + syms[i].size > end)
			end = a + syms[i].size;
	}
	elf_window_free(&w);
}

/* The symbols source (see elfimg.h); with disasm, the data its code refers
 * to goes to that code (elf/xrefs.c). */
static int source_symbols(struct elfimg *img, const struct elf_map_opts *opts,
			  struct labels *lb, struct dualmap *base,
			  struct dualmap *out, struct elfsrc_stats *st)
{
	bool disasm = opts && opts->disasm;
	struct symnames sn = {lb, opts ? opts->demangle : 0};
	struct sym *syms = NULL;
	size_t n = 0;
	int ret;

	ret = elf_syms_load(img, &syms, &n, st);
	if (ret)
		return ret;

	for (size_t i = 0; i < n;) {
		char *dm = elf_demangle_as(syms[i].name, sn.style);
		const char *label = dm ? dm : syms[i].name;
		uint32_t id = labels_intern(lb, label);
		size_t j;

		for (j = i + 1; j < n && syms[j].addr == syms[i].addr &&
				syms[j].size == syms[i].size &&
				syms[j].where == syms[i].where;
		     j++) {
			char *adm = elf_demangle_as(syms[j].name, sn.style);
			const char *alias = adm ? adm : syms[j].name;

			if (strcmp(alias, label)) {
				labels_add_alias(lb, id, alias);
				if (st)
					st->aliases++;
			}
			free(adm);
		}
		if (syms[i].where == SYM_VM)
			dualmap_add_vm(out, base, syms[i].addr, syms[i].size,
				       id);
		else if (syms[i].where == SYM_FILE)
			rmap_add(out->file, syms[i].addr, syms[i].size, id);
		if (st)
			st->symbols++;
		free(dm);
		i = j;
	}

	add_metadata(img, &sn, base, out);
	add_padding(img, lb, base, out, syms, elf_syms_count_vm(syms, n));
	free(syms);
	ret = disasm ? elf_xrefs_add(img, base, out, NULL, 0, st) : 0;
	if (ret)
		return ret;
	/* the relocation entries of the data just given to code go with it
	 * (first writer wins: the entries already labelled keep theirs) */
	if (disasm)
		add_reloc_metadata(img, base, out);

	add_sections(img, lb, base, out, true);
	elfimg_add_fallbacks(img, lb, out, false);
	return 0;
}

/* --disasm under compileunits and inlines, before the metadata (so that
 * the relocations of a vtable given to a unit go with it): the data the
 * code of a unit refers to; a referenced symbol no unit covers goes whole
 * to the unit of its first referrer. Nothing to do without DWARF labels. */
static int cu_xrefs(struct elfimg *img, struct dualmap *base,
		    struct dualmap *out, const struct sym *syms, size_t n,
		    struct elfsrc_stats *st)
{
	struct elf_range *r;
	int ret;

	if (!rmap_count(out->vm))
		return 0;
	r = xcalloc(n ? n : 1, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = (struct elf_range){syms[i].addr,
					  syms[i].addr + syms[i].size};
	ret = elf_xrefs_add(img, base, out, r, n, st);
	free(r);
	return ret;
}

/* The bbs source's own labels (see elfimg.h): the blocks of img's BB
 * address maps, each named after the symbol of its function. The symbols
 * source is built only when the maps hold a function. stats (may be NULL)
 * gets the counts of functions and blocks and the parse error; opts goes
 * to the symbols source. Returns 0 or a negative code from the symbols
 * source. */
static int source_bbs(struct elfimg *img, const struct elf_map_opts *opts,
		      struct labels *lb, struct dualmap *base,
		      struct dualmap *out, struct elfsrc_stats *stats)
{
	struct bbaddrmap m = {0};
	struct dualmap syms;
	int ret, perr;

	perr = bbaddrmap_read(img, &m);
	if (stats) {
		stats->bb_error = perr < 0 ? perr : 0;
		stats->bb_functions = m.nfuncs;
		stats->bb_blocks = m.nblocks;
	}
	if (!m.nfuncs)
		return 0;
	dualmap_init(&syms);
	ret = source_symbols(img, opts, lb, base, &syms, NULL);
	if (ret >= 0)
		bbaddrmap_label(&m, lb, &syms, base, out);
	dualmap_free(&syms);
	bbaddrmap_free(&m);
	return ret;
}

int elfimg_source_map(struct elfimg *img, enum elf_source src,
		      const struct elf_map_opts *opts, struct labels *lb,
		      struct dualmap *base, struct dualmap *out,
		      struct elfsrc_stats *stats)
{
	bool disasm = opts && opts->disasm;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	switch (src) {
	case ELFSRC_SEGMENTS:
		return source_segments(img, lb, base, out);
	case ELFSRC_SECTIONS:
		add_sections(img, lb, base, out, false);
		elfimg_add_fallbacks(img, lb, out, false);
		return 0;
	case ELFSRC_SYMBOLS:
		return source_symbols(img, opts, lb, base, out, stats);
	case ELFSRC_BBS:
	case ELFSRC_RELOCS:
	case ELFSRC_COMPILEUNITS:
	case ELFSRC_INLINES: {
		int ret;

		if (src == ELFSRC_BBS)
			ret = source_bbs(img, opts, lb, base, out, stats);
		else if (src == ELFSRC_RELOCS)
			ret = elfsrc_relocs(img, lb, base, out, stats);
		else
			ret = elf_dwarf_source(img, src, lb, base, out, stats);

		if (ret < 0)
			return ret;
		/* Metadata goes where --by symbols puts it, to the unit (or
		 * line) that holds the address its symbol starts at; the
		 * alignment padding between symbols is "[padding]" as there. */
		if (src == ELFSRC_COMPILEUNITS || src == ELFSRC_INLINES) {
			struct sym *syms = NULL;
			size_t n = 0;

			elf_syms_load(img, &syms, &n, NULL);
			n = elf_syms_count_vm(syms, n);
			ret = disasm ? cu_xrefs(img, base, out, syms, n, stats)
				     : 0;
			if (ret) {
				free(syms);
				return ret;
			}
			add_metadata(img, NULL, base, out);
			add_padding(img, lb, base, out, syms, n);
			free(syms);
		}
		add_sections(img, lb, base, out, true);
		elfimg_add_fallbacks(img, lb, out, false);
		return 0;
	}
	default:
		return -EINVAL;
	}
}
