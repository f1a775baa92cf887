// SPDX-License-Identifier: GPL-2.0-or-later
/* dwarfscan.c — see dwarfscan.h. Written here, not taken from libdw: its
 * walk is what costs (see the header); libdw still reads the DIEs the
 * scan finds. Anything the scan does not know sends the unit back to
 * libdw, so a well-formed unit gives the same variables either way. The
 * scan walks the DIEs in the order they are stored, where libdw's walk
 * follows DW_AT_sibling: on DWARF whose sibling links disagree with that
 * order (broken or hostile) the two may find different variables; both
 * stay inside the section, and only labels can differ. */
#include "config.h"

#include "elf/dwarfscan.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* How an attribute's value is laid out in a DIE: a fixed number of bytes
 * (0..16), or one of these. */
enum {
	K_ADDR = 32, /* the unit's address size */
	K_OFF,	     /* the unit's offset size (4, or 8 in 64-bit DWARF) */
	K_REFADDR,   /* DWARF 2: the address size; later: the offset size */
	K_LEB,	     /* one LEB128 number */
	K_STRING,    /* bytes up to and with a NUL */
	K_BLOCK1,    /* a 1-, 2- or 4-byte length, then that many bytes */
	K_BLOCK2,
	K_BLOCK4,
	K_BLOCKLEB, /* a LEB128 length, then that many bytes */
	K_BAD = 255 /* not decoded: the unit goes to libdw */
};

/* The layout of each form (DWARF 2-5), by form code; 0 is no form. */
static const uint8_t form_kind[] = {
    [0] = K_BAD,
    [DW_FORM_addr] = K_ADDR,
    [0x02] = K_BAD, /* reserved */
    [DW_FORM_block2] = K_BLOCK2,
    [DW_FORM_block4] = K_BLOCK4,
    [DW_FORM_data2] = 2,
    [DW_FORM_data4] = 4,
    [DW_FORM_data8] = 8,
    [DW_FORM_string] = K_STRING,
    [DW_FORM_block] = K_BLOCKLEB,
    [DW_FORM_block1] = K_BLOCK1,
    [DW_FORM_data1] = 1,
    [DW_FORM_flag] = 1,
    [DW_FORM_sdata] = K_LEB,
    [DW_FORM_strp] = K_OFF,
    [DW_FORM_udata] = K_LEB,
    [DW_FORM_ref_addr] = K_REFADDR,
    [DW_FORM_ref1] = 1,
    [DW_FORM_ref2] = 2,
    [DW_FORM_ref4] = 4,
    [DW_FORM_ref8] = 8,
    [DW_FORM_ref_udata] = K_LEB,
    [DW_FORM_indirect] = K_BAD, /* the form is in the DIE: not scanned */
    [DW_FORM_sec_offset] = K_OFF,
    [DW_FORM_exprloc] = K_BLOCKLEB,
    [DW_FORM_flag_present] = 0,
    [DW_FORM_strx] = K_LEB,
    [DW_FORM_addrx] = K_LEB,
    [DW_FORM_ref_sup4] = 4,
    [DW_FORM_strp_sup] = K_OFF,
    [DW_FORM_data16] = 16,
    [DW_FORM_line_strp] = K_OFF,
    [DW_FORM_ref_sig8] = 8,
    [DW_FORM_implicit_const] = 0, /* the value is in the abbreviation */
    [DW_FORM_loclistx] = K_LEB,
    [DW_FORM_rnglistx] = K_LEB,
    [DW_FORM_ref_sup8] = 8,
    [DW_FORM_strx1] = 1,
    [DW_FORM_strx2] = 2,
    [DW_FORM_strx3] = 3,
    [DW_FORM_strx4] = 4,
    [DW_FORM_addrx1] = 1,
    [DW_FORM_addrx2] = 2,
    [DW_FORM_addrx3] = 3,
    [DW_FORM_addrx4] = 4,
};

/* GNU extensions, outside the table's range. */
static const struct {
	uint16_t form;
	uint8_t kind;
} gnu_forms[] = {
    {DW_FORM_GNU_addr_index, K_LEB},
    {DW_FORM_GNU_str_index, K_LEB},
    {DW_FORM_GNU_ref_alt, K_OFF},
    {DW_FORM_GNU_strp_alt, K_OFF},
};

/* Tags whose children the walk visits (the others are types and the
 * like: a variable inside them is a member, not a static object). */
static const uint16_t walked_tags[] = {
    DW_TAG_subprogram, DW_TAG_lexical_block, DW_TAG_inlined_subroutine,
    DW_TAG_namespace,  DW_TAG_module,
};

/* Abbreviation codes above this are taken as hostile (real tables number
 * theirs from 1 up, a few thousand at most): the unit goes to libdw. */
#define MAX_ABBREV_CODE 65536

#define NO_LOC UINT32_MAX

/* The size of values whose sizes are known from their unit: fixed bytes,
 * plus naddr times the address size, noff times the offset size and nref
 * times DW_FORM_ref_addr's size. */
struct dwsize {
	uint32_t fixed, naddr, noff, nref;
};

struct dwabbrev {
	uint32_t tag; /* 0: no abbreviation of this code */
	bool children;
	bool walked;	   /* tag is one of walked_tags */
	uint32_t first, n; /* its kinds: s->forms[first .. first + n) */
	uint32_t loc;	   /* which is DW_AT_location; NO_LOC: none */
	/* which is the first DW_AT_sibling (NO_LOC: none), and whether its
	 * form is one libdw reads as a reference (ref1-8, ref_udata) */
	uint32_t sib;
	bool sibref;
	/* which is the first DW_AT_type (NO_LOC: none), and whether its form
	 * is a reference into the unit (ref1-8, ref_udata) */
	uint32_t type;
	bool typeref;
	uint64_t specs; /* its attribute specs, in .debug_abbrev */
	/* sized: every value has a size known from the unit alone (most
	 * DIEs: no strings, LEB128 numbers or blocks), size */
	bool sized;
	struct dwsize size;
	uint64_t len; /* sized: that size for the unit being scanned */
	/* sibsized: the values before DW_AT_sibling are sized alike
	 * (sibsize), its value then sitting siblen bytes into the DIE's
	 * values for the unit being scanned */
	bool sibsized;
	struct dwsize sibsize;
	uint64_t siblen;
};

static uint8_t kind_of(uint64_t form)
{
	if (form < ARRAY_SIZE(form_kind))
		return form ? form_kind[form] : K_BAD;
	for (size_t i = 0; i < ARRAY_SIZE(gnu_forms); i++)
		if (gnu_forms[i].form == form)
			return gnu_forms[i].kind;
	return K_BAD;
}

static bool is_walked(uint64_t tag)
{
	for (size_t i = 0; i < ARRAY_SIZE(walked_tags); i++)
		if (walked_tags[i] == tag)
			return true;
	return false;
}

/* One LEB128 number at *p (before end), *p moved past it. False if it
 * runs past end. The value is exact for the 64 bits it keeps. */
static inline bool leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	if (*p < end && !(**p & 0x80)) { /* most are one byte */
		*v = *(*p)++;
		return true;
	}
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

void dwscan_init(struct dwscan *s, const uint8_t *info, size_t info_len,
		 const uint8_t *abbrev, size_t abbrev_len, bool be)
{
	memset(s, 0, sizeof(*s));
	s->info = info;
	s->info_len = info_len;
	s->abbrev = abbrev;
	s->abbrev_len = abbrev_len;
	s->be = be;
	s->abbrev_off = UINT64_MAX;
}

void dwscan_free(struct dwscan *s)
{
	free(s->abbrevs);
	free(s->forms);
	s->abbrevs = NULL;
	s->forms = NULL;
}

/* Add a value of layout kind k to the size z counts; false if its size
 * is not known from the unit alone. */
static inline bool size_add(struct dwsize *z, uint16_t k)
{
	if (k <= 16)
		z->fixed += k;
	else if (k == K_ADDR)
		z->naddr++;
	else if (k == K_OFF)
		z->noff++;
	else if (k == K_REFADDR)
		z->nref++;
	else
		return false;
	return true;
}

/* Note attribute attr of form form, the i-th of a, in a. */
static inline void abbrev_attr(struct dwabbrev *a, uint64_t attr, uint64_t form,
			       uint32_t i)
{
	bool ref = form == DW_FORM_ref1 || form == DW_FORM_ref2 ||
		   form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
		   form == DW_FORM_ref_udata;

	if (attr == DW_AT_location && a->loc == NO_LOC)
		a->loc = i;
	if (attr == DW_AT_type && a->type == NO_LOC) {
		a->type = i;
		a->typeref = ref;
	}
	if (attr == DW_AT_sibling && a->sib == NO_LOC) {
		a->sib = i;
		a->sibref = ref;
		a->sibsized = a->sized;
		a->sibsize = a->size;
	}
}

/* The struct dwabbrev of code code in s's table, zeroed; NULL if code is
 * out of bounds or given twice. */
static struct dwabbrev *abbrev_slot(struct dwscan *s, uint64_t code)
{
	if (code > MAX_ABBREV_CODE)
		return NULL;
	if (code > s->nabbrevs) {
		size_t old = s->nabbrevs;

		xgrow(&s->abbrevs, &s->abbrevcap, code, sizeof(*s->abbrevs));
		memset(s->abbrevs + old, 0, (code - old) * sizeof(*s->abbrevs));
		s->nabbrevs = code;
	}
	return s->abbrevs[code - 1].tag ? NULL : &s->abbrevs[code - 1];
}

/* Add the abbreviation of code code at *p (after its code) to s's table,
 * with its size (abbrev_lens()) as far as it is known from the unit.
 * False if it cannot be decoded. */
static bool abbrev_one(struct dwscan *s, uint64_t code, const uint8_t **p,
		       const uint8_t *end)
{
	struct dwabbrev *a;
	uint64_t tag, attr, form, ic;
	size_t nf = s->nforms;

	if (!leb(p, end, &tag) || !tag || tag > UINT32_MAX || *p >= end ||
	    !(a = abbrev_slot(s, code)))
		return false;
	a->tag = (uint32_t)tag;
	a->walked = is_walked(tag);
	a->children = *(*p)++ != DW_CHILDREN_no;
	a->specs = (uint64_t)(*p - s->abbrev);
	a->first = (uint32_t)nf;
	a->loc = a->sib = a->type = NO_LOC;
	a->sized = true;
	for (;;) {
		uint16_t k;

		if (!leb(p, end, &attr) || !leb(p, end, &form))
			return false;
		if (!attr && !form)
			break;
		if (form == DW_FORM_implicit_const && !leb(p, end, &ic))
			return false;
		abbrev_attr(a, attr, form, (uint32_t)(nf - a->first));
		if (nf == s->formcap)
			xgrow(&s->forms, &s->formcap, nf + 1,
			      sizeof(*s->forms));
		k = kind_of(form);
		s->forms[nf++] = k;
		a->sized = a->sized && size_add(&a->size, k);
	}
	s->nforms = nf;
	a->n = (uint32_t)(nf - a->first);
	return true;
}

/* The abbreviation table at off into s (kept if it is the one there).
 * False if it cannot be decoded. */
static bool abbrev_load(struct dwscan *s, uint64_t off)
{
	const uint8_t *p, *end = s->abbrev + s->abbrev_len;
	uint64_t code;

	if (off == s->abbrev_off)
		return true;
	s->abbrev_off = UINT64_MAX;
	s->nabbrevs = s->nforms = 0;
	s->sized_for = 0;
	if (off >= s->abbrev_len)
		return false;
	p = s->abbrev + off;
	while (leb(&p, end, &code) && code)
		if (!abbrev_one(s, code, &p, end))
			return false;
	s->abbrev_off = off;
	return true;
}

/* The bytes of z in unit u, whose DW_FORM_ref_addr is ref bytes. */
static uint64_t size_len(const struct dwsize *z, const struct dwunit *u,
			 unsigned ref)
{
	return z->fixed + (uint64_t)z->naddr * u->addr_size +
	       (uint64_t)z->noff * u->offset_size + (uint64_t)z->nref * ref;
}

/* The sizes of the sized abbreviations of s's table for the DIEs of u
 * (computed again only when u's sizes differ from the last unit's). */
static void abbrev_lens(struct dwscan *s, const struct dwunit *u)
{
	unsigned ref = u->version <= 2 ? u->addr_size : u->offset_size;
	uint32_t key =
	    u->addr_size | u->offset_size << 8 | ref << 16 | 1u << 24;

	if (s->sized_for == key)
		return;
	for (size_t i = 0; i < s->nabbrevs; i++) {
		struct dwabbrev *a = &s->abbrevs[i];

		a->len = size_len(&a->size, u, ref);
		a->siblen = size_len(&a->sibsize, u, ref);
	}
	s->sized_for = key;
}

/* Move *p past the value of one attribute of layout kind. */
static bool skip_value(const struct dwscan *s, const struct dwunit *u,
		       uint8_t kind, const uint8_t **p, const uint8_t *end)
{
	uint64_t len;
	const uint8_t *nul;

	switch (kind) {
	case K_ADDR:
		len = u->addr_size;
		break;
	case K_OFF:
		len = u->offset_size;
		break;
	case K_REFADDR:
		len = u->version <= 2 ? u->addr_size : u->offset_size;
		break;
	case K_LEB:
		return leb(p, end, &len);
	case K_STRING:
		nul = memchr(*p, 0, (size_t)(end - *p));
		if (!nul)
			return false;
		*p = nul + 1;
		return true;
	case K_BLOCK1:
	case K_BLOCK2:
	case K_BLOCK4: {
		size_t w = kind == K_BLOCK1 ? 1 : kind == K_BLOCK2 ? 2 : 4;

		if ((size_t)(end - *p) < w)
			return false;
		len = elf_get_uint(*p, w, s->be);
		*p += w;
		break;
	}
	case K_BLOCKLEB:
		if (!leb(p, end, &len))
			return false;
		break;
	case K_BAD:
		return false;
	default:
		len = kind; /* fixed size */
		break;
	}
	if (len > (uint64_t)(end - *p))
		return false;
	*p += len;
	return true;
}

/* Move *p past the values of a DIE of abbreviation a, one by one. */
static bool die_values(const struct dwscan *s, const struct dwunit *u,
		       const struct dwabbrev *a, const uint8_t **p,
		       const uint8_t *end)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (!skip_value(s, u, (uint8_t)s->forms[a->first + i], p, end))
			return false;
	return true;
}

/* Decode the DIE at *p: its abbreviation into *ab (NULL for a null
 * entry), *p past its attributes. False if it cannot be decoded. */
static inline bool die_next(const struct dwscan *s, const struct dwunit *u,
			    const uint8_t **p, const uint8_t *end,
			    const struct dwabbrev **ab)
{
	uint64_t code;
	const struct dwabbrev *a;

	if (*p < end && !(**p & 0x80)) /* most codes are one byte */
		code = *(*p)++;
	else if (!leb(p, end, &code))
		return false;
	*ab = NULL;
	if (!code)
		return true;
	if (code > s->nabbrevs || !s->abbrevs[code - 1].tag)
		return false;
	a = &s->abbrevs[code - 1];
	*ab = a;
	if (a->sized) {
		if (a->len > (uint64_t)(end - *p))
			return false;
		*p += a->len;
		return true;
	}
	return die_values(s, u, a, p, end);
}

/* False if the variable DIE at die (abbreviation a) cannot have the
 * address libdw's reading of it looks for (dwarf.c: var_addr()): its
 * DW_AT_location is no expression (absent, or a location list), or one
 * that does not start with DW_OP_addr, DW_OP_addrx or
 * DW_OP_GNU_addr_index. Most variables are locals on the stack: libdw is
 * not asked about those. */
static bool may_have_addr(const struct dwscan *s, const struct dwunit *u,
			  const struct dwabbrev *a, const uint8_t *die,
			  const uint8_t *end)
{
	const uint8_t *p = die;
	uint64_t code, len;
	uint8_t kind;

	if (a->loc == NO_LOC || !leb(&p, end, &code))
		return false;
	for (uint32_t i = 0; i < a->loc; i++)
		if (!skip_value(s, u, (uint8_t)s->forms[a->first + i], &p, end))
			return true; /* libdw decides */
	kind = (uint8_t)s->forms[a->first + a->loc];
	if (kind == K_BLOCK1 || kind == K_BLOCK2 || kind == K_BLOCK4) {
		size_t w = kind == K_BLOCK1 ? 1 : kind == K_BLOCK2 ? 2 : 4;

		if ((size_t)(end - p) < w)
			return true;
		len = elf_get_uint(p, w, s->be);
		p += w;
	} else if (kind == K_BLOCKLEB) {
		if (!leb(&p, end, &len))
			return true;
	} else {
		return false; /* a location list, or no location */
	}
	if (!len || p >= end)
		return false;
	return *p == DW_OP_addr || *p == DW_OP_addrx ||
	       *p == DW_OP_GNU_addr_index;
}

/* The value of the i-th attribute of a DIE of abbreviation a whose
 * values start at p (before end), or NULL if it cannot be reached. */
static const uint8_t *value_at(const struct dwscan *s, const struct dwunit *u,
			       const struct dwabbrev *a, uint32_t i,
			       const uint8_t *p, const uint8_t *end)
{
	for (uint32_t k = 0; k < i; k++)
		if (!skip_value(s, u, (uint8_t)s->forms[a->first + k], &p, end))
			return NULL;
	return p;
}

/* The reference into unit u of form kind at v (1, 2, 4, 8 bytes or a
 * LEB128 number) as a .debug_info offset, as dwarf_formref_die() takes
 * it: false if it is not before the unit's end. */
static bool unit_ref(const struct dwscan *s, const struct dwunit *u,
		     uint8_t kind, const uint8_t *v, const uint8_t *end,
		     uint64_t *off)
{
	uint64_t r;

	if (kind == K_LEB) {
		if (!leb(&v, end, &r))
			return false;
	} else if (kind > 8 || kind > (uint64_t)(end - v)) {
		return false;
	} else {
		r = elf_get_uint(v, kind, s->be);
	}
	if (r >= u->end - u->start)
		return false;
	*off = u->start + r;
	return true;
}

/* Where libdw's dwarf_siblingof() goes from the DIE at die (abbreviation
 * a, which has a DW_AT_sibling): its value, an offset from the unit's
 * header, into *to (in .debug_info). 0 if it is one dwarf_siblingof()
 * follows; -1 if libdw would fail there (a form that is no reference, a
 * value not past the DIE or not before the unit's end, bytes past the
 * unit): the unit then goes to libdw. */
static int sibling(const struct dwscan *s, const struct dwunit *u,
		   const struct dwabbrev *a, const uint8_t *die,
		   const uint8_t *end, uint64_t *to)
{
	const uint8_t *p = die;
	uint64_t code;

	if (!a->sibref || !leb(&p, end, &code))
		return -1;
	if (a->sibsized) {
		if (a->siblen > (uint64_t)(end - p))
			return -1;
		p += a->siblen;
	} else if (!(p = value_at(s, u, a, a->sib, p, end))) {
		return -1;
	}
	/* a reference into the unit, past the DIE */
	if (!unit_ref(s, u, (uint8_t)s->forms[a->first + a->sib], p, end, to) ||
	    *to <= (uint64_t)(die - s->info))
		return -1;
	return 0;
}

int dwscan_vars(struct dwscan *s, const struct dwunit *u, uint64_t **offs,
		size_t *n, size_t *cap)
{
	const uint8_t *p, *end;
	const struct dwabbrev *ab;
	size_t n0 = *n;
	/* level: nesting below the unit DIE of the DIE read next (its
	 * children are level 0); the DIEs of levels <= vtop are visited */
	uint64_t level = 0, vtop = 0;

	if (u->end > s->info_len || u->die_off >= u->end ||
	    !abbrev_load(s, u->abbrev_off))
		return -1;
	abbrev_lens(s, u);
	p = s->info + u->die_off;
	end = s->info + u->end;
	if (!die_next(s, u, &p, end, &ab) || !ab)
		return -1;
	if (!ab->children)
		return 0;
	/* the end of the unit ends the walk too, as it ends libdw's */
	while (p < end) {
		const uint8_t *die = p;

		if (!die_next(s, u, &p, end, &ab))
			goto fail;
		if (!ab) { /* the end of a list of children */
			if (!level)
				break;
			level--;
			vtop = MIN(vtop, level);
			continue;
		}
		if (level > vtop) { /* in a subtree not walked */
			level += ab->children;
			continue;
		}
		if (ab->tag == DW_TAG_variable &&
		    may_have_addr(s, u, ab, die, end)) {
			xgrow(offs, cap, *n + 1, sizeof(**offs));
			(*offs)[(*n)++] = (uint64_t)(die - s->info);
		}
		if (!ab->children)
			continue;
		if (ab->walked && level + 1 <= DWARF_MAX_DIE_DEPTH) {
			vtop = level + 1;
		} else if (ab->sib != NO_LOC) {
			/* children not walked (a type's members, mostly):
			 * skipped as libdw's walk skips them, by the DIE's
			 * DW_AT_sibling, not decoded */
			uint64_t to;

			if (sibling(s, u, ab, die, end, &to) < 0)
				goto fail;
			p = s->info + to;
			continue;
		}
		level++;
	}
	return 0;
fail:
	*n = n0;
	return -1;
}

int dwscan_var(struct dwscan *s, const struct dwunit *u, uint64_t off,
	       uint64_t *addr, uint64_t *type)
{
	const uint8_t *p = s->info + off, *end = s->info + u->end, *v;
	const struct dwabbrev *a;
	uint64_t code, len;
	uint8_t kind;

	if (off >= u->end || u->end > s->info_len ||
	    s->abbrev_off != u->abbrev_off || !leb(&p, end, &code) || !code ||
	    code > s->nabbrevs)
		return -1;
	a = &s->abbrevs[code - 1];
	if (!a->tag || a->loc == NO_LOC || a->type == NO_LOC || !a->typeref)
		return -1;
	/* DW_AT_location: one DW_OP_addr and its address, nothing else
	 * (what dwarf_getlocation() gives as one operation) */
	v = value_at(s, u, a, a->loc, p, end);
	kind = v ? (uint8_t)s->forms[a->first + a->loc] : K_BAD;
	if (kind == K_BLOCK1 || kind == K_BLOCK2 || kind == K_BLOCK4) {
		size_t w = kind == K_BLOCK1 ? 1 : kind == K_BLOCK2 ? 2 : 4;

		if ((size_t)(end - v) < w)
			return -1;
		len = elf_get_uint(v, w, s->be);
		v += w;
	} else if (kind != K_BLOCKLEB || !leb(&v, end, &len)) {
		return -1;
	}
	if (len != 1 + (uint64_t)u->addr_size || (uint64_t)(end - v) < len ||
	    *v != DW_OP_addr)
		return -1;
	*addr = elf_get_uint(v + 1, u->addr_size, s->be);
	/* DW_AT_type: a DIE of the unit */
	v = value_at(s, u, a, a->type, p, end);
	if (!v || !unit_ref(s, u, (uint8_t)s->forms[a->first + a->type], v, end,
			    type))
		return -1;
	return 0;
}

bool dwscan_unit_ranges(struct dwcu *cu)
{
	if (!cu->ranges || !cu->ranges_known)
		return false;
	/* __libdw_cu_base_address(): DW_AT_low_pc, else DW_AT_entry_pc as
	 * an address, else 0 */
	if (cu->has_low)
		cu->base = cu->low;
	else if (!cu->entry_attr)
		cu->base = 0;
	else if (cu->entry_known)
		cu->base = cu->entry;
	else
		return false;
	/* an all-ones base is libdw's "none": dwarf_ranges() fails */
	return cu->base != UINT64_MAX;
}

void dwscan_strings(struct dwscan *s, const uint8_t *str, size_t str_len,
		    const uint8_t *line_str, size_t line_str_len)
{
	s->str = str;
	s->str_len = str_len;
	s->line_str = line_str;
	s->line_str_len = line_str_len;
}

/* The string of form form whose value is at v (a unit of offset size
 * osize), as dwarf_formstring() reads it, into *out. False if it is not
 * read here. */
static bool die_string(const struct dwscan *s, uint64_t form, const uint8_t *v,
		       const uint8_t *end, unsigned osize, const char **out)
{
	const uint8_t *sec = form == DW_FORM_line_strp ? s->line_str : s->str;
	size_t len = form == DW_FORM_line_strp ? s->line_str_len : s->str_len;
	uint64_t off;

	if (form == DW_FORM_string) {
		if (!memchr(v, 0, (size_t)(end - v)))
			return false;
		*out = (const char *)v;
		return true;
	}
	if ((form != DW_FORM_strp && form != DW_FORM_line_strp) || !sec ||
	    (size_t)(end - v) < osize)
		return false;
	off = elf_get_uint(v, osize, s->be);
	/* a string running off the section's end goes back to libdw */
	if (off >= len || !memchr(sec + off, 0, len - off))
		return false;
	*out = (const char *)sec + off;
	return true;
}

/* The sizes of DW_FORM_data1-8, which unit_attr_more() and die_attr() read. */
static const uint8_t data_size[] = {[DW_FORM_data1] = 1,
				    [DW_FORM_data2] = 2,
				    [DW_FORM_data4] = 4,
				    [DW_FORM_data8] = 8};

/* die_attr() of the attributes that only speed libdw's part up (its
 * range list, language): one of a form not read here is left to libdw,
 * the DIE still read. */
static bool unit_attr_more(const struct dwscan *s, const struct dwunit *u,
			   uint64_t attr, uint64_t form, const uint8_t *v,
			   const uint8_t *end, struct dwcu *cu)
{
	const uint8_t *q = v;
	uint64_t lang = 0;

	switch (attr) {
	case DW_AT_ranges:
		if (cu->ranges)
			return true;
		cu->ranges = true;
		/* __libdw_formptr()'s forms; others: libdw's reading */
		if (form == DW_FORM_sec_offset &&
		    (size_t)(end - v) >= u->offset_size) {
			cu->ranges_off = elf_get_uint(v, u->offset_size, s->be);
			cu->ranges_known = true;
		} else if (u->version <= 3 &&
			   (form == DW_FORM_data4 || form == DW_FORM_data8) &&
			   (size_t)(end - v) >= data_size[form]) {
			cu->ranges_off =
			    elf_get_uint(v, data_size[form], s->be);
			cu->ranges_known = true;
		}
		return true;
	case DW_AT_entry_pc:
		if (cu->entry_attr)
			return true;
		cu->entry_attr = true;
		if (form == DW_FORM_addr && (size_t)(end - v) >= u->addr_size) {
			cu->entry = elf_get_uint(v, u->addr_size, s->be);
			cu->entry_known = true;
		}
		return true;
	case DW_AT_language:
		if (cu->lang_attr)
			return true;
		cu->lang_attr = true;
		cu->has_lang = false;
		/* dwarf_formudata()'s value; other forms: libdw's */
		if (form == DW_FORM_udata) {
			cu->has_lang = leb(&q, end, &lang);
		} else if ((form == DW_FORM_data1 || form == DW_FORM_data2) &&
			   (size_t)(end - v) >= data_size[form]) {
			lang = elf_get_uint(v, data_size[form], s->be);
			cu->has_lang = true;
		}
		cu->lang = (int)lang;
		return true;
	default:
		return true;
	}
}

/* One attribute of a unit DIE (name attr, form form, value at v) into
 * cu. False if it is not read here. */
static bool die_attr(const struct dwscan *s, const struct dwunit *u,
		     uint64_t attr, uint64_t form, const uint8_t *v,
		     const uint8_t *end, struct dwcu *cu)
{
	const uint8_t *q = v;

	switch (attr) {
	case DW_AT_name:
		return cu->name ||
		       die_string(s, form, v, end, u->offset_size, &cu->name);
	case DW_AT_comp_dir:
		return cu->comp_dir ||
		       die_string(s, form, v, end, u->offset_size,
				  &cu->comp_dir);
	case DW_AT_low_pc:
		if (cu->has_low)
			return true;
		if (form != DW_FORM_addr || (size_t)(end - v) < u->addr_size)
			return false;
		cu->low = elf_get_uint(v, u->addr_size, s->be);
		cu->has_low = true;
		return true;
	case DW_AT_high_pc:
		if (cu->has_high)
			return true;
		cu->has_high = true;
		if (form == DW_FORM_addr) {
			if ((size_t)(end - v) < u->addr_size)
				return false;
			cu->high = elf_get_uint(v, u->addr_size, s->be);
			return true;
		}
		cu->high_off = true;
		if (form == DW_FORM_udata)
			return leb(&q, end, &cu->high);
		if (form >= ARRAY_SIZE(data_size) || !data_size[form] ||
		    (size_t)(end - v) < data_size[form])
			return false;
		cu->high = elf_get_uint(v, data_size[form], s->be);
		return true;
	case DW_AT_stmt_list:
		if (cu->has_stmt)
			return true;
		cu->has_stmt = true;
		if (form == DW_FORM_sec_offset &&
		    (size_t)(end - v) >= u->offset_size) {
			cu->stmt = elf_get_uint(v, u->offset_size, s->be);
			return true;
		}
		if ((form != DW_FORM_data4 && form != DW_FORM_data8) ||
		    (size_t)(end - v) < data_size[form])
			return false;
		cu->stmt = elf_get_uint(v, data_size[form], s->be);
		return true;
	case DW_AT_abstract_origin:
	case DW_AT_specification:
	case DW_AT_dwo_name:
	case DW_AT_GNU_dwo_name:
	case DW_AT_GNU_dwo_id:
		return false;
	default:
		return unit_attr_more(s, u, attr, form, v, end, cu);
	}
}

int dwscan_unit_die(struct dwscan *s, const struct dwunit *u, struct dwcu *cu)
{
	const uint8_t *p, *end, *sp, *send = s->abbrev + s->abbrev_len;
	const struct dwabbrev *a;
	uint64_t code;

	memset(cu, 0, sizeof(*cu));
	cu->lang = -1; /* no DW_AT_language */
	cu->has_lang = true;
	if (u->end > s->info_len || u->die_off >= u->end ||
	    !abbrev_load(s, u->abbrev_off))
		return -1;
	p = s->info + u->die_off;
	end = s->info + u->end;
	if (!leb(&p, end, &code) || !code || code > s->nabbrevs ||
	    !s->abbrevs[code - 1].tag)
		return -1;
	a = &s->abbrevs[code - 1];
	sp = s->abbrev + a->specs;
	for (uint32_t i = 0; i < a->n; i++) {
		uint64_t attr, form, ic;

		/* the specs were decoded once by abbrev_one() */
		if (!leb(&sp, send, &attr) || !leb(&sp, send, &form) ||
		    (form == DW_FORM_implicit_const && !leb(&sp, send, &ic)))
			return -1;
		if (!die_attr(s, u, attr, form, p, end, cu) ||
		    !skip_value(s, u, (uint8_t)s->forms[a->first + i], &p, end))
			return -1;
	}
	return 0;
}
