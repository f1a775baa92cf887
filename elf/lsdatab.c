// SPDX-License-Identifier: GPL-2.0-or-later
/* lsdatab.c — the LSDA reader, and .gcc_except_table's LSDAs charged to
 * their functions.
 *
 * An FDE whose CIE has the 'L' augmentation points to the LSDA of its
 * function (language-specific data: where its call sites land and what
 * they catch) in .gcc_except_table. The LSDA's length is stored nowhere:
 * elf_lsda_len() reads it through, as the personality routine does. The
 * format is GCC's (gcc/except.c, LLVM's EHStreamer), which every
 * personality routine of ELF toolchains reads (C++'s, C's, Objective-C's,
 * Ada's, Go's, D's, Rust's): the routine is not looked at, only the
 * section the pointer lands in. Bytes no LSDA covers (the alignment
 * padding between LSDAs, an LSDA no FDE points to) stay "[section
 * .gcc_except_table]". */
#include "config.h"

#include "elf/ehcur.h"
#include "elf/elfpriv.h"
#include "elf/lsdatab.h"
#include "elf/metasink.h"
#include "elf/secaddr.h"
#include "elf/secrefs.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* --- LSDAs (GCC's format, read by __gxx_personality_v0) --- */

/* Is enc a pointer encoding libgcc reads (a known format and
 * application, maybe indirect)? Not DW_EH_PE_aligned (0x50), which
 * read_encoded_value() aligns to a pointer's size before reading and
 * cur_pe_raw() does not (no compiler writes it in an LSDA). */
static bool pe_known(int enc)
{
	return (enc & PE_APPL_MASK) < PE_ALIGNED &&
	       (pe_size(enc, 4) || (enc & PE_FORMAT_MASK) == PE_ULEB128 ||
		(enc & PE_FORMAT_MASK) == PE_SLEB128);
}

/* The end of the exception specification lists whose offsets are
 * sc->spec[0, nspec) after the TType base tt of c's LSDA (ehabi: in
 * words, each list of words; else in bytes, of ULEB128s), each ending
 * at a 0; tt if none; 0 if one runs past c->end. *maxidx: the largest
 * type index the lists hold (ULEB128 ones: ARM's words point to their
 * types). Sorted, a list starting inside one read before ends where it
 * does (or before), its indexes among that one's: not read again. */
static size_t spec_sweep(struct cur *c, size_t tt, bool ehabi,
			 struct elf_lsda_scratch *sc, uint64_t *maxidx)
{
	size_t done = tt;

	*maxidx = 0;
	if (sc->nspec > 1)
		qsort(sc->spec, sc->nspec, sizeof(*sc->spec), u64_sort_cmp);
	for (size_t i = 0; i < sc->nspec; i++) {
		uint64_t o = sc->spec[i], v = 1;

		if (o > (c->end - tt) / (ehabi ? 4 : 1))
			return 0;
		c->pos = tt + (ehabi ? 4 : 1) * o;
		if (i && c->pos < done)
			continue;
		while (v && !c->err) {
			v = ehabi ? cur_uint(c, 4) : cur_uleb(c);
			if (!v && ehabi && sc->nreloc &&
			    bsearch(&(uint64_t){c->pos - 4}, sc->reloc,
				    sc->nreloc, sizeof(*sc->reloc),
				    u64_sort_cmp))
				v = 1;
			if (!ehabi && v > *maxidx)
				*maxidx = v;
		}
		if (c->err)
			return 0;
		done = c->pos;
	}
	return done;
}

/* Mark the action records of c's LSDA from the one at pos on (its
 * action table starts at at, c->end its room) as sc->seen, raising *end
 * to the end of each, *maxf to its largest type filter, and putting the
 * negative ones' lists into sc->spec. Returns false if a record runs
 * past c->end or links outside [at, c->end). */
static bool action_chain(struct cur *c, size_t at, size_t pos, size_t *end,
			 int64_t *maxf, struct elf_lsda_scratch *sc)
{
	while (pos >= at && pos < c->end) {
		size_t k = pos - at, link;
		int64_t filter, disp;

		if (sc->seen[k / 64] & (1ull << (k % 64)))
			return true; /* read: so is the rest of the chain */
		sc->seen[k / 64] |= 1ull << (k % 64);
		c->pos = pos;
		filter = cur_sleb(c);
		link = c->pos;
		disp = cur_sleb(c);
		if (c->err)
			return false;
		*end = MAX(*end, c->pos);
		if (filter > *maxf)
			*maxf = filter;
		if (filter < 0) {
			xgrow(&sc->spec, &sc->spec_cap, sc->nspec + 1,
			      sizeof(*sc->spec));
			sc->spec[sc->nspec++] = -(uint64_t)(filter + 1);
		}
		if (!disp)
			return true;
		pos = link + (size_t)disp; /* wraps: caught by the test */
	}
	return false;
}

/* The action records from at on, one after the other, up to bound
 * (where the type table starts, as far as known) or the type entries
 * their largest filter names before the TType base tt (of tsize bytes
 * each), into *maxf and sc->spec as action_chain() does: those no call
 * site reaches too. GCC writes the action and specification tables of a
 * function whole into the LSDA of each of its parts (a .cold one
 * reaches few of them); what follows the records (the alignment before
 * the type table) is zeros, records of filter 0. A record that cannot
 * be read ends the scan. */
static void action_scan(struct cur *c, size_t at, size_t bound, size_t tt,
			size_t tsize, int64_t *maxf,
			struct elf_lsda_scratch *sc)
{
	c->pos = at;
	while (!c->err && c->pos < bound &&
	       (uint64_t)*maxf <= (tt - at) / tsize &&
	       c->pos < tt - (uint64_t)*maxf * tsize) {
		int64_t filter = cur_sleb(c);

		cur_sleb(c);
		if (c->err)
			break;
		if (filter > *maxf)
			*maxf = filter;
		if (filter < 0) {
			xgrow(&sc->spec, &sc->spec_cap, sc->nspec + 1,
			      sizeof(*sc->spec));
			sc->spec[sc->nspec++] = -(uint64_t)(filter + 1);
		}
	}
	c->err = false;
}

/* Where the type table of maxtype entries of tsize bytes before tt
 * starts; at if they do not fit after at */
static size_t types_start(size_t tt, size_t at, size_t tsize, int64_t maxf,
			  uint64_t maxidx)
{
	uint64_t m = MAX((uint64_t)maxf, maxidx);

	return m > (tt - at) / tsize ? at : tt - m * tsize;
}

/* The end of c's LSDA with a type table of tsize-byte entries ending at
 * tt: its specification lists' (tt if none), 0 if one cannot be read.
 * The action records no call site reaches are scanned up to the type
 * table, whose size the filters and the lists' indexes give: first as
 * the reached records (filters up to maxf, their lists in sc->spec) say,
 * then, if the lists of the scanned records name more types, once more
 * up to where those say it starts (the scan may have read type entries
 * as records). A type entry neither a filter nor a list names (none in
 * GCC's or LLVM's LSDAs) may be read as a record. */
static size_t lsda_types(struct cur *c, size_t at, size_t tt, size_t tsize,
			 bool ehabi, int64_t maxf, struct elf_lsda_scratch *sc)
{
	size_t nr = sc->nspec, bound, lim;
	uint64_t maxidx;

	xgrow(&sc->reach, &sc->reach_cap, nr ? nr : 1, sizeof(*sc->reach));
	if (nr)
		memcpy(sc->reach, sc->spec, nr * sizeof(*sc->reach));
	if (!spec_sweep(c, tt, ehabi, sc, &maxidx))
		return 0;
	bound = types_start(tt, at, tsize, maxf, maxidx);
	for (int pass = 0;; pass++) {
		int64_t mf = maxf;
		size_t nb;

		if (nr)
			memcpy(sc->spec, sc->reach, nr * sizeof(*sc->spec));
		sc->nspec = nr;
		action_scan(c, at, bound, tt, tsize, &mf, sc);
		lim = spec_sweep(c, tt, ehabi, sc, &maxidx);
		/* the scan stopped before the types its records' filters
		 * name: only the lists' indexes can move the bound */
		nb = types_start(tt, at, tsize, maxf, maxidx);
		if (pass || nb >= bound)
			return lim;
		bound = nb;
	}
}

/* sc->seen cleared for n bytes of action table */
static void seen_clear(struct elf_lsda_scratch *sc, size_t n)
{
	size_t words = n / 64 + 1;

	if (words > sc->seen_cap) {
		free(sc->seen);
		sc->seen = xcalloc(words, sizeof(*sc->seen));
		sc->seen_cap = words;
		return;
	}
	memset(sc->seen, 0, words * sizeof(*sc->seen));
}

/* The call-site table of c's LSDA, [c->pos, cs_end), of encoding enc:
 * each call site's action chain to action_chain() (the table at cs_end).
 * Returns false if either cannot be read. */
static bool call_sites(struct cur *c, uint8_t enc, size_t cs_end, size_t *end,
		       int64_t *maxf, struct elf_lsda_scratch *sc)
{
	size_t lim = c->end;
	bool cleared = false;

	while (c->pos < cs_end) {
		uint64_t action;
		struct cur s = *c;

		s.end = cs_end;
		cur_pe_raw(&s, enc); /* start */
		cur_pe_raw(&s, enc); /* length */
		cur_pe_raw(&s, enc); /* landing pad */
		action = cur_uleb(&s);
		if (s.err)
			return false;
		c->pos = s.pos;
		if (!action)
			continue;
		if (action - 1 >= lim - cs_end)
			return false;
		if (!cleared) {
			seen_clear(sc, lim - cs_end);
			cleared = true;
		}
		if (!action_chain(c, cs_end, cs_end + action - 1, end, maxf,
				  sc))
			return false;
		c->pos = s.pos;
	}
	return true;
}

uint64_t elf_lsda_len(const unsigned char *buf, size_t off, size_t room,
		      int elfclass, bool be, bool ehabi,
		      struct elf_lsda_scratch *sc)
{
	struct cur c = {
	    .buf = buf,
	    .pos = off,
	    .end = off + room,
	    .be = be,
	    .addr_size = elfclass == ELFCLASS32 ? 4 : 8,
	};
	uint8_t lp_enc, tt_enc, cs_enc;
	size_t tt = 0, cs_end, end;
	uint64_t v;
	int64_t maxf = 0;

	sc->nspec = 0;
	lp_enc = cur_uint(&c, 1);
	if (lp_enc != PE_OMIT) {
		if (!pe_known(lp_enc))
			return 0;
		cur_pe_raw(&c, lp_enc);
	}
	tt_enc = cur_uint(&c, 1);
	if (tt_enc != PE_OMIT) {
		/* the type table's entries are of one size */
		if (!pe_known(tt_enc) || !pe_size(tt_enc, c.addr_size))
			return 0;
		v = cur_uleb(&c);
		if (c.err || v > c.end - c.pos)
			return 0;
		tt = c.pos + v;
	}
	cs_enc = cur_uint(&c, 1);
	v = cur_uleb(&c);
	if (c.err || cs_enc == PE_OMIT || !pe_known(cs_enc) ||
	    v > c.end - c.pos)
		return 0;
	cs_end = c.pos + v;
	end = cs_end;
	if (!call_sites(&c, cs_enc, cs_end, &end, &maxf, sc))
		return 0;
	if (tt_enc == PE_OMIT)
		/* no type table: a filter has nothing to name */
		return maxf || sc->nspec ? 0 : end - off;
	/* the type entries the filters name lie between the action table
	 * and the TType base */
	if (tt < end ||
	    (uint64_t)maxf > (tt - end) / pe_size(tt_enc, c.addr_size))
		return 0;
	end = lsda_types(&c, cs_end, tt, pe_size(tt_enc, c.addr_size), ehabi,
			 maxf, sc);
	return end ? end - off : 0;
}

void elf_lsda_scratch_free(struct elf_lsda_scratch *sc)
{
	free(sc->seen);
	free(sc->spec);
	free(sc->reach);
	sc->seen = sc->spec = sc->reach = NULL;
	sc->seen_cap = sc->nspec = sc->spec_cap = sc->reach_cap = 0;
}

/* Is s a loaded .gcc_except_table (GCC names a function section's
 * .gcc_except_table.NAME) with bytes? */
static bool is_except(const struct elfimg *img, const struct elf_section *s)
{
	(void)img;
	return (s->flags & SHF_ALLOC) && s->type == SHT_PROGBITS &&
	       !strncmp(s->name, ".gcc_except_table", 17) &&
	       (!s->name[17] || s->name[17] == '.');
}

/* elf_lsda_add()'s reader: its scratch, the LSDAs it could not read */
struct lsda_read {
	struct elf_lsda_scratch sc;
	const struct elfimg *img;
	uint64_t bad;
};

static uint64_t lsda_len(void *arg, const unsigned char *b, uint64_t off,
			 uint64_t room)
{
	struct lsda_read *lr = arg;
	uint64_t len =
	    elf_lsda_len(b, (size_t)off, (size_t)room, lr->img->elfclass,
			 lr->img->big_endian, false, &lr->sc);

	lr->bad += !len;
	return len;
}

uint64_t elf_lsda_add(struct elfimg *img, struct metasink *ms,
		      struct elf_refs *r)
{
	static const struct elf_refs_ops ops = {NULL, lsda_len};
	struct lsda_read lr = {.img = img};
	struct elf_secaddr x;

	if (!r->n)
		return 0;
	elf_secaddr_build(&x, img, is_except);
	elf_refs_charge(img, ms, &x, r, &ops, &lr);
	elf_secaddr_free(&x);
	elf_lsda_scratch_free(&lr.sc);
	return lr.bad;
}
