// SPDX-License-Identifier: GPL-2.0-or-later
/* xrefs.c — data that code refers to, charged to the code (x86-64).
 *
 * Every executable section is decoded once per image, whatever the
 * number of sources asking (a linear sweep; a byte that
 * cannot be decoded is stepped over; the bytes of a data symbol, a table
 * an assembly file keeps in .text, are not decoded, the sweep starting
 * again at its end; code of 1 MiB or more as four
 * interleaved sweeps joined where they fall into step, see sweep()): the
 * common encodings (97 % of compiled code) by one lookup in
 * elf/x86dec.c's table (x86_decode_tab(), in chunks without a check
 * between instructions: streams_bulk()), the others by its decoder's
 * branches (x86_decode_fast()) or by Zydis in its
 * minimal mode, which answer alike (tests/test_x86dec): length,
 * mnemonic and the raw ModRM, SIB, displacement and immediate fields, no
 * operands and no text. What cannot hold a reference is skipped on those
 * fields alone. A memory operand addressed relative to RIP (ModRM mod 0,
 * r/m 5) names target = next instruction + disp; in a position-dependent
 * executable (ET_EXEC) so do a memory operand without base register
 * (SIB base 5 under mod 0, as in "jmp *TABLE(,%rax,8)", or a moffs) and
 * the 32- or 64-bit immediate of a mov ("mov $STRING, %edi"), except in
 * a Go program's own code (elf_go_text()). An immediate is a number that
 * may be no address: a target only immediates name is weighed against
 * the bytes there (str_probe()): inside text it is dropped (V8's root
 * indexes, OpenSSL's error codes), at the start of a string its range
 * ends after the string's NUL. A target in a loaded non-code
 * section that no label covers yet (string literals, switch tables, constants
 * no symbol describes) starts a range given to the label of the referring
 * instruction (its symbol, compile unit or line): the range runs to the next
 * such target, the next labelled byte, the next symbol or the section's end,
 * whichever comes first (as Bloaty sizes its references). Of several references
 * to one target the first labelled one in address order wins. References from
 * code no label covers (under compileunits, all code without DWARF) are
 * collected too: they charge nothing but end the ranges before them, so
 * that one unit's reference never runs over data only other code uses.
 * A target inside a symbol (a vtable under compileunits, where no unit
 * describes it) gives the whole symbol.
 */
#include "config.h"

#include "elf/elfpriv.h"
#include "elf/symtab.h"
#include "elf/xrefs.h"
#include "elf/xrefstr.h"
#include "elf/xsweep.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* 16 bytes: every reference of a big binary's code is sorted through
 * them (refs_settle()) */
struct xref {
	uint64_t target;
	uint32_t seq; /* discovery order: the first reference wins */
	uint32_t label;
};

/* A loaded non-code, non-TLS section of the image: its VM range and
 * index. */
struct datasec {
	uint64_t addr, size;
	uint32_t index;
};

struct xrefvec {
	struct xref *v;
	size_t n, cap;
	/* the span of the loaded data sections: a target outside (most
	 * immediates of ET_EXEC code are small numbers) is dropped without a
	 * lookup */
	uint64_t lo, hi;
	/* those sections, in header order: data_section()'s candidates */
	struct datasec *ds;
	size_t nds;
	/* none of them overlaps another: the one that held the last address
	 * asked (last), when it holds the next, is the first in header
	 * order that does (the targets are asked in increasing order) */
	bool apart;
	size_t last;
	/* where a string an immediate alone names ends (str_probe()), in
	 * increasing order: the range it starts ends there; kstop: the first
	 * after the target target_end() asked last */
	uint64_t *stops;
	size_t nstops, stopcap, kstop;
};

/* The references a sweep kept, in code order: wide ([instruction,
 * target]; imm_bit: XREF_IMM in position-dependent code, else 0) or
 * img's cache (compact, from the bases). */
struct refsrc {
	const uint64_t (*wide)[2];
	const uint32_t (*raw)[2];
	size_t n;
	uint64_t code_base, data_base, imm_bit;
};

/* The address of the instruction of reference i of src. */
static uint64_t refsrc_code(const struct refsrc *src, size_t i)
{
	return src->wide ? src->wide[i][0] & ~src->imm_bit
			 : src->code_base + (src->raw[i][0] & ~XREF_RAW_IMM);
}

/* Is the target of reference i of src a MOV's immediate? */
static bool refsrc_imm(const struct refsrc *src, size_t i)
{
	return src->wide ? (src->wide[i][0] & src->imm_bit) != 0
			 : (src->raw[i][0] & XREF_RAW_IMM) != 0;
}

/* The target of reference i of src. */
static uint64_t refsrc_target(const struct refsrc *src, size_t i)
{
	return src->wide ? src->wide[i][1] : src->data_base + src->raw[i][1];
}

/* Sort xv by target, the references to one target in discovery order
 * (by seq): collected in that order, the references need a stable sort
 * by target only. When the targets' offsets in the data span and the
 * ranks fit 32 bits (all but a span of 4 GiB or more), each reference is
 * one 8-byte key, offset << 32 | seq, radix-sorted on the offset
 * (u64_sort_high_tmp()) in the first half of xv's own array, the second
 * half its scratch, and written back from the last (a reference is at
 * least as far in as its key): half the bytes of each pass of the
 * 16-byte records' sort, and no second array (libLLVM's 200 k
 * references: 3.2 MiB, or 1.6 MiB of scratch to fault in). Else an LSD
 * radix sort of the records on the bytes in which the targets differ
 * (qsort's callbacks took three times as long). */
static void xrefs_sort(struct xrefvec *xv)
{
	struct xref *tmp, *src = xv->v, *dst, *swap;
	/* the keys over the records: moved with memcpy(), which may alias
	 * them */
	unsigned char *k = (unsigned char *)xv->v;
	uint64_t diff = 0, key;
	size_t n = xv->n;

	if (n < 2)
		return;
	if (xv->hi - xv->lo <= UINT32_MAX) {
		for (size_t i = 0; i < n; i++) {
			struct xref r;

			memcpy(&r, k + i * sizeof(r), sizeof(r));
			diff |= r.target - xv->lo;
			key = (r.target - xv->lo) << 32 | r.seq;
			memcpy(k + i * sizeof(key), &key, sizeof(key));
		}
		u64_sort_high_tmp((uint64_t *)xv->v, n, diff,
				  (uint64_t *)xv->v + n);
		for (size_t i = n; i-- > 0;) {
			struct xref r;

			memcpy(&key, k + i * sizeof(key), sizeof(key));
			r = (struct xref){xv->lo + (key >> 32), (uint32_t)key,
					  0};
			memcpy(k + i * sizeof(r), &r, sizeof(r));
		}
		return;
	}
	for (size_t i = 1; i < n; i++)
		diff |= src[i].target ^ src[0].target;
	tmp = xmalloc(n * sizeof(*tmp));
	dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = {0}, pos = 0;

		if (!((diff >> shift) & 255))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(src[i].target >> shift) & 255]++;
		for (unsigned d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].target >> shift) & 255]++] = src[i];
		/* the pass's output is the next one's input */
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != xv->v)
		memcpy(xv->v, src, n * sizeof(*src));
	free(tmp);
}

/* Does data section d hold VM address a? */
static bool datasec_holds(const struct datasec *d, uint64_t a)
{
	return a >= d->addr && a - d->addr < d->size;
}

/* The loaded non-code, non-TLS section holding VM address a (the first
 * in header order), or 0. */
static uint32_t data_section(struct xrefvec *xv, uint64_t a)
{
	if (xv->apart && xv->last < xv->nds &&
	    datasec_holds(&xv->ds[xv->last], a))
		return xv->ds[xv->last].index;
	for (size_t i = 0; i < xv->nds; i++)
		if (datasec_holds(&xv->ds[i], a)) {
			xv->last = i;
			return xv->ds[i].index;
		}
	return 0;
}

/* The sections data_section() accepts into xv->ds, and their span into
 * [xv->lo, xv->hi) (empty if none). Looked through once, not for each
 * reference: a big binary's code makes hundreds of thousands. */
static void data_sections(const struct elfimg *img, struct xrefvec *xv)
{
	xv->lo = UINT64_MAX;
	xv->hi = 0;
	xv->ds = xcalloc(img->nsecs ? img->nsecs : 1, sizeof(*xv->ds));
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];

		if (!(s->flags & SHF_ALLOC) || (s->flags & SHF_EXECINSTR) ||
		    (s->flags & SHF_TLS) || !s->size)
			continue;
		xv->ds[xv->nds++] = (struct datasec){s->addr, s->size, i};
		xv->lo = MIN(xv->lo, s->addr);
		xv->hi = MAX(xv->hi, span_end(s->addr, s->size));
	}
	xv->apart = elf_sections_apart(img, SHF_EXECINSTR | SHF_TLS);
	xv->last = xv->nds;
}

/* In refs_settle()'s references before they are settled, bit 31 of seq:
 * the reference is a MOV's immediate (refsrc_imm()) */
#define XREF_SEQ_IMM ((uint32_t)1 << 31)

/* The references of src into xv's data span into xv, each with its rank
 * in code order (seq), sorted by target; then of those, the ones to
 * unlabelled data of a loaded section kept, each with the label of its
 * referrer. A target that only MOV immediates name (img is
 * position-dependent) is read as text (str_probe()) unless it lies in one
 * of syms[0, nsyms) (sorted by start): inside a string it is dropped, at
 * a string's start the string's end is a stop (xv->stops) for the range
 * it starts. The targets are looked up in one walk over out->vm's
 * extents (tables not expanded), in target order, and the referrers in
 * code order, each near the one before (a lookup of each target in code
 * order cost a search per reference: the targets jump about). */
static void refs_settle(struct elfimg *img, struct dualmap *out,
			struct xrefvec *xv, const struct refsrc *src,
			const struct elf_range *syms, size_t nsyms)
{
	/* ranks fit the 31 bits of seq below XREF_SEQ_IMM: one reference per
	 * instruction at most, and no code of 2 G instructions */
	size_t n = MIN(src->n, (size_t)XREF_SEQ_IMM - 1), ne, k = 0, nk = 0;
	size_t hint = 0;
	const struct rmap_entry *e;
	struct strprobe probe;
	uint32_t *lab;
	bool *kept;

	xv->v = xmalloc((n ? n : 1) * sizeof(*xv->v));
	xv->cap = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t t = refsrc_target(src, i);

		if (t >= xv->lo && t < xv->hi)
			xv->v[xv->n++] = (struct xref){
			    t,
			    (uint32_t)i |
				(refsrc_imm(src, i) ? XREF_SEQ_IMM : 0),
			    0};
	}
	xrefs_sort(xv);
	e = rmap_extents(out->vm, &ne);
	kept = xcalloc(n ? n : 1, sizeof(*kept));
	strprobe_init(&probe, img);
	/* each target's references, [i, j) */
	for (size_t i = 0, j; i < xv->n; i = j) {
		uint64_t t = xv->v[i].target, end;
		uint32_t d;
		bool imm = true;

		for (j = i; j < xv->n && xv->v[j].target == t; j++) {
			imm = imm && (xv->v[j].seq & XREF_SEQ_IMM);
			xv->v[j].seq &= ~XREF_SEQ_IMM;
		}
		while (k < ne && e[k].end <= t)
			k++;
		if ((k < ne && e[k].start <= t && e[k].label != LABEL_NONE) ||
		    !(d = data_section(xv, t)))
			continue;
		if (imm && !elf_range_holding(syms, nsyms, t)) {
			enum strpos pos =
			    str_probe(&probe, &img->secs[d], t, &end);

			if (pos == STR_INSIDE)
				continue;
			if (pos == STR_START) {
				xgrow(&xv->stops, &xv->stopcap, xv->nstops + 1,
				      sizeof(*xv->stops));
				xv->stops[xv->nstops++] = end;
			}
		}
		for (size_t r = i; r < j; r++) {
			kept[xv->v[r].seq] = true;
			xv->v[nk++] = xv->v[r];
		}
	}
	strprobe_free(&probe);
	lab = xcalloc(n ? n : 1, sizeof(*lab));
	for (size_t i = 0; i < n; i++)
		if (kept[i])
			lab[i] = rmap_lookup_near(out->vm, refsrc_code(src, i),
						  &hint);
	for (size_t i = 0; i < nk; i++)
		xv->v[i].label = lab[xv->v[i].seq];
	xv->n = nk;
	free(kept);
	free(lab);
	/* to its size: the ranges are charged with it in memory */
	xv->v = xrealloc(xv->v, (nk ? nk : 1) * sizeof(*xv->v));
	xv->cap = nk;
}

/* Decode every code section of img into xv (but for the data symbols of
 * all[0, nall) in it): the references its instructions make to data.
 * The code is decoded once per image: the references into the span of
 * its data sections are kept in img's private part, and each source
 * replays them, in code order, against its own labels (an image whose
 * code or data spans 4 GiB or more is decoded for each source). Returns
 * 0 or a negative code. */
static int collect_xrefs(struct elfimg *img, struct dualmap *out,
			 struct xrefvec *xv, const struct sym *all, size_t nall,
			 const struct elf_range *syms, size_t nsyms)
{
	struct elfimg_priv *pv = img->priv;
	struct refsink sink = {.pv = pv};
	struct refsrc src;
	int ret;

	data_sections(img, xv);
	if (!pv->xref_swept) {
		ret = xref_sweep_all(img, &(struct dataspan){xv->lo, xv->hi},
				     &sink, all, nall);
		if (ret < 0)
			return ret;
	}
	if (sink.nwide || !pv->xref_swept)
		src = (struct refsrc){.wide = sink.wide,
				      .n = sink.nwide,
				      .imm_bit = sink.imm_bit};
	else
		src = (struct refsrc){.raw = pv->xref_raw,
				      .n = pv->nxref_raw,
				      .code_base = pv->xref_code_base,
				      .data_base = pv->xref_data_base};
	refs_settle(img, out, xv, &src, syms, nsyms);
	free(sink.wide);
	return 0;
}

/* The end of the range the target of xv->v[i] gets (the first of its
 * run of equal targets; xv sorted): the next target, the next label of
 * the settled map's extents e[0, ne), the next stop (the end of a string
 * only immediates name) or the end of its section, whichever
 * comes first. *k: the first extent that ends after the target asked
 * before (the targets are asked in increasing order). Asked as the
 * ranges are added, of the map frozen before the first add: a precomputed
 * array was 8 bytes a reference (1.5 MiB of libLLVM-14's peak RSS). */
static uint64_t target_end(const struct elfimg *img, const struct rmap_entry *e,
			   size_t ne, size_t *k, struct xrefvec *xv, size_t i,
			   const struct elf_range *syms, size_t nsyms)
{
	const struct elf_section *s =
	    &img->secs[data_section(xv, xv->v[i].target)];
	uint64_t end = s->addr + s->size;
	size_t j = i + 1;

	while (j < xv->n && xv->v[j].target == xv->v[i].target)
		j++;
	if (j < xv->n && xv->v[j].target < end)
		end = xv->v[j].target;
	while (*k < ne && e[*k].end <= xv->v[i].target)
		(*k)++;
	if (*k < ne && e[*k].start < end)
		end = e[*k].start;
	while (xv->kstop < xv->nstops &&
	       xv->stops[xv->kstop] <= xv->v[i].target)
		xv->kstop++;
	if (xv->kstop < xv->nstops && xv->stops[xv->kstop] < end)
		end = xv->stops[xv->kstop];
	return elf_range_next(syms, nsyms, xv->v[i].target, end);
}

/* Give [start, end) to label in out (VM, and file through cur, a cursor
 * on the base's VM map: targets come in address order). */
static void charge(struct dualmap *out, struct dualmap_cursor *cur,
		   uint64_t start, uint64_t end, uint32_t label,
		   struct elfsrc_stats *st)
{
	dualmap_add_vm_cursor(out, cur, start, end - start, label);
	if (st) {
		st->xref_targets++;
		st->xref_bytes += end - start;
	}
}

/* The label of the first labelled reference (in code order) among
 * xv->v[i..] whose target is below end, or LABEL_NONE. */
static uint32_t first_referrer(const struct xrefvec *xv, size_t i, uint64_t end)
{
	uint64_t seq = UINT64_MAX;
	uint32_t label = LABEL_NONE;

	for (size_t j = i; j < xv->n && xv->v[j].target < end; j++)
		if (xv->v[j].label != LABEL_NONE && xv->v[j].seq < seq) {
			seq = xv->v[j].seq;
			label = xv->v[j].label;
		}
	return label;
}

int elf_xrefs_add(struct elfimg *img, struct dualmap *base, struct dualmap *out,
		  const struct sym *all, size_t nall,
		  const struct elf_range *syms, size_t nsyms,
		  struct elfsrc_stats *st)
{
	struct xrefvec xv = {0};
	const struct elf_range *last_sym = NULL;
	const struct rmap_entry *e;
	struct dualmap_cursor cur;
	size_t ne, k = 0;
	int ret;

	if (img->machine != EM_X86_64 || img->elfclass != ELFCLASS64 ||
	    img->big_endian) {
		if (st)
			st->xref_unsupported = true;
		return 0;
	}
	ret = collect_xrefs(img, out, &xv, all, nall, syms, nsyms);
	if (ret == -MEMSZ_ENOLIB) {
		/* the references are an addition: the map stands without */
		if (st)
			st->xref_error = ret;
		ret = 0;
	}
	if (ret < 0 || !xv.n) {
		free(xv.v);
		free(xv.ds);
		free(xv.stops);
		return ret;
	}
	/* the ranges end where the map held labels before any is added */
	rmap_freeze(out->vm);
	e = rmap_extents(out->vm, &ne);
	dualmap_cursor_init(&cur, base ? base->vm : NULL);
	for (size_t i = 0; i < xv.n; i++) {
		const struct elf_range *sym;
		uint32_t label;

		if (i && xv.v[i].target == xv.v[i - 1].target)
			continue;
		sym = elf_range_holding(syms, nsyms, xv.v[i].target);
		if (!sym) {
			/* the first labelled code to address it */
			label = first_referrer(&xv, i, xv.v[i].target + 1);
			if (label != LABEL_NONE)
				charge(out, &cur, xv.v[i].target,
				       target_end(img, e, ne, &k, &xv, i, syms,
						  nsyms),
				       label, st);
			continue;
		}
		if (sym == last_sym)
			continue; /* targets sorted: its first referrer had it
				   */
		/* the whole symbol, once, to the first labelled reference
		 * (in code order) to any address inside it */
		last_sym = sym;
		label = first_referrer(&xv, i, sym->end);
		if (label != LABEL_NONE)
			charge(out, &cur, sym->start, sym->end, label, st);
	}
	rmap_thaw(out->vm);
	free(xv.v);
	free(xv.ds);
	free(xv.stops);
	return 0;
}
