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
 * Every read goes through a bounded cursor (elf/ehcur.h, which the LSDA
 * reader of elf/lsdatab.c shares); a failed read marks the cursor
 * and the record is skipped.
 */
#include "config.h"

#include "elf/ehcur.h"
#include "elf/ehframe.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* *v, the value of a pointer of encoding enc read at VM address field,
 * made absolute (datarel: the base of DW_EH_PE_datarel, or UINT64_MAX:
 * not allowed) and cut to addr_size bytes; false, *v unchanged, for an
 * indirect or text/func-relative pointer. */
static bool pe_apply(uint8_t enc, uint64_t field, uint64_t datarel,
		     int addr_size, uint64_t *v)
{
	if (enc & PE_INDIRECT)
		return false;
	switch (enc & PE_APPL_MASK) {
	case 0:
		break;
	case PE_PCREL:
		*v += field;
		break;
	case PE_DATAREL:
		if (datarel == UINT64_MAX)
			return false;
		*v += datarel;
		break;
	default:
		return false;
	}
	if (addr_size == 4)
		*v &= UINT32_MAX;
	return true;
}

/* Read a pointer of encoding enc at the cursor, whose buffer is loaded at
 * VM address addr, as pe_apply() makes it; one pe_apply() refuses marks
 * the cursor failed (after consuming the bytes). */
static uint64_t cur_pe(struct cur *c, uint8_t enc, uint64_t addr,
		       uint64_t datarel)
{
	uint64_t field = addr + c->pos;
	uint64_t v = cur_pe_raw(c, enc);

	if (!pe_apply(enc, field, datarel, c->addr_size, &v))
		c->err = true;
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

	/* data-relative: no base here */
	if (c->err || !v || !pe_apply(enc, field, UINT64_MAX, c->addr_size, &v))
		return;
	f->lsda = v;
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
