// SPDX-License-Identifier: GPL-2.0-or-later
/* x86dec.c — the length and address fields of common x86-64 instructions,
 * from two opcode tables, before Zydis is asked (elf/xrefs.c).
 *
 * Zydis decodes any instruction but takes some 50 ns for each; compiled
 * code is mostly a few dozen one-byte-map and 0F-map opcodes, whose
 * length follows from the prefixes, the opcode, the ModRM/SIB bytes and
 * the immediate's kind. Anything else (LOCK/REP/mandatory prefixes,
 * VEX/EVEX, x87, three-byte maps, moffs, opcode extensions that are
 * invalid or change the immediate) is left to Zydis, so that every
 * answer given here is the one Zydis would give.
 */
#include "config.h"

#include "elf/x86dec.h"

#include <string.h>

/* Opcode properties: a ModRM byte; an immediate of 1 byte, 2 bytes, 4
 * bytes (2 with an operand-size prefix: "z"), 4 or 8 bytes (REX.W; 2 with
 * 66: "v"), or a relative branch target of 4 bytes (left to Zydis with an
 * operand-size prefix); 66 allowed in the 0F map; left to Zydis (X); the
 * ModRM reg field decides (G: see group_ok()). */
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

/* The 0F map: what is not listed goes to Zydis. */
static const uint16_t map2[256] = {
    [0x05] = F_66, [0x0b] = F_66, [0x1f] = F_M | F_66 | F_G,
    /* SSE without a prefix: movups, unpck, movaps, (u)comiss, arith */
    [0x10] = F_M, [0x11] = F_M, [0x14] = F_M, [0x15] = F_M,
    [0x28] = F_M, [0x29] = F_M, [0x2e] = F_M, [0x2f] = F_M,
    [0x51 ... 0x5f] = F_M,
    [0x31] = F_66, [0xa2] = F_66,
    [0x40 ... 0x4f] = F_M | F_66,
    [0x80 ... 0x8f] = F_IZ | F_REL,
    [0x90 ... 0x9f] = F_M | F_66,
    [0xa3] = F_M | F_66, [0xa4] = F_M | F_IB | F_66, [0xa5] = F_M | F_66,
    [0xab] = F_M | F_66, [0xac] = F_M | F_IB | F_66, [0xad] = F_M | F_66,
    [0xaf] = F_M | F_66, [0xb0] = F_M, [0xb1] = F_M | F_66,
    [0xb3] = F_M | F_66, [0xb6] = F_M | F_66, [0xb7] = F_M | F_66,
    [0xba] = F_M | F_IB | F_66 | F_G, [0xbb] = F_M | F_66,
    [0xbc] = F_M | F_66, [0xbd] = F_M | F_66, [0xbe] = F_M | F_66,
    [0xbf] = F_M | F_66, [0xc0] = F_M, [0xc1] = F_M | F_66,
    [0xc8 ... 0xcf] = F_66,
};
/* clang-format on */

/* Is ModRM byte m valid for opcode op (of the 0F map if two) where the
 * reg field selects the instruction or the memory form is required? The
 * forms refused here (invalid, undocumented aliases, or with another
 * immediate: C6/C7 F8 are xabort/xbegin) go to Zydis. */
static bool group_ok(unsigned op, bool two, uint8_t m)
{
	unsigned reg = (m >> 3) & 7, mod = m >> 6;

	if (two)
		return op == 0x1f ? reg == 0 : reg >= 4; /* nop; bt* */
	switch (op) {
	case 0x8d: /* lea: memory only */
		return mod != 3;
	case 0x8f: /* pop r/m (others: XOP) */
	case 0xc6: /* mov r/m, imm */
	case 0xc7:
		return reg == 0;
	case 0xc0: /* shifts: /6 is an alias */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		return reg != 6;
	case 0xf6: /* test (/0; /1 is an alias), not, neg, mul, div */
	case 0xf7:
		return reg != 1;
	case 0xfe: /* inc, dec */
		return reg < 2;
	case 0xff: /* inc dec call callf jmp jmpf push; far: memory */
		return reg != 7 && !((reg == 3 || reg == 5) && mod == 3);
	}
	return false;
}

/* The little-endian signed n-byte value at p. */
static int64_t get_s(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	return (int64_t)v;
}

/* The ModRM byte at p[i] and what follows it (SIB, displacement) into
 * in; the index after them, or 0 if they run past n. */
static size_t modrm(const uint8_t *p, size_t i, size_t n, struct x86_insn *in)
{
	uint8_t m;
	unsigned disp = 0;

	if (i >= n)
		return 0;
	m = p[i++];
	in->modrm = true;
	in->mod = m >> 6;
	in->rm = m & 7;
	if (in->mod != 3 && in->rm == 4) {
		if (i >= n)
			return 0;
		in->sib = true;
		in->sib_base = p[i++] & 7;
		if (in->mod == 0 && in->sib_base == 5)
			disp = 4;
	}
	if (in->mod == 0 && in->rm == 5)
		disp = 4;
	else if (in->mod == 1)
		disp = 1;
	else if (in->mod == 2)
		disp = 4;
	if (disp) {
		if (i + disp > n)
			return 0;
		in->disp_size = (uint8_t)(disp * 8);
		in->disp = get_s(p + i, disp);
		i += disp;
	}
	return i;
}

/* The size in bytes of the immediate of an opcode of properties f. */
static unsigned imm_bytes(unsigned f, bool opsize, bool rexw)
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

size_t x86_decode_fast(const uint8_t *p, size_t n, struct x86_insn *in)
{
	bool opsize = false, rexw = false, two = false;
	size_t i = 0, max = n < 15 ? n : 15;
	unsigned f, op, ib;

	memset(in, 0, sizeof(*in));
	for (;; i++) {
		if (i >= max)
			return 0;
		switch (p[i]) {
		case 0x66:
			opsize = true;
			continue;
		case 0x64:
		case 0x65:
			in->fs_gs = true;
			continue;
		case 0x67: /* same ModRM layout; moffs go to Zydis */
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
			continue;
		}
		break;
	}
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
		if (!f || (f & F_X) || (opsize && !(f & F_66)))
			return 0;
		f &= ~(unsigned)F_66;
	} else {
		f = map1[op];
		if (f & F_X)
			return 0;
	}
	if ((f & F_REL) && opsize)
		return 0;
	if (f & F_M) {
		if (i >= max || ((f & F_G) && !group_ok(op, two, p[i])))
			return 0;
		/* test /0 has an immediate, the rest of F6/F7 none */
		if ((op == 0xf6 || op == 0xf7) && !two && ((p[i] >> 3) & 7))
			f &= ~(unsigned)(F_IB | F_IZ);
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
	in->mov = !two && (op == 0xc7 || (op >= 0xb8 && op <= 0xbf) ||
			   (op >= 0x88 && op <= 0x8b) || op == 0xc6 ||
			   (op >= 0xb0 && op <= 0xb7));
	in->len = (uint8_t)i;
	return i;
}
