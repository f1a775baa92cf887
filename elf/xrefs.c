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
#include "elf/x86dec.h"
#include "elf/xrefs.h"
#include "elf/xrefstr.h"
#include "elf/xzydis.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* sweep() reads code through a window of this many bytes */
#define XREF_WINDOW (64 * 1024)
/* a code section of XREF_SPLIT bytes or more is swept as XREF_STREAMS
 * streams side by side, each joined by the one before within its first
 * XREF_SYNC instructions (x86 code falls into step within a few) */
#define XREF_SPLIT (1024 * 1024)
#define XREF_STREAMS 4
#define XREF_SYNC 64

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

/* In a sweep's [instruction, target] (position-dependent code only,
 * whose code lies below 2^63: sweep_all()), the instruction's bit 63 says
 * that the target is a MOV's immediate (X86_K_IMM), a number that may be
 * no address; in img's cache ([instruction - code_base, target -
 * data_base], the code less than 2 GiB long), bit 31. */
#define XREF_IMM ((uint64_t)1 << 63)
#define XREF_RAW_IMM ((uint32_t)1 << 31)

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

/* The end of [addr, addr + size), saturated at UINT64_MAX (a malformed
 * section can wrap, and a span computed from the wrapped end would look
 * small). */
static uint64_t span_end(uint64_t addr, uint64_t size)
{
	return addr + size < addr ? UINT64_MAX : addr + size;
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

/* A linear sweep over part of a code section: sweep() runs several,
 * interleaved, over one big section (the decoding of one instruction waits
 * for the length of the one before; the streams' instructions do not).
 * It reads the section through a window of XREF_WINDOW bytes (not
 * libelf's copy of the whole section, which would live until the image
 * is closed), slid on whenever fewer bytes than the longest instruction
 * are left before the section's end is in it: the decoders see the same
 * bytes as in one buffer, wherever the window starts. */
struct cursor {
	const uint8_t *p; /* the window: section bytes [base, +avail) */
	uint64_t base, avail;
	uint64_t off; /* the next instruction */
};

struct stream {
	struct elf_window w;
	struct cursor c;
	uint64_t end;		    /* stop at end */
	uint64_t (*refs)[2];	    /* [instruction, target], in code order */
	size_t nrefs, cap, from;    /* refs[from...] are kept */
	uint64_t starts[XREF_SYNC]; /* its first instructions' offsets */
	size_t nstarts;
	bool failed; /* the file ends before the section does */
	bool kept;   /* its references (from from on) are kept */
};

static void stream_init(struct stream *st, struct elfimg *img, uint64_t off,
			uint64_t end)
{
	memset(st, 0, sizeof(*st));
	elf_window_init(&st->w, img, XREF_WINDOW);
	st->c.base = st->c.off = off;
	st->end = end;
}

static void stream_free(struct stream *st)
{
	elf_window_free(&st->w);
	free(st->refs);
}

/* Bytes a stream steps over past its end while it is joined to the next
 * (at most the next one's XREF_SYNC first instructions, if they meet) */
#define XREF_JOIN (XREF_SYNC * ZYDIS_MAX_INSTRUCTION_LENGTH)

/* The bytes of section s that st's window holds from offset off: up to
 * XREF_WINDOW, to the section's end and, before st's end, to XREF_JOIN
 * past it (a join that goes further slides the window on). A window is
 * read whole: at XREF_WINDOW bytes each, libc's 16-byte .plt.got cost
 * 64 KiB of copy, and the end of each of a big section's streams up to
 * 64 KiB of the next one's part for a few instructions. The decoders
 * see the same bytes wherever a window starts. */
static uint64_t window_len(const struct elf_section *s, const struct stream *st,
			   uint64_t off)
{
	uint64_t n = MIN(s->size - off, (uint64_t)XREF_WINDOW);

	if (st->end > off && st->end - off < n - MIN(n, XREF_JOIN))
		n = st->end - off + XREF_JOIN;
	return n;
}

/* What a sweep of section s of img decodes with: Zydis, the data span,
 * whether the code addresses data absolutely (position-dependent
 * executables do). */
struct sweepctx {
	const ZydisDecoder *dec;
	const struct elf_section *s;
	const struct xrefvec *xv;
	bool abs;
};

/* Decode the instruction at c->off (c: st's cursor, or a copy) and step
 * over it (over one byte if it cannot be decoded), keeping a reference
 * into the data span in st->refs, and with starts its offset among the
 * first XREF_SYNC of st (only a stream that another joins needs them).
 * Returns false (and sets st->failed) if the file ends before the
 * section. Inlined: its callers' loops run it 12 M times on libLLVM. */
static inline __attribute__((always_inline)) bool
stream_step(const struct sweepctx *x, struct stream *st, struct cursor *c,
	    bool starts)
{
	const struct elf_section *s = x->s;
	enum x86_kind kind = X86_K_NONE;
	uint64_t off = c->off, t = 0;
	struct x86_insn in;
	const uint8_t *q;
	size_t len, n;

	if (off - c->base + ZYDIS_MAX_INSTRUCTION_LENGTH > c->avail &&
	    c->base + c->avail < s->size) {
		c->base = off;
		c->avail = window_len(s, st, off);
		c->p = elf_window_get_ahead(&st->w, s->offset + off, c->avail,
					    c->avail);
		if (!c->p) {
			st->failed = true;
			return false;
		}
	}
	if (starts && st->nstarts < XREF_SYNC)
		st->starts[st->nstarts++] = off;
	q = c->p + (off - c->base);
	n = c->avail - (off - c->base);
	len = x86_decode_ref(q, n, s->addr + off, x->abs, &kind, &t);
	if (!len) {
		len = decode_zydis(x->dec, q, n, &in);
		kind = len ? x86_insn_target(&in, s->addr + off, x->abs, &t)
			   : X86_K_NONE;
	}
	/* written always, kept by the count: whether an instruction makes a
	 * reference is no branch to predict */
	if (st->nrefs == st->cap)
		xgrow(&st->refs, &st->cap, st->nrefs + 1, sizeof(*st->refs));
	st->refs[st->nrefs][0] =
	    (s->addr + off) | (kind == X86_K_IMM ? XREF_IMM : 0);
	st->refs[st->nrefs][1] = t;
	st->nrefs += (kind != X86_K_NONE) & (t >= x->xv->lo) & (t < x->xv->hi);
	c->off = off + (len ? len : 1);
	return true;
}

/* Instructions each stream decodes in streams_bulk() between two checks
 * of its window, its end and its reference buffer */
#define XREF_CHUNK 64
/* the bytes a stream may read past its next instruction in one chunk */
#define XREF_AHEAD (XREF_CHUNK * ZYDIS_MAX_INSTRUCTION_LENGTH + X86_FAST_READ)

/* A stream as streams_bulk() runs it: its next instruction is at q, in
 * a window that ends at wend, and at VM address q + delta (taken as
 * numbers); its next reference goes to out (kept if its target is in
 * the data span: see lane_back()). */
struct lane {
	const uint8_t *q, *wend;
	uint64_t delta;
	uint64_t (*out)[2];
};

/* The instruction at q (its window ending at wend, at VM address addr),
 * where x86_decode_tab() gives no answer: by x86_decode_ref_slow() (a
 * padding NOP or x86_decode_fast()) or Zydis (its length 1 if it cannot
 * be decoded). Out of line: 3 % of the
 * instructions. */
static __attribute__((noinline)) struct x86_ref
lane_slow(const struct sweepctx *x, const uint8_t *q, const uint8_t *wend,
	  uint64_t addr)
{
	size_t n = (size_t)(wend - q), len;
	struct x86_insn in;
	struct x86_ref r = {0};
	enum x86_kind kind = X86_K_NONE;

	len = x86_decode_ref_slow(q, n, addr, x->abs, &kind, &r.t);
	if (!len) {
		len = decode_zydis(x->dec, q, n, &in);
		kind =
		    len ? x86_insn_target(&in, addr, x->abs, &r.t) : X86_K_NONE;
	}
	r.len = len ? (uint32_t)len : 1;
	r.ref = kind != X86_K_NONE ? X86_REF : 0;
	r.imm = kind == X86_K_IMM;
	r.ok = true;
	return r;
}

_Static_assert(X86_REF == sizeof(uint64_t[2]), "x86_ref.ref steps one pair");

/* XREF_CHUNK instructions of each of the nl lanes l, one lane after the
 * other (the decoding of one instruction waits for the length of the one
 * before; the lanes' instructions do not). Every instruction writes its
 * [address, target] at its lane's out, which moves on only if it makes a
 * reference (by the answer's ref, X86_REF bytes: one pair, no shift): no
 * branch depends on the instruction but the table's miss. */
static inline __attribute__((always_inline)) void
lanes_run(const struct sweepctx *x, struct lane *lp, size_t nl, bool abs)
{
	/* a copy the unrolled loop holds in registers */
	struct lane l[XREF_STREAMS];

	memcpy(l, lp, nl * sizeof(*l));
	for (unsigned r = 0; r < XREF_CHUNK; r++) {
#pragma GCC unroll 4
		for (size_t k = 0; k < nl; k++) {
			const uint8_t *q = l[k].q;
			/* position-independent code names addresses
			 * relative to the instruction only: decoded at q's
			 * own value, both moved by delta in lane_back() */
			uint64_t addr = (uintptr_t)q + (abs ? l[k].delta : 0);
			struct x86_ref d = x86_decode_tab(q, addr, abs);

			if (__builtin_expect(!d.ok, 0))
				d = lane_slow(x, q, l[k].wend, addr);
			(*l[k].out)[0] = addr;
			(*l[k].out)[1] = d.t;
			l[k].out = (uint64_t(*)[2])((char *)l[k].out + d.ref);
			l[k].q += d.len;
		}
	}
	memcpy(lp, l, nl * sizeof(*l));
}

/* lanes_run() with nl and abs constants: each case its own unrolled
 * loop. */
static void lanes_run_n(const struct sweepctx *x, struct lane *l, size_t nl)
{
	switch (nl * 2 + x->abs) {
	case 2:
		lanes_run(x, l, 1, false);
		break;
	case 3:
		lanes_run(x, l, 1, true);
		break;
	case 4:
		lanes_run(x, l, 2, false);
		break;
	case 5:
		lanes_run(x, l, 2, true);
		break;
	case 6:
		lanes_run(x, l, 3, false);
		break;
	case 7:
		lanes_run(x, l, 3, true);
		break;
	case 8:
		lanes_run(x, l, 4, false);
		break;
	case 9:
		lanes_run(x, l, 4, true);
		break;
	}
}

/* Can st run a chunk of lanes_run() without a check (its first
 * instructions recorded if starts; XREF_AHEAD bytes in its window, its
 * window slid on if not; XREF_CHUNK instructions before its end; room for
 * XREF_CHUNK references)? Sets st->failed if the file ends before the
 * section. */
static bool stream_ready(const struct sweepctx *x, struct stream *st,
			 bool starts)
{
	const struct elf_section *s = x->s;
	struct cursor *c = &st->c;

	if (st->failed || (starts && st->nstarts < XREF_SYNC) ||
	    c->off >= st->end ||
	    st->end - c->off < XREF_CHUNK * ZYDIS_MAX_INSTRUCTION_LENGTH)
		return false;
	if (c->off - c->base + XREF_AHEAD > c->avail) {
		/* the bytes seen are the same wherever the window starts */
		if (c->base + c->avail >= s->size)
			return false;
		c->base = c->off;
		c->avail = window_len(s, st, c->off);
		c->p = elf_window_get_ahead(&st->w, s->offset + c->off,
					    c->avail, c->avail);
		if (!c->p) {
			st->failed = true;
			return false;
		}
		if (XREF_AHEAD > c->avail)
			return false;
	}
	if (st->cap - st->nrefs < XREF_CHUNK)
		xgrow(&st->refs, &st->cap, st->nrefs + XREF_CHUNK,
		      sizeof(*st->refs));
	return true;
}

/* Is the address the instruction at VM address a (in st's window)
 * names a MOV's immediate (position-dependent code)? Asked again of the
 * few instructions whose target lies in the data span (node: 180 k of
 * 6.9 M), not told by lanes_run() for every one: that cost node's run
 * 3 % more time. */
static bool lane_imm(const struct sweepctx *x, const struct stream *st,
		     uint64_t a)
{
	const uint8_t *q = st->c.p + (a - x->s->addr - st->c.base);
	struct x86_ref r = x86_decode_tab(q, a, true);

	if (!r.ok)
		r = lane_slow(x, q, st->c.p + st->c.avail, a);
	return r.imm;
}

/* Back from lanes_run(): st's cursor from l, and of the references l
 * wrote, those into the data span kept (XREF_IMM set in those of a MOV's
 * immediate). */
static void lane_back(const struct sweepctx *x, struct stream *st,
		      const struct lane *l)
{
	size_t end = (size_t)(l->out - st->refs);
	uint64_t delta = x->abs ? 0 : l->delta;

	for (size_t i = st->nrefs; i < end; i++) {
		uint64_t a = st->refs[i][0] + delta, t = st->refs[i][1] + delta;

		if (t >= x->xv->lo && t < x->xv->hi) {
			/* the window still holds the chunk's bytes */
			if (x->abs && lane_imm(x, st, a))
				a |= XREF_IMM;
			st->refs[st->nrefs][0] = a;
			st->refs[st->nrefs++][1] = t;
		}
	}
	st->c.off = st->c.base + (uint64_t)(l->q - st->c.p);
}

/* Sweep each of the ns streams st to its end (with starts, recording
 * its first instructions): those that can run a chunk of lanes_run()
 * side by side, the others (near their ends or windows' ends, or while
 * their first instructions are recorded) one stream_step() at a time. */
static void streams_bulk(const struct sweepctx *x, struct stream *st, size_t ns,
			 bool starts)
{
	struct lane l[XREF_STREAMS];
	struct stream *ls[XREF_STREAMS];
	size_t nl, live;

	do {
		nl = live = 0;
		for (size_t k = 0; k < ns; k++) {
			struct stream *a = &st[k];

			if (stream_ready(x, a, starts)) {
				ls[nl] = a;
				const uint8_t *q =
				    a->c.p + (a->c.off - a->c.base);

				l[nl++] = (struct lane){q, a->c.p + a->c.avail,
							x->s->addr + a->c.off -
							    (uintptr_t)q,
							a->refs + a->nrefs};
				live++;
			} else if (!a->failed && a->c.off < a->end) {
				live += stream_step(x, a, &a->c, starts);
			}
		}
		lanes_run_n(x, l, nl);
		for (size_t j = 0; j < nl; j++)
			lane_back(x, ls[j], &l[j]);
	} while (live);
}

/* Where a sweep's references go, in code order: img's cache, each as
 * [instruction - code_base, target - data_base] in 32 bits (compact:
 * the code less than 2 GiB, the data span less than 4 GiB), else a list of
 * [instruction, target] replayed once, not cached. */
struct refsink {
	struct elfimg_priv *pv;
	bool compact;
	uint64_t (*wide)[2];
	size_t nwide, wcap;
	uint64_t imm_bit; /* the wide list's: refsrc's */
};

/* Append the kept references of the ns streams st to sink, freeing each
 * stream's own copy once it is appended: a big binary's references are
 * megabytes, held twice only one stream at a time. */
static void streams_keep(struct refsink *sink, struct stream *st, size_t ns)
{
	struct elfimg_priv *pv = sink->pv;
	size_t total = sink->compact ? pv->nxref_raw : sink->nwide;

	for (size_t k = 0; k < ns; k++)
		if (st[k].kept)
			total += st[k].nrefs - st[k].from;
	if (sink->compact)
		xgrow(&pv->xref_raw, &pv->xref_cap, total,
		      sizeof(*pv->xref_raw));
	else
		xgrow(&sink->wide, &sink->wcap, total, sizeof(*sink->wide));
	for (size_t k = 0; k < ns; k++) {
		for (size_t i = st[k].from; st[k].kept && i < st[k].nrefs;
		     i++) {
			const uint64_t *r = st[k].refs[i];

			if (!sink->compact) {
				sink->wide[sink->nwide][0] = r[0];
				sink->wide[sink->nwide++][1] = r[1];
				continue;
			}
			pv->xref_raw[pv->nxref_raw][0] =
			    (uint32_t)((r[0] & ~XREF_IMM) -
				       pv->xref_code_base) |
			    (r[0] & XREF_IMM ? XREF_RAW_IMM : 0);
			pv->xref_raw[pv->nxref_raw++][1] =
			    (uint32_t)(r[1] - pv->xref_data_base);
		}
		free(st[k].refs);
		st[k].refs = NULL;
	}
}

/* Join the ns streams of section s, each stopped at its end, into one
 * sweep: the stream before each steps on until it reaches one of the next
 * one's first instructions, from where both decode alike, so the next
 * one's references from there on follow its own. One that passes the next
 * one's XREF_SYNC first instructions (they never met) sweeps the next
 * one's part itself. Marks the streams whose references are kept (from
 * their from on): together, in order, those of one sweep. Returns false
 * if a stream met the file's end. */
static bool stream_join(const struct sweepctx *x, struct stream *st, size_t ns)
{
	const struct elf_section *s = x->s;
	struct stream *cur = &st[0];
	uint64_t imm_bit = x->abs ? XREF_IMM : 0;

	for (size_t k = 1; k < ns; k++) {
		struct stream *nx = &st[k];
		bool met = false;
		size_t j = 0;

		if (cur->failed || nx->failed)
			return false;
		while (cur->c.off < s->size) {
			while (j < nx->nstarts && nx->starts[j] < cur->c.off)
				j++;
			if (j == nx->nstarts)
				break;
			met = nx->starts[j] == cur->c.off;
			if (met || !stream_step(x, cur, &cur->c, false))
				break;
		}
		if (cur->failed)
			return false;
		if (!met) {
			cur->end = nx->end;
			while (cur->c.off < cur->end)
				if (!stream_step(x, cur, &cur->c, false))
					return false;
			continue;
		}
		cur->kept = true;
		while (nx->from < nx->nrefs &&
		       (nx->refs[nx->from][0] & ~imm_bit) <
			   s->addr + cur->c.off)
			nx->from++;
		cur = nx;
	}
	cur->kept = true;
	return true;
}

/* Decode bytes [from, to) of section s once, absolute references too if
 * abs, and keep the [instruction, target] of each reference into xv's
 * data span in sink, in code order.
 * A part of XREF_SPLIT bytes or more is cut into XREF_STREAMS parts
 * swept side by side and joined (stream_join()); should the file end
 * before the section, it is swept again as one stream, which stops
 * there. */
static void sweep_part(struct elfimg *img, const ZydisDecoder *dec,
		       const struct elf_section *s, const struct xrefvec *xv,
		       struct refsink *sink, uint64_t from, uint64_t to,
		       bool abs)
{
	uint64_t len = to - from;
	size_t ns = len >= XREF_SPLIT ? XREF_STREAMS : 1;
	const struct sweepctx x = {dec, s, xv, abs};
	struct stream st[XREF_STREAMS];
	bool ok;

	for (;;) {
		for (size_t k = 0; k < ns; k++)
			stream_init(&st[k], img, from + len / ns * k,
				    k + 1 < ns ? from + len / ns * (k + 1)
					       : to);
		streams_bulk(&x, st, ns, ns > 1);
		st[0].kept = ns == 1;
		ok = ns == 1 || stream_join(&x, st, ns);
		if (ok)
			streams_keep(sink, st, ns);
		for (size_t k = 0; k < ns; k++)
			stream_free(&st[k]);
		if (ok)
			return;
		ns = 1;
	}
}

/* Is s a section of code the sweep decodes? */
static bool is_code(const struct elf_section *s)
{
	return (s->flags & SHF_ALLOC) && (s->flags & SHF_EXECINSTR) &&
	       s->type == SHT_PROGBITS && s->size;
}

/* Where a sweep of an image decodes: position-dependent code
 * (ET_EXEC) with absolute references, but for Go's code, [golo, gohi)
 * if go (elf_go_text()), which is swept without; holes[0, nholes): the
 * data symbols in code sections, sorted by start (sweep_holes()), which
 * are not decoded. */
struct sweepplan {
	bool abs, go;
	uint64_t golo, gohi;
	struct elf_range *holes;
	size_t nholes;
};

/* Decode bytes [from, to) of section s into sink, as plan says: Go's
 * code without absolute references. */
static void sweep_span(struct elfimg *img, const ZydisDecoder *dec,
		       const struct elf_section *s, const struct xrefvec *xv,
		       struct refsink *sink, const struct sweepplan *plan,
		       uint64_t from, uint64_t to)
{
	uint64_t a, b;

	if (!plan->abs || !plan->go) {
		sweep_part(img, dec, s, xv, sink, from, to, plan->abs);
		return;
	}
	/* Go's code as offsets in s, within [from, to): [a, b) */
	a = plan->golo <= s->addr ? 0 : plan->golo - s->addr;
	b = plan->gohi <= s->addr ? 0 : plan->gohi - s->addr;
	a = MIN(MAX(a, from), to);
	b = MIN(MAX(b, a), to);
	if (a > from)
		sweep_part(img, dec, s, xv, sink, from, a, true);
	if (b > a)
		sweep_part(img, dec, s, xv, sink, a, b, false);
	if (b < to)
		sweep_part(img, dec, s, xv, sink, b, to, true);
}

/* Decode section s into sink, as plan says, but for the bytes of the
 * data symbols in it (plan->holes: tables an assembler file keeps in
 * .text, whose bytes decode as instructions naming data they never
 * refer to): the sweep stops at each one's start and starts again at
 * its end, an instruction boundary as the symbol table says. */
static void sweep(struct elfimg *img, const ZydisDecoder *dec,
		  const struct elf_section *s, const struct xrefvec *xv,
		  struct refsink *sink, const struct sweepplan *plan)
{
	uint64_t off = 0;
	size_t h = 0;

	while (off < s->size) {
		uint64_t stop = s->size, next = s->size;
		const struct elf_range *y;

		/* the first hole that ends after off (sorted by start: none
		 * before it starts after it), if it starts in s */
		while (h < plan->nholes && plan->holes[h].end <= s->addr + off)
			h++;
		y = h < plan->nholes ? &plan->holes[h] : NULL;
		if (y && y->start < span_end(s->addr, s->size)) {
			stop = y->start <= s->addr ? 0 : y->start - s->addr;
			stop = MAX(stop, off);
			next = MIN(y->end - s->addr, s->size);
		}
		if (stop > off)
			sweep_span(img, dec, s, xv, sink, plan, off, stop);
		off = MAX(next, stop);
	}
}

/* The data symbols (STT_OBJECT, STT_TLS) of all[0, nall)
 * (elf_syms_load()'s order: SYM_VM first, by address) that start in a
 * code section of img, as ranges sorted by start into *holes (caller
 * frees; NULL if none) and *n. */
static void sweep_holes(const struct elfimg *img, const struct sym *all,
			size_t nall, struct elf_range **holes, size_t *n)
{
	size_t cap = 0, ncode = 0;
	/* the code sections: a handful, each symbol checked against them */
	const struct elf_section **code =
	    xcalloc(img->nsecs ? img->nsecs : 1, sizeof(*code));

	*holes = NULL;
	*n = 0;
	for (size_t k = 1; k < img->nsecs; k++)
		if (is_code(&img->secs[k]))
			code[ncode++] = &img->secs[k];
	for (size_t i = 0; ncode && i < nall && all[i].where == SYM_VM; i++) {
		const struct sym *y = &all[i];
		bool in_code = false;

		if (!y->data || !y->size)
			continue;
		for (size_t k = 0; k < ncode && !in_code; k++)
			in_code = y->addr >= code[k]->addr &&
				  y->addr - code[k]->addr < code[k]->size;
		if (!in_code)
			continue;
		xgrow(holes, &cap, *n + 1, sizeof(**holes));
		(*holes)[(*n)++] =
		    (struct elf_range){y->addr, span_end(y->addr, y->size)};
	}
	free(code);
}

/* Decode every code section of img into sink (set up here: compact, and
 * the bases of img's cache, when the code and xv's data span fit in 32
 * bits), but for the data symbols of all[0, nall) in them. Returns 0 or a
 * negative code. */
static int sweep_all(struct elfimg *img, const struct xrefvec *xv,
		     struct refsink *sink, const struct sym *all, size_t nall)
{
	struct elfimg_priv *pv = img->priv;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct sweepplan plan = {.abs = img->type == ET_EXEC};
	ZydisDecoder dec;
	int ret;

	ret = xzy_decoder(&dec);
	if (ret < 0)
		return ret;
	for (size_t i = 1; i < img->nsecs; i++)
		if (is_code(&img->secs[i])) {
			lo = MIN(lo, img->secs[i].addr);
			hi = MAX(
			    hi, span_end(img->secs[i].addr, img->secs[i].size));
		}
	pv->xref_code_base = lo;
	pv->xref_data_base = xv->lo;
	/* room for XREF_IMM and XREF_RAW_IMM (see there): code above 2^63,
	 * which no loader maps, is swept as position-independent */
	plan.abs = plan.abs && hi <= XREF_IMM;
	sink->compact = hi - lo < XREF_RAW_IMM && xv->hi - xv->lo <= UINT32_MAX;
	sink->imm_bit = plan.abs ? XREF_IMM : 0;
	plan.go = elf_go_text(img, &plan.golo, &plan.gohi);
	sweep_holes(img, all, nall, &plan.holes, &plan.nholes);
	for (size_t i = 1; i < img->nsecs; i++)
		if (is_code(&img->secs[i]))
			sweep(img, &dec, &img->secs[i], xv, sink, &plan);
	free(plan.holes);
	/* to its size: the cache lives as long as img (the doubling's
	 * slack was 0.5 MiB of libLLVM-14's peak RSS) */
	if (sink->compact && pv->xref_cap > pv->nxref_raw) {
		pv->xref_raw =
		    xrealloc(pv->xref_raw, (pv->nxref_raw ? pv->nxref_raw : 1) *
					       sizeof(*pv->xref_raw));
		pv->xref_cap = pv->nxref_raw;
	}
	pv->xref_swept = sink->compact;
	return 0;
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
		ret = sweep_all(img, xv, &sink, all, nall);
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
