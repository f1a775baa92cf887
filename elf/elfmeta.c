// SPDX-License-Identifier: GPL-2.0-or-later
/* elfmeta.c — the metadata of an image charged to the label it serves:
 * FDEs, .eh_frame_hdr entries, relocation entries, symbol table entries
 * with their versions, names and hash words (see elfmeta.h). */
#include "config.h"

#include "elf/armexidx.h"
#include "elf/ehframe.h"
#include "elf/elfmeta.h"
#include "elf/elfpriv.h"
#include "elf/lsdatab.h"
#include "elf/metasink.h"
#include "elf/relocs.h"
#include "elf/secrefs.h"
#include "elf/symtab.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* meta_fdes()'s walk: the sink, the table being built, the lookup
 * hint, the LSDAs the FDEs point to */
struct fdewalk {
	struct metasink *ms;
	struct vartab t;
	size_t hint;
	struct elf_refs lsda;
};

/* FDEs mostly follow the code: looked up from the last one on. The CIEs
 * between them are holes of the table. */
static void fde_push(void *arg, const struct elf_fde *f)
{
	struct fdewalk *w = arg;
	uint32_t id = rmap_lookup_near(w->ms->out->vm, f->pc_begin, &w->hint);

	vartab_add(&w->t, f->off, f->off + f->size, id);
	/* an LSDA of code no symbol covers ends the one before it too */
	if (f->has_lsda)
		elf_ref_add(&w->lsda, f->lsda, id);
}

/* Each FDE (its whole record) to the symbol holding its pc_begin, one
 * table a section (a .o's: its relocations applied). The sections are those
 * elf_ehframe_read() reads (ALLOC .eh_frame, PROGBITS or SHT_X86_64_UNWIND),
 * walked one at a time (the FDEs are not kept) and their bytes freed after.
 * Then the LSDAs they point to in .gcc_except_table, to the same symbols
 * (elf/lsdatab.c): no other table writes there, so this job's hull
 * (meta_jobs()) leaves that section out. That is right only while no
 * other table's section overlaps .gcc_except_table: in a hostile file
 * whose .gcc_except_table shares bytes with, say, .rela.dyn or .dynsym,
 * the hulls may look disjoint and the jobs go in the order of their
 * offsets, so the shared bytes go to whichever table writes them first
 * there rather than in the canonical order (other labels, the same
 * total). */
static void meta_fdes(struct elfimg *img, struct metasink *ms)
{
	struct fdewalk w = {.ms = ms};

	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		unsigned char *b;

		if (strcmp(s->name, ".eh_frame") || !(s->flags & SHF_ALLOC) ||
		    !s->size ||
		    (s->type != SHT_PROGBITS && s->type != SHT_X86_64_UNWIND))
			continue;
		b = elfimg_section_read(img, i);
		if (!b)
			continue;
		/* a .o's pointers to its code are relocations (0 or an
		 * offset in the file): applied, as if linked where its
		 * sections were laid out; one memsz does not apply leaves
		 * the section unattributed */
		if (elf_reloc_section(img, i, b))
			elf_ehframe_walk(b, (size_t)s->size, s->addr,
					 img->elfclass, img->big_endian,
					 fde_push, &w, NULL);
		else
			ms->eh_unrelocated += s->size;
		xfree_huge(b, (size_t)s->size);
		vartab_push(&w.t, ms, s->offset, true);
	}
	ms->lsda_skipped += elf_lsda_add(img, ms, &w.lsda);
}

/* meta_hdr()'s walk: the labels of the entries so far (in the labels
 * the table is added with: no copy), room for cap of them, the first
 * entry's place and size (the table's entries follow each other, of one
 * size), the lookup hint */
struct hdrwalk {
	struct metasink *ms;
	struct rmap_labels *l;
	size_t n, cap, hint;
	uint64_t off, size;
};

/* sorted by address: looked up from the last one on */
static void hdr_label(void *arg, const struct elf_ehhdr_entry *e)
{
	struct hdrwalk *w = arg;

	if (!w->n) {
		w->off = e->off;
		w->size = e->size;
	}
	if (w->n >= w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		if (w->cap > (SIZE_MAX - sizeof(*w->l)) / sizeof(w->l->id[0]))
			abort(); /* cannot fit in memory anyway */
		w->l = xrealloc(w->l,
				sizeof(*w->l) + w->cap * sizeof(w->l->id[0]));
		if (!w->n) {
			w->l->refs = 1;
			w->l->at = NULL;
		}
	}
	w->l->id[w->n++] =
	    rmap_lookup_near(w->ms->out->vm, e->initial_loc, &w->hint);
}

/* Each .eh_frame_hdr search table entry to the symbol of its initial
 * location, as one table (a table that fails to decode: none). CIEs and
 * the table's header stay "[section ...]". */
static void meta_hdr(struct elfimg *img, struct metasink *ms)
{
	struct hdrwalk w = {.ms = ms};
	int ret = elf_ehframe_hdr_foreach(img, hdr_label, &w);

	elfimg_drop_data(img);
	if (ret == 0 && w.n && w.size) {
		/* to its size: the slack of the doubling goes back */
		w.l = xrealloc(w.l, sizeof(*w.l) + w.n * sizeof(w.l->id[0]));
		w.l->n = w.n;
		meta_table(ms, w.off, w.size, w.n, w.l, 0, true);
	}
	rmap_labels_put(w.l);
}

/* meta_relocs()'s walk: the sink, the entry last labelled (a RELR word
 * is labelled once), the lookup hint and, for a second walk (after
 * --disasm), the cursors of covered(). */
struct relwalk {
	struct metasink *ms;
	uint64_t done;
	size_t hint;
	bool again;
	size_t fhint, vhint;
	/* the gap between two entries of the (frozen) VM map that the last
	 * target without a label fell in: [gap_lo, gap_hi) */
	uint64_t gap_lo, gap_hi;
};

/* After rmap_lookup_near() found no label at target (w->hint: the first
 * entry that ends after it), the gap of the VM map around it into w, if
 * target lies in one (not in a table's hole): the next targets, which
 * mostly follow, are answered there without a look-up (libLLVM-14: 300 k
 * entries of .rela.dyn patch data no symbol holds). */
static void reloc_gap(struct relwalk *w, uint64_t target)
{
	size_t n, i = w->hint;
	const struct rmap_entry *e = rmap_extents(w->ms->out->vm, &n);

	if (i > n || (i < n && e[i].start <= target) ||
	    (i && e[i - 1].end > target))
		return;
	w->gap_lo = i ? e[i - 1].end : 0;
	w->gap_hi = i < n ? e[i].start : UINT64_MAX;
}

/* Does one entry of map m hold [start, start + size) whole? *hint: the
 * first entry ending after the last start asked (the walk goes forward):
 * a few steps on from it is rmap_find()'s answer, start in a gap too. */
static bool covered(struct rmap *m, uint64_t start, uint64_t size, size_t *hint)
{
	size_t n, i = *hint, steps = 0;
	const struct rmap_entry *e = rmap_extents(m, &n);

	if (i > n || (i && e[i - 1].end > start))
		i = rmap_find(m, start);
	while (i < n && e[i].end <= start && steps++ < 8)
		i++;
	if (i < n && e[i].end <= start)
		i = rmap_find(m, start);
	*hint = i;
	return i < n && e[i].start <= start && e[i].end - start >= size;
}

/* Would the add of entry r change nothing, its bytes (and the VM they are
 * loaded at, as meta_flush() finds it) labelled already? On a second
 * walk, most entries are: the first labelled them. */
static bool reloc_done(struct relwalk *w, const struct elf_reloc *r)
{
	struct metasink *ms = w->ms;
	uint64_t vm;

	if (!covered(ms->out->file, r->entry_off, r->entry_size, &w->fhint))
		return false;
	if (!ms->base ||
	    !dualmap_cursor_holds(&ms->cur, r->entry_off, r->entry_size))
		return false;
	if (ms->cur.e.other == RMAP_NO_TRANSLATION)
		return true;
	vm = ms->cur.e.other + (r->entry_off - ms->cur.e.start);
	return covered(ms->out->vm, vm, r->entry_size, &w->vhint);
}

static void meta_reloc(const struct elf_reloc *r, void *arg)
{
	struct relwalk *w = arg;
	uint32_t id;

	if (r->entry_off == w->done)
		return;
	/* no label there, so nothing to add (on a second walk either: the
	 * entry skipped as labelled already would add nothing either; that
	 * answer does not depend on the target) */
	if (r->target >= w->gap_lo && r->target < w->gap_hi)
		return;
	if (w->again && reloc_done(w, r)) {
		w->done = r->entry_off;
		return;
	}
	/* tables are mostly sorted by the address patched */
	id = rmap_lookup_near(w->ms->out->vm, r->target, &w->hint);
	if (id == LABEL_NONE) {
		reloc_gap(w, r->target);
		return;
	}
	meta_push(w->ms, r->entry_off, r->entry_size, id, true);
	w->done = r->entry_off;
}

/* Each relocation entry to the symbol holding the address it patches; a
 * RELR word (which may set up to 63 addresses) to the symbol of the first
 * address it encodes that lies in a symbol. Decoded as walked: the
 * relocations are not kept. again: a second walk, which skips the
 * entries labelled already (their adds would change nothing: the first
 * writer of a byte wins). */
static void meta_relocs(struct elfimg *img, struct metasink *ms, bool again)
{
	struct relwalk w = {ms, UINT64_MAX, 0, again, 0, 0, 0, 0};

	elf_relocs_foreach(img, meta_reloc, &w);
}

/* A symbol table whose entries are charged to their symbols: its
 * sections (ver: its .gnu.version, or NULL), data and entry count. */
struct symtab_meta {
	const struct elfimg *img;
	const struct elf_section *tab, *strs, *ver;
	Elf_Data *d, *sd;
	Elf_Data *xd; /* its SHT_SYMTAB_SHNDX (section indexes >= 0xff00) */
	size_t entsize, nsyms;
};

/* Open symbol table tabndx of img into *t; false if it cannot be read
 * (entry size, sizes and string table must agree with the headers). */
static bool symtab_meta_open(struct elfimg *img, size_t tabndx,
			     struct symtab_meta *t)
{
	Elf *elf = elfimg_elf(img);

	memset(t, 0, sizeof(*t));
	t->img = img;
	t->tab = &img->secs[tabndx];
	t->entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (t->tab->entsize != t->entsize || t->tab->size % t->entsize ||
	    t->tab->type == SHT_NOBITS)
		return false;
	t->strs = &img->secs[t->tab->link];
	t->d = elf_getdata(elf_getscn(elf, tabndx), NULL);
	t->sd = elf_rawdata(elf_getscn(elf, t->tab->link), NULL);
	if (!t->d || t->d->d_size != t->tab->size || !t->sd || !t->sd->d_buf ||
	    t->sd->d_size != t->strs->size || t->strs->type == SHT_NOBITS)
		return false;
	t->nsyms = t->tab->size / t->entsize;
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_SYMTAB_SHNDX &&
		    img->secs[i].link == tabndx && !t->xd)
			t->xd = elf_getdata(elf_getscn(elf, i), NULL);
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_GNU_versym &&
		    img->secs[i].link == tabndx &&
		    img->secs[i].size == t->nsyms * 2)
			t->ver = &img->secs[i];
	return true;
}

/* The name of entry sym of t and its length, or NULL if it has none or
 * it is not terminated inside the string table. */
static const char *entry_name(const struct symtab_meta *t, const GElf_Sym *sym,
			      size_t *len)
{
	const char *name;

	*len = 0;
	if (!sym->st_name || sym->st_name >= t->sd->d_size)
		return NULL;
	name = (const char *)t->sd->d_buf + sym->st_name;
	*len = strnlen(name, t->sd->d_size - sym->st_name);
	if (*len == t->sd->d_size - sym->st_name)
		return NULL;
	return name;
}

/* The label of symbol table entry sym of t, of type type and value value
 * in section sec, or LABEL_NONE: looked up where elf_sym_place() puts
 * it, in VM or in file; one with no place (.tbss) by its name in sn
 * (NULL: not looked up), the only case that needs the name. */
static uint32_t entry_label(const struct elfimg *img,
			    const struct elf_section *sec, int type,
			    uint64_t value, const struct symtab_meta *t,
			    const GElf_Sym *sym, const struct elfmeta_names *sn,
			    struct metasink *ms)
{
	const char *name;
	uint32_t id;
	size_t len;
	char *dm;

	switch (elf_sym_place(img, sec, type, value, &value)) {
	case SYM_VM:
		return sym_at(ms, value);
	case SYM_FILE:
		return rmap_lookup(ms->out->file, value, NULL);
	case SYM_NONE:
		name = sn ? entry_name(t, sym, &len) : NULL;
		if (!name)
			return LABEL_NONE;
		dm = elf_demangle_as(name, sn->style);
		id = labels_find(sn->lb, dm ? dm : name);
		free(dm);
		return id;
	}
	return LABEL_NONE;
}

/* The labels at VM addresses k[0, n) (address << 32 | entry, max the or
 * of the addresses) into ids[entry], looked up in address order: a
 * .dynsym is in hash order, a search each missed the cache. */
static void ids_at_vm(struct metasink *ms, uint64_t *k, size_t n, uint64_t max,
		      uint32_t *ids)
{
	size_t hint = 0;

	u64_sort_high(k, n, max);
	for (size_t j = 0; j < n; j++)
		ids[(uint32_t)k[j]] =
		    rmap_lookup_near(ms->out->vm, k[j] >> 32, &hint);
}

/* The section index of entry i of t whose st_shndx is SHN_XINDEX, from
 * the table's SHT_SYMTAB_SHNDX; UINT64_MAX if there is none (0xffff is
 * a section index there). */
static uint64_t xindex(const struct symtab_meta *t, size_t i)
{
	Elf32_Word x;
	GElf_Sym sym;

	if (!t->xd || !gelf_getsymshndx(t->d, t->xd, i, &sym, &x))
		return UINT64_MAX;
	return x;
}

/* The label of every entry of t into new labels (the caller's
 * reference) of t->nsyms ids, LABEL_NONE for an entry not describing a labelled
 * symbol (a defined function or object of non-zero size whose address
 * the symbols map labels). Only queries: the map is frozen. Those in
 * VM last, by ids_at_vm() (where they and i fit in 32 bits). */
static struct rmap_labels *symtab_meta_ids(struct elfimg *img,
					   const struct symtab_meta *t,
					   const struct elfmeta_names *sn,
					   struct metasink *ms)
{
	struct rmap_labels *l = rmap_labels_new(t->nsyms);
	uint64_t *k = xmalloc((t->nsyms ? t->nsyms : 1) * sizeof(*k));
	uint64_t max = 0;
	uint32_t *ids = l->id;
	size_t n = 0;

	for (size_t i = 1; i < t->nsyms; i++) {
		uint64_t value, at, shndx;
		GElf_Sym sym;
		int type;

		if (!elf_sym_get(t->img, t->d, i, &sym))
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
		shndx =
		    sym.st_shndx == SHN_XINDEX ? xindex(t, i) : sym.st_shndx;
		if (shndx >= img->nsecs) {
			/* no section at hand: by address, as loaded */
			if (type == STT_TLS)
				continue;
			at = value;
		} else if (elf_sym_place(img, &img->secs[shndx], type, value,
					 &at) != SYM_VM) {
			ids[i] = entry_label(img, &img->secs[shndx], type,
					     value, t, &sym, sn, ms);
			continue;
		}
		if (at > UINT32_MAX || i > UINT32_MAX) {
			ids[i] = sym_at(ms, at);
			continue;
		}
		k[n++] = at << 32 | i;
		max |= at;
	}
	ids_at_vm(ms, k, n, max, ids);
	free(k);
	return l;
}

/* Which pieces of a symbol table entry symtab_push() adds */
enum {
	PART_ENTRY = 1,	  /* the entry */
	PART_VERSION = 2, /* its .gnu.version word */
	PART_NAME = 4,	  /* its name in the string table */
};

/* The parts of the entries of t labelled in ids to their labels, entry
 * by entry (each entry's parts in the order of enum above). */
static void symtab_push(const struct symtab_meta *t, const uint32_t *ids,
			unsigned parts, struct metasink *ms)
{
	for (size_t i = 1; i < t->nsyms; i++) {
		const char *name;
		size_t len;
		GElf_Sym sym;

		if (ids[i] == LABEL_NONE)
			continue;
		if ((parts & PART_ENTRY))
			meta_push(ms, t->tab->offset + i * t->entsize,
				  t->entsize, ids[i],
				  t->tab->flags & SHF_ALLOC);
		if ((parts & PART_VERSION) && t->ver)
			meta_push(ms, t->ver->offset + i * 2, 2, ids[i],
				  t->ver->flags & SHF_ALLOC);
		if (!(parts & PART_NAME) || !elf_sym_get(t->img, t->d, i, &sym))
			continue;
		name = entry_name(t, &sym, &len);
		if (name)
			meta_push(ms, t->strs->offset + sym.st_name, len + 1,
				  ids[i], t->strs->flags & SHF_ALLOC);
	}
}

/* The names k[0, n) (string offset << 32 | entry, sorted; len: their
 * lengths) into v, each byte to the first entry whose name holds it. Two
 * names that overlap end at one NUL (a suffix shared): a byte goes to the
 * first entry of those starting at or before it. False if not so. */
static bool names_pieces(const uint64_t *k, size_t n, const size_t *len,
			 const uint32_t *ids, struct vartab *v)
{
	for (size_t j = 0; j < n;) {
		uint64_t off = k[j] >> 32, end = off + len[(uint32_t)k[j]] + 1;
		size_t first = (uint32_t)k[j];

		for (j++; j < n && (k[j] >> 32) < end; j++) {
			uint64_t o = k[j] >> 32;
			size_t i = (uint32_t)k[j];

			if (o + len[i] + 1 != end)
				return false;
			if (o > off) {
				vartab_add(v, off, o, ids[first]);
				off = o;
			}
			first = MIN(first, i);
		}
		vartab_add(v, off, end, ids[first]);
	}
	return true;
}

/* The names of the entries of t labelled in ids as one table, sorted, as
 * the adds entry by entry would label them (those, a big file's 100 k
 * names in no order, needed sorting at settle). Else entry by entry. */
static void symtab_push_names(const struct symtab_meta *t, const uint32_t *ids,
			      struct metasink *ms)
{
	uint64_t *k = xmalloc((t->nsyms ? t->nsyms : 1) * sizeof(*k));
	size_t *len = xmalloc((t->nsyms ? t->nsyms : 1) * sizeof(*len));
	struct vartab v = {0};
	size_t n = 0;
	uint64_t max = 0;
	bool ok = t->nsyms <= UINT32_MAX;

	for (size_t i = 1; i < t->nsyms && ok; i++) {
		GElf_Sym sym;

		if (ids[i] == LABEL_NONE ||
		    !elf_sym_get(t->img, t->d, i, &sym) || !sym.st_name ||
		    sym.st_name >= t->sd->d_size)
			continue;
		k[n++] = (uint64_t)sym.st_name << 32 | i;
		max |= sym.st_name;
	}
	if (ok) {
		size_t m = 0;

		u64_sort_high(k, n, max);
		/* the lengths in string table order (entry_name() in entry
		 * order missed the cache a name); unterminated names out */
		for (size_t j = 0; j < n; j++) {
			uint64_t off = k[j] >> 32, room = t->sd->d_size - off;
			size_t i = (uint32_t)k[j];

			len[i] =
			    strnlen((const char *)t->sd->d_buf + off, room);
			if (len[i] < room)
				k[m++] = k[j];
		}
		ok = names_pieces(k, m, len, ids, &v);
	}
	if (ok) {
		vartab_push(&v, ms, t->strs->offset,
			    t->strs->flags & SHF_ALLOC);
	} else {
		vartab_free(&v);
		symtab_push(t, ids, PART_NAME, ms);
	}
	free(len);
	free(k);
}

/* The nb bucket words at w, file offset off, that name a symbol y (not
 * 0, below ids->n): each to ids' label of y. */
static void hash_buckets(struct metasink *ms, uint64_t off,
			 const unsigned char *w, uint64_t nb, bool be,
			 struct rmap_labels *ids, bool alloc)
{
	struct rmap_labels *l = rmap_labels_new(nb);

	for (uint64_t b = 0; b < nb; b++) {
		uint64_t y = elf_get_uint(w + b * 4, 4, be);

		if (y && y < ids->n)
			l->id[b] = ids->id[y];
	}
	meta_table(ms, off, 4, nb, l, 0, alloc);
	rmap_labels_put(l);
}

/* The words of the symbol hash tables of symbol table tabndx (.hash,
 * .gnu.hash) that name one symbol, to that symbol's label ids[index]:
 * .hash's bucket (the first symbol of its chain) and chain words (one per
 * symbol), .gnu.hash's buckets (the first symbol of the bucket) and hash
 * values (one per symbol from symoffset on). Headers and .gnu.hash's bloom
 * filter serve all symbols and stay "[section ...]". */
static void meta_hash(struct elfimg *img, size_t tabndx,
		      struct rmap_labels *ids, struct metasink *ms)
{
	size_t nids = ids->n;

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
			hash_buckets(ms, h->offset + 8, p + 8, nb, be, ids,
				     alloc);
			if (nc > 1)
				meta_table(ms, h->offset + 8 + (nb + 1) * 4, 4,
					   nc - 1, ids, 1, alloc);
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
			hash_buckets(ms, h->offset + hdr, p + hdr, nb, be, ids,
				     alloc);
			hdr += nb * 4;
			/* the hash values, one per symbol from symoff on */
			meta_table(ms, h->offset + hdr, 4,
				   MIN(nids - symoff, (h->size - hdr) / 4), ids,
				   symoff, alloc);
		}
	}
}

void elfmeta_add_relocs(struct elfimg *img, struct dualmap *base,
			struct dualmap *out)
{
	struct metasink ms;

	meta_begin(&ms, base, out);
	meta_relocs(img, &ms, true);
	meta_end(&ms);
}

/* --- the order the metadata goes in ---
 *
 * Each table is walked in the order of its entries, which is the order of
 * their offsets. Walked one after the other in the order of their
 * offsets, the tables add their entries in order, and the map being
 * built has nothing to sort when it settles. That order may differ from
 * the canonical one (unwind, relocations, each symbol table's entries
 * with their versions and names, its hash tables): it changes nothing
 * when no two tables share a byte in the file or in the VM the file is
 * loaded at, since only the first writer of a byte counts. Otherwise
 * the canonical order is kept. */

enum meta_kind {
	MK_FDES,     /* .eh_frame */
	MK_HDR,	     /* .eh_frame_hdr */
	MK_EXIDX,    /* ARM's .ARM.exidx and .ARM.extab */
	MK_RELOCS,   /* every relocation section */
	MK_ENTRIES,  /* a symbol table */
	MK_VERSIONS, /* its .gnu.version */
	MK_NAMES,    /* its string table */
	MK_HASH,     /* its .hash and .gnu.hash (.dynsym only) */
};

/* One table: its kind, symbol table, and the hull of the file bytes
 * (and of the VM they are loaded at) its entries can lie in. */
struct meta_job {
	enum meta_kind kind;
	size_t tab;
	uint64_t fs, fe, vs, ve;
};

static void hull_add(struct meta_job *j, const struct elf_section *s)
{
	uint64_t end;

	if (!s || !s->size || s->type == SHT_NOBITS)
		return;
	end =
	    s->size > UINT64_MAX - s->offset ? UINT64_MAX : s->offset + s->size;
	if (j->fs == j->fe) {
		j->fs = s->offset;
		j->fe = end;
		return;
	}
	j->fs = MIN(j->fs, s->offset);
	j->fe = MAX(j->fe, end);
}

static int vm_hull_add(void *arg, const struct rmap_entry *piece)
{
	struct meta_job *j = arg;
	uint64_t len = piece->end - piece->start;

	if (piece->other == RMAP_NO_TRANSLATION)
		return 0;
	if (j->vs == j->ve) {
		j->vs = piece->other;
		j->ve = piece->other + len;
		return 0;
	}
	j->vs = MIN(j->vs, piece->other);
	j->ve = MAX(j->ve, piece->other + len);
	return 0;
}

/* Are the hulls [s, e) of the n jobs (sorted in place by s) disjoint? */
static bool hulls_disjoint(uint64_t (*h)[2], size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k && h[k][0] < h[k - 1][0]; k--) {
			uint64_t t[2] = {h[k][0], h[k][1]};

			memcpy(h[k], h[k - 1], sizeof(t));
			memcpy(h[k - 1], t, sizeof(t));
		}
	for (size_t i = 1; i < n; i++)
		if (h[i][0] < h[i - 1][1])
			return false;
	return true;
}

/* The jobs of img into j (room for 4 + 4 * nsecs); their number. */
static size_t meta_jobs(struct elfimg *img, struct dualmap *base,
			struct meta_job *j)
{
	size_t n = 0;

	for (int kind = MK_FDES; kind <= MK_RELOCS; kind++) {
		j[n] = (struct meta_job){.kind = kind};
		for (size_t i = 1; i < img->nsecs; i++) {
			const struct elf_section *s = &img->secs[i];

			if ((kind == MK_FDES &&
			     !strcmp(s->name, ".eh_frame")) ||
			    (kind == MK_HDR &&
			     !strcmp(s->name, ".eh_frame_hdr")) ||
			    (kind == MK_EXIDX &&
			     elf_armexidx_section(img, s)) ||
			    (kind == MK_RELOCS &&
			     (s->type == SHT_REL || s->type == SHT_RELA ||
			      s->type == SHT_RELR)))
				hull_add(&j[n], s);
		}
		n++;
	}
	for (size_t i = 1; i < img->nsecs; i++) {
		struct symtab_meta t;

		if ((img->secs[i].type != SHT_SYMTAB &&
		     img->secs[i].type != SHT_DYNSYM) ||
		    !symtab_meta_open(img, i, &t))
			continue;
		for (int kind = MK_ENTRIES; kind <= MK_HASH; kind++)
			j[n + kind - MK_ENTRIES] =
			    (struct meta_job){.kind = kind, .tab = i};
		hull_add(&j[n], t.tab);
		hull_add(&j[n + 1], t.ver);
		hull_add(&j[n + 2], t.strs);
		for (size_t k = 1; k < img->nsecs; k++)
			if ((img->secs[k].type == SHT_HASH ||
			     img->secs[k].type == SHT_GNU_HASH) &&
			    img->secs[k].link == i &&
			    img->secs[i].type == SHT_DYNSYM)
				hull_add(&j[n + 3], &img->secs[k]);
		n += 4;
	}
	for (size_t i = 0; base && i < n; i++)
		if (j[i].fs < j[i].fe)
			rmap_foreach(base->file, j[i].fs, j[i].fe, vm_hull_add,
				     &j[i]);
	return n;
}

/* May the jobs go in the order of their offsets? (see above) */
static bool meta_reorder(struct meta_job *j, size_t n)
{
	uint64_t(*h)[2] = xcalloc(n ? n : 1, sizeof(*h));
	size_t nf = 0, nv = 0;
	bool ok;

	for (size_t i = 0; i < n; i++)
		if (j[i].fs < j[i].fe) {
			h[nf][0] = j[i].fs;
			h[nf++][1] = j[i].fe;
		}
	ok = hulls_disjoint(h, nf);
	for (size_t i = 0; i < n; i++)
		if (j[i].vs < j[i].ve) {
			h[nv][0] = j[i].vs;
			h[nv++][1] = j[i].ve;
		}
	ok = ok && hulls_disjoint(h, nv);
	free(h);
	if (!ok)
		return false;
	/* by offset; stable, empty ones first (they add nothing) */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k && j[k].fs < j[k - 1].fs; k--) {
			struct meta_job t = j[k];

			j[k] = j[k - 1];
			j[k - 1] = t;
		}
	return true;
}

/* Run job j; ids[tab]: the labels of symbol table tab's entries. */
static void meta_run(struct elfimg *img, const struct meta_job *j,
		     struct rmap_labels *const *ids, bool reordered,
		     struct metasink *ms)
{
	struct symtab_meta t;

	switch (j->kind) {
	case MK_EXIDX:
		/* ARM's only: elsewhere the drop below would only make the
		 * symbol tables' jobs read them again (libLLVM-14's .dynsym
		 * and .dynstr, read by the symbols just before: 4 MB) */
		if (img->machine != EM_ARM)
			return;
		/* fall through */
	case MK_FDES:
	case MK_HDR:
	case MK_RELOCS:
		/* each table read is done with once its entries are added:
		 * free libelf's copies (.rela.dyn, .eh_frame: megabytes) as
		 * the maps grow */
		elfimg_drop_data(img);
		if (j->kind == MK_FDES)
			meta_fdes(img, ms);
		else if (j->kind == MK_HDR)
			meta_hdr(img, ms);
		else if (j->kind == MK_EXIDX)
			elf_armexidx_add(img, ms);
		else
			meta_relocs(img, ms, false);
		elfimg_drop_data(img);
		return;
	case MK_HASH:
		if (img->secs[j->tab].type == SHT_DYNSYM &&
		    symtab_meta_open(img, j->tab, &t))
			meta_hash(img, j->tab, ids[j->tab], ms);
		return;
	default:
		break;
	}
	if (!symtab_meta_open(img, j->tab, &t))
		return;
	if (!reordered) /* entry by entry, its parts together */
		symtab_push(&t, ids[j->tab]->id,
			    PART_ENTRY | PART_VERSION | PART_NAME, ms);
	else if (j->kind == MK_NAMES)
		symtab_push_names(&t, ids[j->tab]->id, ms);
	else if (j->kind == MK_ENTRIES) /* entry i is symbol i's */
		meta_table(ms, t.tab->offset, t.entsize, t.nsyms, ids[j->tab],
			   0, t.tab->flags & SHF_ALLOC);
	else if (t.ver) /* and so is version word i */
		meta_table(ms, t.ver->offset, 2, t.nsyms, ids[j->tab], 0,
			   t.ver->flags & SHF_ALLOC);
}

uint64_t elfmeta_add(struct elfimg *img, const struct elfmeta_names *sn,
		     struct dualmap *base, struct dualmap *out,
		     uint64_t *lsda_skipped)
{
	struct meta_job *j = xcalloc(4 + 4 * img->nsecs, sizeof(*j));
	struct rmap_labels **ids =
	    xcalloc(img->nsecs ? img->nsecs : 1, sizeof(*ids));
	struct metasink ms;
	bool reordered;
	size_t n;

	meta_begin(&ms, base, out);
	n = meta_jobs(img, base, j);
	/* the labels first: the lookups see the frozen map only */
	for (size_t i = 0; i < n; i++) {
		struct symtab_meta t;

		if (j[i].kind == MK_ENTRIES &&
		    symtab_meta_open(img, j[i].tab, &t))
			ids[j[i].tab] = symtab_meta_ids(img, &t, sn, &ms);
	}
	reordered = meta_reorder(j, n);
	for (size_t i = 0; i < n; i++)
		if (ids[j[i].tab] || j[i].kind <= MK_RELOCS)
			if (reordered ||
			    (j[i].kind != MK_VERSIONS && j[i].kind != MK_NAMES))
				meta_run(img, &j[i], ids, reordered, &ms);
	meta_end(&ms);
	elfimg_drop_data(img);
	for (size_t i = 0; i < img->nsecs; i++)
		rmap_labels_put(ids[i]);
	free(ids);
	free(j);
	if (lsda_skipped)
		*lsda_skipped = ms.lsda_skipped;
	return ms.eh_unrelocated;
}
