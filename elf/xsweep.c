// SPDX-License-Identifier: GPL-2.0-or-later
/* xsweep.c — the code sweep of elf/xrefs.c (see xsweep.h): every
 * executable section decoded once, as interleaved streams, by
 * elf/x86dec.c's table and, where it gives no answer, its decoder's
 * branches or Zydis. */
#include "config.h"

#include "elf/x86dec.h"
#include "elf/xsweep.h"
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
	const struct dataspan *xv;
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
		       const struct elf_section *s, const struct dataspan *xv,
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
		       const struct elf_section *s, const struct dataspan *xv,
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
		  const struct elf_section *s, const struct dataspan *xv,
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

int xref_sweep_all(struct elfimg *img, const struct dataspan *xv,
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
