/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xzydis.h — the Zydis decoder behind x86_decode_fast() (xrefs.c);
 * private to elf/. */
#ifndef MEMSZ_ELF_XZYDIS_H
#define MEMSZ_ELF_XZYDIS_H

#include <Zydis/Zydis.h>
#include <stddef.h>
#include <stdint.h>

struct x86_insn;

/* Load libZydis (once) and set *dec up for 64-bit code. Returns 0, or
 * a negative code when the library is missing or refuses. */
int xzy_decoder(ZydisDecoder *dec);

/* The instruction at p (n bytes left) into *in, by Zydis. Returns its
 * length, 0 if Zydis cannot decode it. */
size_t decode_zydis(const ZydisDecoder *dec, const uint8_t *p, size_t n,
		    struct x86_insn *in);

#endif
