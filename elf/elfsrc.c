/* elfsrc.c — the data sources of an ELF image: segments, sections, symbols.
 *
 * Each source adds its own labels first, then the fallbacks, so that the
 * file map covers [0, file_size) and the VM map exactly the base map's VM
 * (first writer wins, so the order of the adds is the policy).
 */
#include "config.h"

#include "elf/bbaddrmap.h"
#include "elf/dwarf.h"
#include "elf/elfpriv.h"
#include "elf/relocsrc.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const source_names[ELFSRC__COUNT] = {
	[ELFSRC_SEGMENTS] = "segments",
	[ELFSRC_SECTIONS] = "sections",
	[ELFSRC_SYMBOLS] = "symbols",
	[ELFSRC_BBS] = "bbs",
	[ELFSRC_RELOCS] = "relocs",
	[ELFSRC_COMPILEUNITS] = "compileunits",
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

/* --- symbols --- */

struct sym {
	uint64_t addr, size;
	const char *name;
	int rank; /* GLOBAL 0, WEAK 1, others 2 */
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

static ssize_t find_section(const struct elfimg *img, uint32_t type)
{
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == type && img->secs[i].size)
			return i;
	return -1;
}

/* Collect the usable symbols of table symndx of img into *out (*n). */
static int collect_symbols(struct elfimg *img, size_t symndx,
			   struct sym **out, size_t *n,
			   struct elfsrc_stats *st)
{
	Elf *elf = elfimg_elf(img);
	struct elf_section *tab = &img->secs[symndx];
	struct elf_section *strs;
	Elf_Data *d, *sd, *xd = NULL;
	const char *names;
	size_t nsyms, cap = 0, cnt = 0, entsize;
	struct sym *syms = NULL;
	int ret = 0;

	entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (tab->entsize != entsize || tab->size % entsize)
		return -MEMSZ_EBADSYM;
	strs = &img->secs[tab->link];
	if (strs->type == SHT_NOBITS)
		return -MEMSZ_EBADSTRTAB;
	d = elf_getdata(elf_getscn(elf, symndx), NULL);
	sd = elf_rawdata(elf_getscn(elf, tab->link), NULL);
	if (!d || d->d_size != tab->size)
		return -MEMSZ_EBADSYM;
	if (!sd || sd->d_size != strs->size || !sd->d_size)
		return -MEMSZ_EBADSTRTAB;
	names = sd->d_buf;
	if (names[sd->d_size - 1] != 0)
		return -MEMSZ_EBADSTRTAB;
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_SYMTAB_SHNDX &&
		    img->secs[i].link == symndx) {
			xd = elf_getdata(elf_getscn(elf, i), NULL);
			break;
		}

	nsyms = tab->size / entsize;
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		uint64_t shndx, value, size, secend;
		struct elf_section *sec;
		int type, bind;

		if (!gelf_getsymshndx(d, xd, i, &sym, &xndx)) {
			ret = -MEMSZ_EBADSYM;
			goto out_free;
		}
		if (sym.st_name >= sd->d_size) {
			ret = -MEMSZ_EBADSTRTAB;
			goto out_free;
		}
		shndx = sym.st_shndx;
		if (shndx == SHN_XINDEX) {
			if (!xd) {
				ret = -MEMSZ_EBADSYM;
				goto out_free;
			}
			shndx = xndx;
		} else if (shndx >= SHN_LORESERVE) {
			continue; /* SHN_ABS, SHN_COMMON, processor-specific */
		}
		if (shndx == SHN_UNDEF)
			continue;
		if (shndx >= img->nsecs) {
			ret = -MEMSZ_EBADSYM;
			goto out_free;
		}
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT &&
		    type != STT_GNU_IFUNC)
			continue;
		if (sym.st_size == 0)
			continue;
		value = sym.st_value;
		if (img->machine == EM_ARM && type == STT_FUNC)
			value &= ~(uint64_t)1;
		size = sym.st_size;
		sec = &img->secs[shndx];
		secend = sec->addr + sec->size;
		if (secend < sec->addr)
			secend = UINT64_MAX;
		if (value < sec->addr || value > secend) {
			ret = -MEMSZ_EBADSYM;
			goto out_free;
		}
		if (size > secend - value) {
			size = secend - value;
			if (st)
				st->clipped++;
			if (!size)
				continue;
		}
		xgrow(&syms, &cap, cnt + 1, sizeof(*syms));
		syms[cnt].addr = value;
		syms[cnt].size = size;
		syms[cnt].name = names + sym.st_name;
		syms[cnt].rank = bind == STB_GLOBAL ? 0 :
				 bind == STB_WEAK ? 1 : 2;
		cnt++;
	}
	*out = syms;
	*n = cnt;
	return 0;

out_free:
	free(syms);
	return ret;
}

static int source_symbols(struct elfimg *img, struct labels *lb,
			  struct dualmap *base, struct dualmap *out,
			  struct elfsrc_stats *st)
{
	struct elfimg *from = img;
	struct sym *syms = NULL;
	size_t n = 0;
	ssize_t tab;
	int ret;

	tab = find_section(img, SHT_SYMTAB);
	if (tab < 0 && img->debug) {
		tab = find_section(img->debug, SHT_SYMTAB);
		if (tab >= 0) {
			from = img->debug;
			if (st)
				st->used_debug_file = true;
		}
	}
	if (tab < 0) {
		tab = find_section(img, SHT_DYNSYM);
		if (tab >= 0 && st)
			st->used_dynsym = true;
	}
	if (tab >= 0) {
		ret = collect_symbols(from, tab, &syms, &n, st);
		if (ret)
			return ret;
	}
	if (n)
		qsort(syms, n, sizeof(*syms), sym_cmp);

	for (size_t i = 0; i < n;) {
		char *dm = elf_demangle(syms[i].name);
		const char *label = dm ? dm : syms[i].name;
		uint32_t id = labels_intern(lb, label);
		size_t j;

		for (j = i + 1; j < n && syms[j].addr == syms[i].addr &&
				syms[j].size == syms[i].size;
		     j++) {
			char *adm = elf_demangle(syms[j].name);
			const char *alias = adm ? adm : syms[j].name;

			if (strcmp(alias, label)) {
				labels_add_alias(lb, id, alias);
				if (st)
					st->aliases++;
			}
			free(adm);
		}
		dualmap_add_vm(out, base, syms[i].addr, syms[i].size, id);
		if (st)
			st->symbols++;
		free(dm);
		i = j;
	}
	free(syms);

	add_sections(img, lb, base, out, true);
	elfimg_add_fallbacks(img, lb, out, false);
	return 0;
}

int elfimg_source_map(struct elfimg *img, enum elf_source src,
		      struct labels *lb, struct dualmap *base,
		      struct dualmap *out, struct elfsrc_stats *stats)
{
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
		return source_symbols(img, lb, base, out, stats);
	case ELFSRC_BBS:
	case ELFSRC_RELOCS:
	case ELFSRC_COMPILEUNITS:
	case ELFSRC_INLINES: {
		int ret;

		if (src == ELFSRC_BBS)
			ret = elfsrc_bbs(img, lb, base, out, stats);
		else if (src == ELFSRC_RELOCS)
			ret = elfsrc_relocs(img, lb, base, out, stats);
		else
			ret = elf_dwarf_source(img, src, lb, base, out, stats);

		if (ret < 0)
			return ret;
		add_sections(img, lb, base, out, true);
		elfimg_add_fallbacks(img, lb, out, false);
		return 0;
	}
	default:
		return -EINVAL;
	}
}
