/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86dec.h — a length decoder for common x86-64 instructions, in front of
 * Zydis (elf/xrefs.c); private to elf/. */
#ifndef MEMSZ_ELF_X86DEC_H
#define MEMSZ_ELF_X86DEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <string.h>

/* What elf/xrefs.c needs of one instruction: its length and the raw
 * fields that can name an address, as Zydis reports them in its
 * ZydisDecodedInstructionRaw (sizes in bits; displacement and immediate
 * sign-extended, as Zydis's raw value of MOV's imm32 is). */
struct x86_insn {
	uint8_t len;
	bool modrm, sib;
	bool fs_gs; /* an FS or GS segment prefix */
	bool mov;   /* the mnemonic is MOV */
	/* a MOV of an imm32 into memory at 32-bit operand size (C7 /0,
	 * memory ModRM, no REX.W): 4 bytes stored, never a whole pointer of
	 * LP64 code, so its immediate names no address (a non-PIE store of
	 * a pointer is REX.W C7, the imm32 sign-extended) */
	bool store32;
	uint8_t mod, rm, sib_base;
	uint8_t disp_size, imm_size;
	int64_t disp;
	uint64_t imm;
};

/* Decode the instruction at p (n bytes available) in 64-bit mode into
 * *in and return its length, when it is one of the common encodings this
 * decoder knows (the one-byte opcode map and the integer, MMX and SSE
 * part of the 0F map, SSE with its mandatory prefixes, without LOCK or
 * REP; VEX and EVEX (x86vex.c, x86evex.c); see x86dec.c); else return
 * 0 and leave it to Zydis: x87, the legacy 0F 38 and 0F 3A maps, moffs,
 * and whatever Zydis would refuse.
 * Where it answers, it answers as Zydis does (tests/test_x86dec compares
 * the two over the code of the installed binaries, every opcode and
 * ModRM byte behind a few prefixes and every VEX and EVEX opcode and
 * ModRM byte in many forms). */
size_t x86_decode_fast(const uint8_t *p, size_t n, struct x86_insn *in);

/* How an instruction names an address: not at all, by a memory operand
 * (relative to RIP, or absolute), or by a MOV's immediate (a number that
 * may be an address or not: elf/xrefs.c weighs it). */
enum x86_kind { X86_K_NONE, X86_K_MEM, X86_K_IMM };

/* The address the instruction in (decoded at addr) names, into *t:
 * memory relative to RIP (next + disp), and with abs (position-dependent
 * code) a memory operand without base register and without FS/GS, a
 * moffs (X86_K_MEM), or a MOV's 32- or 64-bit immediate (X86_K_IMM), in
 * that order. Returns X86_K_NONE if it names none: most instructions,
 * told from the raw fields alone. */
enum x86_kind x86_insn_target(const struct x86_insn *in, uint64_t addr,
			      bool abs, uint64_t *t);

/* The VEX table (x86vex.c), [map - 1][pp: none, 66, F3, F2][opcode]:
 * 0 where x86_decode_fast() leaves the opcode to Zydis, else a mask of
 * the forms that exist (bit L | W << 1 | (vvvv != 1111) << 2 | (ModRM
 * mod == 3) << 3) or, for a group opcode, the row of x86_vex_group[]
 * (by ModRM reg) above X86V_GROUP, and X86V_IB (an 8-bit immediate) and
 * X86V_NM (no ModRM byte). */
enum { X86V_IB = 1 << 16, X86V_NM = 1 << 17, X86V_GROUP = 24 };
extern const uint32_t x86_vex_tab[3][4][256];
extern const uint16_t x86_vex_group[][8];

/* The EVEX table (x86evex.c), [map: 0F, 0F38, 0F3A, 5, 6][pp][opcode]
 * [memory, register operand]: the values of each field the form allows,
 * one bit per value: W (bits 0-1), L'L (2-5), b (6-7), z and aaa (8-11:
 * none, z without aaa, aaa, z with aaa), vvvv/V' naming a register
 * (12-13), bits 3 and 4 of the register ModRM reg names (R, R': 14-17)
 * and of the one r/m names (B, X: 18-21; memory: 0); 0: left to Zydis.
 * X86E_IB in the memory form: an 8-bit immediate; a group opcode has its
 * row of x86_evex_group[] (by ModRM reg) above X86E_GROUP there instead. */
enum { X86E_IB = 1 << 22, X86E_GROUP = 24 };
extern const uint32_t x86_evex_tab[5][4][256][2];
extern const uint32_t x86_evex_group[][8][2];

/* The tables x86_decode_tab() reads (see x86dec.c), computed when memsz
 * is built (x86_pre_entry(), x86_fast_entry()).
 * x86_pre_tab[b0][b1]: what the instruction's first two bytes say of its
 * prefixes: how many bytes come before the opcode (X86P_SH: a REX, 0F,
 * 66, F3, FS or GS byte, or two of them), its REX.W bit, an FS or GS
 * prefix, and the page of x86_fast_tab its opcode is looked up in
 * (X86P_PAGE: which prefix, which opcode map); 0 (no prefix, page
 * X86_PG_PLAIN) where the first byte is none of them, or the prefixes
 * are of a kind no page holds (their opcode, a prefix, answers nothing).
 * x86_fast_tab[page][opcode][byte after it]: the answer for an
 * instruction of that page from its opcode, the byte after it and the
 * SIB base, from its REX.W bit. One byte each: the entries that code
 * uses (a few dozen opcodes, all their ModRM bytes) stay in the
 * first-level cache. */
enum {
	X86_LEN = 15,	    /* the length from the opcode on; 0: not answered */
	X86_RIP = 1 << 4,   /* ModRM mod 0, r/m 5: disp32 relative to RIP */
	X86_SIB0 = 1 << 5,  /* a SIB under mod 0: base 5 adds a disp32 */
	X86_W4 = 1 << 6,    /* REX.W makes the immediate 4 bytes longer */
	X86_MOVI = 1 << 7,  /* a MOV whose immediate (at the end) is 32+ bits */
	X86_NONE = X86_W4,  /* not answered (W4 without a length) */
	X86_FAST_READ = 32, /* bytes the table's path may read from p */
};
enum {
	X86P_SH = 3,	  /* bytes before the opcode: 0, 1 or 2 */
	X86P_W = 1 << 2,  /* REX.W */
	X86P_FS = 1 << 3, /* an FS or GS prefix */
	X86P_PAGE = 4,	  /* the page, from this bit on */
};
/* The pages of x86_fast_tab: no prefix but REX; 66 (REX without W
 * after it: operand size and REX.W together are left to the decoder);
 * F3 (SSE's mandatory prefix: 0F map only); FS or GS (a segment
 * prefix: the address it names is no image address unless relative
 * to RIP). An opcode byte 0F in a page of the one-byte map answers
 * nothing: a 0F after a prefix and a REX is not seen by x86_pre_tab. */
enum {
	X86_PG_PLAIN,
	X86_PG_PLAIN_0F,
	X86_PG_66,
	X86_PG_66_0F,
	X86_PG_F3_0F,
	X86_PG_FS,
	X86_PAGES
};
extern const uint8_t x86_pre_tab[256][256];
extern const uint8_t x86_fast_tab[X86_PAGES][256][256];

/* x86_pre_tab[b0][b1] and x86_fast_tab[page][op][m], computed from
 * x86_decode_fast()'s answers (elf/x86gen.c calls them when memsz is
 * built). */
uint8_t x86_pre_entry(unsigned b0, unsigned b1);
uint8_t x86_fast_entry(unsigned page, unsigned op, unsigned m);

/* x86_decode_ref() where x86_decode_tab() gives no answer: a padding
 * NOP told by its bytes (no reference), else by x86_decode_fast() and
 * x86_insn_target(). */
size_t x86_decode_ref_slow(const uint8_t *p, size_t n, uint64_t addr, bool abs,
			   enum x86_kind *kind, uint64_t *t);

/* The little-endian 32-bit value at p, sign-extended; 64-bit value. */
static inline int64_t x86_get_s32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return (int32_t)le32toh(v);
}

static inline uint64_t x86_get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* x86_decode_tab()'s answer: the instruction's length and whether it
 * names an address (ref: X86_REF if so, else 0), that address then in t,
 * and imm if it is a MOV's immediate (x86_insn_target()'s X86_K_IMM);
 * none at all (not ok) where the table does not answer. 16 bytes:
 * returned in registers. */
struct x86_ref {
	uint64_t t;
	uint32_t len;
	uint8_t ok, ref, imm;
};
/* x86_ref.ref of an instruction that names an address: the table's
 * X86_RIP bit as it is, so that position-independent code's answer
 * costs no shift (the sweep moves its output on by ref: the size of
 * a [instruction, target] pair is X86_REF bytes) */
#define X86_REF X86_RIP

/* x86_decode_ref() of an instruction with X86_FAST_READ bytes available
 * at p, from its table entry alone: not ok where the entry gives no
 * answer (prefixes no page holds, VEX, EVEX, what x86_decode_fast()
 * leaves to Zydis: ask x86_decode_ref()). No branch
 * depends on the kind of instruction (the sweep of a 50 MB .text decodes
 * 12 M instructions, and its time was mostly branches missed); inlined
 * into the sweeps, thread-safe. */
static inline __attribute__((always_inline)) struct x86_ref
x86_decode_tab(const uint8_t *p, uint64_t addr, bool abs)
{
	unsigned v, sh, e, more, sib5, w8, movi;
	uint64_t w, ws, rip_t, sib_t, imm_t;
	struct x86_ref r;
	size_t at;

	/* the prefixes, opcode, ModRM and SIB shifted out of one load; the
	 * first two bytes say how many prefix bytes to shift out and which
	 * page the opcode is looked up in */
	w = x86_get_u64(p);
	v = (&x86_pre_tab[0][0])[__builtin_bswap16((uint16_t)w)];
	sh = (v & X86P_SH) * 8;
	/* the opcode and the byte after it, swapped into one index */
	ws = w >> sh;
	e = (&x86_fast_tab[0][0][0])[(size_t)(v >> X86P_PAGE) << 16 |
				     __builtin_bswap16((uint16_t)ws)];
	/* 4 more bytes: a disp32 for SIB base 5, or a MOV's imm64 (never
	 * both: X86_W4 is for opcodes without ModRM). more: the entry's
	 * X86_SIB0 bit if the SIB base is 5, its X86_W4 bit if REX.W is set
	 * (X86P_W moved to X86_W4's place): one test for both */
	more = e & ((unsigned)(((ws >> 16) & 7) == 5) * X86_SIB0 |
		    (v & X86P_W) * (X86_W4 / X86P_W));
	r.len = (v & X86P_SH) + (e & X86_LEN) + (more ? 4 : 0);
	r.ok = (e & X86_LEN) != 0;
	at = (v & X86P_SH) + 2; /* after the ModRM byte */
	rip_t = addr + r.len + (uint64_t)x86_get_s32(p + at);
	if (!abs) {
		r.ref = e & X86_REF;
		r.imm = 0;
		r.t = rip_t;
		return r;
	}
	/* position-dependent: RIP-relative, else a disp32 without base
	 * (not behind FS or GS), else a MOV's immediate
	 * (x86_insn_target()'s order) */
	sib5 = (more & X86_SIB0) && !(v & X86P_FS);
	w8 = (more & X86_W4) != 0;
	sib_t = (uint64_t)x86_get_s32(p + at + 1);
	/* the immediate ends the instruction: read from 0 when there is
	 * none, so that no byte before p is read */
	at = e & X86_MOVI ? r.len - (w8 ? 8 : 4) : 0;
	imm_t = w8 ? x86_get_u64(p + at) : (uint64_t)x86_get_s32(p + at);
	/* a MOV's immediate unless the MOV stores 4 bytes into memory (C7,
	 * a memory ModRM, no REX.W: x86_insn.store32) */
	movi = (e & X86_MOVI) &&
	       !((uint8_t)ws == 0xc7 && ((ws >> 14) & 3) != 3 && !(v & X86P_W));
	r.ref = (e & X86_RIP) || movi || sib5 ? X86_REF : 0;
	r.imm = movi && !(e & X86_RIP) && !sib5;
	r.t = e & X86_RIP ? rip_t : sib5 ? sib_t : imm_t;
	return r;
}

/* The length of the instruction at p (n bytes available) decoded at addr,
 * and how it names an address (*kind), that address then into *t: as
 * x86_decode_fast() and x86_insn_target() answer (length 0 where
 * x86_decode_fast() gives none: ask Zydis); most instructions by
 * x86_decode_tab(). Thread-safe. */
static inline __attribute__((always_inline)) size_t
x86_decode_ref(const uint8_t *p, size_t n, uint64_t addr, bool abs,
	       enum x86_kind *kind, uint64_t *t)
{
	struct x86_ref r;

	if (n >= X86_FAST_READ) {
		r = x86_decode_tab(p, addr, abs);
		if (r.ok) {
			*kind = !r.ref	? X86_K_NONE
				: r.imm ? X86_K_IMM
					: X86_K_MEM;
			*t = r.t;
			return r.len;
		}
	}
	return x86_decode_ref_slow(p, n, addr, abs, kind, t);
}

#endif
