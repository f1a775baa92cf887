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
#include "elf/elfmeta.h"
#include "elf/elfpriv.h"
#include "elf/relocs.h"
#include "elf/relocsrc.h"
#include "elf/symtab.h"
#include "elf/xrefs.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
			name = elfimg_section_label(s->name);
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

/* The bytes of the gap of section s from VM address end to syms[i]
 * (syms[0, n) sorted by address), read with the gaps that follow within
 * the window's reach: up to the last symbol start of s it reaches, not
 * the whole window (a gap is a few bytes; the rest was copied for
 * nothing). That symbol is looked for on a miss only: for every gap, the
 * walk over the symbols ahead was 2 % of the instructions of size --by
 * symbols of libc.so.6. */
static const unsigned char *gap_bytes(struct elf_window *w,
				      const struct elf_section *s,
				      const struct sym *syms, size_t n,
				      size_t i, uint64_t end)
{
	uint64_t off = s->offset + (end - s->addr), gap = syms[i].addr - end;
	uint64_t stop = MIN(end + w->cap, s->addr + s->size);
	uint64_t last = syms[i].addr;
	const unsigned char *held = elf_window_held(w, off, gap);

	if (held)
		return held;
	for (size_t j = i + 1; j < n && syms[j].addr <= stop; j++)
		last = syms[j].addr;
	return elf_window_get_ahead(w, off, gap, last - end);
}

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
	/* those fillers begin with 89 or 8d: no memcmp() calls for the
	 * other bytes (x86-64's nops) */
	for (size_t k = 0;
	     k < ARRAY_SIZE(lea) && (p[0] == 0x89 || p[0] == 0x8d); k++)
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

/* Does section c hold a gap [end, a) that add_padding() may label? */
static bool pad_section_holds(const struct elf_section *c, uint64_t end,
			      uint64_t a)
{
	return (c->flags & SHF_ALLOC) && end >= c->addr &&
	       a <= c->addr + c->size && !(c->flags & SHF_TLS) && c->size;
}

static int u64_pair_cmp(const void *x, const void *y)
{
	return u64_cmp(*(const uint64_t *)x, *(const uint64_t *)y);
}

bool elf_sections_apart(const struct elfimg *img, uint64_t skip_flags)
{
	uint64_t(*r)[2] = xmalloc((img->nsecs ? img->nsecs : 1) * sizeof(*r));
	size_t n = 0;
	bool apart = true;

	for (size_t k = 1; k < img->nsecs && apart; k++) {
		const struct elf_section *c = &img->secs[k];

		if (!(c->flags & SHF_ALLOC) || (c->flags & skip_flags) ||
		    !c->size)
			continue;
		if (c->addr + c->size < c->addr)
			apart = false;
		r[n][0] = c->addr;
		r[n++][1] = c->addr + c->size;
	}
	if (apart)
		qsort(r, n, sizeof(*r), u64_pair_cmp);
	for (size_t k = 1; k < n && apart; k++)
		apart = r[k - 1][1] <= r[k][0];
	free(r);
	return apart;
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
	struct dualmap_cursor cur;
	uint64_t end = 0;
	/* the section of the last gap: the next is mostly in it too */
	const struct elf_section *last = NULL;
	/* a gap lies in one of them at most: the one of the gap before,
	 * when it holds this one too, is the first the search would find */
	bool apart = elf_sections_apart(img, SHF_TLS);

	/* the gaps' bytes only, read in address order: not a copy of each
	 * section (node's are 75 MiB) */
	elf_window_init(&w, img, PADDING_WINDOW);
	/* symbols and gaps come in address order: mostly in the base's entry
	 * of the one before (libLLVM-14: 45 k symbols, 27 k gaps) */
	dualmap_cursor_init(&cur, base ? base->vm : NULL);
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
		if (apart && last && pad_section_holds(last, end, a))
			s = last;
		for (size_t k = 1; !s && k < img->nsecs; k++)
			if (pad_section_holds(&img->secs[k], end, a))
				s = &img->secs[k];
		if (!s)
			goto next;
		last = s;
		if (s->type != SHT_NOBITS) {
			const unsigned char *b =
			    gap_bytes(&w, s, syms, n, i, end);

			ok = b && is_fill(img, s, b, gap);
		}
		if (ok) {
			if (id == LABEL_NONE)
				id = labels_intern(lb, "[padding]");
			dualmap_add_vm_cursor(out, &cur, end, gap, id);
		}
	next:
		if (i == 0 || a + syms[i].size > end)
			end = a + syms[i].size;
	}
	elf_window_free(&w);
}

/* A run of symbols of one address, size and place (the first is named
 * by the label, the others are its aliases), its label's string (in a
 * demangling buffer or the name itself) hashed and asked for. */
struct sym_run {
	size_t i, j; /* syms[i, j) */
	const char *s;
	size_t n;
	uint32_t hash;
};

/* The run of syms[0, n) from i, its label demangled into dm, and the
 * labels' index asked for the look-up label_run() will make. */
static void begin_run(struct labels *lb, enum elf_demangle_style style,
		      const struct sym *syms, size_t n, size_t i,
		      struct strbuf *dm, struct sym_run *r)
{
	size_t j;

	for (j = i + 1;
	     j < n && syms[j].addr == syms[i].addr &&
	     syms[j].size == syms[i].size && syms[j].where == syms[i].where;
	     j++)
		;
	r->i = i;
	r->j = j;
	if (elf_demangle_to(syms[i].name, style, dm)) {
		r->s = dm->buf;
		r->n = dm->len;
	} else {
		r->s = syms[i].name;
		r->n = strlen(syms[i].name);
	}
	r->hash = labels_hash(r->s, r->n);
	labels_prefetch(lb, r->hash);
}

/* Label run r (begin_run()) of syms: the label interned, the other
 * names its aliases (adm: their demangling buffer), its range added to
 * out (a SYM_VM one through cur, a cursor on the base's VM map). */
static void label_run(struct labels *lb, enum elf_demangle_style style,
		      const struct sym *syms, const struct sym_run *r,
		      struct strbuf *adm, struct dualmap *out,
		      struct dualmap_cursor *cur, struct elfsrc_stats *st)
{
	uint32_t id = labels_intern_hashed(lb, r->s, r->n, r->hash);
	const struct sym *sy = &syms[r->i];
	const char *label = labels_str(lb, id);

	for (size_t j = r->i + 1; j < r->j; j++) {
		const char *alias = elf_demangle_to(syms[j].name, style, adm)
					? adm->buf
					: syms[j].name;

		if (strcmp(alias, label)) {
			labels_add_alias(lb, id, alias);
			if (st)
				st->aliases++;
		}
	}
	if (sy->where == SYM_VM)
		dualmap_add_vm_cursor(out, cur, sy->addr, sy->size, id);
	else if (sy->where == SYM_FILE)
		rmap_add(out->file, sy->addr, sy->size, id);
	if (st)
		st->symbols++;
}

/* The symbols source (see elfimg.h); with disasm, the data its code refers
 * to goes to that code (elf/xrefs.c). */
static int source_symbols(struct elfimg *img, const struct elf_map_opts *opts,
			  struct labels *lb, struct dualmap *base,
			  struct dualmap *out, struct elfsrc_stats *st)
{
	bool disasm = opts && opts->disasm;
	struct elfmeta_names sn = {lb, opts ? opts->demangle : 0};
	/* the demangled names: two buffers for the labels of a run and of
	 * the next, one for aliases; not an allocation a name */
	struct strbuf dm[2] = {STRBUF_INIT, STRBUF_INIT}, adm = STRBUF_INIT;
	struct sym_run run[2];
	struct dualmap_cursor cur;
	struct sym *syms = NULL;
	size_t n = 0, k = 0;
	uint64_t left;
	int ret;

	ret = elf_syms_load(img, &syms, &n, st);
	if (ret)
		return ret;

	labels_reserve(lb, n); /* about one label a symbol */
	dualmap_cursor_init(&cur, base ? base->vm : NULL);
	/* each run's label is looked up while the next one's name is
	 * demangled: the index's cache miss is waited for only once */
	if (n)
		begin_run(lb, sn.style, syms, n, 0, &dm[0], &run[0]);
	for (; n && run[k].i < n; k ^= 1) {
		size_t next = run[k].j;

		/* in address order the names lie far apart in the string
		 * table: ask for one a few symbols ahead of the demangler */
		if (next + 8 < n)
			__builtin_prefetch(syms[next + 8].name);
		if (next < n)
			begin_run(lb, sn.style, syms, n, next, &dm[k ^ 1],
				  &run[k ^ 1]);
		else
			run[k ^ 1].i = n;
		label_run(lb, sn.style, syms, &run[k], &adm, out, &cur, st);
	}
	strbuf_free(&dm[0]);
	strbuf_free(&dm[1]);
	strbuf_free(&adm);

	left = elfmeta_add(img, &sn, base, out, st ? &st->lsda_skipped : NULL);
	if (st)
		st->eh_unrelocated = left;
	add_padding(img, lb, base, out, syms, elf_syms_count_vm(syms, n));
	ret = disasm ? elf_xrefs_add(img, base, out, syms, n, NULL, 0, st) : 0;
	free(syms);
	if (ret)
		return ret;
	/* the relocation entries of the data just given to code go with it
	 * (first writer wins: the entries already labelled keep theirs) */
	if (disasm)
		elfmeta_add_relocs(img, base, out);

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
	ret = elf_xrefs_add(img, base, out, syms, n, r, n, st);
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
	uint64_t left;
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
			left = elfmeta_add(img, NULL, base, out,
					   stats ? &stats->lsda_skipped : NULL);
			if (stats)
				stats->eh_unrelocated = left;
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
