// SPDX-License-Identifier: GPL-2.0-or-later
/* x86dec.c — the length and address fields of common x86-64 instructions,
 * from two opcode tables, before Zydis is asked (elf/xrefs.c).
 *
 * Zydis decodes any instruction but takes some 50 ns for each; compiled
 * code is mostly a few dozen one-byte-map and 0F-map opcodes, whose
 * length follows from the prefixes, the opcode, the ModRM/SIB bytes and
 * the immediate's kind. All of it is looked up in tables (opcode maps,
 * the ModRM reg values a group opcode takes, prefix kinds, ModRM
 * layouts) rather than tested case by case: the sweep of a 50 MB .text
 * decodes 12 M instructions, and its time is mostly branches missed.
 * VEX and EVEX instructions are read from x86vex.c's and x86evex.c's
 * tables by decode_vex() and decode_evex(). Anything else (LOCK/REP
 * prefixes, F3/F2 outside the SSE opcodes, x87, the legacy three-byte
 * maps, moffs, opcode extensions that are invalid or change the
 * immediate) is left to Zydis, so that every answer given here is the
 * one Zydis would give.
 */
#include "config.h"

#include "elf/x86dec.h"

#include <string.h>

/* Opcode properties: a ModRM byte; an immediate of 1 byte, 2 bytes, 4
 * bytes (2 with an operand-size prefix: "z"), 4 or 8 bytes (REX.W; 2 with
 * 66: "v"), or a relative branch target of 4 bytes (left to Zydis with an
 * operand-size prefix); 66 allowed in the 0F map; left to Zydis (X); the
 * ModRM reg field decides (G: see group_ok()); F3 or F2 allowed as a
 * mandatory prefix (the only one, right before REX or 0F); the form
 * without a prefix left to Zydis (P). */
enum {
	F_M = 1 << 0,
	F_IB = 1 << 1,
	F_IW = 1 << 2,
	F_IZ = 1 << 3,
	F_IV = 1 << 4,
	F_REL = 1 << 5,
	F_66 = 1 << 6,
	F_G = 1 << 7,
	F_X = 1 << 8,
	F_F3 = 1 << 9,
	F_F2 = 1 << 10,
	F_P = 1 << 11,
};

/* The one-byte opcode map (64-bit mode). */
/* clang-format off */
static const uint16_t map1[256] = {
    /* 00-3f: ALU r/m,r  r,r/m  al,ib  eAX,iz; invalid and escapes */
    [0x00] = F_M, [0x01] = F_M, [0x02] = F_M, [0x03] = F_M,
    [0x04] = F_IB, [0x05] = F_IZ, [0x06] = F_X, [0x07] = F_X,
    [0x08] = F_M, [0x09] = F_M, [0x0a] = F_M, [0x0b] = F_M,
    [0x0c] = F_IB, [0x0d] = F_IZ, [0x0e] = F_X, [0x0f] = F_X,
    [0x10] = F_M, [0x11] = F_M, [0x12] = F_M, [0x13] = F_M,
    [0x14] = F_IB, [0x15] = F_IZ, [0x16] = F_X, [0x17] = F_X,
    [0x18] = F_M, [0x19] = F_M, [0x1a] = F_M, [0x1b] = F_M,
    [0x1c] = F_IB, [0x1d] = F_IZ, [0x1e] = F_X, [0x1f] = F_X,
    [0x20] = F_M, [0x21] = F_M, [0x22] = F_M, [0x23] = F_M,
    [0x24] = F_IB, [0x25] = F_IZ, [0x26] = F_X, [0x27] = F_X,
    [0x28] = F_M, [0x29] = F_M, [0x2a] = F_M, [0x2b] = F_M,
    [0x2c] = F_IB, [0x2d] = F_IZ, [0x2e] = F_X, [0x2f] = F_X,
    [0x30] = F_M, [0x31] = F_M, [0x32] = F_M, [0x33] = F_M,
    [0x34] = F_IB, [0x35] = F_IZ, [0x36] = F_X, [0x37] = F_X,
    [0x38] = F_M, [0x39] = F_M, [0x3a] = F_M, [0x3b] = F_M,
    [0x3c] = F_IB, [0x3d] = F_IZ, [0x3e] = F_X, [0x3f] = F_X,
    /* 40-4f REX (a prefix); 50-5f push/pop: no operand bytes */
    [0x40 ... 0x4f] = F_X,
    [0x60] = F_X, [0x61] = F_X, [0x62] = F_X, [0x63] = F_M,
    [0x64 ... 0x67] = F_X, [0x68] = F_IZ, [0x69] = F_M | F_IZ,
    [0x6a] = F_IB, [0x6b] = F_M | F_IB,
    [0x70 ... 0x7f] = F_IB,
    [0x80] = F_M | F_IB, [0x81] = F_M | F_IZ, [0x82] = F_X,
    [0x83] = F_M | F_IB, [0x84 ... 0x8b] = F_M, [0x8c] = F_X,
    [0x8d] = F_M | F_G, [0x8e] = F_X, [0x8f] = F_M | F_G,
    [0x9a] = F_X,
    [0xa0 ... 0xa3] = F_X, [0xa8] = F_IB, [0xa9] = F_IZ,
    [0xb0 ... 0xb7] = F_IB, [0xb8 ... 0xbf] = F_IV,
    [0xc0] = F_M | F_IB | F_G, [0xc1] = F_M | F_IB | F_G, [0xc2] = F_IW,
    [0xc4] = F_X, [0xc5] = F_X, [0xc6] = F_M | F_IB | F_G,
    [0xc7] = F_M | F_IZ | F_G, [0xc8] = F_X, [0xca] = F_IW, [0xcd] = F_IB,
    [0xce] = F_X,
    [0xd0 ... 0xd3] = F_M | F_G, [0xd4 ... 0xdf] = F_X,
    [0xe0 ... 0xe7] = F_IB, [0xe8] = F_IZ | F_REL, [0xe9] = F_IZ | F_REL,
    [0xea] = F_X, [0xeb] = F_IB,
    [0xf0 ... 0xf3] = F_X, [0xf6] = F_M | F_IB | F_G,
    [0xf7] = F_M | F_IZ | F_G, [0xfe] = F_M | F_G, [0xff] = F_M | F_G,
};

/* The 0F map: what is not listed goes to Zydis. The SSE opcodes take
 * a mandatory prefix (66, F3, F2: another instruction of the same
 * layout) where listed, and some only with one (F_P). */
static const uint16_t map2[256] = {
    [0x05] = F_66, [0x0b] = F_66, [0x1f] = F_M | F_66 | F_G,
    /* movups/movupd/movss/movsd, unpck, movaps, cvt, (u)comis */
    [0x10] = F_M | F_66 | F_F3 | F_F2, [0x11] = F_M | F_66 | F_F3 | F_F2,
    [0x14] = F_M | F_66, [0x15] = F_M | F_66,
    [0x28] = F_M | F_66, [0x29] = F_M | F_66,
    [0x2a] = F_M | F_66 | F_F3 | F_F2, [0x2c] = F_M | F_66 | F_F3 | F_F2,
    [0x2d] = F_M | F_66 | F_F3 | F_F2,
    [0x2e] = F_M | F_66, [0x2f] = F_M | F_66,
    /* arithmetic: sqrt, rsqrt, rcp, and, or, xor, add, mul, cvt, sub,
     * min, div, max */
    [0x51] = F_M | F_66 | F_F3 | F_F2, [0x52 ... 0x53] = F_M | F_F3,
    [0x54 ... 0x57] = F_M | F_66, [0x58 ... 0x5a] = F_M | F_66 | F_F3 | F_F2,
    [0x5b] = F_M | F_66 | F_F3, [0x5c ... 0x5f] = F_M | F_66 | F_F3 | F_F2,
    /* MMX/SSE2 integer: punpck, pack, pcmpgt, movd, movdqa/movdqu,
     * pcmpeq, and the arithmetic of D1-FE */
    [0x60 ... 0x6b] = F_M | F_66, [0x6c ... 0x6d] = F_M | F_66 | F_P,
    [0x6e] = F_M | F_66, [0x6f] = F_M | F_66 | F_F3,
    [0x74 ... 0x76] = F_M | F_66, [0x7e ... 0x7f] = F_M | F_66 | F_F3,
    /* pshufw/d/hw/lw, shifts by an immediate, pmovmskb, movq (66 only),
     * prefetch, non-temporal stores */
    [0x70] = F_M | F_IB | F_66 | F_F3 | F_F2,
    [0x71 ... 0x73] = F_M | F_IB | F_66 | F_G,
    [0xd7] = F_M | F_66 | F_G, [0xd6] = F_M | F_66 | F_P,
    [0x18] = F_M | F_G, [0x2b] = F_M | F_66 | F_G, [0xe7] = F_M | F_66 | F_G,
    [0xd1 ... 0xd5] = F_M | F_66, [0xd8 ... 0xdf] = F_M | F_66,
    [0xe0 ... 0xe5] = F_M | F_66, [0xe8 ... 0xef] = F_M | F_66,
    [0xf1 ... 0xf6] = F_M | F_66, [0xf8 ... 0xfe] = F_M | F_66,
    [0xb8] = F_M | F_F3 | F_P, /* popcnt */
    [0x31] = F_66, [0xa2] = F_66,
    [0x40 ... 0x4f] = F_M | F_66,
    [0x80 ... 0x8f] = F_IZ | F_REL,
    [0x90 ... 0x9f] = F_M | F_66,
    [0xa3] = F_M | F_66, [0xa4] = F_M | F_IB | F_66, [0xa5] = F_M | F_66,
    [0xab] = F_M | F_66, [0xac] = F_M | F_IB | F_66, [0xad] = F_M | F_66,
    [0xaf] = F_M | F_66, [0xb0] = F_M, [0xb1] = F_M | F_66,
    [0xb3] = F_M | F_66, [0xb6] = F_M | F_66, [0xb7] = F_M | F_66,
    [0xba] = F_M | F_IB | F_66 | F_G, [0xbb] = F_M | F_66,
    [0xbc] = F_M | F_66 | F_F3, [0xbd] = F_M | F_66 | F_F3, /* tzcnt, lzcnt */
    [0xbe] = F_M | F_66,
    [0xbf] = F_M | F_66, [0xc0] = F_M, [0xc1] = F_M | F_66,
    [0xc8 ... 0xcf] = F_66,
};
/* clang-format on */

/* The ModRM reg values valid for an opcode whose reg field selects the
 * instruction or that requires the memory form (F_G): bit reg of the low
 * byte for a memory operand (mod != 3), of the high byte for a register
 * one. The forms left out (invalid, undocumented aliases, or with another
 * immediate: C6/C7 F8 are xabort/xbegin) go to Zydis. */
#define GM(mem, reg) ((uint16_t)((mem) | (reg) << 8))
static const uint16_t group1[256] = {
    [0x8d] = GM(0xff, 0x00), /* lea: memory only */
    [0x8f] = GM(0x01, 0x01), /* pop r/m (others: XOP) */
    [0xc6] = GM(0x01, 0x01), /* mov r/m, imm */
    [0xc7] = GM(0x01, 0x01),
    /* shifts: /6 is an alias */
    [0xc0] = GM(0xbf, 0xbf),
    [0xc1] = GM(0xbf, 0xbf),
    [0xd0] = GM(0xbf, 0xbf),
    [0xd1] = GM(0xbf, 0xbf),
    [0xd2] = GM(0xbf, 0xbf),
    [0xd3] = GM(0xbf, 0xbf),
    /* test (/0; /1 is an alias), not, neg, mul, div */
    [0xf6] = GM(0xfd, 0xfd),
    [0xf7] = GM(0xfd, 0xfd),
    [0xfe] = GM(0x03, 0x03), /* inc, dec */
    /* inc dec call callf jmp jmpf push; far (/3, /5): memory only */
    [0xff] = GM(0x7f, 0x57),
};
static const uint16_t group2[256] = {
    [0x1f] = GM(0x01, 0x01), /* nop */
    [0xba] = GM(0xf0, 0xf0), /* bt, bts, btr, btc */
    [0x18] = GM(0x0f, 0x00), /* prefetchnta, t0, t1, t2 */
    [0x2b] = GM(0xff, 0x00), /* movntps/pd: memory only */
    [0xe7] = GM(0xff, 0x00), /* movntq, movntdq */
    [0xd7] = GM(0x00, 0xff), /* pmovmskb: register only */
    /* shifts by an immediate: psrl, psra, psll (/2, /4, /6) */
    [0x71] = GM(0x00, 0x54),
    [0x72] = GM(0x00, 0x54),
    [0x73] = GM(0x00, 0x44),
};
/* the same behind 66, where it differs: psrldq, pslldq (/3, /7) */
static const uint16_t group2_66[256] = {
    [0x73] = GM(0x00, 0xcc),
};
#undef GM

/* What a prefix byte is to this decoder (0: not one it takes). */
enum { P_66 = 1, P_FSGS, P_OTHER, P_F3, P_F2 };
static const uint8_t prefix_kind[256] = {
    [0x66] = P_66,
    [0x64] = P_FSGS,
    [0x65] = P_FSGS,
    /* same ModRM layout; moffs go to Zydis */
    [0x67] = P_OTHER,
    [0x26] = P_OTHER,
    [0x2e] = P_OTHER,
    [0x36] = P_OTHER,
    [0x3e] = P_OTHER,
    /* mandatory prefixes of the 0F map's SSE opcodes (else REP) */
    [0xf3] = P_F3,
    [0xf2] = P_F2,
};

/* The little-endian signed n-byte value (n = 1, 2, 4 or 8) at p: only
 * those n bytes are read. */
static inline int64_t get_s(const uint8_t *p, unsigned n)
{
	uint64_t lo;

	if (n == 1)
		return (int8_t)p[0];
	if (n == 2)
		return (int16_t)(uint16_t)(p[0] | p[1] << 8);
	lo = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	     (uint64_t)p[3] << 24;
	if (n == 4)
		return (int32_t)(uint32_t)lo;
	return (int64_t)(lo | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
			 (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56);
}

/* Displacement bytes after a ModRM byte, and whether a SIB byte comes
 * (bit 3): mod 1 disp8; mod 2 and mod 0 r/m 5 (RIP) disp32; r/m 4 under
 * mod 0-2 a SIB (whose base 5 under mod 0 brings a disp32). */
static inline unsigned modrm_kind(uint8_t m)
{
	static const uint8_t by_mod[4] = {0, 1, 4, 0};
	unsigned mod = m >> 6, rm = m & 7;

	return (mod == 0 && rm == 5 ? 4u : by_mod[mod]) |
	       (mod != 3 && rm == 4 ? 8u : 0u);
}

/* The ModRM byte at p[i] and what follows it (SIB, displacement) into
 * in; the index after them, or 0 if they run past n. */
static inline size_t modrm(const uint8_t *p, size_t i, size_t n,
			   struct x86_insn *in)
{
	uint8_t m = p[i++];
	unsigned k = modrm_kind(m), disp = k & 7;

	in->modrm = true;
	in->mod = m >> 6;
	in->rm = m & 7;
	if (k & 8) {
		if (i >= n)
			return 0;
		in->sib = true;
		in->sib_base = p[i++] & 7;
		if (in->mod == 0 && in->sib_base == 5)
			disp = 4;
	}
	if (disp) {
		if (i + disp > n)
			return 0;
		in->disp_size = (uint8_t)(disp * 8);
		in->disp = disp == 1 ? (int8_t)p[i] : get_s(p + i, 4);
		i += disp;
	}
	return i;
}

/* The size in bytes of the immediate of an opcode of properties f. */
static inline unsigned imm_bytes(unsigned f, bool opsize, bool rexw)
{
	if (f & F_IB)
		return 1;
	if (f & F_IW)
		return 2;
	if (f & F_IZ) /* REX.W wins over 66 */
		return opsize && !rexw ? 2 : 4;
	if (f & F_IV)
		return rexw ? 8 : opsize ? 2 : 4;
	return 0;
}

/* The end of a VEX or EVEX instruction whose operands end at p[i]: with
 * ib, its 8-bit immediate (sign-extended, as Zydis gives it) read into
 * in. Its length, or 0 where max bytes do not hold it. */
static size_t insn_end(const uint8_t *p, size_t i, size_t max, bool ib,
		       struct x86_insn *in)
{
	if (ib) {
		if (i >= max)
			return 0;
		in->imm_size = 8;
		in->imm = (uint64_t)(int8_t)p[i++];
	}
	in->len = (uint8_t)i;
	return i;
}

/* The VEX instruction whose C4 or C5 byte is at p[i] (max bytes
 * available) into in (x86vex.c's table); its length, or 0 (Zydis
 * decides). */
static size_t decode_vex(const uint8_t *p, size_t i, size_t max,
			 struct x86_insn *in)
{
	unsigned c4 = p[i] == 0xc4, map = 1, b2, op, form, g, m = 0;
	uint32_t e;
	uint16_t mask;

	/* the prefix and the opcode; C5 leaves out R/X/B, the map (0F)
	 * and W (0) */
	if (i + 3 + c4 > max)
		return 0;
	if (c4)
		map = p[i + 1] & 0x1f;
	b2 = c4 ? p[i + 2] : p[i + 1] & 0x7f;
	if (map < 1 || map > 3)
		return 0;
	i += 2 + c4;
	op = p[i++];
	e = x86_vex_tab[map - 1][b2 & 3][op];
	if (!e)
		return 0;
	if (!(e & X86V_NM)) {
		if (i >= max)
			return 0;
		m = p[i];
	}
	g = e >> X86V_GROUP;
	mask = g ? x86_vex_group[g - 1][(m >> 3) & 7] : (uint16_t)e;
	form = ((b2 >> 2) & 1) | (b2 >> 7) << 1 |
	       (((b2 >> 3) & 15) != 15) << 2 | ((m >> 6) == 3) << 3;
	if (!((mask >> form) & 1))
		return 0;
	if (!(e & X86V_NM)) {
		i = modrm(p, i, max, in);
		if (!i)
			return 0;
	}
	return insn_end(p, i, max, (e & X86V_IB) != 0, in);
}

/* The EVEX instruction whose 62 byte is at p[i] (max bytes available)
 * into in (x86evex.c's table); its length, or 0 (Zydis decides). */
static size_t decode_evex(const uint8_t *p, size_t i, size_t max,
			  struct x86_insn *in)
{
	/* the table's map index by the map field (-1: to Zydis) */
	static const int8_t slot[8] = {-1, 0, 1, 2, -1, 3, 4, -1};
	unsigned p0, p1, p2, m, m3, g, ok;
	const uint32_t *e;
	uint32_t d;

	/* four prefix bytes, the opcode and ModRM; P0 bit 3 reserved (0),
	 * P1 bit 2 fixed (1) */
	if (i + 6 > max)
		return 0;
	p0 = p[i + 1];
	p1 = p[i + 2];
	p2 = p[i + 3];
	if (slot[p0 & 7] < 0 || (p0 & 8) || !(p1 & 4))
		return 0;
	e = x86_evex_tab[slot[p0 & 7]][p1 & 3][p[i + 4]];
	m = p[i + 5];
	m3 = (m >> 6) == 3;
	g = e[0] >> X86E_GROUP;
	d = g ? x86_evex_group[g - 1][(m >> 3) & 7][m3] : e[m3];
	/* every field's value allowed: W, L'L, b, z and aaa, vvvv/V' (all
	 * ones: no register), R, R', and on registers B and X (inverted) */
	ok = (d >> (p1 >> 7)) & (d >> (2 + ((p2 >> 5) & 3))) &
	     (d >> (6 + ((p2 >> 4) & 1))) &
	     (d >> (8 + (p2 >> 7) + 2 * ((p2 & 7) != 0))) &
	     (d >> (12 + (((p1 >> 3) & 15) != 15 || !(p2 & 8)))) &
	     (d >> (14 + !(p0 & 0x80))) & (d >> (16 + !(p0 & 0x10))) &
	     (d >> (18 + (m3 && !(p0 & 0x20)))) &
	     (d >> (20 + (m3 && !(p0 & 0x40))));
	if (!(ok & 1))
		return 0;
	i = modrm(p, i + 5, max, in);
	if (!i)
		return 0;
	return insn_end(p, i, max, (e[0] & X86E_IB) != 0, in);
}

/* Is op (of the one-byte map) a MOV? */
static inline bool is_mov(unsigned op)
{
	return (op >= 0x88 && op <= 0x8b) || (op >= 0xb0 && op <= 0xbf) ||
	       op == 0xc6 || op == 0xc7;
}

size_t x86_decode_fast(const uint8_t *p, size_t n, struct x86_insn *in)
{
	/* F_F3/F_F2 by the kind of the mandatory prefix (0: none) */
	static const uint16_t mand[] = {[P_F3] = F_F3, [P_F2] = F_F2};
	bool opsize = false, rexw = false, two = false;
	size_t i = 0, max = n < 15 ? n : 15;
	unsigned f, op, ib, k, rep = 0, last = 0;
	uint16_t gm;

	memset(in, 0, sizeof(*in));
	for (; i < max && (k = prefix_kind[p[i]]); i++) {
		opsize |= k == P_66;
		in->fs_gs |= k == P_FSGS;
		rep += k == P_F3 || k == P_F2;
		last = k;
	}
	if (i >= max)
		return 0;
	/* one F3 or F2, last, without 66: anything else to Zydis */
	if (rep && (rep > 1 || !mand[last] || opsize))
		return 0;
	rep = rep ? mand[last] : 0;
	/* VEX, EVEX: not behind 66, F3, F2 or REX (Zydis refuses those) */
	if (p[i] == 0xc4 || p[i] == 0xc5)
		return rep || opsize ? 0 : decode_vex(p, i, max, in);
	if (p[i] == 0x62)
		return rep || opsize ? 0 : decode_evex(p, i, max, in);
	if ((p[i] & 0xf0) == 0x40) {
		rexw = p[i] & 8;
		if (++i >= max)
			return 0;
	}
	op = p[i++];
	if (op == 0x0f) {
		if (i >= max)
			return 0;
		two = true;
		op = p[i++];
		f = map2[op];
		if (!f || (f & F_X) || (opsize && !(f & F_66)) ||
		    (rep && !(f & rep)) || (!rep && !opsize && (f & F_P)))
			return 0;
		gm = opsize && group2_66[op] ? group2_66[op] : group2[op];
	} else {
		f = map1[op];
		if ((f & F_X) || rep)
			return 0;
		gm = group1[op];
	}
	if ((f & F_REL) && opsize)
		return 0;
	if (f & F_M) {
		if (i >= max)
			return 0;
		if (f & F_G) {
			uint8_t m = p[i];

			if (!((gm >> ((m >> 6) == 3 ? 8 : 0) >>
			       ((m >> 3) & 7)) &
			      1))
				return 0;
			/* test /0 has an immediate, the rest of F6/F7 none */
			if ((op == 0xf6 || op == 0xf7) && !two &&
			    ((m >> 3) & 7))
				f &= ~(unsigned)(F_IB | F_IZ);
		}
		i = modrm(p, i, max, in);
		if (!i)
			return 0;
	}
	ib = imm_bytes(f, opsize, rexw);
	if (i + ib > max)
		return 0;
	if (ib) {
		in->imm_size = (uint8_t)(ib * 8);
		/* as Zydis gives it: sign-extended */
		in->imm = (uint64_t)get_s(p + i, ib);
		i += ib;
	}
	in->mov = !two && is_mov(op);
	in->store32 =
	    !two && op == 0xc7 && in->modrm && in->mod != 3 && !rexw && !opsize;
	in->len = (uint8_t)i;
	return i;
}

/* --- the length and the address named, from two tables ---
 *
 * For an instruction without legacy prefixes, x86_decode_fast()'s answer
 * depends only on its REX.W bit, its opcode (one-byte map or 0F map),
 * the byte after the opcode (ModRM, which the group opcodes also read)
 * and, under mod 0 with a SIB byte, that byte's base (5 brings a disp32);
 * behind one 66 (operand size: 16-bit immediates), F3 (the 0F map's SSE
 * opcodes) or FS/GS prefix likewise. x86_fast_tab[page][opcode][next
 * byte] holds that answer for each prefix (the page; x86dec.h's X86_*
 * bits), computed by x86_decode_fast() itself on the prefix, opcode and
 * ModRM followed by zeros, so that the table answers exactly as the
 * decoder does; x86_pre_tab[first byte][second byte] says how many prefix
 * bytes come first and which page they make. Where the address named lies
 * (the displacement after the ModRM or SIB byte, a MOV's immediate at the
 * end) follows from the same bits. A sweep then reads two table entries
 * per instruction instead of walking the decoder's branches one after the
 * other (66 and FS were 91 % of the instructions left to the decoder in
 * libLLVM-14's code: operand-size stores, TLS and stack-protector
 * loads). The tables are computed by this decoder when memsz is built
 * (elf/x86gen.c writes elf/x86fast.inc, which elf/x86fast.c compiles in):
 * filled on first use instead, the entries cost libc.so.6's sweep 0.6 ms,
 * a sixth of its decoding; all of them at start, a millisecond. */

/* Is the MOV immediate of in one x86_insn_target() takes? */
static bool movi(const struct x86_insn *in)
{
	return in->mov && in->imm_size >= 32;
}

/* Each page's prefix (0: none) and opcode map (0F or not) */
static const uint8_t page_prefix[X86_PAGES] = {
    [X86_PG_66] = 0x66,
    [X86_PG_66_0F] = 0x66,
    [X86_PG_F3_0F] = 0xf3,
    [X86_PG_FS] = 0x64,
};
static const bool page_0f[X86_PAGES] = {
    [X86_PG_PLAIN_0F] = true,
    [X86_PG_66_0F] = true,
    [X86_PG_F3_0F] = true,
};

static bool is_rex(unsigned b)
{
	return (b & 0xf0) == 0x40;
}

uint8_t x86_pre_entry(unsigned b0, unsigned b1)
{
#define PRE(n, w, fs, page)                                                    \
	(uint8_t)((n) | ((w) ? X86P_W : 0) | ((fs) ? X86P_FS : 0) |            \
		  (page) << X86P_PAGE)
	bool w0 = b0 & 8, w1 = b1 & 8;

	if (is_rex(b0))
		return b1 == 0x0f ? PRE(2, w0, 0, X86_PG_PLAIN_0F)
				  : PRE(1, w0, 0, X86_PG_PLAIN);
	if (b0 == 0x0f)
		return PRE(1, 0, 0, X86_PG_PLAIN_0F);
	if (b0 == 0x66) {
		/* 66 and REX.W: the immediate's size is REX.W's */
		if (b1 == 0x0f)
			return PRE(2, 0, 0, X86_PG_66_0F);
		if (is_rex(b1))
			return w1 ? 0 : PRE(2, 0, 0, X86_PG_66);
		return prefix_kind[b1] ? 0 : PRE(1, 0, 0, X86_PG_66);
	}
	if (b0 == 0xf3)
		return b1 == 0x0f ? PRE(2, 0, 0, X86_PG_F3_0F) : 0;
	if (prefix_kind[b0] == P_FSGS) {
		if (is_rex(b1))
			return PRE(2, w1, 1, X86_PG_FS);
		return prefix_kind[b1] || b1 == 0x0f ? 0
						     : PRE(1, 0, 1, X86_PG_FS);
	}
	return 0;
#undef PRE
}

uint8_t x86_fast_entry(unsigned page, unsigned op, unsigned m)
{
	uint8_t b[X86_FAST_READ] = {0}, bw[X86_FAST_READ] = {0};
	unsigned pfx = page_prefix[page];
	/* the page's REX: with W (but behind 66, which W overrides) */
	uint8_t rex = pfx == 0x66 ? 0x40 : 0x48;
	struct x86_insn in, inw;
	size_t i = 0, len, lenw;
	uint8_t e;

	/* a legacy prefix, a REX or a 0F read as the opcode of the one-byte
	 * map: the decoder reads it another way (a 0F behind a prefix and a
	 * REX: x86_pre_tab did not see it) */
	if (!page_0f[page] && (prefix_kind[op] || is_rex(op) || op == 0x0f))
		return X86_NONE;
	/* VEX, EVEX: the table's key (opcode, next byte) does not hold
	 * their fields */
	if (!page_0f[page] && (op == 0xc4 || op == 0xc5 || op == 0x62))
		return X86_NONE;
	if (pfx) {
		b[i] = bw[i] = (uint8_t)pfx;
		i++;
	}
	bw[i] = rex;
	if (page_0f[page]) {
		b[i] = bw[i + 1] = 0x0f;
		i++;
	}
	b[i] = bw[i + 1] = (uint8_t)op;
	b[i + 1] = bw[i + 2] = (uint8_t)m;
	len = x86_decode_fast(b, sizeof(b), &in);
	lenw = x86_decode_fast(bw, sizeof(bw), &inw);
	/* an entry counts from the opcode on, x86_pre_tab the bytes before */
	if (!len || len - i > X86_LEN || !lenw ||
	    (lenw - 1 != len && lenw - 1 != len + 4))
		return X86_NONE;
	e = (uint8_t)(len - i);
	if (lenw - 1 == len + 4)
		e |= X86_W4;
	if (in.modrm && in.mod == 0 && in.rm == 5 && in.disp_size == 32)
		e |= X86_RIP;
	if (in.sib && in.mod == 0)
		e |= X86_SIB0;
	if (movi(&in))
		e |= X86_MOVI;
	/* the answers the table cannot give are left to the decoder:
	 * anything else that REX.W changes otherwise (a longer immediate is
	 * a MOV's 64-bit one only) */
	if (in.fs_gs != (page == X86_PG_FS) || inw.modrm != in.modrm ||
	    inw.disp_size != in.disp_size || movi(&inw) != movi(&in) ||
	    ((e & X86_W4) && !(e & X86_MOVI)))
		return X86_NONE;
	return e;
}

enum x86_kind x86_insn_target(const struct x86_insn *in, uint64_t addr,
			      bool abs, uint64_t *t)
{
	if (in->modrm && in->disp_size) {
		if (in->mod == 0 && in->rm == 5) {
			*t = addr + in->len + (uint64_t)in->disp;
			return X86_K_MEM;
		}
		if (abs && in->mod == 0 && in->rm == 4 && in->sib &&
		    in->sib_base == 5 && !in->fs_gs) {
			*t = (uint64_t)in->disp;
			return X86_K_MEM;
		}
	} else if (abs && in->disp_size && !in->fs_gs) {
		*t = (uint64_t)in->disp; /* moffs: mov al, [addr] */
		return X86_K_MEM;
	}
	if (abs && movi(in) && !in->store32) {
		*t = in->imm;
		return X86_K_IMM;
	}
	return X86_K_NONE;
}

/* The length of the multi-byte NOP compilers and assemblers pad code
 * with, at p (n bytes available): 0F 1F /0 behind any number of 66 and
 * at most one 2E (CS) after them, its operand [RAX], [RAX + disp8],
 * [RAX + RAX*1 + disp8], [RAX + disp32] or [RAX + RAX*1 + disp32]
 * (objdump's "nopw %cs:0x0(%rax,%rax,1)": 66 2E 0F 1F 84 00 00 00 00
 * 00), up to 15 bytes; else 0. With three prefix bytes or more, or 66
 * and 2E, x86_decode_tab()'s table (two bytes before the opcode at
 * most) has no answer for them, and they are all but a few of its
 * misses in compiled code (1 % of libLLVM-14's instructions): told
 * here by their bytes, not by x86_decode_fast()'s walk. Each is
 * decoded by x86_decode_fast() alike (tests/test_x86dec compares) and
 * names no address (its base is RAX). */
static size_t pad_nop_len(const uint8_t *p, size_t n)
{
	size_t i = 0, len;
	unsigned m;

	n = n < 15 ? n : 15;
	while (i < n && p[i] == 0x66)
		i++;
	if (i < n && p[i] == 0x2e)
		i++;
	if (i + 3 > n || p[i] != 0x0f || p[i + 1] != 0x1f)
		return 0;
	m = p[i + 2];
	if (m == 0x00)
		len = i + 3;
	else if (m == 0x40)
		len = i + 4;
	else if (m == 0x44)
		len = i + 5;
	else if (m == 0x80)
		len = i + 7;
	else if (m == 0x84)
		len = i + 8;
	else
		return 0;
	/* the SIB byte of 44 and 84: RAX + RAX*1 */
	if (len > n || ((m & 7) == 4 && p[i + 3] != 0x00))
		return 0;
	return len;
}

size_t x86_decode_ref_slow(const uint8_t *p, size_t n, uint64_t addr, bool abs,
			   enum x86_kind *kind, uint64_t *t)
{
	struct x86_insn in;
	size_t len = pad_nop_len(p, n);

	if (len) {
		*kind = X86_K_NONE;
		return len;
	}
	len = x86_decode_fast(p, n, &in);
	*kind = len ? x86_insn_target(&in, addr, abs, t) : X86_K_NONE;
	return len;
}
