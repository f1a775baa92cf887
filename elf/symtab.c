// SPDX-License-Identifier: GPL-2.0-or-later
/* symtab.c — an image's symbol table read into placed symbols (see
 * symtab.h): which entries are labelled, where their bytes are, and in
 * what order the symbols source takes them. */
#include "config.h"

#include "elf/symtab.h"
#include "elf/minidebug.h"
#include "elf/ppcopd.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->where != y->where)
		return (int)x->where - (int)y->where;
	if (x->addr != y->addr)
		return u64_cmp(x->addr, y->addr);
	if (x->size != y->size)
		return u64_cmp(y->size, x->size); /* larger first */
	if (x->rank != y->rank)
		return x->rank - y->rank;
	/* one string for many symbols: no walk over a long name */
	return x->name == y->name ? 0 : strcmp(x->name, y->name);
}

/* Sort syms[0, n) by sym_cmp: a stable LSD radix sort by address (11
 * bits a pass, as many passes as the largest address needs), a stable
 * split by where, then qsort() of each run of one place and address
 * (aliases: a few symbols) for the other keys. The order is sym_cmp's;
 * a qsort() of the whole array took 5 % of size --no-disasm on
 * libLLVM-14's 45 k .dynsym symbols. */
static void syms_sort(struct sym *syms, size_t n)
{
	size_t got;
	struct sym *buf = xmalloc_huge_aligned(n * sizeof(*buf), &got);
	struct sym *src = syms, *dst = buf, *swap;
	size_t where[SYM_NONE + 2] = {0};
	uint64_t max = 0;

	for (size_t i = 0; i < n; i++)
		max |= syms[i].addr;
	for (int shift = 0; shift < 64 && max >> shift; shift += 11) {
		size_t count[2048] = {0}, sum = 0;

		for (size_t i = 0; i < n; i++)
			count[(src[i].addr >> shift) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].addr >> shift) & 2047]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	for (size_t i = 0; i < n; i++)
		where[src[i].where + 1]++;
	for (size_t w = 1; w <= SYM_NONE + 1; w++)
		where[w] += where[w - 1];
	for (size_t i = 0; i < n; i++)
		dst[where[src[i].where]++] = src[i];
	if (dst != syms)
		memcpy(syms, dst, n * sizeof(*syms));
	free(buf);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && syms[j].where == syms[i].where &&
				syms[j].addr == syms[i].addr;
		     j++)
			;
		if (j - i > 1)
			qsort(syms + i, j - i, sizeof(*syms), sym_cmp);
	}
}

/* How many of syms (sorted by sym_cmp) are SYM_VM: they come first. */
size_t elf_syms_count_vm(const struct sym *syms, size_t n)
{
	size_t k = 0;

	while (k < n && syms[k].where == SYM_VM)
		k++;
	return k;
}

ssize_t elf_symtab_find(const struct elfimg *img, uint32_t type)
{
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == type && img->secs[i].size)
			return i;
	return -1;
}

/* A symbol table being read: its entries, names and extended section
 * indexes (SHT_SYMTAB_SHNDX; NULL if none); for a table of another file
 * than the image its symbols are placed in (a MiniDebugInfo, a debug
 * file), its section indexes to the image's (secmap[nsecmap], 0: none)
 * and, for a debug file, that file (own; NULL for a MiniDebugInfo). */
struct symtab {
	Elf_Data *d, *sd, *xd;
	const char *names;
	size_t nsyms;
	const size_t *secmap;
	size_t nsecmap;
	const struct elfimg *own;
};

/* Open symbol table symndx of img into t: entry size, string table (not
 * NOBITS, NUL-terminated) and the data libelf gives must all agree with
 * the section headers. Returns 0, -MEMSZ_EBADSYM or -MEMSZ_EBADSTRTAB. */
static int symtab_open(struct elfimg *img, size_t symndx, struct symtab *t)
{
	Elf *elf = elfimg_elf(img);
	struct elf_section *tab = &img->secs[symndx];
	struct elf_section *strs;
	size_t entsize;

	memset(t, 0, sizeof(*t));
	entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (tab->entsize != entsize || tab->size % entsize)
		return -MEMSZ_EBADSYM;
	strs = &img->secs[tab->link];
	if (strs->type == SHT_NOBITS)
		return -MEMSZ_EBADSTRTAB;
	t->d = elf_getdata(elf_getscn(elf, symndx), NULL);
	t->sd = elf_rawdata(elf_getscn(elf, tab->link), NULL);
	if (!t->d || t->d->d_size != tab->size)
		return -MEMSZ_EBADSYM;
	if (!t->sd || t->sd->d_size != strs->size || !t->sd->d_size)
		return -MEMSZ_EBADSTRTAB;
	t->names = t->sd->d_buf;
	if (t->names[t->sd->d_size - 1] != 0)
		return -MEMSZ_EBADSTRTAB;
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_SYMTAB_SHNDX &&
		    img->secs[i].link == symndx) {
			t->xd = elf_getdata(elf_getscn(elf, i), NULL);
			break;
		}
	t->nsyms = tab->size / entsize;
	return 0;
}

/* The first PT_TLS segment of img, or NULL. */
static const struct elf_segment *tls_segment(const struct elfimg *img)
{
	for (size_t i = 0; i < img->nsegs; i++)
		if (img->segs[i].type == PT_TLS)
			return &img->segs[i];
	return NULL;
}

/* Where the symbol of type type and value value in section sec lies:
 * *addr (VM address, or file offset for SYM_FILE) and the answer. An
 * STT_TLS value is an offset into the TLS template (PT_TLS; in a
 * relocatable file, into its section): its .tdata initialiser is loaded
 * at that place of the template, a .tbss one is nowhere. A symbol of a
 * non-loaded section has file bytes only. */
enum sym_where elf_sym_place(const struct elfimg *img,
			     const struct elf_section *sec, int type,
			     uint64_t value, uint64_t *addr)
{
	const struct elf_segment *tls;
	/* a relocatable file's values are offsets into their section */
	bool rel = img->type == ET_REL;

	*addr = rel ? sec->addr + value : value;
	if (type == STT_TLS) {
		if (sec->type == SHT_NOBITS)
			return SYM_NONE;
		tls = tls_segment(img);
		if (!rel && tls)
			*addr = tls->vaddr + value;
		return SYM_VM;
	}
	if (!(sec->flags & SHF_ALLOC) || (rel && !sec->addr)) {
		if (sec->type == SHT_NOBITS)
			return SYM_NONE;
		*addr = sec->offset + (rel ? value : value - sec->addr);
		return SYM_FILE;
	}
	return SYM_VM;
}

/* Is an entry of type type and size size one the symbols source labels? */
bool elf_sym_type_used(int type, uint64_t size)
{
	return (type == STT_FUNC || type == STT_OBJECT ||
		type == STT_GNU_IFUNC || type == STT_TLS) &&
	       size;
}

/* The size of a powerpc64 ELFv1 function descriptor (entry address, TOC
 * pointer, environment) */
#define PPC64_OPD_DESC 24

/* Whether a symbol of type type in section sec of img names a powerpc64
 * ELFv1 function descriptor: its value is the descriptor's address in
 * .opd, its st_size the size of the code (elsewhere), so its bytes there
 * are the descriptor's 24 (st_size ran over the next descriptors). */
static bool opd_descriptor(const struct elfimg *img,
			   const struct elf_section *sec, int type)
{
	return img->machine == EM_PPC64 &&
	       (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       !strcmp(sec->name, ".opd");
}

/* Entry i of t as a labelled symbol into *out: a defined STT_FUNC,
 * STT_OBJECT, STT_GNU_IFUNC or STT_TLS of non-zero size in a real
 * section, placed by elf_sym_place(), its size (a powerpc64 function
 * descriptor's in .opd: opd_descriptor()) cut to its section's end
 * (counted in st->clipped); a descriptor's st_size (its code's) into
 * *code_size, else 0. Returns 1 if it is one, 0 if it is skipped, or
 * -MEMSZ_EBADSYM / -MEMSZ_EBADSTRTAB for an entry that cannot be right. */
static int symtab_get(struct elfimg *img, const struct symtab *t, size_t i,
		      struct sym *out, uint64_t *code_size,
		      struct elfsrc_stats *st)
{
	GElf_Sym sym;
	Elf32_Word xndx = 0;
	uint64_t shndx, value, size, secstart, secend;
	const struct elf_section *sec = NULL;
	enum sym_where where;
	int type, bind;

	if (t->xd ? !gelf_getsymshndx(t->d, t->xd, i, &sym, &xndx)
		  : !elf_sym_get(img, t->d, i, &sym))
		return -MEMSZ_EBADSYM;
	if (sym.st_name >= t->sd->d_size)
		return -MEMSZ_EBADSTRTAB;
	shndx = sym.st_shndx;
	if (shndx == SHN_XINDEX) {
		if (!t->xd)
			return -MEMSZ_EBADSYM;
		shndx = xndx;
	} else if (shndx >= SHN_LORESERVE) {
		return 0; /* SHN_ABS, SHN_COMMON, processor-specific */
	}
	if (shndx == SHN_UNDEF)
		return 0;
	if (t->secmap) { /* another file's index: the image's section */
		size_t mine = shndx < t->nsecmap ? t->secmap[shndx] : 0;

		/* a debug file's section the image lacks: a loaded one is
		 * placed by its address, the same in both; a non-loaded
		 * one's bytes (its file offsets) are not the image's */
		if (!mine && t->own && shndx < t->own->nsecs) {
			if (!(t->own->secs[shndx].flags & SHF_ALLOC))
				return 0;
			sec = &t->own->secs[shndx];
		}
		shndx = mine;
	}
	if (!sec && (!shndx || shndx >= img->nsecs))
		return -MEMSZ_EBADSYM;
	type = GELF_ST_TYPE(sym.st_info);
	bind = GELF_ST_BIND(sym.st_info);
	if (!elf_sym_type_used(type, sym.st_size))
		return 0;
	value = sym.st_value;
	if (img->machine == EM_ARM && type == STT_FUNC)
		value &= ~(uint64_t)1;
	size = sym.st_size;
	if (!sec)
		sec = &img->secs[shndx];
	*code_size = 0;
	if (opd_descriptor(img, sec, type)) {
		*code_size = size;
		size = PPC64_OPD_DESC;
	}
	where = elf_sym_place(img, sec, type, value, &value);
	/* SYM_FILE: value is a file offset now; SYM_NONE: no bytes */
	secstart = where == SYM_FILE ? sec->offset : sec->addr;
	secend = secstart + sec->size;
	if (secend < secstart)
		secend = UINT64_MAX;
	if (where == SYM_NONE) {
		secstart = value;
		secend = value + size < value ? UINT64_MAX : value + size;
	}
	/* a TLS offset outside its section is the producer's error, not a
	 * reason to refuse the file */
	if (value < secstart || value > secend)
		return type == STT_TLS ? 0 : -MEMSZ_EBADSYM;
	if (size > secend - value) {
		size = secend - value;
		if (st)
			st->clipped++;
		if (!size)
			return 0;
	}
	out->addr = value;
	out->size = size;
	out->name = t->names + sym.st_name;
	out->rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	out->data = type == STT_OBJECT || type == STT_TLS;
	out->where = where;
	return 1;
}

/* The name bytes the symbols of one table may bring, as a multiple of
 * its string table's size. A linker's table names each symbol once, or
 * shares a suffix: of 170 files measured (libc6-dbg's debug files, this
 * build's programs) the names used added up to at most 1.09 times the
 * string table. Names that overlap (st_name 1, 2, 3, ... into one long
 * string) make each a new long name: 4 000 symbols into 2 MiB took 4.1 GB
 * and 21 s to sort and label. */
#define SYMTAB_NAMES_RATIO 4

/* The code of powerpc64 ELFv1 function one (its descriptor's symbol,
 * whose st_size is code_size) as a symbol of its name into *code: found
 * through opd (NULL: none), in VM. */
static bool opd_code_sym(const struct elf_opd *opd, const struct sym *one,
			 uint64_t code_size, struct sym *code)
{
	if (!opd || !code_size || one->where != SYM_VM ||
	    !elf_opd_code(opd, one->addr, code_size, &code->addr,
			  &code->size) ||
	    !code->size)
		return false;
	code->name = one->name;
	code->rank = one->rank;
	code->data = false;
	code->where = SYM_VM;
	return true;
}

/* Collect the usable symbols of the open table t into *out (*n), placed
 * in img; a powerpc64 ELFv1 function twice, its descriptor and its code
 * (found through opd: NULL for none). An entry that cannot be right fails
 * the table, unless dropped is given: then it is counted there and left
 * out (a MiniDebugInfo's symbol whose section the file lacks, or that
 * lies outside it). Once the names reach SYMTAB_NAMES_RATIO times the
 * string table, this and every later symbol is left out
 * (st->names_dropped): a name repeated by the next symbol counts once. */
static int collect_symbols(struct elfimg *img, const struct symtab *t,
			   const struct elf_opd *opd, struct sym **out,
			   size_t *n, struct elfsrc_stats *st,
			   uint64_t *dropped)
{
	size_t cnt = 0, cap = opd ? 2 * t->nsyms : t->nsyms;
	struct sym *syms;
	uint64_t budget = SYMTAB_NAMES_RATIO * (uint64_t)t->sd->d_size;
	const char *last = NULL;
	int ret;

	/* room for every entry at once: no copies as it grows */
	syms = xmalloc((cap ? cap : 1) * sizeof(*syms));
	for (size_t i = 1, ready = 0; i < t->nsyms; i++) {
		struct sym one, code;
		uint64_t code_size;

		ret = symtab_get(img, t, i, &one, &code_size, st);
		if (ret < 0 && dropped) {
			(*dropped)++;
			continue;
		}
		if (ret < 0) {
			free(syms);
			return ret;
		}
		if (!ret)
			continue;
		if (one.name != last) {
			size_t len = budget ? strnlen(one.name, budget) : 0;

			if (len >= budget) {
				budget = 0; /* no walk over the rest */
				if (st)
					st->names_dropped++;
				continue;
			}
			budget -= len + 1;
			last = one.name;
		}
		if (cnt + 1 >= ready) {
			/* resident prefault_ahead() at a time, in one call
			 * each, not a fault per 4 KiB (libLLVM-14: 350) */
			ready =
			    MIN(cap, cnt + prefault_ahead(cnt * sizeof(*syms)) /
					       sizeof(*syms));
			prefault_write(&syms[cnt],
				       (ready - cnt) * sizeof(*syms));
		}
		syms[cnt++] = one;
		if (opd_code_sym(opd, &one, code_size, &code))
			syms[cnt++] = code;
	}
	*out = syms;
	*n = cnt;
	return 0;
}

/* strcmp() of the names a and b without their version: a .symtab names
 * a versioned symbol glob@@GLIBC_2.27 (or glob@GLIBC_2.2.5), .dynsym
 * names it glob (its version in .gnu.version). */
static int name_cmp_unversioned(const char *a, const char *b)
{
	int ca, cb;

	if (a == b)
		return 0;
	while (*a && *a != '@' && *a == *b) {
		a++;
		b++;
	}
	ca = *a == '@' ? 0 : (unsigned char)*a;
	cb = *b == '@' ? 0 : (unsigned char)*b;
	return ca - cb;
}

/* Name order (without versions), then sym_cmp's; one name at one place
 * first (of one name, sym_cmp picks the row: larger, GLOBAL first). */
static int sym_name_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c = name_cmp_unversioned(x->name, y->name);

	return c ? c : sym_cmp(a, b);
}

/* The names of a MiniDebugInfo's string table: [lo, hi). */
struct name_range {
	uintptr_t lo, hi;
};

static bool name_in(const struct name_range *r, const char *name)
{
	return (uintptr_t)name >= r->lo && (uintptr_t)name < r->hi;
}

/* Leave out of syms[0, *n) (sorted by sym_cmp) every symbol but the
 * first of those of one place, address and name (without its version:
 * glob@@GLIBC_2.27 is glob): a function that .dynsym and a MiniDebugInfo
 * both name (perf and gdb keep one), or a name .dynsym gives twice (two
 * versions). The first in sym_cmp order
 * stays: the largest, GLOBAL before LOCAL. Returns how many of those
 * kept only the MiniDebugInfo names (a name in mdi). */
static size_t syms_dedup(struct sym *syms, size_t *n,
			 const struct name_range *mdi)
{
	size_t w = 0, only = 0;

	for (size_t i = 0, j; i < *n; i = j) {
		size_t start = w;

		for (j = i + 1; j < *n && syms[j].where == syms[i].where &&
				syms[j].addr == syms[i].addr;
		     j++)
			;
		if (j - i > 1)
			qsort(syms + i, j - i, sizeof(*syms), sym_name_cmp);
		for (size_t k = i, e; k < j; k = e) {
			bool dyn = !name_in(mdi, syms[k].name);

			for (e = k + 1;
			     e < j &&
			     !name_cmp_unversioned(syms[e].name, syms[k].name);
			     e++)
				dyn = dyn || !name_in(mdi, syms[e].name);
			syms[w++] = syms[k];
			only += !dyn;
		}
		if (w - start > 1)
			qsort(syms + start, w - start, sizeof(*syms), sym_cmp);
	}
	*n = w;
	return only;
}

/* Add the symbols of img's MiniDebugInfo to syms[0, *n) (grown; *out
 * may be NULL; opd: as collect_symbols() takes it), its answer and counts
 * into st, its string table into *names. Returns whether any was added. */
static bool add_minidebug(struct elfimg *img, const struct elf_opd *opd,
			  struct sym **out, size_t *n, struct elfsrc_stats *st,
			  struct name_range *names)
{
	const struct elf_mdi *m = elf_minidebug_get(img);
	struct elfsrc_stats *s = st, none;
	struct sym *more = NULL;
	size_t nmore = 0;
	struct symtab t;
	int ret;

	if (!s)
		s = memset(&none, 0, sizeof(none));
	s->mdi_found = m->zsize != 0;
	s->mdi_why = m->why;
	s->mdi_err = m->err;
	s->mdi_zsize = m->zsize;
	s->mdi_size = m->size;
	s->mdi_nested = m->nested;
	if (!m->img)
		return false;
	ret = symtab_open(m->img, elf_symtab_find(m->img, SHT_SYMTAB), &t);
	if (!ret) {
		size_t *map = elf_minidebug_secmap(img, m->img);

		t.secmap = map;
		t.nsecmap = m->img->nsecs;
		names->lo = (uintptr_t)t.names;
		names->hi = names->lo + t.sd->d_size;
		ret = collect_symbols(img, &t, opd, &more, &nmore, st,
				      &s->mdi_dropped);
		free(map);
	}
	if (ret) {
		s->mdi_why = ELF_MDI_BAD_SYMTAB;
		s->mdi_err = ret;
		return false;
	}
	*out = xrealloc(*out, (*n + nmore + 1) * sizeof(**out));
	memcpy(*out + *n, more, nmore * sizeof(*more));
	*n += nmore;
	s->mdi_symbols = nmore;
	free(more);
	return nmore != 0;
}

/* The usable symbols of .symtab, else img->debug's .symtab, else .dynsym
 * and those of the MiniDebugInfo, sorted by address, into *out (caller
 * frees) and *n. */
int elf_syms_load(struct elfimg *img, struct sym **out, size_t *n,
		  struct elfsrc_stats *st)
{
	struct elfimg *from = img;
	/* a powerpc64 ELFv1 function's code, named through its descriptor */
	struct elf_opd *opd = elf_opd_open(img);
	struct symtab t;
	struct name_range names = {0, 0};
	bool merged = false;
	ssize_t tab;
	int ret;

	*out = NULL;
	*n = 0;
	tab = elf_symtab_find(img, SHT_SYMTAB);
	if (tab < 0 && img->debug) {
		tab = elf_symtab_find(img->debug, SHT_SYMTAB);
		if (tab >= 0) {
			from = img->debug;
			if (st)
				st->used_debug_file = true;
		}
	}
	if (tab < 0) {
		tab = elf_symtab_find(img, SHT_DYNSYM);
		if (tab >= 0 && st)
			st->used_dynsym = true;
		/* no .symtab anywhere: the stripped functions may be named
		 * in .gnu_debugdata, added below to the dynamic symbols */
		merged = true;
	}
	if (tab >= 0) {
		size_t *map = NULL;

		ret = symtab_open(from, tab, &t);
		if (!ret && from != img) {
			/* placed in the image's sections: a debug file's
			 * are NOBITS (.tdata too), at other file offsets */
			map = elf_minidebug_secmap(img, from);
			t.secmap = map;
			t.nsecmap = from->nsecs;
			t.own = from;
		}
		if (!ret)
			ret = collect_symbols(img, &t, opd, out, n, st, NULL);
		free(map);
		if (ret) {
			elf_opd_close(opd);
			return ret;
		}
	}
	merged = merged && add_minidebug(img, opd, out, n, st, &names);
	elf_opd_close(opd);
	if (*n)
		syms_sort(*out, *n);
	if (merged) {
		size_t only = syms_dedup(*out, n, &names);

		if (st)
			st->mdi_symbols = only;
	}
	return 0;
}

/* The value of symbol name in img's symbol table (.symtab), if it
 * defines it. */
bool elf_sym_value(const struct elfimg *img, const char *name, uint64_t *v)
{
	Elf *elf = elfimg_elf(img);

	for (size_t i = 1; i < img->nsecs; i++) {
		Elf_Data *d = img->secs[i].type == SHT_SYMTAB
				  ? elf_getdata(elf_getscn(elf, i), NULL)
				  : NULL;
		size_t esz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		size_t n = d && esz ? d->d_size / esz : 0;
		GElf_Sym sym;

		for (size_t k = 1; k < n; k++) {
			const char *nm;

			if (!gelf_getsym(d, (int)k, &sym) ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(elf, img->secs[i].link, sym.st_name);
			if (nm && !strcmp(nm, name)) {
				*v = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

/* Whether img was linked by Go (its build-id note or build information
 * section), and where its Go code lies, [*lo, *hi): Go's compiler
 * addresses data relative to RIP only, also in the position-dependent
 * executables go build writes, so an immediate or an absolute
 * displacement in its code is a number (0x4c4b40 is 5 000 000, and fell
 * inside .gopclntab, which no code addresses). Go's linker brackets its
 * code with the symbols runtime.text and runtime.etext; C code outside
 * them (cgo's, or a C program's linked with a Go c-archive) is compiled
 * as any and keeps its absolute references. Without those symbols
 * (stripped), all of img's code is taken for Go's. */
bool elf_go_text(const struct elfimg *img, uint64_t *lo, uint64_t *hi)
{
	bool go = false;

	for (size_t i = 0; i < img->nsecs; i++)
		if (!strcmp(img->secs[i].name, ".note.go.buildid") ||
		    !strcmp(img->secs[i].name, ".go.buildinfo"))
			go = true;
	*lo = 0;
	*hi = UINT64_MAX;
	if (go && (!elf_sym_value(img, "runtime.text", lo) ||
		   !elf_sym_value(img, "runtime.etext", hi) || *hi < *lo)) {
		*lo = 0;
		*hi = UINT64_MAX;
	}
	return go;
}

/* The index of the first symbol of syms (sorted by start) that starts
 * after a (n if none). */
static size_t range_after(const struct elf_range *syms, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The symbol range of syms (sorted by start) holding a, or NULL. */
const struct elf_range *elf_range_holding(const struct elf_range *syms,
					  size_t n, uint64_t a)
{
	size_t i = range_after(syms, n, a);

	return i && a < syms[i - 1].end ? &syms[i - 1] : NULL;
}

/* The start of the first symbol of syms (sorted by start) after a, if
 * below end; else end. Under compileunits the map holds units only, and
 * the symbols no unit describes still end a reference's range. */
uint64_t elf_range_next(const struct elf_range *syms, size_t n, uint64_t a,
			uint64_t end)
{
	size_t i = range_after(syms, n, a);

	return i < n && syms[i].start < end ? syms[i].start : end;
}
