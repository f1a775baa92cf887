// SPDX-License-Identifier: GPL-2.0-or-later
/* crc32c.c — CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) with
 * the SSE4.2 crc32 instruction where the processor has it, slicing-by-8
 * tables elsewhere. See crc32c.h for why zlib's crc32() cannot serve. */
#include "config.h"

#include "data/crc32c.h"

#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* A little-endian u32 (the tables' order, whatever the host). */
static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t crc_table[8][256];
static int crc_mode; /* 1: tables, 2: the crc32 instruction */

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n);

#if defined(__x86_64__)
/* The crc32 instruction takes 3 cycles but can start one every cycle: the
 * hardware loop runs three lanes of CRC_LANE bytes side by side and joins
 * them. The CRC register after n more zero bytes is linear in the register
 * before, so "advance over CRC_LANE (k = 0) or 2 * CRC_LANE (k = 1) zero
 * bytes" is crc_shift[k] applied byte by byte:
 * crc(s, A B C) = shift2(crc(s, A)) ^ shift1(crc(0, B)) ^ crc(0, C). */
#define CRC_LANE 256
static uint32_t crc_shift[2][4][256];

__attribute__((target("sse4.2"))) static uint32_t
crc_hw(uint32_t c, const uint8_t *p, size_t n);

/* Fill crc_shift from the register each single set bit becomes over the
 * zero bytes (computed by the crc32 instruction: below 3 * CRC_LANE bytes
 * crc_hw does not use crc_shift; the tables are not needed). */
static void crc_shift_init(void)
{
	static const uint8_t zero[2 * CRC_LANE];

	for (int k = 0; k < 2; k++)
		for (int byte = 0; byte < 4; byte++) {
			uint32_t *t = crc_shift[k][byte];

			t[0] = 0;
			for (int bit = 0; bit < 8; bit++) {
				uint32_t v = 1u << bit;
				uint32_t one =
				    crc_hw(1u << (8 * byte + bit), zero,
					   (size_t)(k + 1) * CRC_LANE);

				/* the values with this bit as their highest */
				for (uint32_t low = 0; low < v; low++)
					t[v | low] = one ^ t[low];
			}
		}
}

static uint32_t crc_shift_by(int k, uint32_t c)
{
	return crc_shift[k][0][c & 0xff] ^ crc_shift[k][1][(c >> 8) & 0xff] ^
	       crc_shift[k][2][(c >> 16) & 0xff] ^ crc_shift[k][3][c >> 24];
}
#endif

/* Choose the implementation and fill its tables once, at load time (no
 * lazy set-up that threads could race on): the crc32 instruction's shift
 * tables where the processor has it, else the slicing-by-8 tables (every
 * memsz command starts here: the tables it does not use are not filled).
 * The crc32 instruction is looked for with one cpuid: libgcc's
 * __builtin_cpu_supports() runs a dozen cpuid leaves at every start, each
 * a trap to the hypervisor in a virtual machine. */
__attribute__((constructor)) static void crc_init(void)
{
#if defined(__x86_64__)
	unsigned int eax, ebx, ecx, edx;

	/* leaf 1 exists on every x86-64 processor */
	__cpuid(1, eax, ebx, ecx, edx);
	if (ecx & bit_SSE4_2) {
		crc_shift_init();
		crc_mode = 2;
		return;
	}
#endif
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] =
			    (crc_table[t - 1][i] >> 8) ^
			    crc_table[0][crc_table[t - 1][i] & 0xff];
	crc_mode = 1;
}

/* Slicing-by-8 over the tables. */
static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = c ^ get_u32(p), hi = get_u32(p + 4);

		c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		    crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		    crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__)
/* The SSE4.2 crc32 instruction computes the same polynomial. */
__attribute__((target("sse4.2"))) static uint32_t
crc_hw(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;

	while (n >= 3 * CRC_LANE) {
		uint64_t c1 = 0, c2 = 0, v;

		for (size_t i = 0; i < CRC_LANE; i += 8) {
			memcpy(&v, p + i, 8);
			c64 = __builtin_ia32_crc32di(c64, v);
			memcpy(&v, p + CRC_LANE + i, 8);
			c1 = __builtin_ia32_crc32di(c1, v);
			memcpy(&v, p + 2 * CRC_LANE + i, 8);
			c2 = __builtin_ia32_crc32di(c2, v);
		}
		c64 = crc_shift_by(1, (uint32_t)c64) ^
		      crc_shift_by(0, (uint32_t)c1) ^ (uint32_t)c2;
		p += 3 * CRC_LANE;
		n -= 3 * CRC_LANE;
	}
	while (n >= 8) {
		uint64_t v;

		memcpy(&v, p, 8); /* x86 is little-endian, as the format */
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t md_crc32c(uint32_t crc, const void *p, size_t n)
{
	uint32_t c = ~crc;

#if defined(__x86_64__)
	if (crc_mode == 2)
		return ~crc_hw(c, p, n);
#endif
	return ~crc_sw(c, p, n);
}
