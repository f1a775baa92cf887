// SPDX-License-Identifier: GPL-2.0-or-later
/* ehframe.c — parse .eh_frame (CIEs, FDEs) and .eh_frame_hdr.
 *
 * Format (LSB "Exception Frames", DWARF call frame information): a
 * sequence of records, each a 4-byte length (0xffffffff: an 8-byte length
 * follows), then a CIE id (0) or CIE pointer (the distance back from this
 * field to the CIE), then the body. FDE pointers are encoded as the CIE's
 * 'R' augmentation says (DW_EH_PE_*: a format in the low nibble, an
 * application - absolute, pc-relative, data-relative - in the high one).
 *
 * Every read goes through a bounded cursor; a failed read marks the cursor
 * and the record is skipped.
 */
#include "config.h"

#include "elf/ehframe.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* DW_EH_PE_* pointer encodings */
enum {
	PE_ABSPTR = 0x00,
	PE_ULEB128 = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_ALIGNED = 0x50,
	PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
	PE_FORMAT_MASK = 0x0f, /* the low nibble: how the value is stored */
	PE_APPL_MASK = 0x70,   /* what it is relative to (PE_INDIRECT apart) */
};

struct cur {
	const unsigned char *buf; /* whole buffer */
	size_t pos, end;	  /* read position, limit */
	bool be, err;
	int addr_size; /* absptr: 4 or 8 */
};

/* elf_get_uint() of the usual sizes as one load (a byte loop was a
 * tenth of the walk of libLLVM-14's 100 k FDEs) */
static inline uint64_t get_uint(const unsigned char *p, size_t n, bool be)
{
	bool swap = be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint32_t v4;
	uint64_t v8;

	switch (n) {
	case 1:
		return p[0];
	case 4:
		memcpy(&v4, p, 4);
		return swap ? __builtin_bswap32(v4) : v4;
	case 8:
		memcpy(&v8, p, 8);
		return swap ? __builtin_bswap64(v8) : v8;
	default:
		return elf_get_uint(p, n, be);
	}
}

static uint64_t cur_uint(struct cur *c, size_t n)
{
	uint64_t v;

	if (c->err || n > c->end - c->pos) {
		c->err = true;
		return 0;
	}
	v = get_uint(c->buf + c->pos, n, c->be);
	c->pos += n;
	return v;
}

/* The LEB128 number at c, sign-extended if sign; 0 with c->err set if it
 * runs past the end. Bits past the 64th are dropped. */
static uint64_t cur_leb(struct cur *c, bool sign)
{
	const unsigned char *q;
	uint64_t v;

	if (c->err)
		return 0;
	q = elf_get_leb(c->buf + c->pos, c->buf + c->end, sign, &v, NULL);
	if (!q) {
		c->err = true;
		return 0;
	}
	c->pos = q - c->buf;
	return v;
}

static uint64_t cur_uleb(struct cur *c)
{
	return cur_leb(c, false);
}

static int64_t cur_sleb(struct cur *c)
{
	return (int64_t)cur_leb(c, true);
}

/* Fixed size of encoding enc's format, 0 for LEB128 or invalid ones. */
static size_t pe_size(uint8_t enc, int addr_size)
{
	switch (enc & PE_FORMAT_MASK) {
	case PE_ABSPTR:
		return addr_size;
	case PE_UDATA2:
	case PE_SDATA2:
		return 2;
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	default:
		return 0;
	}
}

/* Read a value of encoding enc's format (no application). */
static uint64_t cur_pe_raw(struct cur *c, uint8_t enc)
{
	uint64_t v;

	switch (enc & PE_FORMAT_MASK) {
	case PE_ULEB128:
		return cur_uleb(c);
	case PE_SLEB128:
		return (uint64_t)cur_sleb(c);
	case PE_ABSPTR:
	case PE_UDATA2:
	case PE_UDATA4:
	case PE_UDATA8:
		return cur_uint(c, pe_size(enc, c->addr_size));
	case PE_SDATA2:
		return (uint64_t)(int64_t)(int16_t)cur_uint(c, 2);
	case PE_SDATA4:
		return (uint64_t)(int64_t)(int32_t)cur_uint(c, 4);
	case PE_SDATA8:
		v = cur_uint(c, 8);
		return v;
	default:
		c->err = true;
		return 0;
	}
}

/* Read a pointer of encoding enc at the cursor, whose buffer is loaded at
 * VM address addr; datarel is the base of DW_EH_PE_datarel (or
 * UINT64_MAX: not allowed). Indirect and text/func-relative pointers mark
 * the cursor failed (after consuming the bytes). */
static uint64_t cur_pe(struct cur *c, uint8_t enc, uint64_t addr,
		       uint64_t datarel)
{
	uint64_t field = addr + c->pos;
	uint64_t v = cur_pe_raw(c, enc);

	if (enc & PE_INDIRECT) {
		c->err = true;
		return 0;
	}
	switch (enc & PE_APPL_MASK) {
	case 0:
		break;
	case PE_PCREL:
		v += field;
		break;
	case PE_DATAREL:
		if (datarel == UINT64_MAX)
			c->err = true;
		v += datarel;
		break;
	default:
		c->err = true;
		break;
	}
	if (c->addr_size == 4)
		v &= UINT32_MAX;
	return v;
}

/* Read a record header at c->pos: sets *body (start of the id field), *end
 * (end of the record), *idsize. Returns 1 for a record, 0 for the zero
 * terminator, -1 if the length overruns. */
static int record_header(struct cur *c, size_t *body, size_t *end,
			 size_t *idsize)
{
	uint64_t len = cur_uint(c, 4);

	*idsize = 4;
	if (c->err)
		return -1;
	if (len == 0)
		return 0;
	if (len == DWARF64_LENGTH) {
		len = cur_uint(c, 8);
		*idsize = 8;
		if (c->err)
			return -1;
	}
	if (len > c->end - c->pos || len < *idsize)
		return -1;
	*body = c->pos;
	*end = c->pos + len;
	return 1;
}

/* What the walk keeps of a CIE: its offset, its R encoding (-1: not a
 * decodable CIE), its L encoding (-1: none, or not known: after an
 * augmentation letter memsz does not know) and whether its FDEs have
 * augmentation data ('z') */
struct cie_cache {
	size_t off;
	int enc, lsda_enc;
	bool z;
};

/* The augmentation string aug of a CIE whose augmentation data c is at
 * (if aug starts with 'z'): its encodings into *ci; its R encoding
 * returned, -1 if it cannot be read. */
static int cie_aug(struct cur *c, const char *aug, struct cie_cache *ci)
{
	size_t auglen;
	int enc = PE_ABSPTR;

	if (aug[0] == 0)
		return ci->enc = enc;
	if (aug[0] != 'z')
		return -1; /* unknown augmentation without a length */
	ci->z = true;
	auglen = cur_uleb(c);
	if (c->err || auglen > c->end - c->pos)
		return -1;
	c->end = c->pos + auglen;
	for (aug++; *aug && !c->err; aug++) {
		uint8_t pe;

		switch (*aug) {
		case 'R':
			enc = cur_uint(c, 1);
			break;
		case 'L':
			ci->lsda_enc = cur_uint(c, 1);
			break;
		case 'P':
			pe = cur_uint(c, 1);
			/* its value only needs skipping */
			if (pe != PE_OMIT)
				cur_pe_raw(c, pe & PE_FORMAT_MASK);
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			/* unknown: the rest of the data is skipped by
			 * its length, 'R' (and 'L') must have come
			 * before */
			return c->err ? -1 : (ci->enc = enc);
		}
	}
	if (c->err || enc == PE_OMIT)
		return -1;
	return ci->enc = enc;
}

/* The encodings of the CIE at buffer offset off into *ci (off, enc,
 * lsda_enc, z); its R encoding returned, -1 if it is not a decodable
 * CIE. */
static int cie_info(const struct cur *top, size_t off, struct cie_cache *ci)
{
	struct cur c = *top;
	size_t body, end, idsize;
	const char *aug;
	size_t auglen;
	uint8_t version;

	*ci = (struct cie_cache){off, -1, -1, false};
	c.pos = off;
	if (record_header(&c, &body, &end, &idsize) != 1)
		return -1;
	c.end = end;
	if (cur_uint(&c, idsize) != 0 || c.err)
		return -1;
	version = cur_uint(&c, 1);
	if (c.err || (version != 1 && version != 3 && version != 4))
		return -1;
	aug = (const char *)c.buf + c.pos;
	auglen = strnlen(aug, c.end - c.pos);
	if (auglen == c.end - c.pos)
		return -1;
	c.pos += auglen + 1;
	if (aug[0] == 'e' && aug[1] == 'h') {
		cur_uint(&c, c.addr_size);
		aug += 2;
	}
	if (version == 4) {
		cur_uint(&c, 1); /* address_size */
		cur_uint(&c, 1); /* segment_selector_size */
	}
	cur_uleb(&c); /* code alignment */
	cur_sleb(&c); /* data alignment */
	if (version == 1)
		cur_uint(&c, 1);
	else
		cur_uleb(&c); /* return address register */
	if (c.err)
		return -1;
	return cie_aug(&c, aug, ci);
}

/* The LSDA pointer of an FDE whose augmentation data c is at (c->end:
 * its end), of encoding enc, into f; nothing if it is 0 (none, as libgcc
 * reads it, whatever the encoding) or cannot be read. */
static void fde_lsda(struct cur *c, int enc, uint64_t addr, struct elf_fde *f)
{
	uint64_t field = addr + c->pos;
	uint64_t v = cur_pe_raw(c, enc);

	if (c->err || !v || (enc & PE_INDIRECT))
		return;
	switch (enc & PE_APPL_MASK) {
	case 0:
		break;
	case PE_PCREL:
		v += field;
		break;
	default: /* text-, data-, func-relative: no base here */
		return;
	}
	f->lsda = c->addr_size == 4 ? v & UINT32_MAX : v;
	f->has_lsda = true;
}

/* The little-endian 4-byte signed word at p, sign-extended (what
 * cur_pe_raw() reads for PE_SDATA4 in a little-endian file). */
static inline uint64_t sle32(const unsigned char *p)
{
	return (uint64_t)(int64_t)(int32_t)get_uint(p, 4, false);
}

/* The common FDE at c->pos, read as the general path of
 * elf_ehframe_walk() would read it, into *f: a 4-byte length (neither 0
 * nor the 64-bit escape) that fits the buffer, a CIE pointer to the
 * CIE of last (the one whose encodings cie_info() looked up last:
 * the walk's cache of it, not the last CIE record the walk passed), whose
 * pointers are pc-relative 4-byte signed words (pcrel|sdata4, what GCC
 * and Clang emit), and room for pc_begin and pc_range. Returns false, c
 * untouched, for anything else (a CIE, the terminator, another encoding, a
 * record cut short: the general path says what it is). Little-endian files
 * only. */
static inline bool fde_fast(struct cur *c, uint64_t addr,
			    const struct cie_cache *last, struct elf_fde *f)
{
	const unsigned char *p = c->buf + c->pos;
	size_t room = c->end - c->pos, body = c->pos + 4;
	uint32_t len, id;
	uint64_t pc, range;
	bool lsda;

	if (c->be || room < 16 || last->enc != (PE_PCREL | PE_SDATA4))
		return false;
	len = get_uint(p, 4, false);
	if (len < 12 || len == DWARF64_LENGTH || len > room - 4)
		return false;
	/* an LSDA pointer: pcrel|sdata4 too, after a one-byte length of
	 * the augmentation data */
	lsda = last->z && last->lsda_enc >= 0 && last->lsda_enc != PE_OMIT;
	if (lsda && (last->lsda_enc != (PE_PCREL | PE_SDATA4) || len < 17 ||
		     p[16] < 4 || p[16] >= 0x80 || p[16] > len - 13))
		return false;
	id = get_uint(p + 4, 4, false);
	if (id == 0 || id > body || body - id != last->off)
		return false;
	pc = addr + body + 4 + sle32(p + 8);
	range = sle32(p + 12);
	if (c->addr_size == 4) {
		pc &= UINT32_MAX;
		range &= UINT32_MAX;
	}
	*f = (struct elf_fde){c->pos, 4 + (size_t)len, body - id, pc, range, 0,
			      false};
	if (lsda && sle32(p + 17)) {
		f->lsda = addr + c->pos + 17 + sle32(p + 17);
		if (c->addr_size == 4)
			f->lsda &= UINT32_MAX;
		f->has_lsda = true;
	}
	c->pos = body + len;
	return true;
}

int elf_ehframe_walk(const void *buf, size_t len, uint64_t addr, int elfclass,
		     bool be, void (*fn)(void *arg, const struct elf_fde *f),
		     void *arg, size_t *ncies)
{
	struct cur c = {
	    .buf = buf,
	    .pos = 0,
	    .end = len,
	    .be = be,
	    .addr_size = elfclass == ELFCLASS32 ? 4 : 8,
	};
	size_t cies = 0;
	struct cie_cache last = {SIZE_MAX, -1, -1, false};
	int bad = 0;

	while (c.pos < len) {
		size_t start = c.pos, body, end, idsize;
		struct cur r;
		uint64_t id, pc, range;
		size_t cie_off;
		int enc, h;
		struct elf_fde f;

		c.err = false;
		if (fde_fast(&c, addr, &last, &f)) {
			fn(arg, &f);
			continue;
		}
		h = record_header(&c, &body, &end, &idsize);
		if (h <= 0) {
			if (h < 0)
				bad++;
			break;
		}
		r = c;
		r.end = end;
		id = cur_uint(&r, idsize);
		c.pos = end;
		if (id == 0) {
			cies++;
			continue;
		}
		if (id > body) {
			bad++;
			continue;
		}
		cie_off = body - id;
		if (cie_off == last.off)
			enc = last.enc;
		else
			enc = cie_info(&c, cie_off, &last);
		if (enc < 0) {
			bad++;
			continue;
		}
		pc = cur_pe(&r, enc, addr, UINT64_MAX);
		range = cur_pe_raw(&r, enc & PE_FORMAT_MASK);
		if (r.err) {
			bad++;
			continue;
		}
		if (r.addr_size == 4)
			range &= UINT32_MAX;
		f = (struct elf_fde){start, end - start, cie_off, pc,
				     range, 0,		 false};
		if (last.z && last.lsda_enc >= 0 && last.lsda_enc != PE_OMIT) {
			uint64_t alen = cur_uleb(&r);

			if (!r.err && alen <= r.end - r.pos) {
				r.end = r.pos + alen;
				fde_lsda(&r, last.lsda_enc, addr, &f);
			}
		}
		fn(arg, &f);
	}
	if (ncies)
		*ncies = cies;
	return bad;
}

/* elf_ehframe_parse()'s array */
struct fdevec {
	struct elf_fde *v;
	size_t n, cap;
};

static void fde_append(void *arg, const struct elf_fde *f)
{
	struct fdevec *fv = arg;

	xgrow(&fv->v, &fv->cap, fv->n + 1, sizeof(*fv->v));
	fv->v[fv->n++] = *f;
}

int elf_ehframe_parse(const void *buf, size_t len, uint64_t addr, int elfclass,
		      bool be, struct elf_fde **out, size_t *n, size_t *ncies)
{
	struct fdevec fv = {0};
	int bad = elf_ehframe_walk(buf, len, addr, elfclass, be, fde_append,
				   &fv, ncies);

	*out = fv.v;
	*n = fv.n;
	return bad;
}

int elf_ehframe_hdr_walk(const void *buf, size_t len, uint64_t addr,
			 int elfclass, bool be,
			 void (*fn)(void *arg, const struct elf_ehhdr_entry *e),
			 void *arg, uint64_t *fde_count)
{
	struct cur c = {
	    .buf = buf,
	    .pos = 0,
	    .end = len,
	    .be = be,
	    .addr_size = elfclass == ELFCLASS32 ? 4 : 8,
	};
	uint8_t version, ptr_enc, cnt_enc, tab_enc;
	uint64_t count = 0, fit;
	size_t fsize;

	if (fde_count)
		*fde_count = 0;
	version = cur_uint(&c, 1);
	ptr_enc = cur_uint(&c, 1);
	cnt_enc = cur_uint(&c, 1);
	tab_enc = cur_uint(&c, 1);
	if (c.err || version != 1)
		return -EINVAL;
	if (ptr_enc != PE_OMIT)
		cur_pe(&c, ptr_enc, addr, addr);
	if (c.err)
		return -EINVAL;
	if (cnt_enc == PE_OMIT || tab_enc == PE_OMIT)
		return 0;
	count = cur_pe(&c, cnt_enc, addr, addr);
	fsize = pe_size(tab_enc, c.addr_size);
	if (c.err || !fsize || (tab_enc & PE_INDIRECT))
		return -EINVAL;
	if (fde_count)
		*fde_count = count;
	fit = (len - c.pos) / (2 * fsize);
	if (count > fit)
		count = fit;
	if (tab_enc == (PE_DATAREL | PE_SDATA4) && !be && addr != UINT64_MAX) {
		/* what GCC's and LLVM's linkers write: two signed words from
		 * the table's start an entry, read as cur_pe() reads them (a
		 * base of UINT64_MAX, which cur_pe() refuses, takes the
		 * general path below) */
		const unsigned char *p = c.buf + c.pos;

		for (uint64_t i = 0; i < count; i++, p += 8) {
			struct elf_ehhdr_entry e = {
			    .off = c.pos + 8 * i,
			    .size = 8,
			    .initial_loc = addr + sle32(p),
			    .fde_addr = addr + sle32(p + 4)};

			if (c.addr_size == 4) {
				e.initial_loc &= UINT32_MAX;
				e.fde_addr &= UINT32_MAX;
			}
			fn(arg, &e);
		}
		return 0;
	}
	for (uint64_t i = 0; i < count; i++) {
		struct elf_ehhdr_entry e = {.off = c.pos, .size = 2 * fsize};

		e.initial_loc = cur_pe(&c, tab_enc, addr, addr);
		e.fde_addr = cur_pe(&c, tab_enc, addr, addr);
		if (c.err)
			return -EINVAL;
		fn(arg, &e);
	}
	return 0;
}

/* elf_ehframe_hdr_parse()'s array */
struct hdrvec {
	struct elf_ehhdr_entry *v;
	size_t n, cap;
};

static void hdr_append(void *arg, const struct elf_ehhdr_entry *e)
{
	struct hdrvec *hv = arg;

	xgrow(&hv->v, &hv->cap, hv->n + 1, sizeof(*hv->v));
	hv->v[hv->n++] = *e;
}

int elf_ehframe_hdr_parse(const void *buf, size_t len, uint64_t addr,
			  int elfclass, bool be, struct elf_ehhdr_entry **out,
			  size_t *n, uint64_t *fde_count)
{
	struct hdrvec hv = {0};
	int ret = elf_ehframe_hdr_walk(buf, len, addr, elfclass, be, hdr_append,
				       &hv, fde_count);

	*out = NULL;
	*n = 0;
	if (ret) {
		free(hv.v);
		return ret;
	}
	*out = hv.v;
	*n = hv.n;
	return 0;
}

/* Is section s an unwind section named name (PROGBITS, or x86-64's
 * SHT_X86_64_UNWIND), ALLOC, with file bytes? */
static bool is_unwind(const struct elf_section *s, const char *name)
{
	if (strcmp(s->name, name) || !(s->flags & SHF_ALLOC) || !s->size)
		return false;
	return s->type == SHT_PROGBITS || s->type == SHT_X86_64_UNWIND;
}

int elf_ehframe_read(struct elfimg *img, struct elf_fde **out, size_t *n)
{
	Elf *elf = elfimg_elf(img);
	struct elf_fde *all = NULL;
	size_t cnt = 0, cap = 0;
	int bad = 0;

	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		struct elf_fde *f;
		size_t m;
		Elf_Data *d;

		if (!is_unwind(s, ".eh_frame"))
			continue;
		d = elf_rawdata(elf_getscn(elf, i), NULL);
		if (!d || !d->d_buf || d->d_size != s->size) {
			bad++;
			continue;
		}
		bad += elf_ehframe_parse(d->d_buf, d->d_size, s->addr,
					 img->elfclass, img->big_endian, &f, &m,
					 NULL);
		xgrow(&all, &cap, cnt + m, sizeof(*all));
		for (size_t k = 0; k < m; k++) {
			all[cnt + k] = f[k];
			all[cnt + k].off += s->offset;
			all[cnt + k].cie_off += s->offset;
		}
		cnt += m;
		free(f);
	}
	*out = all;
	*n = cnt;
	return bad;
}

/* An entry of a section's table to the caller's fn, off made a file
 * offset. */
struct hdr_to_file {
	void (*fn)(void *arg, const struct elf_ehhdr_entry *e);
	void *arg;
	uint64_t offset;
};

static void hdr_at_offset(void *arg, const struct elf_ehhdr_entry *e)
{
	struct hdr_to_file *h = arg;
	struct elf_ehhdr_entry f = *e;

	f.off += h->offset;
	h->fn(h->arg, &f);
}

int elf_ehframe_hdr_foreach(struct elfimg *img,
			    void (*fn)(void *arg,
				       const struct elf_ehhdr_entry *e),
			    void *arg)
{
	for (size_t i = 1; i < img->nsecs; i++) {
		const struct elf_section *s = &img->secs[i];
		struct hdr_to_file h = {fn, arg, s->offset};
		unsigned char *b;
		int ret;

		if (!is_unwind(s, ".eh_frame_hdr"))
			continue;
		b = elfimg_section_read(img, i);
		if (!b)
			return -EINVAL;
		ret = elf_ehframe_hdr_walk(b, (size_t)s->size, s->addr,
					   img->elfclass, img->big_endian,
					   hdr_at_offset, &h, NULL);
		xfree_huge(b, (size_t)s->size);
		return ret;
	}
	return 0;
}

int elf_ehframe_hdr_read(struct elfimg *img, struct elf_ehhdr_entry **out,
			 size_t *n)
{
	struct hdrvec hv = {0};
	int ret = elf_ehframe_hdr_foreach(img, hdr_append, &hv);

	*out = NULL;
	*n = 0;
	if (ret) {
		free(hv.v);
		return ret;
	}
	*out = hv.v;
	*n = hv.n;
	return 0;
}

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
