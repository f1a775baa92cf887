// SPDX-License-Identifier: GPL-2.0-or-later
/* crc32c.c — CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) with
 * the SSE4.2 crc32 instruction where the processor has it, slicing-by-8
 * tables elsewhere. See crc32c.h for why zlib's crc32() cannot serve. */
#include "config.h"

#include "data/crc32c.h"

#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> /* glibc 2.33+ */
#endif
#endif
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

/* Each of the eight 256-entry tables is linear: entry v is the XOR of the
 * values its set bits become, so it is written as those eight values
 * (SH_256), and the compiler spreads them over the table: a constant in
 * the binary's read-only pages, no table filled and faulted in at every
 * start. Value (k, byte, bit) is the register 1 << (8 * byte + bit)
 * becomes over (k + 1) * CRC_LANE zero bytes (computed by the bitwise
 * CRC); test_datafile_corrupt's test_crc32c checks long buffers, joined
 * lanes and all, against the bitwise CRC. */
#define SH_E(v, a, b, c, d, e, f, g, h)                                        \
	(((v)&1 ? (a) : 0) ^ ((v)&2 ? (b) : 0) ^ ((v)&4 ? (c) : 0) ^           \
	 ((v)&8 ? (d) : 0) ^ ((v)&16 ? (e) : 0) ^ ((v)&32 ? (f) : 0) ^         \
	 ((v)&64 ? (g) : 0) ^ ((v)&128 ? (h) : 0))
#define SH_4(v, ...)                                                           \
	SH_E(v, __VA_ARGS__), SH_E((v) + 1, __VA_ARGS__),                      \
	    SH_E((v) + 2, __VA_ARGS__), SH_E((v) + 3, __VA_ARGS__)
#define SH_16(v, ...)                                                          \
	SH_4(v, __VA_ARGS__), SH_4((v) + 4, __VA_ARGS__),                      \
	    SH_4((v) + 8, __VA_ARGS__), SH_4((v) + 12, __VA_ARGS__)
#define SH_64(v, ...)                                                          \
	SH_16(v, __VA_ARGS__), SH_16((v) + 16, __VA_ARGS__),                   \
	    SH_16((v) + 32, __VA_ARGS__), SH_16((v) + 48, __VA_ARGS__)
#define SH_256(...)                                                            \
	{                                                                      \
		SH_64(0, __VA_ARGS__), SH_64(64, __VA_ARGS__),                 \
		    SH_64(128, __VA_ARGS__), SH_64(192, __VA_ARGS__)           \
	}

static const uint32_t crc_shift[2][4][256] = {
    {SH_256(0xdcb17aa4u, 0xbc8e83b9u, 0x7cf17183u, 0xf9e2e306u, 0xf629b0fdu,
	    0xe9bf170bu, 0xd69258e7u, 0xa8c8c73fu),
     SH_256(0x547df88fu, 0xa8fbf11eu, 0x541b94cdu, 0xa837299au, 0x558225c5u,
	    0xab044b8au, 0x53e4e1e5u, 0xa7c9c3cau),
     SH_256(0x4a7ff165u, 0x94ffe2cau, 0x2c13b365u, 0x582766cau, 0xb04ecd94u,
	    0x6571edd9u, 0xcae3dbb2u, 0x902bc195u),
     SH_256(0x25bbf5dbu, 0x4b77ebb6u, 0x96efd76cu, 0x2833d829u, 0x5067b052u,
	    0xa0cf60a4u, 0x4472b7b9u, 0x88e56f72u)},
    {SH_256(0xbd6f81f8u, 0x7f337501u, 0xfe66ea02u, 0xf921a2f5u, 0xf7af331bu,
	    0xeab210c7u, 0xd088577fu, 0xa4fcd80fu),
     SH_256(0x4c15c6efu, 0x982b8ddeu, 0x35bb6d4du, 0x6b76da9au, 0xd6edb534u,
	    0xa8371c99u, 0x55824fc3u, 0xab049f86u),
     SH_256(0x53e549fdu, 0xa7ca93fau, 0x4a795105u, 0x94f2a20au, 0x2c0932e5u,
	    0x581265cau, 0xb024cb94u, 0x65a5e1d9u),
     SH_256(0xcb4bc3b2u, 0x937bf195u, 0x231b95dbu, 0x46372bb6u, 0x8c6e576cu,
	    0x1d30d829u, 0x3a61b052u, 0x74c360a4u)}};

__attribute__((target("sse4.2"))) static uint32_t
crc_hw(uint32_t c, const uint8_t *p, size_t n);

static uint32_t crc_shift_by(int k, uint32_t c)
{
	return crc_shift[k][0][c & 0xff] ^ crc_shift[k][1][(c >> 8) & 0xff] ^
	       crc_shift[k][2][(c >> 16) & 0xff] ^ crc_shift[k][3][c >> 24];
}
#endif

/* Choose the implementation once, at load time (no lazy set-up that
 * threads could race on): the crc32 instruction where the processor has
 * it (its shift tables are constants), else the slicing-by-8 tables,
 * filled here (every memsz command starts here: the tables it does not
 * use are not filled).
 * The crc32 instruction is looked for in what the dynamic loader learned
 * of the processor at the start (glibc's CPU_FEATURE_ACTIVE), else with
 * one cpuid: libgcc's __builtin_cpu_supports() runs a dozen cpuid leaves
 * at every start, each a trap to the hypervisor in a virtual machine
 * (4-10 us each on a 2-core KVM guest). */
__attribute__((constructor)) static void crc_init(void)
{
#if defined(__x86_64__) && defined(CPU_FEATURE_ACTIVE)
	if (CPU_FEATURE_ACTIVE(SSE4_2)) {
		crc_mode = 2;
		return;
	}
#elif defined(__x86_64__)
	unsigned int eax, ebx, ecx, edx;

	/* leaf 1 exists on every x86-64 processor */
	__cpuid(1, eax, ebx, ecx, edx);
	if (ecx & bit_SSE4_2) {
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
