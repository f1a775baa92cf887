// SPDX-License-Identifier: GPL-2.0-or-later
/* armexidx.c — 32-bit ARM unwind tables charged to their functions, as
 * .eh_frame's FDEs are (elfmeta.c). An .ARM.exidx entry (the ARM EHABI)
 * is two words: a prel31 offset to the start of the function it covers,
 * then EXIDX_CANTUNWIND (1), the unwind data inline (bit 31 set), or a
 * prel31 offset to the function's .ARM.extab entry. That entry starts
 * with a personality word: an ARM compact model (bit 31 set, the model's
 * index in bits 27-24: __aeabi_unwind_cpp_pr0 holds its data in the word,
 * pr1 and pr2 count the words of unwind data that follow in bits 23-16),
 * or a prel31 to a generic personality routine, followed by a word whose
 * top byte counts the words of unwind data after it. After the unwind
 * data, a compact model's entry holds its descriptor list (the EHABI's
 * "Personality routine exception-handling table entries", ended by a
 * zero word; the assemblers write that word alone when the function has
 * no handler data), a generic routine's its LSDA: neither has a stored
 * length, each is read through (elf_armdesc_len(), elf_lsda_len()). */
#include "config.h"

#include "elf/armexidx.h"
#include "elf/elfpriv.h"
#include "elf/lsdatab.h"
#include "elf/metasink.h"
#include "elf/secaddr.h"
#include "elf/secrefs.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* the second word of an entry of a function that cannot be unwound */
#define EXIDX_CANTUNWIND 1u

/* The walk: the extab entries met; for a .o, each section's relocation
 * section (0: none, SIZE_MAX: several); the .ARM.extab sections by
 * address (n of them). */
struct exidx_walk {
	struct elf_refs refs;
	size_t *relfor;
	struct elf_secaddr extab;
	/* the extended section indexes of symbol table xs_tab (0: not
	 * looked up yet) */
	size_t xs_tab;
	Elf_Data *xs;
};

bool elf_armexidx_section(const struct elfimg *img, const struct elf_section *s)
{
	return img->machine == EM_ARM && (s->type == SHT_ARM_EXIDX ||
					  !strncmp(s->name, ".ARM.extab", 10));
}

static uint32_t word(const struct elfimg *img, const unsigned char *p)
{
	return (uint32_t)elf_get_uint(p, 4, img->big_endian);
}

/* The address a prel31 word w at address at points to. A 32-bit
 * file's addresses are 32-bit: the sum wraps as the hardware's does,
 * except in a .o laid out from ELF_REL_VM_BASE (4 GiB: one of its
 * loaded sections had an sh_addr, see elfimg.c), whose addresses sit
 * above 4 GiB and whose relocated words hold the offsets between them:
 * added in 64 bits there. */
static uint64_t prel31(uint32_t w, uint64_t at)
{
	uint64_t off = w & 0x7fffffffu;

	if (off & 0x40000000u)
		off |= ~(uint64_t)0x7fffffff; /* sign-extended */
	return at >> 32 ? at + off : (uint32_t)(at + off);
}

/* Apply the relocations of section i of img (a .o's) to buf, its bytes */
static bool exidx_reloc(struct elfimg *img, size_t i, struct exidx_walk *r,
			unsigned char *buf)
{
	size_t link;

	if (img->type != ET_REL || !r->relfor[i])
		return true;
	if (r->relfor[i] == SIZE_MAX)
		return elf_reloc_section(img, i, buf);
	link = img->secs[r->relfor[i]].link;
	if (link >= img->nsecs)
		return false;
	if (link != r->xs_tab) {
		r->xs_tab = link;
		r->xs = elf_reloc_xindex(img, link);
	}
	return elf_reloc_apply(img, r->relfor[i], r->xs, buf);
}

/* Section i of img, an .ARM.exidx: each whole entry to the label at the
 * function start it points to; the extab entries they point to into r. */
static void exidx_one(struct elfimg *img, size_t i, struct metasink *ms,
		      struct exidx_walk *r)
{
	const struct elf_section *s = &img->secs[i];
	size_t n = (size_t)(s->size / 8), hint = 0;
	unsigned char *b = elfimg_section_read(img, i);
	struct rmap_labels *l;

	if (!b)
		return;
	/* a .o's prel31 words are relocations against its code and its
	 * .ARM.extab: applied as if linked where its sections lie */
	if (!n || !exidx_reloc(img, i, r, b)) {
		xfree_huge(b, (size_t)s->size);
		return;
	}
	l = rmap_labels_new(n);
	for (size_t k = 0; k < n; k++) {
		uint64_t at = s->addr + 8 * k;
		uint32_t w0 = word(img, b + 8 * k),
			 w1 = word(img, b + 8 * k + 4);

		if (w0 & 0x80000000u) /* not a prel31: not an entry */
			continue;
		/* a Thumb function's start: its address without the bit */
		l->id[k] = rmap_lookup_near(
		    ms->out->vm, prel31(w0, at) & ~(uint64_t)1, &hint);
		/* an extab entry of code no symbol covers is not charged
		 * but ends the one before it too, as an FDE's LSDA does */
		if (w1 != EXIDX_CANTUNWIND && !(w1 & 0x80000000u))
			elf_ref_add(&r->refs, prel31(w1, at + 4), l->id[k]);
	}
	meta_table(ms, s->offset, 8, n, l, 0, s->flags & SHF_ALLOC);
	rmap_labels_put(l);
	xfree_huge(b, (size_t)s->size);
}

/* The length of the extab entry at p (room bytes of its section before
 * the next entry or the section's end) its own words bound: the
 * personality word and the unwind data words they count; 0 if not even
 * the first word fits. A reserved model's: its first word. */
static uint64_t extab_len(const struct elfimg *img, const unsigned char *p,
			  uint64_t room)
{
	uint32_t w;
	uint64_t len;

	if (room < 4)
		return 0;
	w = word(img, p);
	if (w & 0x80000000u) { /* compact: pr0 is one word, pr1, pr2 more */
		unsigned idx = (w >> 24) & 0x7f;

		len = idx == 1 || idx == 2
			  ? 4 + 4 * (uint64_t)((w >> 16) & 0xff)
			  : 4;
	} else if (room < 8) {
		len = 4;
	} else { /* generic: prel31, then the count in the top byte */
		len = 8 + 4 * (uint64_t)(word(img, p + 4) >> 24);
	}
	return MIN(len, room);
}

/* Whether a relocation starts in the n bytes at off (reloc: sorted):
 * the first offset >= off (a lower-bound search) is below off + n. Not
 * only at off: an R_ARM_ABS16 patches a scope's second halfword. */
static bool patched(const uint64_t *reloc, size_t nreloc, uint64_t off,
		    uint64_t n)
{
	size_t lo = 0, hi = nreloc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (reloc[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nreloc && reloc[lo] - off < n;
}

/* The words after a descriptor's scope, by its kind (the low bits of
 * the scope's offset and length): a cleanup's landing pad; a catch's
 * landing pad and type; an exception specification's count word (and
 * what it counts, read then: -1); the reserved kind's: none known (0). */
static const int desc_tail[4] = {1, 2, -1, 0};

uint64_t elf_armdesc_len(const unsigned char *buf, size_t off, size_t room,
			 unsigned idx, bool be, const uint64_t *reloc,
			 size_t nreloc)
{
	/* pos: the next word's offset from off; each descriptor takes at
	 * least 8 bytes, so the walk ends */
	size_t pos = 0, scope = idx == 2 ? 8 : 4;

	while (room - pos >= 4) {
		const unsigned char *p = buf + off + pos;
		uint32_t len, at;
		uint64_t words;
		int tail;

		/* a word a relocation patches, whole or in part: its
		 * value is the linker's */
		if (patched(reloc, nreloc, off + pos, 4))
			return 0;
		if (!elf_get_uint(p, 4, be))
			return pos + 4; /* the list's end */
		if (room - pos < scope ||
		    patched(reloc, nreloc, off + pos + 4, scope - 4))
			return 0;
		len = (uint32_t)elf_get_uint(p, scope / 2, be);
		at = (uint32_t)elf_get_uint(p + scope / 2, scope / 2, be);
		tail = desc_tail[((at & 1) << 1) | (len & 1)];
		if (!len || !tail)
			return 0;
		pos += scope;
		words = (uint64_t)tail;
		if (tail < 0) { /* the count word, its types, a landing pad */
			uint32_t c;

			if (room - pos < 4 ||
			    patched(reloc, nreloc, off + pos, 4))
				return 0;
			c = (uint32_t)elf_get_uint(buf + off + pos, 4, be);
			words = 1 + (uint64_t)(c & 0x7fffffffu) + (c >> 31);
		}
		if (words > (room - pos) / 4)
			return 0; /* a count past the room */
		pos += 4 * (size_t)words;
	}
	return 0;
}

/* The offsets of the words relocation section i of img patches
 * appended to *v (*n, room *cap) */
static void rel_offsets(struct elfimg *img, size_t i, uint64_t **v, size_t *n,
			size_t *cap)
{
	bool rel = img->secs[i].type == SHT_REL;
	Elf_Data *d = elf_getdata(elf_getscn(elfimg_elf(img), i), NULL);
	size_t m;

	if (!d)
		return;
	m = d->d_size / (rel ? sizeof(Elf32_Rel) : sizeof(Elf32_Rela));
	xgrow(v, cap, *n + m, sizeof(**v));
	for (size_t k = 0; k < m; k++) {
		GElf_Rel r;
		GElf_Rela ra;

		if (rel && gelf_getrel(d, (int)k, &r))
			(*v)[(*n)++] = r.r_offset;
		else if (!rel && gelf_getrela(d, (int)k, &ra))
			(*v)[(*n)++] = ra.r_offset;
	}
}

/* The offsets in section sec of img (a .o's .ARM.extab) of the words
 * its relocation sections (w->relfor[sec]'s, or each one's for sec when
 * there are several) patch, sorted, into *v (*n, room *cap): an LSDA's
 * specification list holds its types as R_ARM_TARGET2 words, 0 in the
 * .o, which must not be read as the list's end. */
static void extab_relocs(struct elfimg *img, size_t sec,
			 const struct exidx_walk *w, uint64_t **v, size_t *n,
			 size_t *cap)
{
	*n = 0;
	if (img->type != ET_REL || !w->relfor[sec])
		return;
	if (w->relfor[sec] != SIZE_MAX)
		rel_offsets(img, w->relfor[sec], v, n, cap);
	else
		for (size_t i = 1; i < img->nsecs; i++) {
			const struct elf_section *s = &img->secs[i];

			if ((s->type == SHT_REL || s->type == SHT_RELA) &&
			    s->info == sec)
				rel_offsets(img, i, v, n, cap);
		}
	if (*n > 1)
		qsort(*v, *n, sizeof(**v), u64_sort_cmp);
}

/* Whether s is an .ARM.extab section (loaded, with bytes). */
static bool is_extab(const struct elfimg *img, const struct elf_section *s)
{
	return (s->flags & SHF_ALLOC) && s->type == SHT_PROGBITS &&
	       elf_armexidx_section(img, s);
}

/* r's index of img: each target's relocation section (a .o), the
 * .ARM.extab sections by address. */
static void walk_index(const struct elfimg *img, struct exidx_walk *r)
{
	r->relfor = xcalloc(img->nsecs, sizeof(*r->relfor));
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];

		if ((s->type == SHT_REL || s->type == SHT_RELA) && s->info &&
		    s->info < img->nsecs)
			r->relfor[s->info] = r->relfor[s->info] ? SIZE_MAX : i;
	}
	elf_secaddr_build(&r->extab, img, is_extab);
}

/* extab_add()'s reader: the walk, the LSDA reader's scratch, the
 * relocated words of the section entered (a .o's) */
struct extab_read {
	struct elfimg *img;
	struct metasink *ms;
	struct exidx_walk *r;
	struct elf_lsda_scratch sc;
	uint64_t *rel;
	size_t relcap;
};

static void extab_enter(void *arg, size_t sec)
{
	struct extab_read *er = arg;

	extab_relocs(er->img, sec, er->r, &er->rel, &er->sc.nreloc,
		     &er->relcap);
	er->sc.reloc = er->rel;
}

/* The entry at b + off: its words, and what follows them: a compact
 * model's descriptor list, a generic routine's LSDA (one that cannot be
 * read counted, its bytes left to the section) */
static uint64_t extab_entry(void *arg, const unsigned char *b, uint64_t off,
			    uint64_t room)
{
	struct extab_read *er = arg;
	uint64_t len = extab_len(er->img, b + off, room), l = 0;
	uint32_t w;

	if (len < 4)
		return len;
	w = word(er->img, b + off);
	if (w >> 31) {
		/* pr0-pr2's list must be there: at least its zero word */
		if (((w >> 24) & 0x7f) > 2)
			return len; /* a reserved model: unknown */
		if (len < room)
			l = elf_armdesc_len(b, (size_t)(off + len),
					    (size_t)(room - len), (w >> 24) & 3,
					    er->img->big_endian, er->sc.reloc,
					    er->sc.nreloc);
	} else if (len >= 8 && len < room) {
		l = elf_lsda_len(b, (size_t)(off + len), (size_t)(room - len),
				 ELFCLASS32, er->img->big_endian, true,
				 &er->sc);
	} else {
		return len; /* a generic routine's entry without an LSDA */
	}
	er->ms->lsda_skipped += !l;
	return len + l;
}

/* The extab entries r points to, each once (to the first exidx entry
 * of a symbol's code pointing there), cut at the next one (of a
 * symbol's code or not): one table a section. */
static void extab_add(struct elfimg *img, struct metasink *ms,
		      struct exidx_walk *r)
{
	static const struct elf_refs_ops ops = {extab_enter, extab_entry};
	struct extab_read er = {.img = img, .ms = ms, .r = r};

	if (!r->refs.n)
		return;
	elf_refs_charge(img, ms, &r->extab, &r->refs, &ops, &er);
	elf_lsda_scratch_free(&er.sc);
	free(er.rel);
}

void elf_armexidx_add(struct elfimg *img, struct metasink *ms)
{
	struct exidx_walk r = {0};

	if (img->machine != EM_ARM)
		return;
	walk_index(img, &r);
	for (size_t i = 1; i < img->nsecs; i++)
		if (img->secs[i].type == SHT_ARM_EXIDX &&
		    (img->secs[i].flags & SHF_ALLOC))
			exidx_one(img, i, ms, &r);
	extab_add(img, ms, &r);
	free(r.relfor);
	elf_secaddr_free(&r.extab);
}
