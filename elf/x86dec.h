/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86dec.h — a length decoder for common x86-64 instructions, in front of
 * Zydis (elf/xrefs.c); private to elf/. */
#ifndef MEMSZ_ELF_X86DEC_H
#define MEMSZ_ELF_X86DEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What elf/xrefs.c needs of one instruction: its length and the raw
 * fields that can name an address, as Zydis reports them in its
 * ZydisDecodedInstructionRaw (sizes in bits; displacement and immediate
 * sign-extended, as Zydis's raw value of MOV's imm32 is). */
struct x86_insn {
	uint8_t len;
	bool modrm, sib;
	bool fs_gs; /* an FS or GS segment prefix */
	bool mov;   /* the mnemonic is MOV */
	uint8_t mod, rm, sib_base;
	uint8_t disp_size, imm_size;
	int64_t disp;
	uint64_t imm;
};

/* Decode the instruction at p (n bytes available) in 64-bit mode into
 * *in and return its length, when it is one of the common encodings this
 * decoder knows (the one-byte opcode map and the integer and plain SSE
 * part of the 0F map, without LOCK, REP or mandatory prefixes; see
 * x86dec.c); else return 0 and leave it to Zydis: VEX, EVEX, x87, the
 * 0F 38 and 0F 3A maps, moffs, and whatever Zydis would refuse. Where it
 * answers, it answers as Zydis does (tests/test_x86dec compares the two
 * over the code of the installed binaries). */
size_t x86_decode_fast(const uint8_t *p, size_t n, struct x86_insn *in);

/* What x86_decode_fast() answers for the instruction at p (n bytes
 * available), as far as a sweep of position-independent code needs it:
 * its length (0 where x86_decode_fast() gives no answer: ask Zydis), and
 * whether it addresses memory relative to RIP (ModRM mod 0, r/m 5), its
 * displacement then into *disp. Most instructions are answered from one
 * table lookup (see x86dec.c); thread-safe. */
size_t x86_decode_len(const uint8_t *p, size_t n, bool *rip, int64_t *disp);

#endif
