/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ehcur.h — the bounded cursor elf/ehframe.c and elf/lsdatab.c read
 * .eh_frame, .eh_frame_hdr and LSDAs through, and the DW_EH_PE_* pointer
 * encodings; private to elf/. A failed read marks the cursor (err) and
 * returns 0. */
#ifndef MEMSZ_ELF_EHCUR_H
#define MEMSZ_ELF_EHCUR_H

#include "elf/elfpriv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

static inline uint64_t cur_uint(struct cur *c, size_t n)
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
static inline uint64_t cur_leb(struct cur *c, bool sign)
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

static inline uint64_t cur_uleb(struct cur *c)
{
	return cur_leb(c, false);
}

static inline int64_t cur_sleb(struct cur *c)
{
	return (int64_t)cur_leb(c, true);
}

/* Fixed size of encoding enc's format, 0 for LEB128 or invalid ones. */
static inline size_t pe_size(uint8_t enc, int addr_size)
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
static inline uint64_t cur_pe_raw(struct cur *c, uint8_t enc)
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

#endif
