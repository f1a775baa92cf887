// SPDX-License-Identifier: GPL-2.0-or-later
/* pgstate_int.h — what the page-state encoder (pgstate.c) and decoder
 * (pgstate_dec.c) share: the block kinds, the rANS parameters and the
 * little-endian and code-width helpers. Private to data/. */
#ifndef MEMSZ_DATA_PGSTATE_INT_H
#define MEMSZ_DATA_PGSTATE_INT_H

#include <stdint.h>

/* A run or a hole this many pages long gets a block of its own (RUN or
 * SKIP, 2 to 4 bytes): in a bitmap it would cost a bit a page. */
#define LONG_PAGES 64
/* Distinct entries of one MAP block (its count is stored in a byte). */
#define LOCAL_MAX 256

enum { BLK_SKIP = 0, BLK_RUN = 1, BLK_MAP = 2, BLK_CODED = 3 };

/* CODED blocks: rANS (byte-wise renormalisation, a 32-bit state kept in
 * [RANS_L, 256 * RANS_L)) over symbol frequencies of RANS_BITS bits. */
#define RANS_BITS 12
#define RANS_M (1u << RANS_BITS)
#define RANS_L (1u << 23)
/* Symbols of a CODED block: its local entries and "absent". */
#define CODED_MAX 256

static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Bits of a code that can name any of m local entries. */
static inline unsigned code_bits(uint32_t m)
{
	return m > 1 ? 32 - (unsigned)__builtin_clz(m - 1) : 0;
}

#endif
